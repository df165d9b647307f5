//! What is measured: pilotfish against Copilot's own library (chat-lib under node) on the same
//! workloads in the same run, each timed in its own process with the same method (warm-up,
//! then the median of repeated runs):
//! - tokenization of about 1 MB of Rust source in both vocabularies (fresh text every run);
//! - similar-snippet selection for one cursor with 20 open files of just under 10,000
//!   characters (Copilot's per-file cap), cold: every file changes between runs, so no
//!   per-file cache can be reused;
//! - whole prompt assembly (split context, o200k_base) for a 2,000-line document with 20 open
//!   files, the document changing between runs as it does on every keystroke;
//! - a replayed typing session (see [`typing_sessions`]): 50 requests, 5 documents with 20 open
//!   files of just under 10,000 characters each, 10 keystrokes per document, the open files
//!   unchanged between keystrokes as in an editor. pilotfish is timed as a whole process
//!   (`pilotfish prompt --batch`, start-up and JSON included) and in process; chat-lib in
//!   process, its prompt factory warmed up on other sessions first. Every run changes every
//!   text, so no run reuses what an earlier run remembered;
//! - 8 MB of real source (this repository's Rust and chat-lib's own JavaScript) tokenized by
//!   `pilotfish tokens` as a whole process against chat-lib's tokenizer in process;
//! - start-up of `pilotfish tokens` on empty input, time and peak resident memory, per
//!   vocabulary.
//!
//! Run with `cargo bench -p differential --bench vs_chatlib`; it builds the release
//! `pilotfish` binary first.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Instant,
};

use differential::{Oracle, real_files, repo_root};
use retrieval::{NeighbourFile, ReferenceDocument, SimilarFilesOptions};
use serde_json::{Value, json};
use tokenizer::{Encoding, Tokenizer};

const RUNS: usize = 15;

fn median_ns(warmup: usize, runs: usize, mut f: impl FnMut(i64)) -> f64 {
    for i in 0..warmup {
        f(-1 - i as i64);
    }
    let mut times: Vec<u128> = (0..runs)
        .map(|i| {
            let t = Instant::now();
            f(i as i64);
            t.elapsed().as_nanos()
        })
        .collect();
    times.sort_unstable();
    times[times.len() / 2] as f64
}

/// Rust sources of this repository, concatenated and repeated to about `bytes`.
fn source_text(bytes: usize) -> String {
    let one: String = real_files()
        .into_iter()
        .filter(|(p, _)| p.ends_with(".rs"))
        .map(|(_, t)| t)
        .collect();
    let mut text = String::new();
    while text.len() < bytes {
        text.push_str(&one);
    }
    text
}

/// `count` line-aligned pieces of just under `chars` characters of `text`.
fn pieces(text: &str, count: usize, chars: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < count {
        let mut s = String::new();
        while s.chars().count() + lines[i % lines.len()].chars().count() + 1 < chars - 40 {
            s.push_str(lines[i % lines.len()]);
            s.push('\n');
            i += 1;
        }
        i += 13;
        out.push(s);
    }
    out
}

/// Keystrokes per document and documents per typing session workload.
const KEYSTROKES: usize = 10;
const SESSIONS: usize = 5;

/// The typing-session requests of run `run` in pilotfish's request format: for each of
/// [`SESSIONS`] documents (2,000 lines of `lines`, each from its own place) with 20 open files,
/// [`KEYSTROKES`] requests typing one more character of a statement at line 1,500. `run` marks
/// every text, so that nothing remembered from another run applies.
fn typing_sessions(lines: &[&str], run: i64) -> Vec<prompt::request::RequestJson> {
    use prompt::request::{DocumentJson, Options, Position, RequestJson};
    let typed = "let total = items.iter().map(|i| i.price).sum::<u32>();";
    let line = |k: usize| lines[k % lines.len()];
    let mut out = Vec::new();
    for session in 0..SESSIONS {
        let base = session * 3001;
        let doc: Vec<&str> = (0..2000).map(|k| line(base + k)).collect();
        let mut at = base + 2000;
        let open: Vec<DocumentJson> = (0..20)
            .map(|k| {
                let mut text = format!("// run {run}\n");
                while text.chars().count() + line(at).chars().count() + 1 < 10_000 - 40 {
                    text.push_str(line(at));
                    text.push('\n');
                    at += 1;
                }
                at += 13;
                DocumentJson {
                    path: format!("/w/src/s{session}/f{k}.rs"),
                    language_id: Some("rust".into()),
                    text,
                }
            })
            .collect();
        for keystroke in 1..=KEYSTROKES {
            let before = format!(
                "// run {run}\n{}\n    {}",
                doc[..1500].join("\n"),
                &typed[..keystroke]
            );
            let after = format!("\n{}", doc[1500..].join("\n"));
            out.push(RequestJson {
                workspace_root: Some("/w".into()),
                document: DocumentJson {
                    path: format!("/w/src/s{session}/main.rs"),
                    language_id: Some("rust".into()),
                    text: before + &after,
                },
                position: Position {
                    line: 1501,
                    character: 4 + keystroke,
                },
                open_documents: open.clone(),
                recent_edits: vec![],
                diagnostics: vec![],
                traits: vec![],
                code_snippets: vec![],
                tooltip_signature: None,
                options: Options {
                    strategy: "copilot".to_owned(),
                    ..Options::default()
                },
            });
        }
    }
    out
}

