//! What is measured: pilotfish against Copilot's own library (chat-lib under node) on the same
//! workloads in the same run, each timed in its own process with the same method (warm-up,
//! then the median of repeated runs):
//! - tokenization of about 1 MB of Rust source in both vocabularies (fresh text every run);
//! - similar-snippet selection for one cursor with 20 open files of just under 10,000
//!   characters (Copilot's per-file cap), cold: every file changes between runs, so no
//!   per-file cache can be reused;
//! - whole prompt assembly (split context, o200k_base) for a 2,000-line document with 20 open
//!   files, the document changing between runs as it does on every keystroke.
//!
//! Run with `cargo bench -p differential --bench vs_chatlib`.

use std::{
    io::Write,
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

fn main() {
    // `cargo bench` passes filter arguments; this comparison always runs whole.
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

    // chat-lib
    let workload = json!({"text": text, "doc": doc_text, "files": files, "languageId": "rust", "runs": RUNS, "prompt": prompt_request});
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
}
