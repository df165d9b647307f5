//! The code that stays in an esbuild bundle file (an ES module bundle's scope-hoisted entry,
//! outside every module file), and a CommonJS bundle's entry, whose module file receives
//! `require_x` as a parameter, take part in the `calls` plan: when it replaces a module's
//! export with a function that reads `this` (`a.f = who` through `__toESM`'s `default`, or
//! `require_d().f = who`), a module file's `(0, a.f)()` keeps its `0,`, while a module the
//! bundle's own code only reads (`c.default.g()`) still has its calls lose theirs. The bundle
//! file's own `(0, y.f)()` calls follow the same rule (`(0, import_b.run)()` of an arrow loses
//! its `0,`, `(0, import_e.who)()` of a function that reads `this` keeps it). Built by the
//! esbuild pinned in `tools/bundlers` and run with node before and after: both print the same.
//! A module that hands on another's exports as its own (React's `index.js`) has its calls
//! lose their `0,` when each module it may hand on has them lose theirs, and a write through
//! it counts as a write to those modules' exports.

mod common;

use std::path::Path;

use common::{bundlers, install_bundlers, node_in, scratch, unbundle_into};

/// `b.js`, in tsc's shape, calls `a.f`, `c.g` and `d.f` without a receiver; the entry
/// replaces `a.f` and `d.f` with a function that says whether it got one, and calls `b.js`'s
/// `run` (an arrow) and `e.js`'s `who` (which reads `this`) without a receiver too.
const SOURCES: [(&str, &str); 6] = [
    (
        "entry.mjs",
        "import a from \"./a.js\";\nimport c from \"./c.js\";\nimport { run } from \"./b.js\";\nimport { who as e } from \"./e.js\";\nconst who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\na.f = who;\nrequire(\"./d.js\").f = who;\nconsole.log(run(), c.g(), e());\n",
    ),
    (
        "e.js",
        "exports.who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\n",
    ),
    ("a.js", "exports.f = () => \"plain\";\n"),
    (
        "b.js",
        "\"use strict\";\nconst a_1 = require(\"./a.js\");\nconst c_1 = require(\"./c.js\");\nconst d_1 = require(\"./d.js\");\nexports.run = () => [(0, a_1.f)(), (0, c_1.g)(), (0, d_1.f)()].join(\" \");\n",
    ),
    ("c.js", "exports.g = () => \"g\";\n"),
    ("d.js", "exports.f = () => \"plain\";\n"),
];

