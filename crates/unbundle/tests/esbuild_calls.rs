//! `(0, x.f)(...)` calls in esbuild's module files lose their `0,` only where the receiver
//! cannot matter, in bundles built by the esbuild pinned in `tools/bundlers` and run with
//! node before and after (both must print the same):
//!
//! - a bundle's top-level variable that a module file reaches live, through the accessor
//!   object the split passes (`__pilotfish_live`), when every value it is ever given ignores
//!   its receiver: esbuild's `require_x` (given the result of `__commonJS`, an arrow or a
//!   function without `this`), a hoisted ES module variable only ever assigned functions
//!   without `this` or arrows (also as a template's tag). One once given a function that
//!   reads `this` keeps its `0,`: with the accessor object as its receiver it would print
//!   "some";
//! - a named export read through esbuild's `__toESM(require_x())`, recognized by its shape,
//!   as it would through `require_x()` itself, and its `default` as through tsc's
//!   `__importDefault`. A look-alike (another body) keeps every `0,`.

mod common;

use std::path::{Path, PathBuf};

use common::{bundlers, install_bundlers, node_in, scratch, unbundle_and_run};

/// `a.js` and `b.js` require each other, so `require_a` is declared after `b.js`'s module
/// and `b.js`'s file reaches it live. `m1.mjs` reads `arguments`, which keeps its initializer
/// in the bundle, so the names it assigns stay there and `m2.mjs`'s file reaches them live.
const SOURCES: [(&str, &str); 5] = [
    (
        "entry.js",
        "const a = require(\"./a.js\");\nconsole.log(a.run());\nimport(\"./m2.mjs\").then((m) => console.log(m.r));\n",
    ),
    (
        "a.js",
        "exports.who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\nexports.run = () => require(\"./b.js\").call();\n",
    ),
    ("b.js", "exports.call = () => require(\"./a.js\").who();\n"),
    (
        "m1.mjs",
        "export let who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\nexport let plain = function () { return \"plain\"; };\nexport const arrow = (s) => s[0];\nif (typeof arguments === \"undefined\") console.log(\"not bundled\");\n",
    ),
    (
        "m2.mjs",
        "import { who, plain, arrow } from \"./m1.mjs\";\nexport const r = [who(), plain(), arrow`tagged`].join(\" \");\n",
    ),
];

