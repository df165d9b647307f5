//! `pilotfish unbundle` on bundles published on npm that this project did not build, fetched
//! once per machine by `tools/real-bundles/setup.sh`: GitHub Copilot's language server at two
//! versions (esbuild, minified, helpers under one-letter names), pnpm (esbuild, not
//! minified), Yarn 4 (esbuild, minified, the whole bundle inside an arrow called at once), the
//! Tailwind CSS language server (esbuild, minified) and Yarn 1 (webpack 4, with a webpack
//! bundle inside one of its modules). For each: the module wrappers the bundle holds (counted
//! from its text, apart from pilotfish) are recovered as files, at least 95% of each kind,
//! and the unbundled program behaves as the bundle: the same `--version` output and exit
//! status, and for a language server the same answer to an LSP `initialize`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs a setup script of `tools/` and returns the folder it prints on its last line.
fn setup(script: &str) -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join(script))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    PathBuf::from(stdout.lines().last().unwrap().trim())
}

/// One published bundle: its package folder under the real bundles' cache, the bundle file
/// in it, whether it needs node 24, answers `--version` and speaks LSP.
struct Real {
    folder: &'static str,
    file: &'static str,
    node24: bool,
    version: bool,
    lsp: bool,
}

/// The modules of a webpack 4 bundle built without minifying, counted from its text: webpack
/// writes `/* ID */` on a line of its own before each module of an array table, in the outer
/// table and in any webpack bundle inside one of its modules.
fn webpack_modules_in(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            line.strip_prefix("/* ")
                .and_then(|l| l.strip_suffix(" */"))
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        })
        .count()
}

