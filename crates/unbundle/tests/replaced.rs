//! Calls through an interop helper's `default` of modules that replace their exports with a
//! function, and calls of getters defined by swc's `_export` helper, in bundles built by the
//! esbuild pinned in `tools/bundlers` from sources in tsc's and swc's shapes (as pnpm's and
//! Tailwind's server are): each `(0, y.default)(...)` whose function needs no receiver loses
//! its `0,`; look-alikes keep theirs (a function that reads `this`, a module that marks
//! itself `__esModule` with a `default` that reads `this`, a function handed on to code that
//! does so, a helper of another body); the unbundled program prints what the bundle prints.

mod common;

use std::path::{Path, PathBuf};

use common::{bundlers, install_bundlers, node_in, scratch, unbundle_into};

/// Writes `files` (name, text) into `dir` beside an entry that requires the first, and
/// bundles them with the pinned esbuild for node, unminified as pnpm's bundle is (each file a
/// `__commonJS` module, the entry esbuild's own code): the bundle's path.
fn build(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    install_bundlers();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let entry = format!("require(\"./{}\");\n", files[0].0);
    std::fs::write(dir.join("entry.js"), entry).unwrap();
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join("entry.js").to_str().unwrap(),
        dir.join("bundle/main.js").to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join("bundle/main.js")
}

/// Unbundles `bundle` into `dir/out`, checks that the bundle prints `expected` and the
/// output the same, and gives the text of the output file whose text holds `marker`.
fn unbundle_and_run(dir: &Path, bundle: &Path, expected: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(bundle).unwrap();
    let output = unbundle_into(dir, "main.js", &text);
    let out = dir.join("out");
    let before = node_in(dir, &[bundle.to_str().unwrap()]);
    assert_eq!(before.0, expected, "the bundle runs: {}", before.1);
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(dir, &[entry.to_str().unwrap()]), before);
    output
        .files
        .iter()
        .find(|f| f.text.contains(marker))
        .unwrap_or_else(|| panic!("no output file holds {marker}"))
        .text
        .clone()
}

/// tsc's `__importDefault`, as tsc writes it at the top of a CommonJS module.
const IMPORT_DEFAULT: &str = "\"use strict\";\nvar __importDefault = (this && this.__importDefault) || function (mod) {\n    return (mod && mod.__esModule) ? mod : { \"default\": mod };\n};\nObject.defineProperty(exports, \"__esModule\", { value: true });\n";

/// A function that says whether it was called with a receiver.
const WHO: &str = "function () { return this === undefined ? \"none\" : \"some\"; }";

