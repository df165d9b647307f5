//! `pilotfish eval` as a user runs it: on a small repository checked in as a fixture
//! (`eval/ledger`, git-initialized by each test in a folder of its own), with SmolLM2 (a real
//! model, prefix-only) and the tiny fill-in-the-middle model on the project's llama-server.
//! Assertions are on the report's honesty and consistency, never on the model's words.

use std::{
    io::ErrorKind,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;
use test_utils::LlamaServer;

/// The fixture copied into a fresh folder and committed, with a home of its own for git and
/// pilotfish.
fn ledger(name: &str) -> (PathBuf, PathBuf) {
    let home = crate::fresh_home("eval", name);
    let repo = home.join("ledger");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/eval/ledger");
    copy(&fixture, &repo);
    git(&home, &repo, &["init", "-q"]);
    git(&home, &repo, &["add", "-A"]);
    git(&home, &repo, &["commit", "-qm", "the ledger"]);
    // A later commit, so that `git log` has an order for the neighbours.
    std::fs::write(
        repo.join("ledger/report.py"),
        std::fs::read_to_string(repo.join("ledger/report.py")).unwrap() + "\n",
    )
    .unwrap();
    git(
        &home,
        &repo,
        &["commit", "-qam", "report: a blank line at the end"],
    );
    (home, repo)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn git(home: &Path, dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn eval(home: &Path, repo: &Path, extra: &[&str]) -> (Output, Value, String) {
    let json = home.join("report.json");
    let html = home.join("report.html");
    let mut args = vec![
        "eval",
        repo.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = crate::pilotfish_as_user(home, home, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, report, std::fs::read_to_string(&html).unwrap())
}

/// `0.123 [0.045, 0.210]` as the table prints an estimate.
fn estimate(e: &Value) -> String {
    format!(
        "{:.3} [{:.3}, {:.3}]",
        e["mean"].as_f64().unwrap(),
        e["low"].as_f64().unwrap(),
        e["high"].as_f64().unwrap()
    )
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

const STRATEGIES: [&str; 3] = ["none", "copilot", "outline"];
const CASES: usize = 4;

#[test]
fn eval_runs_every_strategy_on_a_repository_with_a_real_model() {
    let server = LlamaServer::smollm2(2048, &[]);
    let (home, repo) = ledger("smollm2");
    let (out, report, page) = eval(
        &home,
        &repo,
        &[
            "--endpoint",
            &server.url,
            "--cases",
            &CASES.to_string(),
            "--max-prompt-tokens",
            "320",
            "--max-tokens",
            "12",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("eval: {CASES} of {CASES} cases done")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("eval: 1 of {CASES} cases done, about ")),
        "time left: {stderr}"
    );
    // SmolLM2 has no fill-in-the-middle: the first line says so, in plain words.
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("pilotfish eval: 4 case(s) from ") && first.contains("prefix-only"),
        "{first}"
    );
    let deepest = first
        .chars()
        .scan(0i32, |depth, c| {
            *depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            Some(*depth)
        })
        .max();
    assert!(
        deepest <= Some(1),
        "no parentheses within parentheses: {first}"
    );
    assert_eq!(report["fim"], false);

    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), CASES, "{report:#}");
    let mut saw_outline = false;
    for case in cases {
        for key in ["file", "line", "column", "kind", "expected"] {
            assert!(!case[key].is_null(), "{key} in {case:#}");
        }
        let expected = case["expected"].as_str().unwrap().trim();
        let runs = case["runs"].as_array().unwrap();
        let names: Vec<&str> = runs
            .iter()
            .map(|r| r["strategy"].as_str().unwrap())
            .collect();
        assert_eq!(names, STRATEGIES);
        let budget = runs[0]["budget"].as_u64().unwrap();
        for run in runs {
            assert!(run["error"].is_null(), "{run:#}");
            // An empty answer says why; an answer needs no reason.
            let empty = run["answer"].as_str().unwrap().is_empty();
            let why = run["empty"].as_str().is_some_and(|w| !w.is_empty());
            assert_eq!(why, empty, "{run:#}");
            assert_eq!(
                run["budget"].as_u64(),
                Some(budget),
                "one budget for every strategy: {case:#}"
            );
            assert!(run["prompt_tokens"].as_u64().unwrap() <= budget, "{run:#}");
            // A cold read: the server's cache is off for every counted request.
            let cached = &run["timings"]["server_cached_tokens"];
            assert!(cached.is_null() || cached == 0, "{run:#}");
            for score in ["exact", "similarity"] {
                let v = run["scores"][score].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&v), "{run:#}");
            }
            assert_eq!(
                run["scores"]["identifier"].is_null(),
                case["identifier"].is_null()
            );
            let prompt = &run["prompt"];
            let mut parts: Vec<&str> = vec![
                prompt["prefix"].as_str().unwrap(),
                prompt["suffix"].as_str().unwrap(),
            ];
            parts.extend(
                prompt["context"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap()),
            );
            // The honest cases' expected text is in no part of any strategy's prompt.
            if case["copy_from"].is_null() {
                for part in &parts {
                    assert!(
                        !part.contains(expected),
                        "{expected:?} leaked into {}: {part}",
                        run["strategy"]
                    );
                }
            }
            let all = parts.concat();
            match run["strategy"].as_str().unwrap() {
                "none" => {
                    assert!(prompt["context"].as_array().unwrap().is_empty(), "{run:#}");
                    assert!(
                        !all.contains("Outline of") && !all.contains("Compare this snippet"),
                        "none: the file alone: {all}"
                    );
                }
                "outline" => saw_outline |= all.contains("Outline of ledger/"),
                _ => {}
            }
        }
    }
    assert!(
        saw_outline,
        "outline sends the outline of a neighbour: {report:#}"
    );

    // The summary is the cases' own figures, and the table prints them.
    let honest: Vec<&Value> = cases.iter().filter(|c| c["copy_from"].is_null()).collect();
    let group = &report["summary"]["honest"];
    assert_eq!(group["cases"].as_u64(), Some(honest.len() as u64));
    assert!(!honest.is_empty(), "{report:#}");
    for (s, figures) in group["strategies"].as_array().unwrap().iter().enumerate() {
        for score in ["exact", "similarity"] {
            let values: Vec<f64> = honest
                .iter()
                .map(|c| c["runs"][s]["scores"][score].as_f64().unwrap())
                .collect();
            assert!(
                (figures[score]["mean"].as_f64().unwrap() - mean(&values)).abs() < 1e-9,
                "{score}: {figures:#}"
            );
            assert!(stdout.contains(&estimate(&figures[score])), "{stdout}");
        }
    }
    for d in group["differences"].as_array().unwrap() {
        let line = format!(
            "{} - {}",
            d["b"].as_str().unwrap(),
            d["a"].as_str().unwrap()
        );
        let e = &d["similarity"];
        let shown = format!(
            "{:+.3} [{:+.3}, {:+.3}]",
            e["mean"].as_f64().unwrap(),
            e["low"].as_f64().unwrap(),
            e["high"].as_f64().unwrap()
        );
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&line) && l.contains(&shown)),
            "{line} {shown}: {stdout}"
        );
    }

    // The page holds every case and every strategy's prompt.
    assert_eq!(
        page.matches("<section class=case ").count(),
        CASES,
        "{page}"
    );
    assert_eq!(
        page.matches("data-strategy=").count(),
        CASES * STRATEGIES.len()
    );
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    for case in cases {
        let at = format!(
            "{}:{}:{}",
            case["file"].as_str().unwrap(),
            case["line"],
            case["column"]
        );
        assert!(page.contains(&at), "{at}");
        assert!(page.contains(&escape(case["expected"].as_str().unwrap())));
        for run in case["runs"].as_array().unwrap() {
            let prefix = run["prompt"]["prefix"].as_str().unwrap();
            assert!(
                page.contains(&escape(prefix)),
                "{}'s prompt for {at}",
                run["strategy"]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn eval_fills_in_the_middle_two_cases_at_a_time() {
    let server = LlamaServer::tiny(2048, &["-np", "2"]);
    let (home, repo) = ledger("fim");
    let (out, report, page) = eval(
        &home,
        &repo,
        &[
            "--endpoint",
            &server.url,
            "--cases",
            &CASES.to_string(),
            "--jobs",
            "2",
            "--max-prompt-tokens",
            "320",
            "--max-tokens",
            "12",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("eval: {CASES} of {CASES} cases done")),
        "{stderr}"
    );
    assert_eq!(report["fim"], true, "{report:#}");
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), CASES);
    let mut read = 0;
    for run in cases.iter().flat_map(|c| c["runs"].as_array().unwrap()) {
        assert!(run["error"].is_null(), "{run:#}");
        assert_eq!(run["fim"], true, "{run:#}");
        // What the server says it read, where it said it (a stream stopped early at the end
        // of its block may not have).
        let t = &run["timings"];
        if let Some(n) = t["server_prompt_tokens"].as_u64() {
            assert!(
                n > 0 && t["server_prompt_ms"].as_f64().unwrap() > 0.0,
                "{run:#}"
            );
            read += 1;
        }
    }
    assert!(
        read > 0,
        "the server said what it read for at least one request: {report:#}"
    );
    // Fill-in-the-middle sends the code after the cursor.
    assert!(
        cases
            .iter()
            .flat_map(|c| c["runs"].as_array().unwrap())
            .any(|r| !r["prompt"]["suffix"].as_str().unwrap().is_empty()),
        "{report:#}"
    );
    assert_eq!(page.matches("<section class=case ").count(), CASES);
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn eval_refuses_bad_input_before_asking_any_model() {
    // A model server that must never be asked: a connection would wait in its backlog.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (home, repo) = ledger("refused");
    let plain = home.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let empty = home.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    git(&home, &empty, &["init", "-q"]);
    let prose = home.join("prose");
    std::fs::create_dir_all(&prose).unwrap();
    std::fs::write(prose.join("README.md"), "# words only\n").unwrap();
    git(&home, &prose, &["init", "-q"]);
    git(&home, &prose, &["add", "-A"]);
    let path = |p: &Path| p.to_str().unwrap().to_owned();
    let nowhere = home.join("no-such-folder/report.json");
    let runs: [(Vec<String>, &str); 7] = [
        (vec![path(&plain)], "is not inside a git repository"),
        (
            vec![path(&home.join("missing"))],
            "is not inside a git repository",
        ),
        (vec![path(&empty)], "tracks no text file"),
        (vec![path(&prose)], "tracks no Python, Rust, TypeScript"),
        (
            vec![path(&repo), "--strategies".into(), "none,magic".into()],
            "unknown strategy `magic`: use none, copilot, outline",
        ),
        (
            vec![path(&repo), "--cases".into(), "0".into()],
            "--cases must be at least 1",
        ),
        (
            vec![path(&repo), "--json".into(), path(&nowhere)],
            "no-such-folder does not exist",
        ),
    ];
    for (args, needle) in runs {
        let mut all = vec!["eval".to_owned()];
        all.extend(args);
        all.extend(["--endpoint".to_owned(), url.clone()]);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = crate::pilotfish_as_user(&home, &home, &all);
        crate::assert_clean_failure(&out, needle);
        assert!(out.stdout.is_empty(), "{all:?}");
        match listener.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("{all:?} asked the model server: {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&home);
}
