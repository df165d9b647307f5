//! tsc's CommonJS output bundled by esbuild as Copilot's language server is (the esbuild pinned
//! in `tools/bundlers`, `keepNames` and an injected `import.meta.url` shim): every module
//! starts with the shim's initializer call, `init_shim();`, and tsc's getters are wrapped in
//! esbuild's `__name`, `get: __name(function () {...}, "get")`. The calls plan sees through
//! both, so `(0, lib.f)()` loses its `0,` where `f` (a getter's, a star re-export's or the
//! module's own export) needs no receiver; an export that reads `this` keeps it. A shim that
//! runs another module's code, and a `__name` of another shape, keep every `0,`. The bundle
//! and the output, run with node, print the same.

mod common;

use std::path::{Path, PathBuf};

use common::{bundlers, install_bundlers, node_in, scratch, unbundle_and_run};

/// tsc's helpers and re-exports, as tsc 5 writes them for CommonJS.
const LIB: &str = r#""use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.own = exports.who = exports.free = void 0;
__exportStar(require("./star.js"), exports);
var dep_1 = require("./dep.js");
Object.defineProperty(exports, "free", { enumerable: true, get: function () { return dep_1.free; } });
Object.defineProperty(exports, "who", { enumerable: true, get: function () { return dep_1.who; } });
function own() { return "own"; }
exports.own = own;
"#;

const WHO: &str =
    "function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; }";

/// The app's files; `shim` is the injected shim's text.
fn sources(shim: &str) -> Vec<(&'static str, String)> {
    vec![
        ("entry.js", "require(\"./run.js\");\n".to_owned()),
        (
            "run.js",
            "\"use strict\";\nvar lib_1 = require(\"./lib.js\");\nconsole.log([(0, lib_1.free)(), (0, lib_1.who)(), (0, lib_1.starFree)(), (0, lib_1.starWho)(), (0, lib_1.own)()].join(\" \"));\n".to_owned(),
        ),
        ("lib.js", LIB.to_owned()),
        (
            "dep.js",
            format!("\"use strict\";\nexports.free = () => \"free\";\nexports.who = {WHO};\n"),
        ),
        (
            "star.js",
            format!(
                "\"use strict\";\nexports.starFree = () => \"star-free\";\nexports.starWho = {};\n",
                WHO.replace("\"none\"", "\"star-none\"")
            ),
        ),
        ("shim.js", shim.to_owned()),
        ("base.mjs", "export const base = \"\";\n".to_owned()),
    ]
}

/// The shim esbuild's users inject for `import.meta.url` in CommonJS output.
const SHIM: &str = "export var importMetaUrlShim = typeof document === \"undefined\" ? require(\"node:url\").pathToFileURL(__filename).href : importMetaUrlShim;\n";

/// A shim whose initializer runs another module's initializer first.
const SHIM_IMPORTING: &str = "import { base } from \"./base.mjs\";\nexport var importMetaUrlShim = base + (typeof document === \"undefined\" ? require(\"node:url\").pathToFileURL(__filename).href : importMetaUrlShim);\n";

/// Bundles the app with the pinned esbuild, `keepNames` and the shim injected: the bundle's
/// path.
fn build(dir: &Path, shim: &str, minify: bool) -> PathBuf {
    install_bundlers();
    for (name, text) in sources(shim) {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: ['entry.js'], bundle: true, platform: 'node', \
         keepNames: true, inject: ['shim.js'], minify: {minify}, outfile: 'bundle/main.js', \
         logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join("bundle/main.js")
}

/// Unbundles `text` (written to `bundle`) into `dir/out`, checks that both print the same
/// and gives the text of the file holding `run.js`'s calls.
fn unbundle_and_run_calls(dir: &Path, bundle: &Path, text: &str) -> String {
    let output = unbundle_and_run(dir, bundle, text, "free none star-free star-none own\n");
    // Minified, files and variables have other names: the file is found by what it does.
    let run = output
        .files
        .iter()
        .find(|f| f.text.contains(".join(\" \")"));
    run.expect("run.js's file").text.clone()
}

/// Whether `run` calls export `name` without its `0,` (the calls' ends only: minified, the
/// variable has another name).
fn receiver_given(run: &str, name: &str) -> bool {
    run.contains(&format!(".{name}(),")) || run.contains(&format!(".{name}()\n"))
}

fn kept_zero(run: &str, name: &str) -> bool {
    run.contains(&format!(".{name})()"))
}

#[test]
fn tsc_s_helpers_behind_esbuild_s_shim_call_and_name_helper_still_let_calls_lose_their_zero() {
    for minify in [false, true] {
        let dir = scratch("tsc-in-esbuild", &format!("shim-{minify}"));
        let bundle = build(&dir, SHIM, minify);
        let text = std::fs::read_to_string(&bundle).unwrap();
        let run = unbundle_and_run_calls(&dir, &bundle, &text);
        for name in ["free", "starFree", "own"] {
            assert!(receiver_given(&run, name), "minify {minify}, {name}: {run}");
        }
        for name in ["who", "starWho"] {
            assert!(kept_zero(&run, name), "minify {minify}, {name}: {run}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_shim_that_runs_another_module_first_keeps_every_zero() {
    let dir = scratch("tsc-in-esbuild", "shim-importing");
    let bundle = build(&dir, SHIM_IMPORTING, false);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let run = unbundle_and_run_calls(&dir, &bundle, &text);
    for name in ["free", "who", "starFree", "starWho", "own"] {
        assert!(kept_zero(&run, name), "{name}: {run}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_name_helper_of_another_shape_keeps_the_getters_zeros() {
    // The same behaviour (the function handed back), but not `defineProperty`'s own result.
    let dir = scratch("tsc-in-esbuild", "name-look-alike");
    let bundle = build(&dir, SHIM, false);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let namer = "__defProp(target, \"name\", { value, configurable: true })";
    assert!(text.contains(namer), "esbuild's __name: {text}");
    let text = text.replace(namer, &format!("({namer}, target)"));
    let run = unbundle_and_run_calls(&dir, &bundle, &text);
    // tsc's `__createBinding` is not recognized with that getter: `__exportStar` is not either,
    // and the module's exports, handed to it, are opaque.
    for name in ["free", "who", "starFree", "starWho", "own"] {
        assert!(kept_zero(&run, name), "{name}: {run}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