/// Bundles `sources` (the first the entry, `entry.mjs`) in `dir` with the pinned esbuild for node as `format` (`esm`: the entry's
/// code stays in the bundle file; `cjs`: it moves to a module file), into `bundle/NAME`: the
/// bundle's text.
fn build(dir: &Path, sources: &[(&str, &str)], format: &str, name: &str) -> String {
    install_bundlers();
    for (name, text) in sources {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         format: {format:?}, outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join("entry.mjs").to_str().unwrap(),
        dir.join("bundle").join(name).to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    std::fs::read_to_string(dir.join("bundle").join(name)).unwrap()
}

#[test]
fn an_export_the_bundle_file_s_own_code_replaces_keeps_its_callers_zero() {
    check(&scratch("own-code", "esm"), "esm", "main.mjs");
}

#[test]
fn an_export_an_esbuild_entry_replaces_keeps_its_callers_zero() {
    check(&scratch("own-code", "cjs"), "cjs", "main.js");
}

/// Bundles, unbundles and runs `SOURCES` as `format` in `dir`.
fn check(dir: &Path, format: &str, name: &str) {
    let dir = dir.to_path_buf();
    let text = build(&dir, &SOURCES, format, name);
    // The writes are in the bundle's own code, not in a module function.
    assert!(text.contains("import_a.default.f = who"), "{text}");
    assert!(text.contains("require_d().f = who"), "{text}");
    let output = unbundle_into(&dir, name, &text);
    let out = dir.join("out");
    let bundle = dir.join("bundle").join(name);
    let before = node_in(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(
        before.0, "none g none g none\n",
        "the bundle runs: {}",
        before.1
    );
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(&dir, &[entry.to_str().unwrap()]), before);
    let b = output
        .files
        .iter()
        .find(|f| f.text.contains("exports.run"))
        .expect("b.js has a module file")
        .text
        .clone();
    assert!(b.contains("(0, a.f)()"), "{b}");
    assert!(b.contains("(0, d.f)()"), "{b}");
    // What the bundle's own code only reads is no obstacle.
    assert!(b.contains("c.g()") && !b.contains("(0, c.g)"), "{b}");
    // The bundle's own calls (in the bundle file, or the entry's module file) by the same
    // rule: `run` ignores its receiver, `who` does not.
    let own = output
        .files
        .iter()
        .find(|f| f.text.contains("console.log("))
        .expect("the entry's code is in a file");
    if format == "esm" {
        assert!(own.text.contains("import_b.run()"), "{}", own.text);
    }
    assert!(own.text.contains("(0, import_e.who)()"), "{}", own.text);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module that hands on one of two modules' exports by `NODE_ENV`, as React's `index.js`
/// does, and its callers: a module file in tsc's shape and the bundle file's own code.
const FORWARDS: [(&str, &str); 5] = [
    (
        "entry.mjs",
        "import { use, who } from \"./fwd.js\";\nimport { run } from \"./user.js\";\nconsole.log(use(), who(), run());\n",
    ),
    (
        "fwd.js",
        "\"use strict\";\nif (process.env.NODE_ENV === \"production\") module.exports = require(\"./prod.js\");\nelse module.exports = require(\"./dev.js\");\n",
    ),
    (
        "prod.js",
        "exports.use = () => \"use\";\nexports.who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\n",
    ),
    (
        "dev.js",
        "exports.use = () => \"use\";\nexports.who = () => \"none\";\n",
    ),
    (
        "user.js",
        "\"use strict\";\nconst f_1 = require(\"./fwd.js\");\nexports.run = () => [(0, f_1.use)(), (0, f_1.who)()].join(\" \");\n",
    ),
];

#[test]
fn calls_through_a_module_that_hands_on_another_s_exports_lose_their_zero_when_every_one_s_would() {
    let dir = scratch("own-code", "forwards");
    let text = build(&dir, &FORWARDS, "esm", "main.mjs");
    let output = unbundle_into(&dir, "main.mjs", &text);
    let out = dir.join("out");
    let bundle = dir.join("bundle/main.mjs");
    for env in ["production", "development"] {
        let script = format!(
            "process.env.NODE_ENV = {env:?}; import({:?});",
            bundle.to_str().unwrap()
        );
        let before = node_in(&dir, &["-e", &script]);
        assert_eq!(
            before.0, "use none use none\n",
            "the bundle runs: {}",
            before.1
        );
        let entry = out.join(&output.manifest.entry);
        let script = format!(
            "process.env.NODE_ENV = {env:?}; import({:?});",
            entry.to_str().unwrap()
        );
        assert_eq!(node_in(&dir, &["-e", &script]), before);
    }
    let find = |marker: &str| {
        output
            .files
            .iter()
            .find(|f| f.text.contains(marker))
            .unwrap_or_else(|| panic!("no output file holds {marker}"))
            .text
            .clone()
    };
    // `use` needs no receiver in either module; `who` reads `this` in one of them.
    let user = find("exports.run");
    assert!(
        user.contains("fwd.use()") && !user.contains("(0, fwd.use)"),
        "{user}"
    );
    assert!(user.contains(".who)()"), "{user}");
    let own = find("console.log(");
    assert!(own.contains("import_fwd.use()"), "{own}");
    assert!(own.contains("(0, import_fwd.who)()"), "{own}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_export_written_through_a_module_that_hands_on_another_s_keeps_its_callers_zero() {
    // `writer.js` replaces `use` through `fwd.js`, which is `prod.js`'s exports in production:
    // `user.js`'s call of `prod.js`'s `use` must keep its `0,`.
    let dir = scratch("own-code", "forwards-written");
    let mut sources: Vec<(&str, &str)> = FORWARDS[1..4].to_vec();
    sources.insert(
        0,
        (
            "entry.mjs",
            "import \"./writer.js\";\nimport { run } from \"./user.js\";\nconsole.log(run());\n",
        ),
    );
    sources.push((
        "writer.js",
        "require(\"./fwd.js\").use = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\n",
    ));
    sources.push((
        "user.js",
        "\"use strict\";\nconst p_1 = require(\"./prod.js\");\nexports.run = () => (0, p_1.use)();\n",
    ));
    let text = build(&dir, &sources, "esm", "main.mjs");
    let output = unbundle_into(&dir, "main.mjs", &text);
    let out = dir.join("out");
    let run = |file: &Path| {
        let script = format!(
            "process.env.NODE_ENV = \"production\"; import({:?});",
            file.to_str().unwrap()
        );
        node_in(&dir, &["-e", &script])
    };
    let before = run(&dir.join("bundle/main.mjs"));
    assert_eq!(before.0, "none\n", "the bundle runs: {}", before.1);
    assert_eq!(run(&out.join(&output.manifest.entry)), before);
    let user = output
        .files
        .iter()
        .find(|f| f.text.contains("exports.run"))
        .expect("user.js has a module file");
    assert!(user.text.contains(".use)()"), "{}", user.text);
    let _ = std::fs::remove_dir_all(&dir);
}
