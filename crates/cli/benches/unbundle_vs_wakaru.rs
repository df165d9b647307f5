//! What is measured: `pilotfish unbundle` against wakaru (`@wakaru/cli --unpack`, the fastest
//! peer, Rust on swc) on the same bundles in the same run, side by side:
//!
//! - **modules recovered**: pilotfish's manifest entries; wakaru's module files (every file
//!   it writes but the bundle's own file names);
//! - **runs**: the output, run by node, prints what the bundle prints and exits the same
//!   (pilotfish: `node OUT/ENTRY`; wakaru: node on its `entry.js`, or the file named like
//!   the bundle's first, with ES module syntax detected, since wakaru writes `import`s). A
//!   browser bundle's original runs in `tools/bundlers/browser.js`, its page's files in order;
//! - **junk per 1,000 statements** in the output's JavaScript (`unbundle::junk`: sequences,
//!   `(0, x.f)()` calls, webpack helper calls, `!0`/`!1`, declarations of several variables,
//!   `void 0`), pilotfish's loader and page files left out (they are not the bundle's code);
//! - **time**: each tool as a whole process, the two alternated run by run: median wall
//!   time, median CPU time (user and system) and peak resident memory.
//!
//! The bundles are built from registry packages by the pinned bundlers in `tools/bundlers`
//! (the test apps `cjs` and `esm` by every bundler, browser bundles in several files among
//! them; the 22-package `big` app minified by webpack 5 and by esbuild; the `esm-packages`
//! app, whose ES modules esbuild wraps; and the `huge` app, `big` with TypeScript and Babel,
//! unminified: about 20 MB) and kept under `target/unbundle-bench/` between runs; and bundles
//! published on npm (`tools/real-bundles/setup.sh`: Copilot's language server 1.290.0 and
//! 1.539.0, pnpm, Yarn 4, Tailwind's language server, Yarn 1), whose output runs when
//! `--version` prints what the bundle prints (their neighbours linked beside the output).
//! wakaru takes apart only esbuild bundles whose helpers keep their names: on the minified
//! ones it writes the bundle back whole, so the table says so instead of a speed-up, and the
//! totals compare the two only where wakaru splits the bundle too. A bundle of 10 to 12 MB
//! (Copilot's server 1.539.0) must unbundle in under 10 s.
//!
//! Run with `cargo bench -p cli --bench unbundle_vs_wakaru` (`-- --quick` for one timed run
//! each and without the 20 MB bundle; `-- --corpus` for every published bundle instead, the
//! corpus of `tools/real-bundles/corpus.tsv` included, each output run in a copy of its
//! package: see [`published`]; `-- --only NAME` for the bundles whose label holds NAME).

#[path = "unbundle_vs_wakaru/published.rs"]
mod published;

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use test_utils::measure;
use unbundle::junk::Junk;

const RUNS: usize = 5;

const BUNDLES: [(&str, &str); 13] = [
    ("webpack5", "cjs"),
    ("webpack4", "cjs"),
    ("webpack5-web", "cjs"),
    ("webpack4-web", "cjs"),
    ("webpack4-web-hashed", "cjs"),
    ("esbuild", "cjs"),
    ("webpack5", "esm"),
    ("webpack4-web", "esm"),
    ("esbuild", "esm"),
    ("webpack5", "big"),
    ("esbuild", "big"),
    ("esbuild", "esm-packages"),
    ("webpack5-plain", "huge"),
];

/// Bundles published on npm: the package folder under the cache of
/// `tools/real-bundles/setup.sh`, the bundle in it, and whether it needs node 24.
const REAL: [(&str, &str, bool); 6] = [
    (
        "copilot-language-server-1.290.0",
        "package/dist/main.js",
        false,
    ),
    ("pnpm-9.15.0", "package/dist/pnpm.cjs", false),
    (
        "copilot-language-server-1.539.0",
        "package/dist/main.js",
        true,
    ),
    ("yarnpkg-cli-dist-4.5.0", "package/bin/yarn.js", false),
    (
        "tailwindcss-language-server-0.14.1",
        "package/bin/tailwindcss-language-server",
        false,
    ),
    ("yarn-1.22.22", "package/lib/cli.js", false),
];

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

