//! The corpus of real npm bundles (`tools/real-bundles/corpus.tsv`), shared by the corpus
//! tests and the benchmark against wakaru: its lines, the folder `tools/real-bundles/setup.sh`
//! fetches the packages into, copies of a package to run a bundle or its unbundled output in,
//! and runs that each get a home, XDG folders, a temporary folder and a working folder of
//! their own, so that no run sees what another wrote (Claude Code writes `~/.claude.json` on
//! its first run and prints something else on the next).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

/// One line of the corpus: a bundle (or a chunk set) of a package at a pinned version.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub package: String,
    pub version: String,
    /// The bundle's files as written in the corpus, relative to the package folder; the last
    /// part of each may hold one `*` (`dist/*.js`).
    pub files: Vec<String>,
    pub bundler: String,
    pub shape: String,
    pub run: Run,
    /// Whether the package needs node 22 or later (node 24 from `tools/node24.sh`).
    pub node24: bool,
    /// Whether the package runs only with its dependencies beside it, which its tarball does
    /// not hold (`installed`, or `installed NAME...` for some of them: setup.sh installs them
    /// into `FOLDER/deps/node_modules`).
    pub dependencies: bool,
    /// `Ok` when pilotfish must recover the wrappers, else why it does not (yet).
    pub unbundles: Result<(), String>,
    /// `Ok` when the output must behave as the bundle does, else why it cannot be checked.
    pub behaves: Result<(), String>,
}

/// How the package is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// `node FILE ARGS...`, FILE relative to the package folder.
    Args { file: String, args: Vec<String> },
    /// An LSP `initialize` sent to `node FILE --stdio` by `tools/real-bundles/initialize.js`.
    Lsp { file: String },
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every line of `tools/real-bundles/corpus.tsv`.
pub fn lines() -> Vec<Line> {
    let path = repo().join("tools/real-bundles/corpus.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(parse)
        .collect()
}

/// The corpus line called `name`.
pub fn line(name: &str) -> Line {
    lines()
        .into_iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no line {name} in tools/real-bundles/corpus.tsv"))
}

fn parse(text: &str) -> Line {
    let cols: Vec<&str> = text.split('\t').collect();
    let [
        name,
        package,
        version,
        files,
        bundler,
        shape,
        run,
        node,
        dependencies,
        unbundles,
        behaves,
    ] = cols[..]
    else {
        panic!(
            "corpus.tsv: a line of {} columns, not 11: {text}",
            cols.len()
        )
    };
    let mut words = run.split_whitespace().map(str::to_owned);
    let first = words.next().expect("corpus.tsv: an empty run column");
    let run = if first == "lsp" {
        Run::Lsp {
            file: words.next().expect("corpus.tsv: `lsp` without a file"),
        }
    } else {
        Run::Args {
            file: first,
            args: words.collect(),
        }
    };
    Line {
        name: name.to_owned(),
        package: package.to_owned(),
        version: version.to_owned(),
        files: files.split(',').map(str::to_owned).collect(),
        bundler: bundler.to_owned(),
        shape: shape.to_owned(),
        run,
        node24: node == "24",
        dependencies: match dependencies {
            "tarball" => false,
            d if d == "installed" || d.starts_with("installed ") => true,
            other => panic!(
                "corpus.tsv: dependencies `{other}`, not `tarball`, `installed` or `installed NAME...`"
            ),
        },
        unbundles: yes_or_why(unbundles),
        behaves: yes_or_why(behaves),
    }
}

/// The folder `tools/real-bundles/setup.sh` fetches into, fetched once per machine (the
/// script keeps a lock and marks each package done) and asked once per process.
pub fn cache() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let lines = crate::run_tool("real-bundles/setup.sh", "the corpus tests need the bundles");
        PathBuf::from(lines.last().expect("setup.sh printed nothing").trim())
    })
}

/// node 24 from `tools/node24.sh`, for packages that need node 22 or later.
pub fn node24() -> &'static Path {
    static NODE: OnceLock<PathBuf> = OnceLock::new();
    NODE.get_or_init(|| {
        let lines = crate::run_tool("node24.sh", "some corpus packages need node 22 or later");
        PathBuf::from(lines.last().expect("node24.sh printed nothing").trim()).join("bin/node")
    })
}

impl Line {
    /// The package's folder in the cache (`FOLDER/package`).
    pub fn package_dir(&self) -> PathBuf {
        self.folder().join("package")
    }

    /// `FOLDER` in the cache: the package's name without `@`, `/` written `-`, its version.
    fn folder(&self) -> PathBuf {
        let folder = format!(
            "{}-{}",
            self.package.replace('@', "").replace('/', "-"),
            self.version
        );
        cache().join(folder)
    }

