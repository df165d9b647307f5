//! `pilotfish` against a real vLLM (vLLM for CPU from `tools/vllm.sh`, serving SmolLM2-135M-
//! Instruct converted to safetensors, with prefix caching): `complete` with default settings,
//! typing with one `complete` a keystroke that keeps its prompt in vLLM's prefix cache, `chat`
//! and `agent`. One server serves every test here (it takes about a minute to start).
//! Assertions are on behaviour and on vLLM's own counters, never on the model's words.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use test_utils::VllmServer;

/// One test at a time on the shared server: vLLM on two CPU cores answers one request at a
/// useful speed, and a test's wait is its own, not a queue behind the others.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The shared server, held by this test alone until the guard drops.
fn server() -> (std::sync::MutexGuard<'static, ()>, &'static VllmServer) {
    (one_at_a_time(), VllmServer::shared())
}

/// This test's turn on the shared vLLM; the team tests take theirs too, on vLLM or on a
/// llama-server of their own, so that no two heavy servers work at once.
pub(crate) fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A home of its own for each test (see [`crate::fresh_home`]).
fn home(name: &str) -> PathBuf {
    crate::fresh_home("vllm", name)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn vllm_answers_complete_with_default_settings() {
    let (_turn, server) = server();
    let home = home("complete");
    // Only the endpoint: the kind, fill-in-the-middle and the budget are pilotfish's defaults,
    // and SmolLM2 on vLLM has no fill-in-the-middle.
    let out = crate::pilotfish_as_user(
        &home,
        &repo(),
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
            "--endpoint",
            &server.url,
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "stderr: {stderr}");
    assert!(
        !stdout.trim().is_empty(),
        "a completion is printed; stderr: {stderr}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// The line typed in `OrderBook.cancel`, at line 31 column 13 of the example's `orders.py`.
const TYPED: &str = "self._inventory.restock(line.sku)";

#[test]
fn vllm_typing_keeps_each_prompt_in_the_prefix_cache() {
    let (_turn, server) = server();
    let home = home("typing");
    // The example shop copied, so that each keystroke can be written to the file.
    let shop = home.join("shop");
    std::fs::create_dir_all(&shop).unwrap();
    for f in ["orders.py", "cart.py", "inventory.py"] {
        std::fs::copy(repo().join("examples/shop").join(f), shop.join(f)).unwrap();
    }
    let original = std::fs::read_to_string(shop.join("orders.py")).unwrap();
    let lines: Vec<&str> = original.split('\n').collect();
    let indent = "            ";
    assert_eq!(lines[30], indent, "line 31 of orders.py is the cursor's");
    let keystrokes = 12;
    let mut shares = Vec::new();
    let started = Instant::now();
    for k in 1..=keystrokes {
        let mut doc = lines.clone();
        let line = format!("{indent}{}", &TYPED[..k]);
        doc[30] = &line;
        std::fs::write(shop.join("orders.py"), doc.join("\n")).unwrap();
        let cursor = format!("orders.py:31:{}", line.len() + 1);
        let queries = server.counter("vllm:prefix_cache_queries_total");
        let hits = server.counter("vllm:prefix_cache_hits_total");
        let out = crate::pilotfish_as_user(
            &home,
            &shop,
            &[
                "complete",
                &cursor,
                "--open",
                "cart.py",
                "--open",
                "inventory.py",
                "--endpoint",
                &server.url,
                "--max-tokens",
                "8",
            ],
        );
        assert!(out.status.success(), "keystroke {k}: {}", text(&out.stderr));
        let queried = server.counter("vllm:prefix_cache_queries_total") - queries;
        let hit = server.counter("vllm:prefix_cache_hits_total") - hits;
        assert!(
            queried > 0.0,
            "keystroke {k}: vLLM counted no prompt tokens"
        );
        if k > 1 {
            shares.push((k, hit / queried, queried));
        }
    }
    eprintln!(
        "typing against vLLM: {keystrokes} keystrokes in {:.1} s; (keystroke, share of the prompt cached, prompt tokens): {shares:?}",
        started.elapsed().as_secs_f64()
    );
    for (k, share, queried) in &shares {
        assert!(
            *share >= 0.8,
            "keystroke {k}: only {:.0}% of {queried} prompt tokens came from vLLM's prefix cache: {shares:?}",
            share * 100.0
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn vllm_chat_say_hello_ends_within_the_default_answer_limit() {
    let (_turn, server) = server();
    let home = home("chat");
    let generated = server.counter("vllm:generation_tokens_total");
    // Default settings but the server: the answer's default limit (1,024 tokens) is what ends
    // a model that would otherwise write until the context is full. vLLM's own count of the
    // tokens it generated says whether it held, however slow the machine (a minute on a quiet
    // one; over three on a busy two-core one).
    let out = crate::pilotfish_as_user(
        &home,
        &repo(),
        &["chat", "Say hello", "--endpoint", &server.url],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "stderr: {stderr}");
    assert!(
        stdout.chars().any(char::is_alphabetic),
        "the answer is words: {stdout:?}; stderr: {stderr}"
    );
    let generated = server.counter("vllm:generation_tokens_total") - generated;
    assert!(
        generated > 0.0 && generated <= 1024.0,
        "vLLM generated {generated} tokens for one answer with a default limit of 1,024: {stdout}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn vllm_runs_the_agent_to_a_clean_end() {
    let (_turn, server) = server();
    let home = home("agent");
    let workspace = home.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(
        workspace.join("calc.py"),
        "def add(a, b):\n    return a - b\n",
    )
    .unwrap();
    let started = Instant::now();
    let out = crate::pilotfish_as_user(
        &home,
        &workspace,
        &[
            "agent",
            "What does the add function in calc.py do?",
            "--folder",
            &workspace.display().to_string(),
            "--endpoint",
            &server.url,
            "--max-answer-tokens",
            "256",
        ],
    );
    let took = started.elapsed();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // The tiny model's wisdom is not under test: the run must end by itself, cleanly, with an
    // answer no longer than the limit asked for.
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("─── done in "),
        "the run says how it ended: {stdout}\nstderr: {stderr}"
    );
    assert!(
        took < Duration::from_secs(180),
        "the agent took {took:?}: {stdout}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// Opening a document warms vLLM's prefix cache, as llama.cpp's slot is warmed: the first
/// completion far into the file then finds most of its prompt cached. Counted with vLLM's own
/// counters. vLLM for CPU caches whole blocks of 128 tokens, so the file is a long one of the
/// repository.
#[test]
fn the_language_server_warms_vllms_prefix_cache_on_open() {
    use serde_json::json;
    let (_turn, server) = server();
    let home = home("warm-on-open");
    let source = std::fs::read_to_string(repo().join("crates/ghost/src/ask.rs")).unwrap();
    let mut lines: Vec<&str> = source.lines().collect();
    let uri = format!("file://{}/ask.rs", home.display());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args(["lsp", "--endpoint", &server.url])
        .current_dir(&home)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let mut lsp = crate::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(300));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let queried = server.counter("vllm:prefix_cache_queries_total");
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "rust", "version": 1, "text": source}}}),
    );
    let opened = loop {
        let m = lsp.read();
        if let Some(message) = m["params"]["message"].as_str()
            && message.contains("cache for")
        {
            break message.to_owned();
        }
    };
    assert!(opened.contains("warmed the model's cache"), "{opened}");
    let read_ahead = server.counter("vllm:prefix_cache_queries_total") - queried;
    // A line typed 90 lines into the file.
    let at = 90;
    let typed = "        let limit = ";
    lines.insert(at, typed);
    lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": lines.join("\n")}]}}));
    let (queries, hits) = (
        server.counter("vllm:prefix_cache_queries_total"),
        server.counter("vllm:prefix_cache_hits_total"),
    );
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlineCompletion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": at, "character": typed.len()},
        "context": {"triggerKind": 1}}}),
    );
    let (answer, _) = lsp.answer(2);
    assert!(answer.get("error").is_none(), "{answer}");
    let prompt = server.counter("vllm:prefix_cache_queries_total") - queries;
    let anew = prompt - (server.counter("vllm:prefix_cache_hits_total") - hits);
    eprintln!(
        "vLLM warmed on open: {read_ahead} prompt tokens read ahead; the first completion {at} lines in read {anew} of its {prompt} prompt tokens anew"
    );
    assert!(read_ahead > 0.0, "the warming reached vLLM");
    assert!(prompt > 0.0, "the completion reached vLLM: {answer}");
    assert!(
        anew * 6.0 <= prompt,
        "the first completion read {anew} of its {prompt} prompt tokens anew after the warming"
    );
    drop(lsp);
    let _ = std::fs::remove_dir_all(&home);
}
