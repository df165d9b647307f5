//! A module file requires the files of the modules it uses: esbuild's `require_x()` (a
//! CommonJS wrapper's call) and `(init_x(), __toCommonJS(x_exports))` (an ES module required)
//! become `require("./x.js")`, which the loader answers with the same calls; and an ES module
//! bundle's helpers move to a runtime file as a script bundle's do. Bundles built by the
//! pinned esbuild and Bun (`tools/bundlers`), run with node before and after.

mod common;

use common::build_app;

/// The text of `app` built by `bundler` (one file, `main.js`), after installing the pinned
/// bundlers once.
fn build(bundler: &str, app: &str) -> String {
    build_file(bundler, app, "main.js")
}

/// The text of `file`, of `app` built by `bundler`.
fn build_file(bundler: &str, app: &str, file: &str) -> String {
    let dir = std::env::temp_dir().join(format!(
        "pilotfish-unbundle-requires-{}-{bundler}-{app}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    build_app(bundler, app, &dir);
    let text = std::fs::read_to_string(dir.join("bundle").join(file)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

fn unbundled(text: &str) -> unbundle::Output {
    unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap()
}

/// The output file whose path ends with `path` (the source paths a bundle reveals start
/// where esbuild ran).
fn file<'o>(out: &'o unbundle::Output, path: &str) -> &'o str {
    out.files
        .iter()
        .find(|f| f.path.ends_with(path))
        .map(|f| f.text.as_str())
        .unwrap_or_else(|| panic!("no {path} in the output"))
}

/// Every `require("./...")` of a module file, resolved from its folder: each must be a module
/// file of the output. `(file, path required)`.
fn requires_of_files(out: &unbundle::Output) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for f in out.files.iter().filter(|f| f.path.starts_with("modules/")) {
        for part in f.text.split("require(\"").skip(1) {
            let specifier = part.split('"').next().unwrap();
            if !specifier.starts_with('.') {
                continue;
            }
            let mut path: Vec<&str> = f.path.split('/').collect();
            path.pop();
            for piece in specifier.split('/') {
                match piece {
                    "." => {}
                    ".." => {
                        path.pop();
                    }
                    _ => path.push(piece),
                }
            }
            let path = path.join("/");
            assert!(
                out.files.iter().any(|o| o.path == path),
                "{} requires {specifier}, which is no file of the output",
                f.path
            );
            found.push((f.path.clone(), path));
        }
    }
    found
}

#[test]
fn calls_of_esbuild_s_wrappers_become_requires_of_their_files() {
    // Not minified, the modules are named by their paths: the app's entry requires ms
    // (`__toESM(require_ms())`) and consumer.js, a CommonJS module, requires tslib.js
    // (`require_tslib()`) and shapes.js, an ES module (`(init_shapes(),
    // __toCommonJS(shapes_exports))`).
    let text = build("esbuild-plain", "esm");
    let out = unbundled(&text);
    let consumer = file(&out, "apps/esm/lib/consumer.js");
    assert!(consumer.contains("require(\"./tslib.js\")"), "{consumer}");
    assert!(consumer.contains("require(\"./shapes.js\")"), "{consumer}");
    assert!(!consumer.contains("__toCommonJS("), "{consumer}");
    assert!(!consumer.contains("require_tslib()"), "{consumer}");
    let entry = file(&out, "modules/entry.cjs");
    assert!(
        entry.contains("__toESM(require(\"./") && entry.contains("node_modules/ms/index.js\"))"),
        "the interop helper stays around the require: {entry}"
    );
    assert!(out.changes.requires >= 6, "{:?}", out.changes);
    requires_of_files(&out);
    let (before, after) = common::run_both("requires-plain", &text, &out);
    assert!(before.0.contains("consumer:"), "{before:?}");
    assert_eq!(before, after);
}

#[test]
fn minified_the_same_calls_become_requires() {
    let text = build("esbuild", "esm");
    let out = unbundled(&text);
    let found = requires_of_files(&out);
    // The entry requires ms, consumer.js and legacy.js; consumer.js tslib.js and shapes.js;
    // legacy.js shapes.js.
    assert_eq!(found.len(), 6, "{found:?}");
    let (before, after) = common::run_both("requires-minified", &text, &out);
    assert_eq!(before, after);
}

#[test]
fn a_to_common_js_look_alike_keeps_its_calls() {
    // The same bundle with a `__toCommonJS` that marks its object otherwise: not esbuild's
    // shape, so `(init_shapes(), __toCommonJS(shapes_exports))` stays a call of it (the
    // CommonJS wrappers' calls still become requires).
    let text = build("esbuild-plain", "esm");
    let helper = "var __toCommonJS = (mod) => __copyProps(__defProp({}, \"__esModule\", { value: true }), mod);";
    assert!(
        text.contains(helper),
        "esbuild's helper as expected: {text}"
    );
    let text = text.replace(
        helper,
        "var __toCommonJS = (mod) => __copyProps(__defProp({}, \"__esModule\", { value: 2 }), mod);",
    );
    let out = unbundled(&text);
    let consumer = file(&out, "apps/esm/lib/consumer.js");
    assert!(
        consumer.contains("__toCommonJS(shapes_exports)"),
        "{consumer}"
    );
    assert!(!consumer.contains("require(\"./shapes.js\")"), "{consumer}");
    assert!(consumer.contains("require(\"./tslib.js\")"), "{consumer}");
    let (before, after) = common::run_both("requires-look-alike", &text, &out);
    assert_eq!(before, after);
}

#[test]
fn a_module_s_own_require_of_a_relative_path_stays_node_s() {
    // A module that requires a file beside the bundle by a path that is also the path of a
    // module file from its own: that module keeps its wrapper's call, and its own require
    // still finds the file beside the bundle.
    let text = "var q=(i,s)=>()=>(s||i((s={exports:{}}).exports,s),s.exports);var a=q((i,s)=>{s.exports=41});var b=q((i,s)=>{let r;try{r=require(\"./a.cjs\")}catch(e){r=\"none\"}s.exports=[a(),r]});console.log(b());";
    let out = unbundled(text);
    let b = file(&out, "modules/b.cjs");
    assert!(b.contains("a()"), "{b}");
    let (before, after) = common::run_both("requires-own", text, &out);
    assert_eq!(before.0, "[ 41, 'none' ]\n");
    assert_eq!(before, after);
}

/// Runs the ES module bundle `text` (as `main.mjs`) and its output with node, each in a
/// scratch folder of its own: standard output, standard error and exit status.
fn run_module_both(name: &str, text: &str, out: &unbundle::Output) -> (common::Run, common::Run) {
    let dir =
        std::env::temp_dir().join(format!("pilotfish-unbundle-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("main.mjs"), text).unwrap();
    for file in &out.files {
        let path = dir.join("out").join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
    let runs = (
        common::node(&dir.join("main.mjs")),
        common::node(&dir.join("out").join(&out.manifest.entry)),
    );
    let _ = std::fs::remove_dir_all(&dir);
    runs
}

/// `app` built by `bundler` as an ES module (`main.mjs`): the helpers are in
/// `esbuild-runtime.cjs`, which the bundle requires through node's `require` made for it, and
/// the output runs as the bundle does.
fn es_module_helpers_move(bundler: &str, app: &str, helper_shapes: &[&str]) {
    let text = build_file(bundler, app, "main.mjs");
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.mjs",
        text: &text,
    }])
    .unwrap();
    let runtime = out
        .files
        .iter()
        .find(|f| f.path == "esbuild-runtime.cjs")
        .map(|f| f.text.as_str())
        .unwrap_or_else(|| panic!("{bundler}: no runtime file in {:?}", out.notes));
    for shape in helper_shapes {
        assert!(runtime.contains(shape), "{bundler}: {shape} in {runtime}");
    }
    let main = file(&out, "main.mjs");
    assert!(
        main.contains("= __pilotfish_require(import.meta.url)(\"./esbuild-runtime.cjs\");"),
        "{bundler}: {main}"
    );
    let (before, after) = run_module_both(&format!("esm-runtime-{bundler}"), &text, &out);
    assert!(!before.0.is_empty(), "{bundler}: {before:?}");
    assert_eq!(before, after, "{bundler}");
}

#[test]
fn an_es_module_bundle_s_helpers_move_to_a_runtime_file() {
    es_module_helpers_move("esbuild-esm", "esm", &["is __commonJS", "is __toESM"]);
    // With a banner that makes the bundle a `require`, before the helpers.
    es_module_helpers_move("esbuild-esm-meta", "meta", &["is __commonJS"]);
}

#[test]
fn a_bun_bundle_s_helpers_move_to_a_runtime_file() {
    es_module_helpers_move("bun-minify", "esm", &["is __commonJS"]);
}
