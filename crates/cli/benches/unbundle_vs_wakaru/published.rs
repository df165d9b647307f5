//! `--corpus`: pilotfish (this build, release under `cargo bench`) against wakaru on every
//! published bundle: the corpus (`tools/real-bundles/corpus.tsv`) and the six bundles of
//! `tools/real-bundles/setup.sh` before it. For each, the median of three runs of each tool
//! (wall and CPU time), the modules recovered, the leftover minifier constructs per 1,000
//! statements, and whether the output runs as the bundle does: each output is put in place of
//! the bundle in a copy of its package and run as the package is run, with a home, XDG,
//! temporary and working folder of its own (`test_utils::corpus`). Outputs are kept until the
//! end of the run: deleting tens of thousands of files between runs slows the next run's
//! writes on a busy disk, and the bench would time its own clean-up. A wakaru failure is
//! printed, not fatal. The load average is printed at the start and the end.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use test_utils::{
    corpus::{self, Line, Ran, Run, Sandbox},
    measure,
};
use unbundle::junk::Junk;

use super::js_files;

const RUNS: usize = 3;

/// The six bundles of issue 33, as corpus lines.
fn issue_33() -> Vec<Line> {
    let real = |name: &str, package: &str, version: &str, file: &str, run: Run, node24| Line {
        name: name.to_owned(),
        package: package.to_owned(),
        version: version.to_owned(),
        files: vec![file.to_owned()],
        bundler: "esbuild".to_owned(),
        shape: String::new(),
        run,
        node24,
        dependencies: false,
        unbundles: Ok(()),
        behaves: Ok(()),
    };
    let version = |file: &str| Run::Args {
        file: file.to_owned(),
        args: vec!["--version".to_owned()],
    };
    let mut lines = vec![
        real(
            "copilot_ls_1_290",
            "@github/copilot-language-server",
            "1.290.0",
            "dist/main.js",
            version("dist/main.js"),
            false,
        ),
        real(
            "copilot_ls_1_539",
            "@github/copilot-language-server",
            "1.539.0",
            "dist/main.js",
            version("dist/main.js"),
            true,
        ),
        real(
            "pnpm",
            "pnpm",
            "9.15.0",
            "dist/pnpm.cjs",
            version("dist/pnpm.cjs"),
            false,
        ),
        real(
            "yarn_4",
            "@yarnpkg/cli-dist",
            "4.5.0",
            "bin/yarn.js",
            version("bin/yarn.js"),
            false,
        ),
        real(
            "tailwindcss_ls",
            "@tailwindcss/language-server",
            "0.14.1",
            "bin/tailwindcss-language-server",
            Run::Lsp {
                file: "bin/tailwindcss-language-server".to_owned(),
            },
            false,
        ),
        real(
            "yarn_1",
            "yarn",
            "1.22.22",
            "lib/cli.js",
            version("lib/cli.js"),
            false,
        ),
    ];
    lines[5].bundler = "webpack 4".to_owned();
    lines
}

/// The folder setup.sh gives a package of issue 33 (named before the corpus's rule).
fn package_dir(line: &Line) -> PathBuf {
    let folder = match line.name.as_str() {
        "copilot_ls_1_290" => "copilot-language-server-1.290.0",
        "copilot_ls_1_539" => "copilot-language-server-1.539.0",
        "pnpm" => "pnpm-9.15.0",
        "yarn_4" => "yarnpkg-cli-dist-4.5.0",
        "tailwindcss_ls" => "tailwindcss-language-server-0.14.1",
        "yarn_1" => "yarn-1.22.22",
        _ => return line.package_dir(),
    };
    corpus::cache().join(folder).join("package")
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the package in `sandbox` as the line says.
fn run(line: &Line, sandbox: &Sandbox) -> Ran {
    let node = line.node();
    let package = sandbox.package();
    let limit = Duration::from_secs(240);
    match &line.run {
        Run::Args { file, args } => {
            let file = package.join(file);
            let mut all = vec![file.into_os_string()];
            all.extend(args.iter().map(Into::into));
            let refs: Vec<&std::ffi::OsStr> = all.iter().map(|a| a.as_os_str()).collect();
            sandbox.run(&node, &refs, limit)
        }
        Run::Lsp { file } => {
            let client = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tools/real-bundles/initialize.js");
            let server = package.join(file);
            sandbox.run(
                &node,
                &[client.as_os_str(), node.as_os_str(), server.as_os_str()],
                limit,
            )
        }
    }
}

/// Whether `out` (with `entry` to run), put in place of the bundle in a copy of the package,
/// behaves as the bundle did (`original`).
fn behaves(
    line: &Line,
    dir: &Path,
    files: &[String],
    out: &Path,
    entry: &str,
    original: &Ran,
) -> bool {
    if !out.join(entry).is_file() {
        return false;
    }
    let sandbox = Sandbox::new(&format!("bench-{}", line.name));
    let package = line.copy_into(&sandbox, dir);
    corpus::install_output(out, &package, files, entry);
    line.compared(&run(line, &sandbox)) == line.compared(original)
}

fn junk(files: &[PathBuf]) -> Junk {
    let mut total = Junk::default();
    for file in files {
        if let Ok(j) = unbundle::junk::count(&std::fs::read_to_string(file).unwrap_or_default()) {
            total += j;
        }
    }
    total
}

/// One tool on one bundle.
#[derive(Default)]
struct Side {
    wall: f64,
    cpu: f64,
    modules: usize,
    junk: Junk,
    runs: bool,
    failed: Option<String>,
}

fn measure_tool(program: &Path, args: &[String], out: &Path) -> Result<(f64, f64), String> {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        let out_run = out.with_extension(run.to_string());
        let mut all: Vec<String> = args.to_vec();
        for a in all.iter_mut() {
            if a == "OUT" {
                *a = out_run.display().to_string();
            }
        }
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let cost = measure::try_cost(program, &refs, None)?;
        wall.push(cost.wall_ns);
        cpu.push(cost.cpu_ns);
    }
    Ok((measure::median(wall), measure::median(cpu)))
}

