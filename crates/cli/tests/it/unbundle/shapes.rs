//! Real bundles whose modules hold code shaped like a bundle's: only the bundle's own
//! runtime and tables are split, every module webpack's stats list has a file, and the
//! unbundled program runs as the bundle does.

use std::process::Command;

use super::{build, listed, scratch, unbundle_runs_like_the};

#[test]
fn a_webpack_4_page_whose_vendors_chunk_pushes_an_array_of_modules_is_split_whole() {
    // js-yaml's loader calls its directive handlers as `handlers[name].call(state, state,
    // name, args)`, and `{YAML: function (t, e, i) {...}, TAG: ...}` is an object of
    // functions of three parameters: neither may be taken for webpack's runtime and table.
    // esprima, which js-yaml requires, is itself a webpack bundle inside one module.
    let dir = scratch("yaml-shape");
    let bundle = dir.join("bundle");
    let stats = build("webpack4-web", "yaml", &bundle);
    let pushes_array = listed(&stats, "files").iter().any(|f| {
        let text = std::fs::read_to_string(bundle.join(f)).unwrap();
        text.starts_with("(window.webpackJsonp=window.webpackJsonp||[]).push([[")
            && text.contains("],[function(")
            && text.contains("{YAML:function(")
    });
    assert!(
        pushes_array,
        "the vendors chunk pushes an array holding js-yaml"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Every module webpack's stats list has a file, none is made up, and the page and the
    // unbundled program print the same.
    let texts = unbundle_runs_like_the("webpack4-web", "yaml");
    assert!(
        texts.iter().all(|(id, _)| id != "YAML" && id != "TAG"),
        "{:?}",
        texts.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
    assert!(texts.len() >= 35, "{} modules", texts.len());
}

#[test]
fn a_webpack_5_bundle_with_a_webpack_bundle_inside_a_module_keeps_its_own_runtime() {
    // webpack 5 writes its table (`var e = {...}`) before its runtime, so esprima's runtime
    // call, inside the table, comes first: the require function is the one of the call that
    // indexes the bundle's own table, and the entry webpack inlined still becomes a file.
    let texts = unbundle_runs_like_the("webpack5", "yaml");
    assert!(texts.iter().any(|(id, _)| id == "entry"));
}

#[test]
fn an_esbuild_bundle_with_a_webpack_bundle_inside_a_module_splits_it_under_that_module() {
    // The `big` app bundled by webpack 5, then that bundle required by an entry and bundled
    // again by esbuild (minified): webpack's runtime and table sit inside one of esbuild's
    // CommonJS wrappers. The runtime stays in that module's file and each module of the
    // table becomes a nested file; it is not taken for the bundle's own table; the program
    // prints the same (no `ReferenceError` of a name left behind).
    let dir = scratch("nested");
    let inner = dir.join("inner");
    let stats = build("webpack5", "big", &inner);
    assert_eq!(
        listed(&stats, "files"),
        ["main.js"],
        "webpack writes one file"
    );
    let entry = dir.join("entry.js");
    std::fs::write(
        &entry,
        "const answers = require(\"./inner/main.js\");\nconsole.log(\"outer\", typeof answers);\n",
    )
    .unwrap();
    let outer = dir.join("outer.js");
    let script = format!(
        "require('esbuild').buildSync({{entryPoints: [{:?}], bundle: true, minify: true, platform: 'node', outfile: {:?}, logLevel: 'error'}})",
        entry.display().to_string(),
        outer.display().to_string()
    );
    let built = Command::new("node")
        .args(["-e", &script])
        .current_dir(super::repo().join("tools/bundlers"))
        .status()
        .unwrap();
    assert!(built.success(), "esbuild failed");
    let out = dir.join("out");
    let manifest = super::unbundle_files(std::slice::from_ref(&outer), &out);
    assert_eq!(manifest["wrappers"]["commonjs"]["found"], 1, "{manifest}");
    assert_eq!(manifest["wrappers"]["commonjs"]["split"], 1, "{manifest}");
    assert_eq!(manifest["wrappers"]["webpack"]["found"], 0, "{manifest}");
    let nested = &manifest["wrappers"]["nested_webpack"];
    assert!(nested["found"].as_u64().unwrap() > 1, "{manifest}");
    assert_eq!(nested["split"], nested["found"], "{manifest}");
    let original = super::run_node(&outer);
    assert!(original.0.contains("outer object"), "{original:?}");
    assert_eq!(
        super::run_node(&out.join(manifest["entry"].as_str().unwrap())),
        original
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_chunk_set_spread_over_folders_keeps_its_layout() {
    // esbuild's code-split ES modules with their chunks in a folder of their own
    // (`shared/chunk-*.mjs`), given from the folder that holds them all: each file keeps its
    // path there, so the entry still imports `./shared/...`, and the chunks, one folder
    // down, still find the loader; the program prints the same.
    let dir = scratch("folders");
    let setup = Command::new("bash")
        .arg(super::repo().join("tools/bundlers/setup.sh"))
        .status()
        .unwrap();
    assert!(setup.success(), "tools/bundlers/setup.sh failed");
    let bundle = dir.join("dist");
    let script = format!(
        "require('esbuild').buildSync({{entryPoints: {{main: 'apps/meta/index.js'}}, bundle: true, minify: true, platform: 'node', format: 'esm', splitting: true, outdir: {:?}, outExtension: {{'.js': '.mjs'}}, chunkNames: 'shared/chunk-[hash]', banner: {{js: 'import{{createRequire as __banner}}from\"node:module\";const require=__banner(import.meta.url);'}}, logLevel: 'error'}})",
        bundle.display().to_string()
    );
    let built = Command::new("node")
        .args(["-e", &script])
        .current_dir(super::repo().join("tools/bundlers"))
        .status()
        .unwrap();
    assert!(built.success(), "esbuild failed");
    let mut files = vec![bundle.join("main.mjs")];
    let mut chunks: Vec<_> = std::fs::read_dir(bundle.join("shared"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    chunks.sort();
    assert!(!chunks.is_empty(), "esbuild wrote chunks into shared/");
    files.extend(chunks);
    let out = dir.join("out");
    let manifest = super::unbundle_files(&files, &out);
    assert!(
        manifest["modules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["file"].as_str().unwrap().starts_with("shared/")),
        "{manifest}"
    );
    let original = super::run_node(&files[0]);
    assert!(original.0.contains("meta: true"), "{original:?}");
    assert_eq!(super::run_node(&out.join("main.mjs")), original);
    let _ = std::fs::remove_dir_all(&dir);
}
