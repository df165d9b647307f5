//! Code-split builds in which no file holds a module wrapper (ES modules only, joined into
//! chunks that import or require each other), built from the `esm-chunks` app by the pinned
//! bundlers in `tools/bundlers`: each chunk is written as a module of its own, made readable,
//! and the output runs as the build does; files that are not linked are refused.

mod common;

use std::path::Path;

use common::{build_app, node_in, scratch, write_output};

/// Builds the `esm-chunks` app with `bundler` into `dir/bundle`: each file's name and text,
/// in load order (the entry first).
fn build(bundler: &str, dir: &Path) -> Vec<(String, String)> {
    let out = dir.join("bundle");
    build_app(bundler, "esm-chunks", dir)
        .into_iter()
        .map(|file| {
            let name = file
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            (name, text)
        })
        .collect()
}

fn inputs(files: &[(String, String)]) -> Vec<unbundle::Input<'_>> {
    files
        .iter()
        .map(|(name, text)| unbundle::Input { name, text })
        .collect()
}

/// `node FILE ARGS` in `folder`, its paths written `DIR`.
fn run(folder: &Path, file: &str, args: &[&str]) -> common::Run {
    let mut all = vec![file];
    all.extend(args);
    let (stdout, stderr, status) = node_in(folder, &all);
    let here = folder.display().to_string();
    (
        stdout.replace(&here, "DIR"),
        stderr.replace(&here, "DIR"),
        status,
    )
}

#[test]
fn a_chunk_set_with_no_wrapper_is_written_chunk_by_chunk_and_runs_the_same() {
    // esbuild `--splitting --format=esm` (minified; static imports of a shared chunk and
    // `import()`), rollup's CommonJS chunks (`require("./main.js")`, and `require` behind
    // the dynamic imports) and rolldown's ES module chunks.
    for bundler in ["esbuild-esm-split", "rollup-commonjs-chunks", "rolldown"] {
        let dir = scratch("plain-chunks", bundler);
        let files = build(bundler, &dir);
        assert!(files.len() >= 3, "{bundler}: {files:?}");
        let output = unbundle::unbundle(&inputs(&files))
            .unwrap_or_else(|e| panic!("{bundler}: refused: {e}"));
        // Nothing to split: every file is a chunk, listed under its own name.
        assert_eq!(output.manifest.wrappers, unbundle::Wrappers::default());
        let chunks: Vec<(&str, unbundle::ModuleKind)> = output
            .manifest
            .modules
            .iter()
            .map(|m| (m.path.as_str(), m.kind))
            .collect();
        let expected: Vec<(&str, unbundle::ModuleKind)> = files
            .iter()
            .map(|(name, _)| (name.as_str(), unbundle::ModuleKind::Chunk))
            .collect();
        assert_eq!(chunks, expected, "{bundler}");
        assert_eq!(output.manifest.entry, files[0].0);
        let written: Vec<&str> = output.files.iter().map(|f| f.path.as_str()).collect();
        assert!(
            !written.contains(&"unbundle-loader.cjs"),
            "{bundler}: nothing needs the loader: {written:?}"
        );
        // Made readable: esbuild's minified entry is now one statement a line, its `?:`
        // statement an `if`.
        if bundler == "esbuild-esm-split" {
            let main = &output
                .files
                .iter()
                .find(|f| f.path == "main.mjs")
                .unwrap()
                .text;
            assert!(main.lines().count() >= 8, "{main}");
            assert!(main.contains("if (") && main.contains("\nelse "), "{main}");
        }
        let out = dir.join("out");
        write_output(&output, &out);
        for args in [&[][..], &["--version"][..]] {
            let before = run(&dir.join("bundle"), &files[0].0, args);
            assert!(
                before.0.contains("hello from main"),
                "{bundler}: {before:?}"
            );
            let after = run(&out, &files[0].0, args);
            assert_eq!(
                after, before,
                "{bundler} {args:?}: the output runs the same"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn files_with_no_wrapper_that_do_not_link_are_refused() {
    let dir = scratch("plain-chunks", "unlinked");
    let esbuild = build("esbuild-esm-split", &dir.join("esbuild"));
    let rollup = build("rollup-commonjs-chunks", &dir.join("rollup"));
    // Each build's entry alone: one file with no wrapper.
    for entry in [&esbuild[0], &rollup[0]] {
        let err = unbundle::unbundle(&inputs(std::slice::from_ref(entry))).unwrap_err();
        assert!(
            matches!(err, unbundle::UnbundleError::NotABundle { .. }),
            "{err}"
        );
    }
    // rollup's entry given with esbuild's chunks, which import each other but not it, nor
    // it them.
    let mixed: Vec<(String, String)> = [rollup[0].clone()]
        .into_iter()
        .chain(esbuild[1..].iter().cloned())
        .collect();
    let err = unbundle::unbundle(&inputs(&mixed)).unwrap_err();
    let unbundle::UnbundleError::Unlinked { file, first, count } = &err else {
        panic!("refused for another reason: {err}");
    };
    assert_eq!((first.as_str(), *count), ("main.js", mixed.len()));
    assert!(esbuild[1..].iter().any(|(name, _)| name == file), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("not a bundle pilotfish recognizes"),
        "{message}"
    );
    assert!(!message.contains('\n'), "one line: {message}");
    let _ = std::fs::remove_dir_all(&dir);
}