/// The same request in the oracle's format.
fn oracle_request(r: &prompt::request::RequestJson) -> Value {
    let doc = |d: &prompt::request::DocumentJson| json!({"path": d.path, "languageId": "rust", "text": d.text});
    json!({
        "op": "prompt", "workspaceRoot": r.workspace_root,
        "document": doc(&r.document),
        "position": {"line": r.position.line, "character": r.position.character},
        "openDocuments": r.open_documents.iter().map(doc).collect::<Vec<_>>(),
        "traits": [], "diagnostics": [], "codeSnippets": [],
        "maxPromptTokens": r.options.max_prompt_tokens, "suffixPercent": r.options.suffix_percent,
        "tokenizer": r.options.tokenizer,
    })
}

/// The release binary, built now so that the whole-process figures are of the current code.
fn pilotfish_binary() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--locked", "--bin", "pilotfish"])
        .current_dir(repo_root())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the release pilotfish failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    target.join("release/pilotfish")
}

/// Runs `binary args < input` to the end: wall time (ns) and peak memory (KB).
fn run_whole(binary: &Path, args: &[&str], input: &Path) -> (f64, i64) {
    test_utils::measure::run(binary, args, Some(input))
}

/// 8 MB of real source: this repository's Rust files, then the JavaScript of the oracle's
/// installed packages (chat-lib's first), in a fixed order; minified files left out.
fn real_source_8mb() -> String {
    let mut text: String = real_files()
        .into_iter()
        .filter(|(p, _)| p.ends_with(".rs"))
        .map(|(_, t)| t)
        .collect();
    let modules = repo_root().join("oracle/node_modules");
    let mut stack = vec![modules.clone(), modules.join("@vscode/chat-lib/dist")];
    while let Some(dir) = stack.pop() {
        if text.len() >= 8_000_000 {
            break;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                // chat-lib's own folder is read first, from the start of the stack.
                if path != modules.join("@vscode/chat-lib") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "js")
                && !path.to_string_lossy().ends_with(".min.js")
                && let Ok(t) = std::fs::read_to_string(&path)
            {
                text.push_str(&t);
            }
        }
    }
    assert!(
        text.len() >= 8_000_000,
        "the oracle's chat-lib is installed (oracle/setup.sh)"
    );
    let mut end = 8_000_000;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn main() {
    test_utils::measure::serve_if_helper();
    // `cargo bench` passes filter arguments; this comparison always runs whole.
    let binary = pilotfish_binary();
    let scratch = std::env::temp_dir().join(format!("pilotfish-vs-chatlib-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let _oracle = Oracle::start();
    let text = source_text(1_000_000);
    let files = pieces(&text, 21, 10_000);
    let (doc_text, files) = files.split_first().unwrap();

    // pilotfish
    let mut ours = serde_json::Map::new();
    for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
        let t = Tokenizer::exact(encoding);
        let ns = median_ns(2, RUNS, |i| {
            let n = t.token_ids(&format!("{text} // run {i}")).unwrap().len();
            assert!(n > 1000);
        });
        ours.insert(format!("tokenize_{encoding}"), json!(ns));
        // The same with pilotfish's piece memory emptied before every run: the floor.
        let cold = median_ns(2, RUNS, |i| {
            tokenizer::clear_caches();
            let n = t.token_ids(&format!("{text} // run {i}")).unwrap().len();
            assert!(n > 1000);
        });
        ours.insert(format!("tokenize_{encoding}_cold"), json!(cold));
    }
    let doc = ReferenceDocument {
        source: doc_text,
        cursor: doc_text.len(),
        language_id: "rust",
    };
    let ns = median_ns(3, RUNS, |i| {
        let changed: Vec<String> = files.iter().map(|s| format!("{s}\n// run {i}")).collect();
        let paths: Vec<String> = (0..changed.len()).map(|k| format!("f{k}")).collect();
        let neighbours: Vec<NeighbourFile> = changed
            .iter()
            .zip(&paths)
            .map(|(s, p)| NeighbourFile {
                relative_path: p,
                source: s,
            })
            .collect();
        let snippets =
            retrieval::similar_snippets(&doc, &neighbours, &SimilarFilesOptions::DEFAULT);
        assert!(!snippets.is_empty());
    });
    ours.insert("similar_snippets".into(), json!(ns));

    // chat-lib
    // Whole prompt assembly.
    let root = "/w";
    let lines: Vec<&str> = text.lines().take(2000).collect();
    let big_doc = lines.join("\n");
    let cursor_line = 1500;
    let open: Vec<Value> = files
        .iter()
        .enumerate()
        .map(|(k, s)| json!({"path": format!("{root}/src/f{k}.rs"), "languageId": "rust", "text": s}))
        .collect();
    let prompt_request = json!({
        "op": "prompt", "workspaceRoot": root,
        "document": {"path": format!("{root}/src/main.rs"), "languageId": "rust", "text": big_doc},
        "position": {"line": cursor_line, "character": 0},
        "openDocuments": open, "traits": [], "diagnostics": [], "codeSnippets": [],
        "maxPromptTokens": 7692, "suffixPercent": 15, "tokenizer": "o200k_base",
    });
    let document = |path: String, text: String| prompt::request::DocumentJson {
        path,
        language_id: Some("rust".into()),
        text,
    };
    let request = prompt::request::RequestJson {
        workspace_root: Some(root.to_owned()),
        document: document(format!("{root}/src/main.rs"), big_doc.clone()),
        position: prompt::request::Position {
            line: cursor_line,
            character: 0,
        },
        open_documents: files
            .iter()
            .enumerate()
            .map(|(k, s)| document(format!("{root}/src/f{k}.rs"), s.clone()))
            .collect(),
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: prompt::request::Options {
            strategy: "copilot".to_owned(),
            ..prompt::request::Options::default()
        },
    };
    let ns = median_ns(3, RUNS, |i| {
        let mut r = request.clone();
        r.document.text.push_str(&format!("\n// run {i}"));
        let p = prompt::assemble(&r, &mut prompt::Session::default()).unwrap();
        assert!(!p.prefix.is_empty());
    });
    ours.insert("prompt_assembly".into(), json!(ns));

    // Typing sessions: whole process, then in process.
    let all_lines: Vec<&str> = text.lines().collect();
    let mut whole = Vec::new();
    let mut inside = Vec::new();
    for run in -1..RUNS as i64 {
        let requests = typing_sessions(&all_lines, run);
        let batch = scratch.join("typing.jsonl");
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(&batch).expect("scratch file"));
        for r in &requests {
            serde_json::to_writer(&mut file, r).expect("a request serializes");
            file.write_all(b"\n").expect("scratch file");
        }
        file.flush().expect("scratch file");
        drop(file);
        let (ns, _) = run_whole(&binary, &["prompt", "--batch"], &batch);
        // In process, on this thread: every run's texts are new to its caches.
        let t = Instant::now();
        for r in &requests {
            let p = prompt::assemble(r, &mut prompt::Session::default()).unwrap();
            assert!(!p.prefix.is_empty());
        }
        let inside_ns = t.elapsed().as_nanos() as f64;
        if run >= 0 {
            whole.push(ns);
            inside.push(inside_ns);
        }
    }
    ours.insert(
        "typing_session_whole".into(),
        json!(test_utils::measure::median(whole)),
    );
    ours.insert(
        "typing_session_in_process".into(),
        json!(test_utils::measure::median(inside)),
    );

    // 8 MB, whole process.
    let source = real_source_8mb();
    let source_file = scratch.join("source.txt");
    let mut tokens_whole = Vec::new();
    for run in -1..RUNS as i64 {
        std::fs::write(&source_file, format!("{source}// run {run}\n")).expect("scratch file");
        let (ns, _) = run_whole(
            &binary,
            &["tokens", "--tokenizer", "o200k_base"],
            &source_file,
        );
        if run >= 0 {
            tokens_whole.push(ns);
        }
    }
    ours.insert(
        "tokenize_8mb_o200k_whole".into(),
        json!(test_utils::measure::median(tokens_whole)),
    );

    // Start-up on empty input.
    let empty = scratch.join("empty.txt");
    std::fs::write(&empty, "").expect("scratch file");
    let mut startup = Vec::new();
    for encoding in ["o200k_base", "cl100k_base"] {
        let mut times = Vec::new();
        let mut peak = 0;
        for _ in 0..21 {
            let (ns, kb) = run_whole(&binary, &["tokens", "--tokenizer", encoding], &empty);
            times.push(ns);
            peak = peak.max(kb);
        }
        startup.push((encoding, test_utils::measure::median(times), peak));
    }

    // chat-lib
    // chat-lib warms up on sessions of other texts, then times each run's 50 requests.
    let typing: Vec<Vec<Value>> = (-1..RUNS as i64)
        .map(|run| {
            typing_sessions(&all_lines, run)
                .iter()
                .map(oracle_request)
                .collect()
        })
        .collect();
    let warmup: Vec<Value> = typing_sessions(&all_lines, -100)
        .iter()
        .map(oracle_request)
        .collect();
    let workload = json!({"text": text, "doc": doc_text, "files": files, "languageId": "rust", "runs": RUNS, "prompt": prompt_request,
        "typing": typing, "typingWarmup": warmup, "source": source});
    let mut child = Command::new("node")
        .arg(repo_root().join("oracle/bench.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(workload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("node finishes");
    assert!(out.status.success(), "oracle/bench.js failed");
    let theirs: Value = serde_json::from_slice(&out.stdout).expect("bench.js prints JSON");

    println!("workload                         pilotfish      chat-lib   speed-up");
    for key in [
        "tokenize_cl100k_base",
        "tokenize_o200k_base",
        "tokenize_cl100k_base_cold",
        "tokenize_o200k_base_cold",
        "similar_snippets",
        "prompt_assembly",
    ] {
        let a = ours[key].as_f64().unwrap();
        // chat-lib's own piece cache cannot be emptied from outside: cold runs compare with its
        // usual (warm) figure.
        let b = theirs[key.trim_end_matches("_cold")].as_f64().unwrap();
        let unit = if key.starts_with("tokenize") {
            let mb = text.len() as f64 / 1e6;
            format!("{:>8.1} MB/s  {:>8.1} MB/s", mb / (a / 1e9), mb / (b / 1e9))
        } else {
            format!("{:>9.3} ms  {:>9.3} ms", a / 1e6, b / 1e6)
        };
        println!("{key:<28} {unit}   {:>6.1}x", b / a);
    }
    let requests = (SESSIONS * KEYSTROKES) as f64;
    let theirs_typing = theirs["typing_session"].as_f64().unwrap();
    for (key, label) in [
        ("typing_session_whole", "typing, whole process"),
        ("typing_session_in_process", "typing, in process"),
    ] {
        let a = ours[key].as_f64().unwrap();
        println!(
            "{label:<28} {:>9.3} ms  {:>9.3} ms   {:>6.1}x   ({requests} requests: {:.3} vs {:.3} ms each)",
            a / 1e6,
            theirs_typing / 1e6,
            theirs_typing / a,
            a / 1e6 / requests,
            theirs_typing / 1e6 / requests
        );
    }
    let a = ours["tokenize_8mb_o200k_whole"].as_f64().unwrap();
    let b = theirs["tokenize_8mb_o200k"].as_f64().unwrap();
    println!(
        "{:<28} {:>9.3} ms  {:>9.3} ms   {:>6.1}x   (pilotfish whole process, chat-lib in process)",
        "8 MB o200k",
        a / 1e6,
        b / 1e6,
        b / a
    );
    for (encoding, ns, kb) in startup {
        println!(
            "start-up {encoding:<19} {:>9.3} ms  peak {:>6.1} MB resident (`pilotfish tokens`, empty input)",
            ns / 1e6,
            kb as f64 / 1024.0
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