/// Measures both tools on `line`; the outputs of run 0 are judged.
fn compare(line: &Line, pilotfish: &Path, wakaru: &Path, scratch: &Path) -> (Side, Side, f64) {
    let dir = package_dir(line);
    let files = if line.files.iter().any(|f| f.contains('*')) || dir == line.package_dir() {
        line.bundle_files()
    } else {
        line.files.clone()
    };
    let paths: Vec<String> = files
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let size: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    let base = Sandbox::new(&format!("bench-bundle-{}", line.name));
    line.copy_into(&base, &dir);
    let original = run(line, &base);
    drop(base);
    let judge = line.behaves.is_ok() && original.status.is_some();

    let mut ours = Side::default();
    let ours_out = scratch.join(format!("pilotfish-{}", line.name));
    let mut args = vec!["unbundle".to_owned()];
    args.extend(paths.iter().cloned());
    args.extend(["-o".to_owned(), "OUT".to_owned()]);
    match measure_tool(pilotfish, &args, &ours_out) {
        Ok((wall, cpu)) => {
            let out = ours_out.with_extension("0");
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("unbundle.json")).unwrap())
                    .unwrap();
            let entry = manifest["entry"].as_str().unwrap().to_owned();
            let mut js = Vec::new();
            js_files(&out, &mut js);
            js.retain(|f| {
                !f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("unbundle-loader"))
            });
            ours = Side {
                wall,
                cpu,
                modules: manifest["modules"].as_array().map_or(0, Vec::len),
                junk: junk(&js),
                runs: judge && behaves(line, &dir, &files, &out, &entry, &original),
                failed: None,
            };
        }
        Err(e) => ours.failed = Some(e.lines().last().unwrap_or("").to_owned()),
    }

    let mut theirs = Side::default();
    let theirs_out = scratch.join(format!("wakaru-{}", line.name));
    let mut args = vec!["--unpack".to_owned(), "-o".to_owned(), "OUT".to_owned()];
    args.extend(paths.iter().cloned());
    match measure_tool(wakaru, &args, &theirs_out) {
        Ok((wall, cpu)) => {
            let out = theirs_out.with_extension("0");
            let mut js = Vec::new();
            js_files(&out, &mut js);
            let names: Vec<String> = files
                .iter()
                .map(|f| f.rsplit('/').next().unwrap().to_owned())
                .collect();
            let modules = js
                .iter()
                .filter(|f| {
                    f.file_name()
                        .is_some_and(|n| !names.contains(&n.to_string_lossy().into_owned()))
                })
                .count();
            let entry = if out.join("entry.js").is_file() {
                "entry.js".to_owned()
            } else {
                names[0].clone()
            };
            theirs = Side {
                wall,
                cpu,
                modules,
                junk: junk(&js),
                runs: judge && behaves(line, &dir, &files, &out, &entry, &original),
                failed: None,
            };
        }
        Err(e) => {
            theirs.failed = Some(
                e.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_owned(),
            )
        }
    }
    (ours, theirs, size as f64)
}

