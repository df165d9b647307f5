//! The language server's warming at the cursor, against a real llama-server (the tiny
//! fill-in-the-middle test model, one slot, `--metrics`): a completion far below what was read
//! when the file was opened is lowered to the server's speed, the whole prompt at its cursor is
//! then read ahead after a short pause, and the next keystroke has its full budget back while
//! the server reads little of it. Counted in the server's own tokens and the budget the
//! prompt was built with, not timed.

use std::{path::Path, process::Command, time::Duration};

use serde_json::{Value, json};
use test_utils::LlamaServer;

use super::servers::Lsp;

/// The prompt tokens the server has read so far (`llamacpp:prompt_tokens_total`).
fn evaluated(url: &str) -> f64 {
    let port = url.rsplit(':').next().unwrap();
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    use std::io::{Read, Write};
    stream.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
    let mut metrics = String::new();
    stream.read_to_string(&mut metrics).unwrap();
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("llamacpp:prompt_tokens_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no prompt_tokens_total in {metrics}"))
}

/// Reads the server's messages until a log line that holds `needle`.
fn log_line(lsp: &mut Lsp, needle: &str) -> String {
    loop {
        let m = lsp.read();
        if let Some(message) = m["params"]["message"].as_str()
            && message.contains(needle)
        {
            return message.to_owned();
        }
    }
}

/// The numbers in `html` after `after`, as far as the next tag.
fn numbers_after(html: &str, after: &str) -> Vec<u64> {
    let Some(rest) = html.split(after).nth(1) else {
        return Vec::new();
    };
    rest.split('<')
        .next()
        .unwrap_or_default()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect()
}

/// The last completion's budget, and the prompt tokens the server read of it and the
/// prompt's whole length as the server said, from `pilotfish/inspect`'s page.
fn last_prompt(lsp: &mut Lsp, id: i64) -> (u64, Option<(u64, u64)>) {
    lsp.send(json!({"jsonrpc": "2.0", "id": id, "method": "pilotfish/inspect", "params": {}}));
    let (answer, _) = lsp.answer(id);
    let html = answer["result"]["html"].as_str().unwrap_or_default();
    let budget = *numbers_after(html, "data-budget=")
        .first()
        .unwrap_or_else(|| panic!("no budget in the inspector's page: {answer}"));
    let read = match numbers_after(html, "the server read ")[..] {
        [read, whole, ..] => Some((read, whole)),
        _ => None,
    };
    (budget, read)
}

fn complete(lsp: &mut Lsp, id: i64, uri: &str, line: usize, character: usize) -> Value {
    lsp.send(
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/inlineCompletion",
        "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": character},
        "context": {"triggerKind": 1}}}),
    );
    let (answer, _) = lsp.answer(id);
    assert!(answer.get("error").is_none(), "{answer}");
    answer
}

#[test]
fn a_lowered_completion_far_below_the_top_is_warmed_at_its_cursor_and_the_next_keystroke_gets_its_budget_back()
 {
    let server = LlamaServer::tiny(4096, &["--metrics"]);
    let home = crate::fresh_home("cursor-warming", "lsp");
    // A first-token target so short that even this fast server cannot read a cold prompt of
    // the whole budget within it: the completion far from what the open read is lowered.
    let config = home.join("lsp.toml");
    std::fs::write(&config, "[completion]\nfirst_token_target_ms = 5\n").unwrap();
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ghost/src/lib.rs"))
            .unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let uri = format!("file://{}/lib.rs", home.display());
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args(["lsp", "--endpoint", &server.url, "--config"])
        .arg(&config)
        .current_dir(&home)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let mut lsp = Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(180));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "rust", "version": 1, "text": source}}}),
    );
    let opened = log_line(&mut lsp, "cache for");
    assert!(opened.contains("warmed the model's cache"), "{opened}");
    // A new line typed near the end of the file, far below what the open read ahead.
    let at = lines.len() - 3;
    let typed = "pub const LIMIT: usize = ";
    let mut edited = lines.clone();
    edited.insert(at, typed);
    lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited.join("\n")}]}}));
    complete(&mut lsp, 2, &uri, at, typed.len());
    let (lowered, _) = last_prompt(&mut lsp, 3);
    assert!(
        lowered < 1000,
        "the first completion there was lowered: {lowered}"
    );
    // The whole prompt at the cursor is read ahead after a pause.
    let warmed = log_line(&mut lsp, "at the cursor");
    assert!(
        warmed.contains("warmed the model's cache at the cursor"),
        "{warmed}"
    );
    // The next keystroke: its prompt has the full budget back, and the server reads little.
    let typed = format!("{typed}1");
    edited[at] = &typed;
    lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": edited.join("\n")}]}}));
    let before = evaluated(&server.url);
    complete(&mut lsp, 4, &uri, at, typed.len());
    let read = evaluated(&server.url) - before;
    let (budget, said) = last_prompt(&mut lsp, 5);
    assert!(budget >= 1500, "the budget came back to {budget} only");
    let (told, whole) = said.expect("the server said what it read");
    eprintln!(
        "cursor warming: lowered to {lowered}, then a budget of {budget}; the next keystroke read {read} ({told} by its timings) of {whole} prompt tokens"
    );
    assert!(
        read * 10.0 <= whole as f64 && told * 10 <= whole,
        "the keystroke after the warming read {read} ({told} by its timings) of its {whole} prompt tokens"
    );
    let _ = std::fs::remove_dir_all(&home);
}
