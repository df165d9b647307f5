//! A webpack bundle nested in a module of another bundle (a package shipped as a webpack
//! bundle, taken in whole by esbuild), both built by the real bundlers pinned in
//! `tools/bundlers`: its `(0, x.f)(...)` calls lose their `0,` where its own modules show `f`
//! needs no receiver, and keep it where `f` reads `this` or the module's exports are handed
//! on (a destructuring of them reads names only, and hands nothing on); the unbundled program
//! prints what the bundle prints.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's `tools/bundlers`.
fn bundlers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/bundlers")
}

/// A scratch folder of this test process, named after the test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pilotfish-unbundle-nested-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `node ARGS` in `dir`; standard output, standard error and the exit status.
fn node(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let ran = Command::new("node")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("node runs (tools/bundlers/setup.sh installs it when missing)");
    (
        String::from_utf8_lossy(&ran.stdout).into_owned(),
        String::from_utf8_lossy(&ran.stderr).into_owned(),
        ran.status.code(),
    )
}

/// Builds the `nested` app with webpack 5, then bundles a file requiring webpack's output
/// with esbuild (minified, for node): the outer bundle's path.
fn build_nested(dir: &Path) -> PathBuf {
    let ran = Command::new("bash")
        .arg(bundlers().join("setup.sh"))
        .output()
        .expect("bash runs");
    assert!(
        ran.status.success(),
        "tools/bundlers/setup.sh failed: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let build = bundlers().join("build.js");
    let inner = dir.join("inner");
    let built = node(
        dir,
        &[
            build.to_str().unwrap(),
            "webpack5",
            "nested",
            inner.to_str().unwrap(),
        ],
    );
    assert_eq!(built.2, Some(0), "webpack failed: {}", built.1);
    std::fs::write(dir.join("outer.js"), "require(\"./inner/main.js\");\n").unwrap();
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         minify: true, outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join("outer.js").to_str().unwrap(),
        dir.join("bundle/outer.js").to_str().unwrap(),
    );
    let built = node(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join("bundle/outer.js")
}

#[test]
fn calls_inside_a_webpack_bundle_nested_in_an_esbuild_module_lose_their_zero_where_safe() {
    let dir = scratch("calls");
    let bundle = build_nested(&dir);
    let text = std::fs::read_to_string(&bundle).unwrap();
    // The nested bundle is there whole, its calls receiverless.
    assert!(text.contains("(0,") && text.contains(".exports,"), "{text}");
    let inputs = [unbundle::Input {
        name: "outer.js",
        text: &text,
    }];
    let output = unbundle::unbundle(&inputs).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    for file in &output.files {
        let path = out.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
    let before = node(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(
        before.0, "hello world QUIET! NAMED!\nwho: no receiver\nrun: no receiver\n",
        "the bundle runs: {}",
        before.1
    );
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node(&dir, &[entry.to_str().unwrap()]), before);
    let nested = output
        .files
        .iter()
        .find(|f| f.text.contains("\"hello \""))
        .expect("a module file holds the nested bundle");
    let text = &nested.text;
    // Receiver-free exports of a module only read by name: called on their module.
    assert!(
        text.contains(".greet(\"world\")") && text.contains(".shout(\"quiet\")"),
        "{text}"
    );
    assert!(
        !text.contains("(0, o.greet)") && !text.contains(".greet)("),
        "{text}"
    );
    // `who` reads `this`; `run` is replaced once its module's exports are handed on.
    assert!(text.contains(".who)()"), "{text}");
    assert!(text.contains(".run)()"), "{text}");
    assert_eq!(output.changes.calls, 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