/// Sums over a set of bundles.
#[derive(Default)]
struct Total {
    wall: (f64, f64),
    cpu: (f64, f64),
    junk: (Junk, Junk),
    runs: (usize, usize),
    judged: usize,
    count: usize,
}

impl Total {
    fn add(&mut self, ours: &Side, theirs: &Side, judged: bool) {
        self.wall.0 += ours.wall;
        self.wall.1 += theirs.wall;
        self.cpu.0 += ours.cpu;
        self.cpu.1 += theirs.cpu;
        self.junk.0 += ours.junk;
        self.junk.1 += theirs.junk;
        self.runs.0 += usize::from(ours.runs);
        self.runs.1 += usize::from(theirs.runs);
        self.judged += usize::from(judged);
        self.count += 1;
    }

    fn print(&self, what: &str) {
        println!(
            "{what} ({} bundles): wall pilotfish {:.1} s, wakaru {:.1} s ({:.1}x); CPU {:.1} s against {:.1} s ({:.1}x); leftover constructs per 1,000 statements {:.1} against {:.1} ({:.2}x); outputs that run {} and {} of {} judged",
            self.count,
            self.wall.0 / 1e9,
            self.wall.1 / 1e9,
            self.wall.1 / self.wall.0.max(1.0),
            self.cpu.0 / 1e9,
            self.cpu.1 / 1e9,
            self.cpu.1 / self.cpu.0.max(1.0),
            self.junk.0.per_thousand(),
            self.junk.1.per_thousand(),
            self.junk.0.per_thousand() / self.junk.1.per_thousand().max(f64::MIN_POSITIVE),
            self.runs.0,
            self.runs.1,
            self.judged
        );
    }
}

/// How many times `theirs` took what `ours` took, or `-` when either failed.
fn ratio(ours: &Side, theirs: &Side, of: impl Fn(&Side) -> f64) -> String {
    if ours.failed.is_some() || theirs.failed.is_some() {
        return "-".to_owned();
    }
    format!("{:.1}x", of(theirs) / of(ours).max(1.0))
}

/// The `--corpus` bench.
pub(crate) fn main(pilotfish: &Path, wakaru: &Path) {
    println!("load average at the start: {}", load());
    let scratch =
        std::env::temp_dir().join(format!("pilotfish-corpus-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let lines: Vec<Line> = issue_33().into_iter().chain(corpus::lines()).collect();
    println!(
        "{:<34} {:>8}  {:>11}  {:>13}  {:>9}  {:>17}  {:>17}  {:>6} {:>6}",
        "bundle",
        "size",
        "modules p/w",
        "junk/1,000 p/w",
        "runs p/w",
        "wall p/w (s)",
        "CPU p/w (s)",
        "wall x",
        "CPU x"
    );
    let (mut all, mut split) = (Total::default(), Total::default());
    for line in &lines {
        let (ours, theirs, size) = compare(line, pilotfish, wakaru, &scratch);
        let yes = |b: bool| if b { "yes" } else { "no" };
        println!(
            "{:<34} {:>5.2} MB  {:>5}/{:<5}  {:>6.1}/{:<6.1}  {:>4}/{:<4}  {:>8.2}/{:<8.2}  {:>8.2}/{:<8.2}  {:>6} {:>6}",
            line.name,
            size / 1e6,
            ours.modules,
            theirs.modules,
            ours.junk.per_thousand(),
            theirs.junk.per_thousand(),
            yes(ours.runs),
            yes(theirs.runs),
            ours.wall / 1e9,
            theirs.wall / 1e9,
            ours.cpu / 1e9,
            theirs.cpu / 1e9,
            ratio(&ours, &theirs, |s| s.wall),
            ratio(&ours, &theirs, |s| s.cpu)
        );
        for (who, side) in [("pilotfish", &ours), ("wakaru", &theirs)] {
            if let Some(why) = &side.failed {
                println!(
                    "{:<34} {who} failed: {}",
                    "",
                    why.chars().take(200).collect::<String>()
                );
            }
        }
        if let Err(why) = &line.behaves {
            println!("{:<34} not run: {why}", "");
        }
        if ours.failed.is_some() || theirs.failed.is_some() {
            continue;
        }
        let judged = line.behaves.is_ok();
        all.add(&ours, &theirs, judged);
        // wakaru writes a bundle it cannot take apart back whole, in a file or two.
        if theirs.modules * 2 >= ours.modules && theirs.modules > 2 {
            split.add(&ours, &theirs, judged);
        }
    }
    println!();
    all.print("over every bundle both tools took");
    split.print("over the bundles wakaru splits too");
    println!("load average at the end: {}", load());
    let _ = std::fs::remove_dir_all(&scratch);
}