/// A bundle built once: its files in load order and those a page loads (browser bundles);
/// for a published one, the node that runs it and the arguments (`--version`).
struct Bundle {
    files: Vec<PathBuf>,
    page: Option<Vec<PathBuf>>,
    node: PathBuf,
    args: Vec<PathBuf>,
}

/// A bundle published on npm, fetched by `tools/real-bundles/setup.sh`.
fn real(folder: &str, file: &str, node24: bool) -> Bundle {
    let printed = |script: &str| -> PathBuf {
        let out = Command::new("bash")
            .arg(repo().join(script))
            .output()
            .unwrap();
        assert!(out.status.success(), "{script} failed");
        let stdout = String::from_utf8(out.stdout).unwrap();
        PathBuf::from(stdout.lines().last().unwrap().trim())
    };
    let cache = printed("tools/real-bundles/setup.sh");
    Bundle {
        files: vec![cache.join(folder).join(file)],
        page: None,
        node: if node24 {
            printed("tools/node24.sh").join("bin/node")
        } else {
            PathBuf::from("node")
        },
        args: vec![PathBuf::from("--version")],
    }
}

/// Links what lies beside a published bundle (native modules, grammars) into `out`, as the
/// program finds it beside itself.
fn link_neighbours(bundle: &Bundle, out: &Path) {
    if bundle.args.is_empty() {
        return;
    }
    let file = &bundle.files[0];
    for entry in std::fs::read_dir(file.parent().unwrap()).unwrap().flatten() {
        let target = out.join(entry.file_name());
        if entry.path() != *file && !target.exists() && out.is_dir() {
            let _ = std::os::unix::fs::symlink(entry.path(), target);
        }
    }
}

fn bundle(bundler: &str, app: &str) -> Bundle {
    let out = repo()
        .join("target/unbundle-bench")
        .join(format!("{app}-{bundler}"));
    let stats = out.join("stats.json");
    if !stats.exists() {
        let mut node = Command::new("node");
        if bundler.starts_with("webpack4") {
            // webpack 4 hashes with md4, which node 17 and later only offer through this flag.
            node.arg("--openssl-legacy-provider");
        }
        let built = node
            .arg(repo().join("tools/bundlers/build.js"))
            .args([bundler, app])
            .arg(&out)
            .status()
            .unwrap();
        assert!(built.success(), "building {app} with {bundler} failed");
    }
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let list = |key: &str| -> Vec<PathBuf> {
        stats[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| out.join(f.as_str().unwrap()))
            .collect()
    };
    Bundle {
        files: list("files"),
        page: bundler.contains("-web").then(|| list("initial")),
        node: PathBuf::from("node"),
        args: Vec::new(),
    }
}

/// Standard output and exit status of `node ARGS...`, run from an unrelated folder.
fn node(args: &[&Path]) -> (String, Option<i32>) {
    node_with(Path::new("node"), args)
}

/// `node FILE ARGS...` with the bundle's node and arguments.
fn run(bundle: &Bundle, file: &Path, flags: &[&Path]) -> (String, Option<i32>) {
    let mut args: Vec<&Path> = flags.to_vec();
    args.push(file);
    args.extend(bundle.args.iter().map(PathBuf::as_path));
    node_with(&bundle.node, &args)
}

fn node_with(node: &Path, args: &[&Path]) -> (String, Option<i32>) {
    let out = Command::new(node)
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

/// What the bundle prints, and how it exits.
fn original(bundle: &Bundle) -> (String, Option<i32>) {
    match &bundle.page {
        Some(page) => {
            let browser = repo().join("tools/bundlers/browser.js");
            let mut args: Vec<&Path> = vec![&browser];
            args.extend(page.iter().map(PathBuf::as_path));
            node(&args)
        }
        None => run(bundle, &bundle.files[0], &[]),
    }
}

/// The `.js` files under `dir`.
fn js_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            js_files(&path, into);
        } else if path
            .extension()
            .is_some_and(|e| e == "js" || e == "mjs" || e == "cjs")
        {
            into.push(path);
        }
    }
}