    /// Copies the package at `dir` (its folder in the cache, or another) into `sandbox` and,
    /// when the line runs with its dependencies, links the `node_modules` setup.sh installed
    /// for it beside the copy, so that the bundle and its output resolve the same packages:
    /// the package's copy.
    pub fn copy_into(&self, sandbox: &Sandbox, dir: &Path) -> PathBuf {
        let package = sandbox.copy_package(dir);
        if self.dependencies {
            let installed = self.folder().join("deps/node_modules");
            assert!(
                installed.is_dir(),
                "{}: {} is missing: run tools/real-bundles/setup.sh",
                self.name,
                installed.display()
            );
            std::os::unix::fs::symlink(&installed, sandbox.root.join("node_modules"))
                .unwrap_or_else(|e| panic!("{}: linking its dependencies: {e}", self.name));
        }
        package
    }

    /// The bundle's files, relative to the package folder, in the corpus's order (the
    /// runtime first), each `*` matched against the folder's files (type declarations and
    /// source maps left out), sorted.
    pub fn bundle_files(&self) -> Vec<String> {
        let dir = self.package_dir();
        let mut all = Vec::new();
        for pattern in &self.files {
            let Some((head, tail)) = pattern.split_once('*') else {
                push_new(&mut all, pattern.clone());
                continue;
            };
            let (folder, prefix) = head.rsplit_once('/').unwrap_or(("", head));
            let mut found: Vec<String> = std::fs::read_dir(dir.join(folder))
                .unwrap_or_else(|e| panic!("{}: {folder}: {e}", self.name))
                .flatten()
                .filter(|e| e.path().is_file())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix) && n.ends_with(tail))
                .filter(|n| !n.contains(".d.") && !n.ends_with(".map"))
                .map(|n| {
                    if folder.is_empty() {
                        n
                    } else {
                        format!("{folder}/{n}")
                    }
                })
                .collect();
            found.sort();
            for file in found {
                push_new(&mut all, file);
            }
        }
        all
    }

    /// What of a run is compared between the bundle and its output: everything, but for a
    /// language server only the answer to `initialize` and how the client ended, since the
    /// server's own standard error is written while the client stops it (intelephense 1.1.6
    /// prints its telemetry's failed address look-up whenever that look-up ends).
    pub fn compared(&self, ran: &Ran) -> Ran {
        match self.run {
            Run::Lsp { .. } => Ran {
                stderr: String::new(),
                ..ran.clone()
            },
            Run::Args { .. } => ran.clone(),
        }
    }

    /// The node that runs the package.
    pub fn node(&self) -> PathBuf {
        if self.node24 {
            node24().to_owned()
        } else {
            PathBuf::from("node")
        }
    }
}

fn yes_or_why(column: &str) -> Result<(), String> {
    match column.strip_prefix("no: ") {
        Some(why) => Err(why.to_owned()),
        None => Ok(()),
    }
}

fn push_new(all: &mut Vec<String>, file: String) {
    if !all.contains(&file) {
        all.push(file);
    }
}

/// Copies `from` into `to` (files, folders and symbolic links as they are).
pub fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp could not run");
    assert!(status.success(), "copying {} failed", from.display());
}

/// Puts an unbundled output in place of the bundle in a copy of its package: the bundle's
/// files are removed and the output's files written into the innermost folder that holds
/// them all (pilotfish writes a set from several folders relative to that folder, as
/// `_node-chunks/x.js` and `bin/core.js`), so that the package runs the output as it ran the
/// bundle. When the output's entry is named otherwise than the bundle's first file, the first
/// file becomes a stub that loads the entry (`import`/`export *` or `require`, as the bundle
/// was an ES module or not).
pub fn install_output(out: &Path, package: &Path, files: &[String], entry: &str) {
    for file in files {
        let _ = std::fs::remove_file(package.join(file));
    }
    let first = package.join(&files[0]);
    let common = common_folder(files);
    let dir = &package.join(&common);
    for item in std::fs::read_dir(out).unwrap().flatten() {
        let target = dir.join(item.file_name());
        if item.path().is_dir() {
            let _ = std::fs::remove_dir_all(&target);
        }
        copy_tree(&item.path(), &target);
    }
    let name = files[0]
        .strip_prefix(&common)
        .unwrap_or(&files[0])
        .trim_start_matches('/')
        .to_owned();
    if name != entry {
        let es_module = std::fs::read_to_string(out.join(entry))
            .is_ok_and(|t| t.contains("import ") || t.contains("export "));
        // The entry's path from the first file's own folder.
        let up = "../".repeat(name.matches('/').count());
        let entry = if up.is_empty() {
            format!("./{entry}")
        } else {
            format!("{up}{entry}")
        };
        let stub = if es_module && !name.ends_with(".cjs") {
            format!("export * from '{entry}';\nimport '{entry}';\n")
        } else {
            format!("module.exports = require('{entry}');\n")
        };
        std::fs::write(&first, stub).unwrap();
    }
}

/// The innermost folder (relative, `/`-separated, `""` for the package's own) that holds
/// every one of `files`.
fn common_folder(files: &[String]) -> String {
    let folder = |f: &String| {
        f.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_owned())
    };
    let mut common: Vec<String> = folder(&files[0]).split('/').map(str::to_owned).collect();
    for file in &files[1..] {
        let parts: Vec<String> = folder(file).split('/').map(str::to_owned).collect();
        let same = common
            .iter()
            .zip(&parts)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(same);
    }
    common.join("/")
}

