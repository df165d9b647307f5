//! Runs a bundle and its unbundled output with node, for the tests that check behaviour, and
//! what those tests share: the pinned bundlers, a scratch folder, node run in a folder.

// Each test file includes this module and uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's `tools/bundlers`.
pub(crate) fn bundlers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/bundlers")
}

/// Installs the bundlers pinned in `tools/bundlers` (and node when missing), once per test
/// process.
pub(crate) fn install_bundlers() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let ran = Command::new("bash")
            .arg(bundlers().join("setup.sh"))
            .output()
            .expect("bash runs");
        assert!(
            ran.status.success(),
            "tools/bundlers/setup.sh failed: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
    });
}

/// An empty scratch folder of this test process, named after the test file (`suite`) and
/// the test.
pub(crate) fn scratch(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pilotfish-unbundle-{suite}-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `node ARGS` in `dir`; standard output, standard error and the exit status.
pub(crate) fn node_in(dir: &Path, args: &[&str]) -> Run {
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

/// Writes the unbundled `output`'s files under the folder `out`.
pub(crate) fn write_output(output: &unbundle::Output, out: &Path) {
    for file in &output.files {
        let path = out.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
}

/// Unbundles the one bundle file `text`, named `name`, and writes the output under
/// `dir/out`.
pub(crate) fn unbundle_into(dir: &Path, name: &str, text: &str) -> unbundle::Output {
    let output = unbundle::unbundle(&[unbundle::Input { name, text }])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    write_output(&output, &dir.join("out"));
    output
}

/// Standard output, standard error (without the scratch folder's paths) and exit status.
pub(crate) type Run = (String, String, Option<i32>);

/// Runs the bundle `text` (as `main.js`) and the unbundled `out` (its manifest's entry) with
/// node, each written under a scratch folder named after `name`.
pub(crate) fn run_both(name: &str, text: &str, out: &unbundle::Output) -> (Run, Run) {
    let dir =
        std::env::temp_dir().join(format!("pilotfish-unbundle-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("main.js"), text).unwrap();
    write_output(out, &dir.join("out"));
    let runs = (
        node(&dir.join("main.js")),
        node(&dir.join("out").join(&out.manifest.entry)),
    );
    let _ = std::fs::remove_dir_all(&dir);
    runs
}

/// What node prints running `file`, and how it exits. Node comes from the machine, or from
/// the project's own installer (which the bundler tests use too), run once.
pub(crate) fn node(file: &Path) -> Run {
    install_bundlers();
    let out = Command::new("node")
        .arg(file)
        .output()
        .expect("node runs (tools/bundlers/setup.sh installs it when missing)");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.contains("pilotfish-unbundle-"))
            .collect::<Vec<_>>()
            .join("\n"),
        out.status.code(),
    )
}

/// Builds `app` with `bundler` (`node build.js BUNDLER APP OUT`) into `dir/bundle`, after
/// installing the pinned bundlers once; the files it wrote, in load order.
pub(crate) fn build_app(bundler: &str, app: &str, dir: &Path) -> Vec<PathBuf> {
    install_bundlers();
    let out = dir.join("bundle");
    let ran = Command::new("node")
        .arg(bundlers().join("build.js"))
        .args([bundler, app])
        .arg(&out)
        .output()
        .expect("node runs (tools/bundlers/setup.sh installs it when missing)");
    assert!(
        ran.status.success(),
        "{bundler} failed on {app}: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    stats["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| out.join(f.as_str().unwrap()))
        .collect()
}

/// Unbundles `text` (written to `bundle`, named `main.js`) into `dir/out` and checks that the bundle at `bundle` prints `expected`
/// and the output the same: the output.
pub(crate) fn unbundle_and_run(
    dir: &Path,
    bundle: &Path,
    text: &str,
    expected: &str,
) -> unbundle::Output {
    std::fs::write(bundle, text).unwrap();
    let output = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    write_output(&output, &out);
    let before = node_in(dir, &[bundle.to_str().unwrap()]);
    assert_eq!(before.0, expected, "the bundle runs: {}", before.1);
    let entry = out.join(&output.manifest.entry);
    assert_eq!(
        node_in(dir, &[entry.to_str().unwrap()]),
        before,
        "the output prints the same"
    );
    output
}