/// The helpers an esbuild bundle defines, found in its text by the shape of their source
/// where esbuild puts them, before any module: `NAME=(a,b)=>()=>...{exports:{}}...` or
/// `function __require` (`__commonJS`) and `NAME=(a,b...)=>...(a=0)...` (`__esm`), minified
/// or not; then how many calls of each the bundle makes with a module function or an object
/// holding one (`=NAME((`, `=NAME(x=>`, `= NAME({`, `= NAME(function`).
fn wrappers_in(text: &str) -> (usize, usize) {
    let mut commonjs = Vec::new();
    let mut esm = Vec::new();
    let head = &text[..text.len().min(20_000)];
    let definitions = head
        .match_indices("=(")
        .chain(head.match_indices("= ("))
        .map(|(at, _)| at);
    for at in definitions {
        let name: String = head[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let compact: String = text[at..]
            .chars()
            .take(160)
            .filter(|c| !c.is_whitespace())
            .collect();
        let Some((params, body)) = compact.strip_prefix("=(").and_then(|s| s.split_once(")=>"))
        else {
            continue;
        };
        let first = params.split(',').next().unwrap_or("");
        if name.is_empty() || first.is_empty() || params.len() > 12 {
            continue;
        }
        let returns_function = body.starts_with("()=>") || body.starts_with("function");
        // The ES module helper first: its text may run on into the CommonJS one's.
        if returns_function && compact.contains(&format!("({first}=0)")) {
            esm.push(name);
        } else if returns_function && compact.contains("{exports:{}}") {
            commonjs.push(name);
        }
    }
    // Also helpers defined anywhere through esbuild's `__name` (`--keep-names`), which
    // writes their esbuild names beside them: a second esbuild bundle joined into the
    // bundle's top level (Copilot's server 1.539.0 holds simple-git's).
    for (helper, names) in [("__commonJS", &mut commonjs), ("__esm", &mut esm)] {
        for name in named_helpers(text, helper) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let calls = |names: &[String]| -> usize {
        let mut count = 0;
        for name in names {
            for prefix in [format!("={name}("), format!("= {name}(")] {
                for (at, _) in text.match_indices(&prefix) {
                    let rest = &text[at + prefix.len()..];
                    let near = rest.get(..60).unwrap_or(rest);
                    let arrow_of_one = near.split_once("=>").is_some_and(|(p, _)| {
                        p.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                            && !p.is_empty()
                    });
                    if rest.starts_with('(')
                        || rest.starts_with('{')
                        || rest.starts_with("function")
                        || arrow_of_one
                    {
                        count += 1;
                    }
                }
            }
        }
        count
    };
    (calls(&commonjs), calls(&esm))
}

/// The helpers named `helper` through esbuild's `__name` helper: `NAME=n((t,e)=>...,
/// "__commonJS")`, the definition the last `NAME=n((` before the name.
fn named_helpers(text: &str, helper: &str) -> Vec<String> {
    let word = |c: &char| c.is_ascii_alphanumeric() || *c == '_' || *c == '$';
    let mut out = Vec::new();
    for (at, _) in text.match_indices(&format!(",\"{helper}\")")) {
        let mut start = at.saturating_sub(400);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let before = &text[start..at];
        let found = before.rmatch_indices("((").find_map(|(open, _)| {
            let head = &before[..open];
            let namer = head.chars().rev().take_while(word).count();
            let head = head[..head.len() - namer].strip_suffix('=')?;
            let name: String = head.chars().rev().take_while(word).collect();
            (namer > 0 && !name.is_empty()).then(|| name.chars().rev().collect::<String>())
        });
        out.extend(found);
    }
    out
}

/// Runs `node ARGS...` from an unrelated folder: standard output and exit status.
/// Runs `node` with `args` in an empty home and working folder of its own, emptied before each
/// run: the bundles write state there on a first run (Copilot's language server writes
/// `~/.copilot` and `~/.config/github-copilot`), and a later run could print something else
/// because of it; nor should a test leave files in the user's home.
fn node(node: &Path, args: &[&Path]) -> (String, Option<i32>) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let home =
        std::env::temp_dir().join(format!("pilotfish-real-home-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(node)
        .args(args)
        .current_dir(&home)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&home);
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

fn unbundles_and_runs_the_same(real: &Real) {
    let cache = setup("tools/real-bundles/setup.sh");
    let node_bin = if real.node24 {
        setup("tools/node24.sh").join("bin/node")
    } else {
        PathBuf::from("node")
    };
    let bundle = cache.join(real.folder).join(real.file);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let (commonjs, esm) = wrappers_in(&text);
    let webpack = webpack_modules_in(&text);
    assert!(
        commonjs > 100 || webpack > 100,
        "{}: {commonjs} CommonJS wrappers, {webpack} webpack modules",
        real.folder
    );

    let dir = std::env::temp_dir().join(format!(
        "pilotfish-real-{}-{}",
        std::process::id(),
        real.folder
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("out");
    let (b, o) = (bundle.display().to_string(), out.display().to_string());
    let ran = super::pilotfish(&["unbundle", &b, "-o", &o], b"");
    let summary = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{}: {}",
        real.folder,
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        summary.contains("wrappers split into files:"),
        "{}: {summary}",
        real.folder
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("unbundle.json")).unwrap()).unwrap();
    let files = |kinds: &[&str]| {
        manifest["modules"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| kinds.iter().any(|k| m["kind"] == *k))
            .count()
    };
    // An ES module's file holds its initializer, with or without the declarations esbuild
    // hoisted out of it.
    for (kind, found, kinds) in [
        ("commonjs", commonjs, &["commonjs"][..]),
        ("esm", esm, &["esm", "esm-initializer"][..]),
        ("webpack", webpack, &["webpack"][..]),
    ] {
        let split = files(kinds);
        assert!(
            split * 100 >= found * 95,
            "{}: {split} of {found} {kind} wrappers became files: {summary}",
            real.folder
        );
        assert!(split <= found, "{}: no {kind} module made up", real.folder);
        assert_eq!(
            manifest["wrappers"][kind]["split"], split,
            "{}: the manifest's count",
            real.folder
        );
    }
    // With its source map beside it (1.290.0's `main.js.map`), the modules are written under
    // their original paths.
    if PathBuf::from(format!("{}.map", bundle.display())).is_file() {
        let modules = manifest["modules"].as_array().unwrap();
        let located = modules
            .iter()
            .filter(|m| m["path"].as_str().unwrap().contains("node_modules/"))
            .count();
        assert!(
            located * 100 >= (modules.len() - 1) * 95,
            "{}: {located} of {} modules under their original paths",
            real.folder,
            modules.len()
        );
    }
    // The bundle reads files beside it (native modules, grammars): the unbundled program
    // gets the same neighbours.
    let dist = bundle.parent().unwrap();
    let name = bundle.file_name().unwrap();
    for entry in std::fs::read_dir(dist).unwrap() {
        let entry = entry.unwrap();
        let target = out.join(entry.file_name());
        if entry.file_name() != name && !target.exists() {
            std::os::unix::fs::symlink(entry.path(), target).unwrap();
        }
    }
    let unbundled = out.join(manifest["entry"].as_str().unwrap());
    if real.version {
        let version = Path::new("--version");
        let original = node(&node_bin, &[&bundle, version]);
        assert_eq!(original.1, Some(0), "{}: {original:?}", real.folder);
        assert_eq!(
            node(&node_bin, &[&unbundled, version]),
            original,
            "{}: --version",
            real.folder
        );
    }
    if real.lsp {
        let client = repo().join("tools/real-bundles/initialize.js");
        let ask = |server: &Path| node(&node_bin, &[&client, &node_bin, server]);
        let answer = ask(&bundle);
        assert_eq!(answer.1, Some(0), "{}: {answer:?}", real.folder);
        assert!(answer.0.contains("capabilities"), "{answer:?}");
        assert_eq!(ask(&unbundled), answer, "{}: initialize", real.folder);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn copilot_language_server_1_290_unbundles_and_answers_the_same() {
    unbundles_and_runs_the_same(&Real {
        folder: "copilot-language-server-1.290.0",
        file: "package/dist/main.js",
        node24: false,
        version: true,
        lsp: true,
    });
}

#[test]
fn copilot_language_server_1_539_unbundles_and_answers_the_same() {
    unbundles_and_runs_the_same(&Real {
        folder: "copilot-language-server-1.539.0",
        file: "package/dist/main.js",
        node24: true,
        version: true,
        lsp: true,
    });
}

#[test]
fn pnpm_unbundles_and_prints_the_same_version() {
    unbundles_and_runs_the_same(&Real {
        folder: "pnpm-9.15.0",
        file: "package/dist/pnpm.cjs",
        node24: false,
        version: true,
        lsp: false,
    });
}

#[test]
fn yarn_4_in_an_arrow_unbundles_and_prints_the_same_version() {
    unbundles_and_runs_the_same(&Real {
        folder: "yarnpkg-cli-dist-4.5.0",
        file: "package/bin/yarn.js",
        node24: false,
        version: true,
        lsp: false,
    });
}

/// The server has no `--version` (it refuses to start without `--stdio` or another channel):
/// its answer to `initialize` is what it prints.
#[test]
fn tailwindcss_language_server_unbundles_and_answers_the_same() {
    unbundles_and_runs_the_same(&Real {
        folder: "tailwindcss-language-server-0.14.1",
        file: "package/bin/tailwindcss-language-server",
        node24: false,
        version: false,
        lsp: true,
    });
}

#[test]
fn yarn_1_webpack_unbundles_and_prints_the_same_version() {
    unbundles_and_runs_the_same(&Real {
        folder: "yarn-1.22.22",
        file: "package/lib/cli.js",
        node24: false,
        version: true,
        lsp: false,
    });
}
