//! The bundle shapes people ship, each built from a small app by the real bundler
//! (`tools/bundlers`, pinned in its package-lock.json): every wrapper becomes a module file,
//! and the unbundled program prints what the bundle prints and exits as it does. One test
//! per shape; each fails without the feature it names.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{build_app, scratch, write_output};

/// Standard output, standard error with the scratch folder's paths written alike, and the
/// exit status of `node FILE`.
type Run = (String, String, Option<i32>);

fn run(file: &Path, scratch: &Path) -> Run {
    let ran = Command::new("node")
        .arg(file)
        .current_dir(scratch)
        .output()
        .expect("node runs");
    let folder = file.parent().unwrap().display().to_string();
    (
        String::from_utf8_lossy(&ran.stdout).replace(&folder, "DIR"),
        String::from_utf8_lossy(&ran.stderr).replace(&folder, "DIR"),
        ran.status.code(),
    )
}

/// Unbundles `files` into `out` (each file keeps its name) and writes every output file.
fn unbundle_into(files: &[PathBuf], out: &Path) -> unbundle::Output {
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            (
                f.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    let inputs: Vec<unbundle::Input<'_>> = texts
        .iter()
        .map(|(name, text)| unbundle::Input { name, text })
        .collect();
    let output = unbundle::unbundle(&inputs).unwrap_or_else(|e| panic!("{e}"));
    write_output(&output, out);
    output
}

/// Builds `app` with `bundler`, unbundles it and checks that the output runs as the bundle
/// does and that every wrapper found became a file; the output and its folder.
fn runs_the_same(name: &str, bundler: &str, app: &str) -> (unbundle::Output, PathBuf) {
    let dir = scratch("shapes", name);
    let files = build_app(bundler, app, &dir);
    let out = dir.join("out");
    let output = unbundle_into(&files, &out);
    let before = run(&files[0], &dir);
    assert_eq!(before.1, "", "{name}: the bundle runs without errors");
    let after = run(&out.join(&output.manifest.entry), &dir);
    assert_eq!(after, before, "{name}: the unbundled program runs the same");
    let w = output.manifest.wrappers;
    for (kind, count) in [
        ("webpack", w.webpack),
        ("commonjs", w.commonjs),
        ("esm", w.esm),
        ("rollup", w.rollup),
    ] {
        assert_eq!(count.split, count.found, "{name}: {kind} wrappers {w:?}");
    }
    (output, dir)
}

fn count(output: &unbundle::Output, kind: unbundle::ModuleKind) -> usize {
    output
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == kind)
        .count()
}