/// A folder of its own for one run: the package's copy, an empty home (and XDG folders in
/// it), a temporary folder and an empty working folder. Removed when dropped.
#[derive(Debug)]
pub struct Sandbox {
    pub root: PathBuf,
}

/// What a run printed and how it ended, with the sandbox's paths written `<PACKAGE>`,
/// `<HOME>`, `<TMP>` and `<CWD>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub status: Option<i32>,
}

impl Sandbox {
    /// A new sandbox under the system's temporary folder, named after `label`.
    pub fn new(label: &str) -> Sandbox {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!(
            "pilotfish-corpus-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for dir in [
            "home/.config",
            "home/.cache",
            "home/.local/share",
            "home/.local/state",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::create_dir_all(root.join("cwd")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        Sandbox { root }
    }

    /// Where the package's copy is (or goes).
    pub fn package(&self) -> PathBuf {
        self.root.join("package")
    }

    /// Copies the package at `from` into the sandbox.
    pub fn copy_package(&self, from: &Path) -> PathBuf {
        copy_tree(from, &self.package());
        self.package()
    }

    /// Runs `program ARGS...` with only `PATH` from this process's environment, the sandbox's
    /// home, XDG folders, temporary and working folders, nothing on standard input, and at
    /// most `limit` (then it is killed).
    pub fn run(&self, program: &Path, args: &[&std::ffi::OsStr], limit: Duration) -> Ran {
        let home = self.root.join("home");
        let (stdout, stderr) = (self.root.join("stdout"), self.root.join("stderr"));
        let mut child = Command::new(program)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("TMPDIR", self.root.join("tmp"))
            .current_dir(self.root.join("cwd"))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout).unwrap())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("{} could not start: {e}", program.display()));
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let read = |p: &Path| self.normalise(&String::from_utf8_lossy(&std::fs::read(p).unwrap()));
        Ran {
            stdout: read(&stdout),
            stderr: read(&stderr),
            status,
        }
    }

    /// `text` with the sandbox's paths written as names (the package's copy, the home, the
    /// temporary and working folders).
    pub fn normalise(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (dir, name) in [
            ("package", "<PACKAGE>"),
            ("home", "<HOME>"),
            ("tmp", "<TMP>"),
            ("cwd", "<CWD>"),
        ] {
            text = text.replace(&self.root.join(dir).display().to_string(), name);
        }
        text
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Some programs leave a detached child behind (an update check running `npm config
        // get registry`, a telemetry signature written later); it would write into the home
        // after the folder is gone and leave it behind in the system's temporary folder.
        kill_processes_with_home(&self.root.join("home"));
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Kills every process of this user whose environment names `home` as its `HOME`: only a
/// sandbox's runs and what they started have it, and they outlive a run only when detached.
fn kill_processes_with_home(home: &Path) {
    let wanted = format!("HOME={}", home.display()).into_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        // Unreadable for processes of other users, and gone for those that already ended.
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|b| *b == 0)
            .any(|var| var == wanted.as_slice())
        {
            // SAFETY: kill(2) with a pid read from /proc and a valid signal touches no memory.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::common_folder;

    #[test]
    fn a_detached_child_does_not_outlive_its_sandbox() {
        let sandbox = super::Sandbox::new("detached-child-test");
        let root = sandbox.root.clone();
        // The shell ends at once; its child writes into the home a second later, as an update
        // check left running by a program would.
        let ran = sandbox.run(
            std::path::Path::new("/bin/sh"),
            &[
                "-c".as_ref(),
                "(sleep 1; mkdir -p \"$HOME/late\") >/dev/null 2>&1 & exit 0".as_ref(),
            ],
            std::time::Duration::from_secs(60),
        );
        assert_eq!(ran.status, Some(0));
        drop(sandbox);
        std::thread::sleep(std::time::Duration::from_secs(3));
        assert!(
            !root.exists(),
            "{} was written again after the sandbox went",
            root.display()
        );
    }

    fn files(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn the_common_folder_holds_every_file_of_a_set() {
        // storybook's set: chunks in one folder, the entries in another beside it.
        let set = files(&["dist/_node-chunks/a.js", "dist/bin/core.js"]);
        assert_eq!(common_folder(&set), "dist");
        assert_eq!(common_folder(&files(&["dist/a.js", "dist/b.js"])), "dist");
        assert_eq!(common_folder(&files(&["dist/a.js", "dist/x/b.js"])), "dist");
        assert_eq!(common_folder(&files(&["cli.js"])), "");
        assert_eq!(common_folder(&files(&["lib/a.js", "bin/b.js"])), "");
        // A folder whose name starts like another's is not common to both.
        assert_eq!(
            common_folder(&files(&["dist/ab/a.js", "dist/a/b.js"])),
            "dist"
        );
    }
}
