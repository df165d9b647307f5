//! Real bundles whose modules hold code shaped like a bundle's: only the bundle's own
//! runtime and tables are split, every module webpack's stats list has a file, and the
//! unbundled program runs as the bundle does.

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
