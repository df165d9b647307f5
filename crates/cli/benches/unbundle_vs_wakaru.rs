//! What is measured: `pilotfish unbundle` against wakaru (`@wakaru/cli --unpack`, the fastest
//! peer, Rust on swc) on the same bundles in the same run, each as a whole process, the two
//! alternated run by run: median wall time, median CPU time (user and system: wall time less
//! waiting, mostly for the disk the output goes to) and peak resident memory. The bundles are built
//! from registry packages by the pinned bundlers in `tools/bundlers` (the test app, the
//! 22-package `big` app minified by webpack 5 and by esbuild, the `esm-packages` app, whose
//! ES modules esbuild wraps, minified by esbuild, and the `huge` app, `big` with TypeScript
//! and Babel, unminified: about 20 MB) and kept under `target/unbundle-bench/`
//! between runs. Every pilotfish output is run by node and must print what its bundle prints.
//!
//! Run with `cargo bench -p cli --bench unbundle_vs_wakaru`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use test_utils::measure;

const RUNS: usize = 5;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn setup(script: &str) {
    let status = Command::new("bash")
        .arg(repo().join(script))
        .status()
        .unwrap();
    assert!(status.success(), "{script} failed");
}

/// Builds `app` with `bundler` once; its files in load order.
fn bundle(bundler: &str, app: &str) -> Vec<PathBuf> {
    let out = repo()
        .join("target/unbundle-bench")
        .join(format!("{app}-{bundler}"));
    let stats = out.join("stats.json");
    if !stats.exists() {
        let built = Command::new("node")
            .arg(repo().join("tools/bundlers/build.js"))
            .args([bundler, app])
            .arg(&out)
            .status()
            .unwrap();
        assert!(built.success(), "building {app} with {bundler} failed");
    }
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    stats["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| out.join(f.as_str().unwrap()))
        .collect()
}

fn node_output(file: &Path) -> String {
    let out = Command::new("node").arg(file).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn main() {
    measure::serve_if_helper();
    setup("tools/bundlers/setup.sh");
    setup("tools/bundlers/apps/huge/setup.sh");
    setup("tools/wakaru/setup.sh");
    let pilotfish = PathBuf::from(env!("CARGO_BIN_EXE_pilotfish"));
    let wakaru = repo().join("tools/wakaru/node_modules/.bin/wakaru");
    let scratch =
        std::env::temp_dir().join(format!("pilotfish-unbundle-bench-{}", std::process::id()));
    println!(
        "bundle                     size     pilotfish            wakaru               speed-up"
    );
    for (bundler, app) in [
        ("webpack5", "cjs"),
        ("webpack5", "big"),
        ("esbuild", "big"),
        ("esbuild", "esm-packages"),
        ("webpack5-plain", "huge"),
    ] {
        let files = bundle(bundler, app);
        let size: u64 = files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().len())
            .sum();
        let file_args: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut our_cpu, mut their_cpu) = (Vec::new(), Vec::new());
        let (mut our_peak, mut their_peak) = (0, 0);
        let mut module_files = 0;
        // The 20 MB bundle takes wakaru minutes a run.
        let runs = if app == "huge" { 3 } else { RUNS };
        for run in 0..runs {
            let out = scratch.join(format!("pilotfish-{app}-{bundler}-{run}"));
            let mut args: Vec<&str> = vec!["unbundle"];
            args.extend(file_args.iter().map(String::as_str));
            let out_arg = out.display().to_string();
            args.extend(["-o", &out_arg]);
            let cost = measure::cost(&pilotfish, &args, None);
            ours.push(cost.wall_ns);
            our_cpu.push(cost.cpu_ns);
            our_peak = our_peak.max(cost.peak_kb);
            if run == 0 {
                let entry = out.join(files[0].file_name().unwrap());
                assert_eq!(
                    node_output(&entry),
                    node_output(&files[0]),
                    "{app}/{bundler}: the output runs as the bundle"
                );
                module_files = std::fs::read_dir(out.join("modules")).map_or(0, |d| d.count());
            }
            let _ = std::fs::remove_dir_all(&out);
            let theirs_out = scratch.join(format!("wakaru-{app}-{bundler}-{run}"));
            let theirs_arg = theirs_out.display().to_string();
            let mut args = vec!["--unpack", "-o", &theirs_arg];
            args.push(&file_args[0]);
            let cost = measure::cost(&wakaru, &args, None);
            theirs.push(cost.wall_ns);
            their_cpu.push(cost.cpu_ns);
            their_peak = their_peak.max(cost.peak_kb);
            let _ = std::fs::remove_dir_all(&theirs_out);
        }
        let (a, b) = (measure::median(ours), measure::median(theirs));
        let (ca, cb) = (measure::median(our_cpu), measure::median(their_cpu));
        println!(
            "{:<24} {:>6.2} MB  {:>8.1} ms {:>6.1} MB  {:>8.1} ms {:>6.1} MB  {:>6.1}x  ({module_files} entries under modules/)",
            format!("{app}, {bundler}"),
            size as f64 / 1e6,
            a / 1e6,
            our_peak as f64 / 1024.0,
            b / 1e6,
            their_peak as f64 / 1024.0,
            b / a
        );
        println!(
            "{:<34} CPU {:>8.1} ms {:>9} {:>8.1} ms {:>9} {:>6.1}x  (user + system time)",
            "",
            ca / 1e6,
            "",
            cb / 1e6,
            "",
            cb / ca
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