/// Writes `sources` (name, text; the first the entry) into `dir` and bundles them with the
/// pinned esbuild for node, minified or not: the bundle's path.
fn build(dir: &Path, sources: &[(&str, &str)], minify: bool) -> PathBuf {
    install_bundlers();
    for (name, text) in sources {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         minify: {minify}, outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join(sources[0].0).to_str().unwrap(),
        dir.join("bundle/main.js").to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join("bundle/main.js")
}

/// The text of the output file at `path`.
fn file(output: &unbundle::Output, path: &str) -> String {
    let found = output.files.iter().find(|f| f.path == path);
    found.unwrap_or_else(|| panic!("no {path}")).text.clone()
}

#[test]
fn a_live_variable_whose_every_value_ignores_its_receiver_is_called_without_zero() {
    let dir = scratch("esbuild-calls", "live");
    let bundle = build(&dir, &SOURCES, false);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let output = unbundle_and_run(&dir, &bundle, &text, "some\nnone plain tagged\n");
    let b = file(&output, "modules/b.js");
    assert!(b.contains("__pilotfish_live.require_a().who()"), "{b}");
    let m2 = file(&output, "modules/m2.mjs");
    assert!(m2.contains("(0, __pilotfish_live.who)()"), "{m2}");
    assert!(
        m2.contains("__pilotfish_live.plain()") && !m2.contains("(0, __pilotfish_live.plain)"),
        "{m2}"
    );
    assert!(m2.contains("__pilotfish_live.arrow`tagged`"), "{m2}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An ES module importing a CommonJS module's named exports (one that reads `this`) and a
/// module's `default` that replaced its exports with an arrow: esbuild binds both through
/// `__toESM(require_x(), 1)` in the ES module's initializer.
const IMPORTS: [(&str, &str); 4] = [
    ("entry.js", "console.log(require(\"./mid.mjs\").r);\n"),
    (
        "dep.js",
        "exports.useState = () => \"state\";\nexports.who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\n",
    ),
    ("fn.js", "module.exports = (x) => \"fn \" + x;\n"),
    (
        "mid.mjs",
        "import { useState, who } from \"./dep.js\";\nimport fn from \"./fn.js\";\nexport const r = [useState(), who(), fn(1)].join(\" \");\n",
    ),
];

#[test]
fn calls_through_esbuild_s_to_esm_lose_their_zero_as_through_require() {
    for minify in [false, true] {
        let dir = scratch("esbuild-calls", &format!("to-esm-{minify}"));
        let bundle = build(&dir, &IMPORTS, minify);
        let text = std::fs::read_to_string(&bundle).unwrap();
        let output = unbundle_and_run(&dir, &bundle, &text, "state none fn 1\n");
        // Minified, files and variables have other names: find the file by what it does,
        // and look at the calls' ends only.
        let found = output
            .files
            .iter()
            .find(|f| f.text.contains(".join(\" \")"));
        let mid = found.expect("mid.mjs's file").text.clone();
        assert!(
            mid.contains(".useState(),") && !mid.contains(".useState)("),
            "minify {minify}: {mid}"
        );
        assert!(
            mid.contains(".default(1)") && !mid.contains(".default)("),
            "minify {minify}: {mid}"
        );
        assert!(mid.contains(".who)()"), "minify {minify}: {mid}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn the_entry_s_own_calls_through_the_names_it_is_given_lose_their_zero_alike() {
    // The importer is the entry: its code stays at the bundle's top level, and its file's
    // function takes the bundle's names (`__toESM`, `require_dep`) as parameters.
    let mut sources = IMPORTS;
    sources[0] = (
        "entry.mjs",
        "import { useState, who } from \"./dep.js\";\nimport fn from \"./fn.js\";\nconsole.log([useState(), who(), fn(1)].join(\" \"));\n",
    );
    for minify in [false, true] {
        let dir = scratch("esbuild-calls", &format!("entry-{minify}"));
        let bundle = build(&dir, &sources[..3], minify);
        let text = std::fs::read_to_string(&bundle).unwrap();
        let output = unbundle_and_run(&dir, &bundle, &text, "state none fn 1\n");
        let found = output
            .files
            .iter()
            .find(|f| f.text.contains(".join(\" \")"));
        let entry = found.expect("the entry's file").text.clone();
        assert!(
            entry.contains(".useState(),") && !entry.contains(".useState)("),
            "minify {minify}: {entry}"
        );
        assert!(
            entry.contains(".default(1)") && !entry.contains(".default)("),
            "minify {minify}: {entry}"
        );
        // It reads `this`: the `0,` stays.
        assert!(entry.contains(".who)()"), "minify {minify}: {entry}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_to_esm_look_alike_keeps_every_zero() {
    // The same bundle, but its `__toESM` starts from an object with a `useState` of its own,
    // which `__copyProps` then leaves: called through the object, it would print "receiver".
    let dir = scratch("esbuild-calls", "look-alike");
    let bundle = build(&dir, &IMPORTS, false);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let fresh = "__create(__getProtoOf(mod))";
    assert!(text.contains(fresh), "esbuild's __toESM: {text}");
    let own = "{ useState: function () { return this === undefined || this === globalThis ? \"state\" : \"receiver\"; } }";
    let text = text.replace(fresh, own);
    let output = unbundle_and_run(&dir, &bundle, &text, "state none fn 1\n");
    let mid = file(&output, "modules/mid.mjs");
    assert!(
        mid.contains("(0, import_dep.useState)()") && mid.contains("(0, import_fn.default)(1)"),
        "{mid}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