/// The junk in `files`, and how many did not parse.
fn junk(files: &[PathBuf]) -> (Junk, usize) {
    let mut total = Junk::default();
    let mut broken = 0;
    for file in files {
        match unbundle::junk::count(&std::fs::read_to_string(file).unwrap_or_default()) {
            Ok(j) => total += j,
            Err(_) => broken += 1,
        }
    }
    (total, broken)
}

/// What one tool's output is worth.
#[derive(Default)]
struct Quality {
    modules: usize,
    /// The wrappers pilotfish found (its manifest's count over every kind).
    wrappers: usize,
    runs: bool,
    junk: Junk,
    broken: usize,
}

fn ours(out: &Path, bundle: &Bundle) -> Quality {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("unbundle.json")).unwrap()).unwrap();
    let entry = out.join(manifest["entry"].as_str().unwrap());
    let mut files = Vec::new();
    js_files(out, &mut files);
    // The loader and the page are pilotfish's, not the bundle's code.
    files.retain(|f| {
        let loader = f.file_name().is_some_and(|n| n == "unbundle-loader.cjs");
        let page = bundle.page.is_some() && *f == entry;
        !loader && !page
    });
    let (junk, broken) = junk(&files);
    link_neighbours(bundle, out);
    let runs = match &bundle.page {
        Some(_) => node(&[&entry]) == original(bundle),
        None => run(bundle, &entry, &[]) == original(bundle),
    };
    let wrappers = ["webpack", "commonjs", "esm"]
        .iter()
        .map(|k| manifest["wrappers"][k]["found"].as_u64().unwrap_or(0) as usize)
        .sum();
    Quality {
        modules: manifest["modules"].as_array().unwrap().len(),
        wrappers,
        runs,
        junk,
        broken,
    }
}

fn theirs(out: &Path, bundle: &Bundle) -> Quality {
    let mut files = Vec::new();
    js_files(out, &mut files);
    let names: Vec<_> = bundle.files.iter().filter_map(|f| f.file_name()).collect();
    let modules = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| !names.contains(&n)))
        .count();
    let entry = [out.join("entry.js"), out.join(names[0])]
        .into_iter()
        .find(|f| f.exists());
    link_neighbours(bundle, out);
    let runs = entry.is_some_and(|entry| {
        let flag = PathBuf::from("--experimental-detect-module");
        run(bundle, &entry, &[&flag]) == original(bundle)
    });
    let (junk, broken) = junk(&files);
    Quality {
        modules,
        runs,
        junk,
        broken,
        ..Quality::default()
    }
}