#[test]
fn a_minified_es_module_bundle_with_import_meta_and_top_level_await_runs_the_same() {
    // esbuild --format=esm --minify with a `createRequire(import.meta.url)` banner: the
    // wrapped ES module that reads `import.meta.url` and imports a name esbuild cannot see
    // becomes a file that parses on its own and still sees the bundle's URL.
    let (output, dir) = runs_the_same("esbuild-meta", "esbuild-esm-meta", "meta");
    assert!(count(&output, unbundle::ModuleKind::Commonjs) >= 40);
    let reads_meta = output
        .files
        .iter()
        .filter(|f| f.path.starts_with("modules/"))
        .any(|f| f.text.contains("__pilotfish_import_meta.url"));
    assert!(reads_meta, "a module file reads the bundle's import.meta");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bun_s_bundles_minified_or_not_split_by_the_shapes_of_its_helpers() {
    // Bun's `__toESM` keeps a WeakMap cache, its `__export` has setters, its `__commonJS`
    // and `__esm` are minified to any name: found by shape, every wrapper is a file.
    for bundler in ["bun", "bun-minify"] {
        let (output, dir) = runs_the_same(bundler, bundler, "meta");
        assert!(
            count(&output, unbundle::ModuleKind::Commonjs) >= 40,
            "{bundler}: {:?}",
            output.manifest.wrappers
        );
        assert!(output.manifest.wrappers.esm.found >= 1, "{bundler}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn bun_s_async_es_module_initializers_split_and_keep_their_order() {
    // A module with top-level `await` loaded on demand: Bun wraps it in `__esm(async () =>
    // {...})`, and the importer awaits it. Its body is a file the loader runs as an async
    // function's, and the steps print in the bundle's order.
    for bundler in ["bun", "bun-minify"] {
        // A scratch folder of its own: the other Bun test runs beside this one.
        let name = format!("async-esm-{bundler}");
        let (output, dir) = runs_the_same(&name, bundler, "async-esm");
        let main = std::fs::read_to_string(dir.join("bundle/main.mjs")).unwrap();
        assert!(main.contains("(async()=>{") || main.contains("(async () => {"));
        assert_eq!(output.manifest.wrappers.esm.found, 2, "{bundler}");
        let awaits = output
            .files
            .iter()
            .any(|f| f.path.starts_with("modules/") && f.text.contains(" = await "));
        assert!(awaits, "{bundler}: the async module's file awaits");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_package_json_saying_type_module_above_the_output_changes_nothing() {
    // The output is written under a folder whose package.json declares ES modules: the
    // loader, the runtime and the module files are `.cjs`, so node still runs them as
    // CommonJS.
    let dir = scratch("shapes", "type-module");
    let files = build_app("esbuild-esm-meta", "meta", &dir);
    let before = run(&files[0], &dir);
    let under = dir.join("esm-package");
    std::fs::create_dir_all(&under).unwrap();
    std::fs::write(under.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
    let out = under.join("out");
    let output = unbundle_into(&files, &out);
    assert!(output.files.iter().any(|f| f.path == "unbundle-loader.cjs"));
    assert_eq!(run(&out.join(&output.manifest.entry), &dir), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rollup_s_lazy_commonjs_wrappers_each_become_a_module_file() {
    // @rollup/plugin-commonjs wraps each CommonJS file in `function requireX() { if
    // (hasRequiredX) return x; hasRequiredX = 1; ... return x; }`: each is a module file,
    // still run once and in the bundle's order; the scope-hoisted code around them stays.
    let (output, dir) = runs_the_same("rollup", "rollup-commonjs", "cjs");
    let rollup = output.manifest.wrappers.rollup;
    assert!(rollup.found >= 40, "{rollup:?}");
    assert_eq!(count(&output, unbundle::ModuleKind::Rollup), rollup.found);
    // The variable a wrapper returns is the module's own: its exports (or module object).
    let reads_as_commonjs = |needle: &str| {
        output
            .files
            .iter()
            .any(|f| f.path.starts_with("modules/require") && f.text.contains(needle))
    };
    assert!(reads_as_commonjs("\nmodule.exports = {"));
    assert!(reads_as_commonjs("\nexports.summary = "));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rollup_2_s_eager_commonjs_modules_each_become_a_module_file() {
    // rollup 2's @rollup/plugin-commonjs 17 runs each CommonJS file where it stands, `var x =
    // createCommonjsModule(function (module, exports) {...})`, its helper `var module = {
    // exports: {} }; return fn(module, module.exports), module.exports;`: each module function
    // is a module file, run once, where the bundle ran it, with the module object it is given.
    let (output, dir) = runs_the_same("rollup2", "rollup2-commonjs", "eager");
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    assert_eq!(main.matches("createCommonjsModule(function").count(), 2);
    assert_eq!(output.manifest.wrappers.rollup.found, 2);
    assert_eq!(count(&output, unbundle::ModuleKind::Rollup), 2);
    let greet = output.files.iter().find(|f| f.path == "modules/greet.cjs");
    assert!(
        greet.is_some_and(|f| f.text.contains("module.exports = function greet(name)")),
        "{:?}",
        output.files.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tsup_s_code_split_commonjs_chunks_call_the_helpers_through_call_void_0() {
    // tsup's CommonJS with code splitting: esbuild's ES module chunks rewritten by sucrase,
    // which calls a helper imported from the shared chunk as `chunk.__commonJS.call(void 0,
    // {...})`. Each wrapper, in the entry and in the shared chunk, is a module file.
    let (output, dir) = runs_the_same("tsup", "tsup-cjs-split", "tsup-split");
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    assert!(main.contains(".__commonJS.call(void 0, {"), "{main}");
    assert_eq!(output.manifest.wrappers.commonjs.found, 2);
    assert_eq!(count(&output, unbundle::ModuleKind::Commonjs), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rslib_s_es_module_chunks_hand_their_modules_to_the_runtime_s_add() {
    // rslib (rspack) keeps CommonJS modules in an ES module library as methods keyed by
    // path, handed to the runtime at the top level: `__webpack_require__.add({"./a.js"(module)
    // {...}})` beside an empty `__webpack_modules__ = {}`, in the runtime's chunk and in the
    // chunk a dynamic import loads, and ends each file with `export {};`. Each module is a
    // file; the entry's call stays before that `export {};`.
    let (output, dir) = runs_the_same("rslib", "rslib-esm", "cjs");
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    assert!(main.starts_with("import \"./"), "{main}");
    let found = output.manifest.wrappers.webpack.found;
    assert!(found >= 10, "{:?}", output.manifest.wrappers);
    assert_eq!(count(&output, unbundle::ModuleKind::Webpack), found);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rslib_s_modules_that_read_the_file_s_own_names_are_given_them() {
    // rslib writes `require("path")` of a CommonJS module it keeps as a call of a top-level
    // `const __rspack_createRequire_require = createRequire(import.meta.url)` of the file:
    // the module's file is given that name, as a nested bundle's modules are given theirs.
    let (output, dir) = runs_the_same("rslib-builtin", "rslib-esm", "nested-builtin");
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    assert!(
        main.contains(".add({") && main.contains("= __rspack_createRequire_require(\"path\")"),
        "{main}"
    );
    assert_eq!(output.manifest.wrappers.webpack.found, 2);
    assert_eq!(count(&output, unbundle::ModuleKind::Webpack), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rollup_s_wrappers_minified_as_vite_s_library_mode_writes_them_split() {
    // Vite's library mode minifies rollup's output with esbuild, which joins a wrapper's
    // statements: `if(c)return u;c=1,function(t){...}(r||(r={}));class e{...}...`, `return
    // function(r){...}(e||(t.Kind=e={})),t`, and where the whole module is expressions, one
    // return, `return o||(o=1,function(e){...}(i)),i`; a module starting with an `if` has
    // the flag in its test, `if(a=1,!globalThis.pilotfishProbe)try{...}`. Each of the app's
    // five CommonJS files is a module file that parses on its own, and the program runs the
    // same.
    let (output, dir) = runs_the_same("rollup-minify", "rollup-commonjs-minify", "enums");
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    for shape in [
        r"=1,function(",
        r"return function(",
        r"||(",
        r"=1,!globalThis",
    ] {
        assert!(main.contains(shape), "the bundle holds {shape}");
    }
    assert_eq!(output.manifest.wrappers.rollup.found, 5);
    assert_eq!(count(&output, unbundle::ModuleKind::Rollup), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rollup_s_wrappers_split_also_beside_esbuild_s_in_one_file() {
    // A rollup bundle importing a package esbuild built: esbuild's helpers and `__commonJS`
    // wrappers sit in rollup's top level beside rollup's own lazy wrappers; both kinds
    // become files, not only esbuild's.
    let (output, dir) = runs_the_same("rollup-esbuild", "rollup-esbuild-inside", "mixed");
    let w = output.manifest.wrappers;
    assert!(w.rollup.found >= 4, "{w:?}");
    assert!(w.commonjs.found >= 40, "{w:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_chunk_set_whose_plain_chunks_hold_no_wrapper_splits_the_others() {
    // rollup's CommonJS chunks: main.js only requires a chunk and holds no wrapper; it is a
    // module of its own, kept under its name, and the chunks with wrappers are split.
    let (output, dir) = runs_the_same("rollup-chunks", "rollup-commonjs-chunks", "cjs");
    assert!(output.manifest.wrappers.rollup.found >= 40);
    let plain: Vec<&str> = output
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::Chunk)
        .map(|m| m.path.as_str())
        .collect();
    assert!(plain.contains(&"main.js"), "{plain:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_copies_of_one_package_get_paths_of_their_own() {
    // Two programs built apart, each with its own copy of ms keyed by the same path: the
    // second copy is written under a numbered path, both are listed, nothing is refused.
    let (output, dir) = runs_the_same("two-copies", "esbuild-plain-two", "twice");
    let copies: Vec<&str> = output
        .manifest
        .modules
        .iter()
        .filter(|m| m.path.starts_with("modules/node_modules/ms/"))
        .map(|m| m.path.as_str())
        .collect();
    assert_eq!(
        copies,
        [
            "modules/node_modules/ms/index.js",
            "modules/node_modules/ms/index-2.js"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rolldown_s_wrappers_in_parentheses_with_helpers_from_another_chunk_split() {
    // rolldown's `__commonJSMin(((exports, module) => {...}))` holds its function in
    // parentheses, and the chunk its dynamic import loads imports that helper from main.mjs.
    for bundler in ["rolldown", "rolldown-minify"] {
        let (output, dir) = runs_the_same(bundler, bundler, "cjs");
        assert!(
            output.manifest.wrappers.commonjs.found >= 40,
            "{bundler}: {:?}",
            output.manifest.wrappers
        );
        let chunked = output
            .manifest
            .modules
            .iter()
            .any(|m| m.file.starts_with("chunk-") && m.kind == unbundle::ModuleKind::Commonjs);
        assert!(chunked, "{bundler}: a wrapper of the chunk is a file");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn rolldown_s_commonjs_chunk_calling_helpers_on_a_required_namespace_splits() {
    // rolldown's CommonJS chunks: main.cjs defines `__commonJSMin` and exports it
    // (`exports.n = o`), and the chunk its dynamic import loads requires main.cjs and wraps
    // its module in a call on that namespace, `const e = require("./main.cjs"); var t =
    // e.n((t => {...}))`: that wrapper is a module file too.
    let (output, dir) = runs_the_same("rolldown-cjs", "rolldown-cjs", "cjs");
    let chunk = output
        .manifest
        .modules
        .iter()
        .find(|m| m.file.starts_with("chunk-") && m.kind == unbundle::ModuleKind::Commonjs);
    assert!(chunk.is_some(), "{:?}", output.manifest.modules);
    let text = std::fs::read_to_string(dir.join("bundle").join(&chunk.unwrap().file)).unwrap();
    assert!(text.starts_with("const e=require(\"./main.cjs\");var t=/* @__PURE__ */ e.n(("));
    assert!(output.manifest.wrappers.commonjs.found >= 40);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_commonjs_module_that_builds_its_import_at_run_time_still_imports() {
    // `new Function("specifier", "return import(specifier)")` in a module, not the entry:
    // code node's `vm` compiled cannot import, so the module file builds it with the
    // loader's `Function`, and it imports node's built-ins and a data: URL as the bundle did.
    let (output, dir) = runs_the_same("runtime-import", "esbuild", "runtime-import");
    let module = output
        .files
        .iter()
        .find(|f| f.text.contains("return import(specifier)"))
        .unwrap();
    assert!(module.path.starts_with("modules/"), "{}", module.path);
    assert!(module.text.contains("instanceof Function"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rolldown_s_lazy_es_modules_that_keep_their_first_error_split() {
    // CommonJS requiring ES modules: rolldown runs each through its newer `__esmMin(((() =>
    // {...})))`, its function in parentheses, which keeps the error a module's first run
    // threw and throws it again on every later require. Both ES modules are files, and the
    // second require still gets the very same error.
    for bundler in ["rolldown", "rolldown-minify"] {
        // A scratch folder of its own: the other rolldown tests run beside this one.
        let name = format!("lazy-esm-{bundler}");
        let (output, dir) = runs_the_same(&name, bundler, "lazy-esm");
        let main = std::fs::read_to_string(dir.join("bundle/main.mjs")).unwrap();
        assert!(
            main.contains("throw "),
            "{bundler}: the helper keeps an error"
        );
        assert_eq!(output.manifest.wrappers.esm.found, 2, "{bundler}");
        let files = count(&output, unbundle::ModuleKind::Esm)
            + count(&output, unbundle::ModuleKind::EsmInitializer);
        assert_eq!(files, 2, "{bundler}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_module_calling_eval_keeps_its_names_in_a_webpack_5_chunk_set() {
    // terser leaves every name around an `eval` as it was, the module function's parameters
    // too (`__webpack_require__`): the module file keeps them, bound to what the loader
    // passes, as the code `eval` runs may read them. The chunk loaded on demand is webpack
    // 5's `exports.ids`/`exports.modules` file for node.
    let (output, dir) = runs_the_same("evals", "webpack5", "evals");
    assert!(output.manifest.wrappers.webpack.found >= 3);
    assert!(
        output.notes.iter().any(|n| n.contains("calls eval")),
        "{:?}",
        output.notes
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_es_module_chunk_set_named_js_in_a_type_module_package_splits_and_runs() {
    // rolldown's ES module chunks named `.js`, in a package whose package.json says
    // `"type": "module"`: a `.js` file with `import` and `export` declarations is an ES
    // module, so its exports stay where its importers find them.
    let dir = scratch("shapes", "rolldown-js");
    std::fs::write(dir.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
    let files = build_app("rolldown-js", "cjs", &dir);
    let out = dir.join("out");
    let output = unbundle_into(&files, &out);
    assert!(output.manifest.wrappers.commonjs.split >= 40);
    let before = run(&files[0], &dir);
    assert_eq!(before.1, "", "the bundle runs without errors");
    assert_eq!(run(&out.join(&output.manifest.entry), &dir), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_newer_webpack_5_table_of_methods_and_its_chunk_split() {
    // Newer webpack 5 writes each module as a method of its table (`{250(e) {...}}`), in
    // the main file and in the `exports.ids`/`exports.modules` chunk it loads on demand:
    // every method is a module file (with its `function` keyword back).
    let (output, dir) = runs_the_same("webpack-methods", "webpack5-methods", "evals");
    assert!(output.manifest.wrappers.webpack.found >= 3);
    let main = std::fs::read_to_string(dir.join("bundle/main.js")).unwrap();
    assert!(
        main.contains("__webpack_modules__={250(e){"),
        "a table of methods"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_es_module_whose_mark_babel_s_interop_helper_reads_keeps_it() {
    // CommonJS as Babel writes it requires an ES module through `_interopRequireDefault`,
    // which reads the module's `__esModule` mark (snyk's global-agent and es6-error): the
    // mark stays, so `.default` is still the class, minified by webpack 5 or 4, or not.
    for bundler in ["webpack5-plain", "webpack5", "webpack4"] {
        let name = format!("interop-default-{bundler}");
        let (output, dir) = runs_the_same(&name, bundler, "interop-default");
        // The ES module is a module file of its own (webpack 4 also keeps the entry's).
        assert!(
            count(&output, unbundle::ModuleKind::Webpack) >= 1,
            "{bundler}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
