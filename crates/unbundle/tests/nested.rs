//! A webpack bundle nested in a module of another bundle (a package shipped as a webpack
//! bundle, taken in whole by esbuild), both built by the real bundlers pinned in
//! `tools/bundlers`: each of its modules becomes a file of its own; its `(0, x.f)(...)` calls lose their `0,` where its own modules show `f`
//! needs no receiver, and keep it where `f` reads `this` or the module's exports are handed
//! on (a destructuring of them reads names only, and hands nothing on); the unbundled program
//! prints what the bundle prints.

mod common;

use std::path::{Path, PathBuf};

use common::{bundlers, install_bundlers, node_in, scratch, unbundle_into, write_output};

/// Builds the `nested` app with webpack 5 (`inner/main.js`, and the same as an ES module,
/// `inner.mjs`), writes the files `outer` gives (name, text; the first is the entry) beside
/// it, and bundles them with
/// esbuild (minified, for node; with its source map beside it when `map`): the outer
/// bundle's path.
fn build_nested(dir: &Path, outer: &[(&str, &str)], map: bool) -> PathBuf {
    install_bundlers();
    let build = bundlers().join("build.js");
    let inner = dir.join("inner");
    let built = node_in(
        dir,
        &[
            build.to_str().unwrap(),
            "webpack5",
            "nested",
            inner.to_str().unwrap(),
        ],
    );
    assert_eq!(built.2, Some(0), "webpack failed: {}", built.1);
    // webpack's output as an ES module file too, for esbuild to join into its own code.
    let webpacked = std::fs::read_to_string(inner.join("main.js")).unwrap();
    std::fs::write(
        dir.join("inner.mjs"),
        format!("{webpacked}\nexport {{}};\n"),
    )
    .unwrap();
    for (name, text) in outer {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let esbuild = bundlers().join("node_modules/esbuild");
    // An `.mjs` entry makes an ES module bundle, whose top-level code stays in its file.
    let (format, file) = if outer[0].0.ends_with(".mjs") {
        ("esm", "bundle/outer.mjs")
    } else {
        ("cjs", "bundle/outer.js")
    };
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         format: '{format}', minify: true, sourcemap: {map}, outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join(outer[0].0).to_str().unwrap(),
        dir.join(file).to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join(file)
}

/// Unbundles `bundle` into `dir/out`, checks that the output prints what the bundle prints
/// and that each module of the nested bundle is a file of its own, beside no other, with no
/// module function left in the file that held them; gives the text of those files, and how
/// many calls lost their `0,`.
fn unbundle_and_run(dir: &Path, bundle: &Path) -> (String, usize) {
    let text = std::fs::read_to_string(bundle).unwrap();
    // The nested bundle is there whole, its calls receiverless.
    assert!(text.contains("(0,") && text.contains(".exports,"), "{text}");
    let name = bundle.file_name().unwrap().to_str().unwrap();
    let inputs = [unbundle::Input { name, text: &text }];
    // The source map beside the bundle, as the command line reads it.
    let mut options = unbundle::Options::default();
    if let Ok(json) = std::fs::read_to_string(dir.join(format!("bundle/{name}.map"))) {
        options.source_maps.insert(name.to_owned(), json);
    }
    let output = unbundle::unbundle_with(&inputs, &options).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    write_output(&output, &out);
    let before = node_in(dir, &[bundle.to_str().unwrap()]);
    assert_eq!(
        before.0, "hello world QUIET! NAMED!\nwho: no receiver\nrun: no receiver\n",
        "the bundle runs: {}",
        before.1
    );
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(dir, &[entry.to_str().unwrap()]), before);
    // webpack's app: its modules but the entry, which webpack writes into its runtime.
    let nested: Vec<&unbundle::ManifestModule> = output
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::NestedWebpack)
        .collect();
    assert_eq!(nested.len(), 4, "{:#?}", output.manifest.modules);
    assert_eq!(output.manifest.wrappers.nested_webpack.split, 4);
    let texts: Vec<&str> = nested
        .iter()
        .map(|m| {
            let file = output.files.iter().find(|f| f.path == m.path).unwrap();
            file.text.as_str()
        })
        .collect();
    assert!(texts.iter().any(|t| t.contains("\"hello \"")), "{texts:#?}");
    // The table that held them now holds the loader's stand-ins.
    let holder = output
        .files
        .iter()
        .find(|f| f.text.contains("__pilotfish_load.nested("))
        .expect("a file holds the nested table");
    assert!(!holder.text.contains("\"hello \""), "{}", holder.text);
    (texts.join("\n"), output.changes.calls)
}