fn main() {
    measure::serve_if_helper();
    if std::env::args().any(|a| a == "--corpus") {
        setup("tools/wakaru/setup.sh");
        let wakaru = repo().join("tools/wakaru/node_modules/.bin/wakaru");
        published::main(Path::new(env!("CARGO_BIN_EXE_pilotfish")), &wakaru);
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    // `-- --only NAME`: only the bundles whose label holds NAME (`--only pnpm`).
    let only = std::env::args().skip_while(|a| a != "--only").nth(1);
    let wanted = |label: &str| only.as_deref().is_none_or(|name| label.contains(name));
    let builds = BUNDLES
        .iter()
        .filter(|(bundler, app)| wanted(&format!("{app}, {bundler}")))
        .filter(|(_, app)| !quick || *app != "huge");
    if builds.clone().next().is_some() {
        setup("tools/bundlers/setup.sh");
    }
    if !quick && builds.clone().any(|(_, app)| *app == "huge") {
        setup("tools/bundlers/apps/huge/setup.sh");
    }
    setup("tools/wakaru/setup.sh");
    let pilotfish = PathBuf::from(env!("CARGO_BIN_EXE_pilotfish"));
    let wakaru = repo().join("tools/wakaru/node_modules/.bin/wakaru");
    let scratch =
        std::env::temp_dir().join(format!("pilotfish-unbundle-bench-{}", std::process::id()));
    println!(
        "{:<26} {:>8}  {:>15} {:>15}  {:>5} {:>5}  {:>13}  {:>18} {:>18}  speed-up",
        "bundle",
        "size",
        "modules (p/w)",
        "of the bundler",
        "runs",
        "",
        "junk/1,000",
        "pilotfish",
        "wakaru"
    );
    let (mut all_ours, mut all_theirs) = (Junk::default(), Junk::default());
    let (mut split_ours, mut split_theirs) = (Junk::default(), Junk::default());
    let (mut cpu_ours, mut cpu_theirs) = (0.0, 0.0);
    let (mut time_ours, mut time_theirs) = (0.0, 0.0);
    let (mut split_time_ours, mut split_time_theirs) = (0.0, 0.0);
    let (mut runs_ours, mut runs_theirs, mut count) = (0, 0, 0);
    let built =
        builds.map(|&(bundler, app)| (format!("{app}, {bundler}"), app, bundle(bundler, app)));
    let published = REAL
        .iter()
        .filter(|(folder, ..)| wanted(folder))
        .map(|&(folder, file, node24)| (folder.to_owned(), folder, real(folder, file, node24)));
    for (label, app, bundle) in built.chain(published) {
        let size: u64 = bundle
            .files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().len())
            .sum();
        let file_args: Vec<String> = bundle
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        let (mut our_wall, mut their_wall) = (Vec::new(), Vec::new());
        let (mut our_cpu, mut their_cpu) = (Vec::new(), Vec::new());
        let (mut our_peak, mut their_peak) = (0, 0);
        let (mut ours_q, mut theirs_q) = (Quality::default(), Quality::default());
        // The 20 MB bundle takes wakaru minutes a run.
        let runs = if quick {
            1
        } else if app == "huge" {
            3
        } else {
            RUNS
        };
        for run in 0..runs {
            let out = scratch.join(format!("pilotfish-{app}-{run}"));
            let out_arg = out.display().to_string();
            let mut args: Vec<&str> = vec!["unbundle"];
            args.extend(file_args.iter().map(String::as_str));
            args.extend(["-o", &out_arg]);
            let cost = measure::cost(&pilotfish, &args, None);
            our_wall.push(cost.wall_ns);
            our_cpu.push(cost.cpu_ns);
            our_peak = our_peak.max(cost.peak_kb);
            let theirs_out = scratch.join(format!("wakaru-{app}-{run}"));
            let theirs_arg = theirs_out.display().to_string();
            let mut args = vec!["--unpack", "-o", &theirs_arg];
            args.extend(file_args.iter().map(String::as_str));
            let cost = measure::cost(&wakaru, &args, None);
            their_wall.push(cost.wall_ns);
            their_cpu.push(cost.cpu_ns);
            their_peak = their_peak.max(cost.peak_kb);
            if run == 0 {
                ours_q = ours(&out, &bundle);
                theirs_q = theirs(&theirs_out, &bundle);
            }
            let _ = std::fs::remove_dir_all(&out);
            let _ = std::fs::remove_dir_all(&theirs_out);
        }
        let (a, b) = (measure::median(our_wall), measure::median(their_wall));
        let (ca, cb) = (measure::median(our_cpu), measure::median(their_cpu));
        // What the bundler reports, or for a published bundle the wrappers pilotfish found.
        let emitted = match std::fs::read_to_string(bundle.files[0].with_file_name("stats.json")) {
            Ok(stats) => serde_json::from_str::<serde_json::Value>(&stats).unwrap()["modules"]
                .as_array()
                .map_or(0, Vec::len),
            Err(_) => ours_q.wrappers,
        };
        let yes = |b: bool| if b { "yes" } else { "NO" };
        println!(
            "{:<26} {:>5.2} MB  {:>7}/{:<7} {:>15}  {:>5} {:>5}  {:>6.1}/{:<6.1}  {:>8.1} ms {:>5.0} MB {:>8.1} ms {:>5.0} MB  {:>6.1}x",
            label,
            size as f64 / 1e6,
            ours_q.modules,
            theirs_q.modules,
            emitted,
            yes(ours_q.runs),
            yes(theirs_q.runs),
            ours_q.junk.per_thousand(),
            theirs_q.junk.per_thousand(),
            a / 1e6,
            our_peak as f64 / 1024.0,
            b / 1e6,
            their_peak as f64 / 1024.0,
            b / a
        );
        // wakaru writes a minified esbuild bundle back whole (a file or two): no comparison,
        // of time or of junk (its junk there is the bundle's, left whole).
        let wakaru_split = theirs_q.modules * 2 >= ours_q.wrappers;
        if !wakaru_split {
            println!(
                "{:<26} wakaru did not split this bundle ({} module files for {} wrappers): not counted in the comparison",
                "", theirs_q.modules, ours_q.wrappers
            );
        } else {
            split_time_ours += a;
            split_time_theirs += b;
        }
        if (10e6..12e6).contains(&(size as f64)) {
            println!("{:<26} a 10 MB bundle in {:.2} s", "", a / 1e9);
            // The limit is a release build's; an unoptimized one (`--profile dev`, run for the
            // junk figures, which do not depend on the build) only reports its time.
            if !cfg!(debug_assertions) {
                assert!(a < 10e9, "{label}: {:.1} s, not under 10 s", a / 1e9);
            }
        }
        println!(
            "{:<26} CPU (user + system): pilotfish {:.1} ms, wakaru {:.1} ms, {:.1}x",
            "",
            ca / 1e6,
            cb / 1e6,
            cb / ca
        );
        if ours_q.broken + theirs_q.broken > 0 {
            println!(
                "{:<26} files that do not parse: pilotfish {}, wakaru {}",
                "", ours_q.broken, theirs_q.broken
            );
        }
        all_ours += ours_q.junk;
        all_theirs += theirs_q.junk;
        // The bundles wakaru split too, by the same test as the time's.
        if wakaru_split {
            split_ours += ours_q.junk;
            split_theirs += theirs_q.junk;
        }
        cpu_ours += ca;
        cpu_theirs += cb;
        time_ours += a;
        time_theirs += b;
        runs_ours += usize::from(ours_q.runs);
        runs_theirs += usize::from(theirs_q.runs);
        count += 1;
    }
    println!();
    for (who, junk, runs) in [
        ("pilotfish", all_ours, runs_ours),
        ("wakaru", all_theirs, runs_theirs),
    ] {
        println!(
            "{who:<10} outputs that run {runs}/{count}; junk {:.1} per 1,000 statements ({} statements: {} sequences, {} (0, x.f)() calls, {} helper calls, {} !0/!1, {} multi-variable declarations, {} void 0)",
            junk.per_thousand(),
            junk.statements,
            junk.sequences,
            junk.receiverless_calls,
            junk.helper_calls,
            junk.booleans,
            junk.declarations,
            junk.void0
        );
    }
    let ratio = |a: Junk, b: Junk| a.per_thousand() / b.per_thousand().max(f64::MIN_POSITIVE);
    println!(
        "junk, pilotfish against wakaru: {:.2}x over all bundles; {:.2}x ({:.1} against {:.1} per 1,000) over those wakaru split too",
        ratio(all_ours, all_theirs),
        ratio(split_ours, split_theirs),
        split_ours.per_thousand(),
        split_theirs.per_thousand()
    );
    println!(
        "time over all bundles: pilotfish {:.0} ms, wakaru {:.0} ms ({:.1}x faster); CPU {:.0} ms against {:.0} ms ({:.1}x)",
        time_ours / 1e6,
        time_theirs / 1e6,
        time_theirs / time_ours,
        cpu_ours / 1e6,
        cpu_theirs / 1e6,
        cpu_theirs / cpu_ours
    );
    println!(
        "time where wakaru splits the bundle too: pilotfish {:.0} ms, wakaru {:.0} ms ({:.1}x faster)",
        split_time_ours / 1e6,
        split_time_theirs / 1e6,
        split_time_theirs / split_time_ours
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
