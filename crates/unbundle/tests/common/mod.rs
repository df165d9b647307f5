//! Runs a bundle and its unbundled output with node, for the tests that check behaviour.

use std::path::Path;
use std::process::Command;

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
    for file in &out.files {
        let path = dir.join("out").join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
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
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let setup = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/bundlers/setup.sh");
        let ran = Command::new("bash")
            .arg(&setup)
            .output()
            .expect("bash runs");
        assert!(
            ran.status.success(),
            "{} failed: {}",
            setup.display(),
            String::from_utf8_lossy(&ran.stderr)
        );
    });
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