/// Receiver-free exports of a module only read by name are called on their module; `who`
/// reads `this`, and `run` is replaced once its module's exports are handed on.
fn assert_rewritten(text: &str) {
    assert!(
        text.contains(".greet(\"world\")") && text.contains(".shout(\"quiet\")"),
        "{text}"
    );
    assert!(!text.contains(".greet)("), "{text}");
    assert!(text.contains(".who)()"), "{text}");
    assert!(text.contains(".run)()"), "{text}");
}

#[test]
fn calls_inside_a_webpack_bundle_nested_in_an_esbuild_module_lose_their_zero_where_safe() {
    let dir = scratch("nested", "module");
    let outer = [("outer.js", "require(\"./inner/main.js\");\n")];
    let bundle = build_nested(&dir, &outer, false);
    let (text, calls) = unbundle_and_run(&dir, &bundle);
    assert_rewritten(&text);
    assert_eq!(calls, 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_webpack_bundle_in_a_module_the_source_map_names_is_split_too() {
    // Apps ship their source map (datadog-ci's rolldown bundle holds esprima's webpack
    // bundle in a module the map names): the map's names inside the module go with the
    // nested modules moved out of it, and those after them move up.
    let dir = scratch("nested", "mapped");
    let outer = [("outer.js", "require(\"./inner/main.js\");\n")];
    let bundle = build_nested(&dir, &outer, true);
    let map = std::fs::read_to_string(dir.join("bundle/outer.js.map")).unwrap();
    // esbuild's minified names are in the map, so the module holding the table has some.
    assert!(map.contains("\"names\": [\""), "{map}");
    let (text, _) = unbundle_and_run(&dir, &bundle);
    assert_rewritten(&text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_copies_of_one_webpack_bundle_in_a_module_are_each_split() {
    // A module holding the same package's webpack bundle twice (intelephense's): each module
    // text is there twice, and each copy's module is taken from where the bundle has it.
    let dir = scratch("nested", "twice");
    let outer = [("outer.js", "require(\"./twice.js\");\n")];
    install_bundlers();
    let build = bundlers().join("build.js");
    let inner = dir.join("inner");
    let built = node_in(
        &dir,
        &[
            build.to_str().unwrap(),
            "webpack5",
            "nested",
            inner.to_str().unwrap(),
        ],
    );
    assert_eq!(built.2, Some(0), "webpack failed: {}", built.1);
    let webpacked = std::fs::read_to_string(inner.join("main.js")).unwrap();
    std::fs::write(dir.join("twice.js"), format!("{webpacked}\n{webpacked}\n")).unwrap();
    let bundle = build_nested(&dir, &outer, false);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let output = unbundle_into(&dir, "outer.js", &text);
    let out = dir.join("out");
    let wrappers = output.manifest.wrappers;
    assert_eq!(wrappers.nested_webpack.found, 8, "{wrappers:?}");
    assert_eq!(wrappers.nested_webpack.split, 8, "{wrappers:?}");
    let before = node_in(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(before.0.lines().count(), 6, "the bundle runs: {}", before.1);
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(&dir, &[entry.to_str().unwrap()]), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calls_inside_a_webpack_bundle_in_esbuild_s_own_code_lose_their_zero_where_safe() {
    // An ES module file that is webpack's output: esbuild joins it into its own top-level
    // code (as vscode-uri's is in devcontainers and auggie), which pilotfish writes as the
    // entry's module file; a CommonJS module beside it makes the bundle one to split.
    let dir = scratch("nested", "own-code");
    let outer = [
        (
            "outer.js",
            "import \"./inner.mjs\";\nconsole.error(require(\"./other.cjs\").ok);\n",
        ),
        ("other.cjs", "exports.ok = \"other\";\n"),
    ];
    let bundle = build_nested(&dir, &outer, false);
    let (text, _) = unbundle_and_run(&dir, &bundle);
    assert_rewritten(&text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_webpack_bundle_in_an_es_module_bundle_s_own_code_is_split_from_that_file() {
    // esbuild's ES module output keeps its top-level code in the bundle file (as auggie's
    // holds vscode-uri's webpack bundle): the nested modules are split from the file itself.
    let dir = scratch("nested", "esm-file");
    let outer = [
        (
            "outer.mjs",
            "import \"./inner.mjs\";\nimport other from \"./other.cjs\";\nconsole.error(other.ok);\n",
        ),
        ("other.cjs", "exports.ok = \"other\";\n"),
    ];
    let bundle = build_nested(&dir, &outer, false);
    let (text, _) = unbundle_and_run(&dir, &bundle);
    assert_rewritten(&text);
    let output = std::fs::read_to_string(dir.join("out/outer.mjs")).unwrap();
    assert!(
        output.contains("__pilotfish_load.nested(\"modules/outer.mjs.d/"),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Builds the `nested-builtin` app with webpack 5 and bundles webpack's output again with
/// rollup and its CommonJS plugin (which holds it in a lazy `requireX()` wrapper and replaces
/// its `require("path")` with a variable of rollup's): the outer bundle's path.
fn build_in_rollup(dir: &Path) -> PathBuf {
    install_bundlers();
    let inner = dir.join("inner");
    let build = bundlers().join("build.js");
    let built = node_in(
        dir,
        &[
            build.to_str().unwrap(),
            "webpack5",
            "nested-builtin",
            inner.to_str().unwrap(),
        ],
    );
    assert_eq!(built.2, Some(0), "webpack failed: {}", built.1);
    std::fs::write(dir.join("outer.js"), "require(\"./inner/main.js\");\n").unwrap();
    let modules = bundlers().join("node_modules");
    let script = format!(
        "const {{ rollup }} = require({:?}); const commonjs = require({:?}); \
         rollup({{ input: {:?}, plugins: [commonjs()], onwarn() {{}} }})\
         .then((b) => b.write({{ file: {:?}, format: 'cjs' }}))\
         .catch((e) => {{ console.error(e); process.exit(1); }})",
        modules.join("rollup").to_str().unwrap(),
        modules.join("@rollup/plugin-commonjs").to_str().unwrap(),
        dir.join("outer.js").to_str().unwrap(),
        dir.join("bundle/outer.js").to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "rollup failed: {}", built.1);
    dir.join("bundle/outer.js")
}

#[test]
fn a_webpack_bundle_in_a_rollup_wrapper_is_split_into_module_files_that_read_rollup_s_names() {
    let dir = scratch("nested", "rollup");
    let bundle = build_in_rollup(&dir);
    let text = std::fs::read_to_string(&bundle).unwrap();
    // The nested module that was webpack's external reads rollup's variable for `path`.
    assert!(
        text.contains("function require") && text.contains(".exports=require$$0"),
        "{text}"
    );
    let output = unbundle_into(&dir, "outer.js", &text);
    let out = dir.join("out");
    // Both of the nested bundle's modules are files under the wrapper's folder, and every
    // rollup wrapper is a file too: the one holding webpack's runtime no longer stays whole.
    let wrappers = output.manifest.wrappers;
    assert_eq!(wrappers.nested_webpack.split, 2, "{wrappers:?}");
    assert_eq!(wrappers.rollup.split, wrappers.rollup.found, "{wrappers:?}");
    assert_eq!(wrappers.webpack.found, 0, "{wrappers:?}");
    let nested: Vec<&unbundle::ManifestModule> = output
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::NestedWebpack)
        .collect();
    let holder = output
        .manifest
        .modules
        .iter()
        .find(|m| {
            let text = &output.files.iter().find(|f| f.path == m.path).unwrap().text;
            text.contains("__pilotfish_load.nested(")
        })
        .expect("a module file holds the nested table");
    assert_eq!(holder.kind, unbundle::ModuleKind::Rollup);
    let folder = holder.path.trim_end_matches(".cjs");
    for m in &nested {
        assert!(
            m.path.starts_with(&format!("{folder}/")),
            "{m:?} {holder:?}"
        );
    }
    let before = node_in(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(
        before.0, "c.txt 1 2 once\n",
        "the bundle runs: {}",
        before.1
    );
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(&dir, &[entry.to_str().unwrap()]), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Builds the `nested-library` app with webpack 5 as a CommonJS library (minified), then an
/// app that requires it, again with webpack 5, minified (`compress` true) or only its names
/// shortened: the outer bundle's path.
fn build_library_in_webpack(dir: &Path, compress: bool) -> PathBuf {
    install_bundlers();
    let app = bundlers().join("apps/nested-library/index.js");
    std::fs::write(
        dir.join("outer.js"),
        "const { info } = require(\"./inner/main.js\");\nconsole.log(info(\"/a/b.txt\"), info(\"/c.txt\"));\n",
    )
    .unwrap();
    let script = format!(
        "const webpack = require({:?}); const Terser = require({:?}); \
         const run = (c) => new Promise((ok, no) => webpack(c, (e, s) => \
           e || s.hasErrors() ? no(e || s.toString('errors-only')) : ok())); \
         run({{ mode: 'production', target: 'node', entry: {:?}, \
           output: {{ path: {:?}, filename: 'main.js', library: {{ type: 'commonjs2' }} }} }})\
         .then(() => run({{ mode: 'production', target: 'node', entry: {:?}, \
           optimization: {{ minimizer: [new Terser({{ extractComments: false, \
             terserOptions: {{ compress: {compress} }} }})] }}, \
           output: {{ path: {:?}, filename: 'outer.js' }} }}))\
         .catch((e) => {{ console.error(e); process.exit(1); }})",
        bundlers().join("node_modules/webpack").to_str().unwrap(),
        bundlers()
            .join("node_modules/terser-webpack-plugin")
            .to_str()
            .unwrap(),
        app.to_str().unwrap(),
        dir.join("inner").to_str().unwrap(),
        dir.join("outer.js").to_str().unwrap(),
        dir.join("bundle").to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "webpack failed: {}", built.1);
    dir.join("bundle/outer.js")
}

/// Unbundles [`build_library_in_webpack`]'s bundle and checks that it runs the same: the
/// nested modules found and split.
fn split_library(name: &str, compress: bool) -> unbundle::Wrappers {
    let dir = scratch("nested", name);
    let bundle = build_library_in_webpack(&dir, compress);
    let text = std::fs::read_to_string(&bundle).unwrap();
    assert!(text.contains("=function t("), "{text}");
    let output = unbundle_into(&dir, "outer.js", &text);
    let out = dir.join("out");
    let before = node_in(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(
        before.0, "base b.txt 1 base c.txt 2\n",
        "the bundle runs: {}",
        before.1
    );
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(&dir, &[entry.to_str().unwrap()]), before);
    let _ = std::fs::remove_dir_all(&dir);
    output.manifest.wrappers
}

#[test]
fn a_library_s_runtime_written_as_a_named_function_expression_is_not_the_code_around() {
    // The nested runtime `s=function t(e){var s=...}(338)`, in its own arrow, binds its name
    // in its own scope: its parameter `e` is not the code around the table, whose `e` (the
    // outer module's require) the nested external reads; that module is split with the
    // others (as envinfo's modules in expo-env-info, built by ncc).
    let wrappers = split_library("library", false);
    assert_eq!(wrappers.nested_webpack.found, 4, "{wrappers:?}");
    assert_eq!(wrappers.nested_webpack.split, 4, "{wrappers:?}");
}

#[test]
fn a_nested_table_assigned_to_a_variable_declared_before_is_found() {
    // Minified again by the outer build, terser joins the nested runtime's declarations into
    // the outer module's (`var o,s,n;o={...},s={},n=function t(r){...}(338)`): the table
    // assigned once to `o` is found, and the external, reading the outer module's own
    // parameter `e` (its require), is given it.
    let wrappers = split_library("library-joined", true);
    assert_eq!(wrappers.nested_webpack.found, 4, "{wrappers:?}");
    assert_eq!(wrappers.nested_webpack.split, 4, "{wrappers:?}");
}