#[test]
fn a_default_through_import_default_of_a_module_replaced_by_a_function_loses_its_zero() {
    let dir = scratch("replaced", "replaced");
    let main = format!(
        "{IMPORT_DEFAULT}const arrow_1 = __importDefault(require(\"./arrow\"));\nconst decl_1 = __importDefault(require(\"./decl\"));\nconsole.log((0, arrow_1.default)(2), arrow_1.default.sync(2), (0, decl_1.default)(3));\n"
    );
    let files = [
        ("main.js", main.as_str()),
        // As small npm packages write it: the function, and more functions on it.
        (
            "arrow.js",
            "module.exports = (a) => a * 2;\nmodule.exports.sync = (a) => a * 3;\n",
        ),
        // A declaration, also given as its own `default` (string-width, p-filter).
        (
            "decl.js",
            "\"use strict\";\nfunction twice(a) { return a + a; }\nmodule.exports = twice;\nmodule.exports.default = twice;\n",
        ),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "4 6 6\n", "console.log");
    assert!(
        text.contains("arrow_1.default(2)") && text.contains("decl_1.default(3)"),
        "{text}"
    );
    assert!(!text.contains("(0, "), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_default_that_could_get_a_receiver_keeps_its_zero() {
    // With a receiver, each would print "some":
    // - `reads-this.js` replaces its exports with a function that reads `this`;
    // - `marked.js` marks its function `__esModule`, so the helper hands on the function
    //   itself, whose `default` reads `this`;
    // - `handed.js`'s function is handed on by `mark.js` (`mark(h.default)`), which gives it
    //   an `__esModule` and such a `default` before `main.js` requires it.
    let dir = scratch("replaced", "look-alikes");
    let main = format!(
        "{IMPORT_DEFAULT}const reads_this_1 = __importDefault(require(\"./reads-this\"));\nconst marked_1 = __importDefault(require(\"./marked\"));\nrequire(\"./mark\");\nconst handed_1 = __importDefault(require(\"./handed\"));\nconsole.log((0, reads_this_1.default)(), (0, marked_1.default)(), (0, handed_1.default)());\n"
    );
    let reads_this = format!("\"use strict\";\nmodule.exports = {WHO};\n");
    let marked = format!(
        "\"use strict\";\nmodule.exports = () => 1;\nmodule.exports.__esModule = true;\nmodule.exports.default = {WHO};\n"
    );
    let mark = format!(
        "{IMPORT_DEFAULT}const handed_1 = __importDefault(require(\"./handed\"));\nfunction mark(f) {{ f.__esModule = true; f.default = {WHO}; }}\nmark(handed_1.default);\n"
    );
    let files = [
        ("main.js", main.as_str()),
        ("reads-this.js", reads_this.as_str()),
        ("marked.js", marked.as_str()),
        ("mark.js", mark.as_str()),
        ("handed.js", "module.exports = () => \"arrow\";\n"),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "none none none\n", "console.log");
    for call in [
        "(0, reads_this_1.default)()",
        "(0, marked_1.default)()",
        "(0, handed_1.default)()",
    ] {
        assert!(text.contains(call), "{call}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module in swc's shape whose getters `_export` defines (with `body` as its helper's
/// body): `greet` needs no receiver, `who` reads `this`.
fn swc_module(body: &str) -> String {
    format!(
        "\"use strict\";\nObject.defineProperty(exports, \"__esModule\", {{ value: true }});\nfunction _export(target, all) {{\n    {body}\n}}\n_export(exports, {{\n    greet: function() {{ return greet; }},\n    who: function() {{ return who; }}\n}});\nfunction greet(a) {{ return \"hi \" + a; }}\nfunction who() {{ return this === undefined ? \"none\" : \"some\"; }}\n"
    )
}

/// Bundles `lib` (a module in swc's shape) with a module that calls its `greet` and `who`
/// receiverless; the output file that calls them.
fn swc_calls(name: &str, lib: &str, expected: &str) -> String {
    let dir = scratch("replaced", name);
    let main = "\"use strict\";\nconst _lib = require(\"./lib\");\nconsole.log((0, _lib.greet)(\"x\"), (0, _lib.who)());\n";
    let bundle = build(&dir, &[("main.js", main), ("lib.js", lib)]);
    let text = unbundle_and_run(&dir, &bundle, expected, "console.log");
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn getters_of_swc_s_export_helper_are_known_as_define_property_s_are() {
    let lib = swc_module(
        "for(var name in all)Object.defineProperty(target, name, {\n        enumerable: true,\n        get: all[name]\n    });",
    );
    let text = swc_calls("swc-export", &lib, "hi x none\n");
    // esbuild's `_lib` is named after its module.
    assert!(text.contains("console.log(lib.greet(\"x\")"), "{text}");
    assert!(text.contains("(0, lib.who)()"), "{text}");
}

#[test]
fn a_look_alike_of_swc_s_export_helper_keeps_every_zero() {
    // It puts a function of its own, which reads `this`, in place of each getter: with a
    // receiver, `greet` would print "some".
    let lib = swc_module(&format!("for(var name in all) target[name] = {WHO};"));
    let text = swc_calls("swc-look-alike", &lib, "none none\n");
    assert!(text.contains("(0, lib.greet)(\"x\")"), "{text}");
}

#[test]
fn an_export_written_through_import_default_s_default_keeps_its_callers_zero() {
    // `a.js` is not marked `__esModule`, so `__importDefault` gives its exports object as
    // `default`: `c.js` replaces `a.js`'s `f` with a function that reads `this`, and `b.js`'s
    // `(0, a_1.f)()` must keep its `0,`.
    let dir = scratch("replaced", "written-default");
    let c = format!(
        "{IMPORT_DEFAULT}const a_1 = __importDefault(require(\"./a.js\"));\na_1.default.f = {WHO};\n"
    );
    let files = [
        (
            "main.js",
            "require(\"./c.js\");\nconsole.log(require(\"./b.js\").run());\n",
        ),
        ("a.js", "exports.f = () => \"plain\";\n"),
        (
            "b.js",
            "\"use strict\";\nconst a_1 = require(\"./a.js\");\nexports.run = () => (0, a_1.f)();\n",
        ),
        ("c.js", c.as_str()),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "none\n", "exports.run");
    assert!(text.contains("(0, a.f)()"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// ramda's `_curry2`, as pnpm's bundle holds it: every call returns a fresh function without
/// `this` (it calls `fn2` without a receiver).
const CURRY2: &str = "\"use strict\";\nfunction _curry2(fn2) {\n  return function f2(a, b) {\n    switch (arguments.length) {\n      case 0: return f2;\n      case 1: return function (_b) { return fn2(a, _b); };\n      default: return fn2(a, b);\n    }\n  };\n}\nmodule.exports = _curry2;\n";

/// ramda's `_curry1`'s shape: the function it returns hands its `this` on to `fn2`.
const CURRY1: &str = "\"use strict\";\nfunction _curry1(fn2) {\n  return function f1(a) {\n    return fn2.apply(this, arguments);\n  };\n}\nmodule.exports = _curry1;\n";

#[test]
fn a_default_of_a_module_replaced_by_what_a_factory_returns_loses_its_zero() {
    // `pick.js` is written as ramda's modules are: `module.exports` is the result of calling
    // `_curry2`, whose every return is a function without `this`. `who.js` is the same
    // through `_curry1`, whose function hands its receiver on: with one it prints "some".
    let dir = scratch("replaced", "factory");
    let main = format!(
        "{IMPORT_DEFAULT}const pick_1 = __importDefault(require(\"./pick\"));\nconst who_1 = __importDefault(require(\"./who\"));\nconsole.log((0, pick_1.default)(\"a\", {{a: 1, b: 2}}), (0, pick_1.default)(\"b\")({{b: 3}}), (0, who_1.default)(1));\n"
    );
    let who = format!(
        "\"use strict\";\nvar curry1 = require(\"./curry1\");\nvar who = curry1({WHO});\nmodule.exports = who;\n"
    );
    let files = [
        ("main.js", main.as_str()),
        (
            "pick.js",
            "var curry2 = require(\"./curry2\");\nvar pick = curry2(function pick2(name, obj) { return obj[name]; });\nmodule.exports = pick;\n",
        ),
        ("curry2.js", CURRY2),
        ("who.js", who.as_str()),
        ("curry1.js", CURRY1),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "1 3 none\n", "console.log");
    assert!(
        text.contains("pick_1.default(\"a\"") && text.contains("pick_1.default(\"b\")"),
        "{text}"
    );
    assert!(!text.contains("(0, pick_1.default)"), "{text}");
    assert!(text.contains("(0, who_1.default)(1)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `_curry1`'s shape gives a call, over `fn2`: its own `this` read, not only passed on.
const CURRY1_READS_THIS: &str = "\"use strict\";\nfunction _curry1(fn2) {\n  return function f1(a) {\n    return this === undefined ? fn2.apply(this, arguments) : \"some\";\n  };\n}\nmodule.exports = _curry1;\n";

#[test]
fn a_default_of_a_module_replaced_by_what_a_forwarding_factory_returns_loses_its_zero() {
    // `_curry1`'s function passes its `this` on to the function it was given: given one
    // without `this` (`clone.js`), a receiver changes nothing. `who.js` gives it one that
    // reads `this`, and `reads.js`'s factory reads `this` itself: with a receiver, each
    // would print "some".
    let dir = scratch("replaced", "forwarding");
    let main = format!(
        "{IMPORT_DEFAULT}const clone_1 = __importDefault(require(\"./clone\"));\nconst who_1 = __importDefault(require(\"./who\"));\nconst reads_1 = __importDefault(require(\"./reads\"));\nconsole.log((0, clone_1.default)(1), (0, who_1.default)(2), (0, reads_1.default)(3));\n"
    );
    let who = format!(
        "\"use strict\";\nvar curry1 = require(\"./curry1\");\nvar who = curry1({WHO});\nmodule.exports = who;\n"
    );
    let files = [
        ("main.js", main.as_str()),
        (
            "clone.js",
            "var curry1 = require(\"./curry1\");\nvar clone = curry1(function clone2(x) { return \"c\" + x; });\nmodule.exports = clone;\n",
        ),
        ("curry1.js", CURRY1),
        ("who.js", who.as_str()),
        (
            "reads.js",
            "var curry1 = require(\"./reads-curry1\");\nvar reads = curry1(function reads2(x) { return \"r\" + x; });\nmodule.exports = reads;\n",
        ),
        ("reads-curry1.js", CURRY1_READS_THIS),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "c1 none r3\n", "console.log");
    assert!(text.contains("clone_1.default(1)"), "{text}");
    assert!(!text.contains("(0, clone_1.default)"), "{text}");
    assert!(text.contains("(0, who_1.default)(2)"), "{text}");
    assert!(text.contains("(0, reads_1.default)(3)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_s_names_read_only_as_callees_keep_the_zero_off_its_modules_calls() {
    // `index.js` collects `pick.js` and `clone.js` as ramda's `src/index.js` does; its names
    // are only called, so both keep their function to themselves. `index2.js`'s `pick` is
    // read by `mark.js`, which gives it an `__esModule` and a `default` that reads `this`
    // before `main.js` requires `pick2.js` itself: with a receiver, that call prints "some".
    // `mark2.js` does the same to `index3.js`'s `pick`, read off a `require` call.
    let dir = scratch("replaced", "index");
    let main = format!(
        "{IMPORT_DEFAULT}const lib = require(\"./index\");\nconst pick_1 = __importDefault(require(\"./pick\"));\nrequire(\"./mark\");\nrequire(\"./mark2\");\nconst pick2_1 = __importDefault(require(\"./pick2\"));\nconst pick3_1 = __importDefault(require(\"./pick3\"));\nconsole.log((0, lib.pick)(\"a\", {{a: 1}}), (0, lib.clone)(2), (0, pick_1.default)(\"b\", {{b: 3}}), (0, pick2_1.default)(), (0, pick3_1.default)());\n"
    );
    let mark = format!(
        "\"use strict\";\nconst lib2 = require(\"./index2\");\nconst f = lib2.pick;\nf.__esModule = true;\nf.default = {WHO};\n"
    );
    let pick = |factory: &str| {
        format!(
            "var curry2 = require(\"./{factory}\");\nvar pick = curry2(function pick2(name, obj) {{ return obj[name]; }});\nmodule.exports = pick;\n"
        )
    };
    let mark2 = format!(
        "\"use strict\";\nconst f = require(\"./index3\").pick;\nf.__esModule = true;\nf.default = {WHO};\n"
    );
    let pick1 = pick("curry2");
    let files = [
        ("main.js", main.as_str()),
        (
            "index.js",
            "module.exports = {};\nmodule.exports.pick = require(\"./pick\");\nmodule.exports.clone = require(\"./clone\");\n",
        ),
        ("pick.js", pick1.as_str()),
        (
            "clone.js",
            "var curry1 = require(\"./curry1\");\nvar clone = curry1(function clone2(x) { return \"c\" + x; });\nmodule.exports = clone;\n",
        ),
        ("curry2.js", CURRY2),
        ("curry1.js", CURRY1),
        ("mark.js", mark.as_str()),
        (
            "index2.js",
            "module.exports = {};\nmodule.exports.pick = require(\"./pick2\");\n",
        ),
        ("pick2.js", pick1.as_str()),
        ("mark2.js", mark2.as_str()),
        (
            "index3.js",
            "module.exports = {};\nmodule.exports.pick = require(\"./pick3\");\n",
        ),
        ("pick3.js", pick1.as_str()),
    ];
    let bundle = build(&dir, &files);
    let text = unbundle_and_run(&dir, &bundle, "1 c2 3 none none\n", "console.log");
    for call in [
        // Named after its module.
        "index.pick(\"a\"",
        "index.clone(2)",
        "pick_1.default(\"b\"",
        "(0, pick2_1.default)()",
        "(0, pick3_1.default)()",
    ] {
        assert!(text.contains(call), "{call}: {text}");
    }
    assert!(!text.contains("(0, index."), "{text}");
    assert!(!text.contains("(0, pick_1."), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
