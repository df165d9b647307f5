//! A team's shared server behind an API key: the real llama-server started with `--api-key`
//! (the tiny fill-in-the-middle test model), asked by `pilotfish complete`, `config check` and
//! `pilotfish lsp` as a user runs them, each with a home of its own. Without a key the
//! refusal says how to give one; with the key from a file or from `$PILOTFISH_API_KEY` the
//! completions come; the key's text is in no output, no standard error, no `config check`
//! and no inspector page.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    time::Duration,
};

use serde_json::json;
use test_utils::LlamaServer;

use super::servers::Lsp;

/// The team's key: long and unlike anything else a page holds.
const KEY: &str = "sk-team-k45-3f9d0c7ab21e";

/// The file being completed, in a workspace of its own (a `.git` folder marks its root).
fn workspace(home: &Path) -> PathBuf {
    let work = home.join("work");
    std::fs::create_dir_all(work.join(".git")).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::copy(repo.join("examples/shop/orders.py"), work.join("orders.py")).unwrap();
    work
}

/// Time limits that a busy machine keeps within: what is tested is the key, not the speed.
const TIMES: &str = "timeout_seconds = 120\nfirst_token_timeout_seconds = 60\n";

/// The user's configuration file: the server, and `extra` lines of `[backend]`.
fn configure(home: &Path, server: &LlamaServer, extra: &str) {
    let dir = home.join(".config/pilotfish");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[backend]\nendpoint = \"{}\"\nmax_tokens = 4\n{TIMES}{extra}",
            server.url
        ),
    )
    .unwrap();
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Fails when `what` shows the key.
fn hidden(what: &str, shown: &str) {
    assert!(!shown.contains(KEY), "{what} shows the key: {shown}");
}

#[test]
fn a_key_from_a_file_or_the_environment_reaches_a_keyed_server_and_is_never_shown() {
    let server = LlamaServer::tiny(1024, &["--api-key", KEY]);
    let home = crate::fresh_home("team-keys", "keys");
    let work = workspace(&home);
    let complete = ["complete", "orders.py:31:13"];

    // No key: refused, with the status and the settings that give a key.
    configure(&home, &server, "");
    let out = crate::pilotfish_as_user(&home, &work, &complete);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("401") && said.contains("api_key_file") && said.contains("PILOTFISH_API_KEY"),
        "{said}"
    );
    let out = crate::pilotfish_as_user(&home, &work, &["config", "check"]);
    let said = text(&out);
    assert!(!out.status.success() && said.contains("401"), "{said}");

    // The key from a file outside the workspace.
    let key_file = home.join("team-key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    configure(
        &home,
        &server,
        &format!("api_key_file = \"{}\"\n", key_file.display()),
    );
    let page = home.join("page.html");
    let mut args = complete.to_vec();
    let page_arg = page.display().to_string();
    args.extend(["--format", "json", "--html", &page_arg]);
    let out = crate::pilotfish_as_user(&home, &work, &args);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["source"], "network", "{answer}");
    hidden("complete", &said);
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.contains("<html") || page.contains("<!"), "a page");
    hidden("the inspector page of complete", &page);
    let out = crate::pilotfish_as_user(&home, &work, &["config", "check"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("answered as                  llama.cpp"),
        "{said}"
    );
    assert!(
        said.contains("(hidden), from api_key_file") && said.contains("team-key"),
        "{said}"
    );
    hidden("config check", &said);

    // The key from $PILOTFISH_API_KEY, for the language server.
    configure(&home, &server, "");
    lsp_with_the_variable(&home, &work);
}

/// `pilotfish lsp` with the key in `$PILOTFISH_API_KEY`: completions come from the keyed
/// server, and neither its messages, its standard error nor its inspector page show the key.
fn lsp_with_the_variable(home: &Path, work: &Path) {
    let stderr = home.join("lsp.err");
    let mut command = Command::new("sh");
    command
        .args(["-c", "exec \"$0\" lsp --stdio 2>\"$1\""])
        .arg(env!("CARGO_BIN_EXE_pilotfish"))
        .arg(&stderr)
        .current_dir(work)
        .env("PILOTFISH_API_KEY", KEY)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let mut lsp = Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(180));
    let mut messages = Vec::new();
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    messages.extend(lsp.answer(1).1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let source = std::fs::read_to_string(work.join("orders.py")).unwrap();
    let uri = format!("file://{}/orders.py", work.display());
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": source}}}),
    );
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlineCompletion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 30, "character": 12},
        "context": {"triggerKind": 1}}}),
    );
    let (completion, seen) = lsp.answer(2);
    messages.extend(seen);
    assert!(completion.get("error").is_none(), "{completion}");
    lsp.send(json!({"jsonrpc": "2.0", "id": 3, "method": "pilotfish/stats", "params": {}}));
    let (stats, seen) = lsp.answer(3);
    messages.extend(seen);
    let pipeline = &stats["result"]["pipeline"];
    assert!(
        pipeline["network"].as_u64().unwrap_or(0) >= 1,
        "the server was asked: {stats}"
    );
    assert_eq!(
        pipeline["failures"], 0,
        "nothing refused: {stats} {messages:?}"
    );
    lsp.send(json!({"jsonrpc": "2.0", "id": 4, "method": "pilotfish/inspect", "params": {}}));
    let (inspect, seen) = lsp.answer(4);
    messages.extend(seen);
    let page = inspect["result"]["html"].as_str().unwrap_or_default();
    assert!(page.len() > 100, "an inspector page: {inspect}");
    hidden("the language server's inspector page", page);
    hidden(
        "the language server's messages",
        &format!("{messages:?} {completion} {stats}"),
    );
    lsp.send(json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}));
    lsp.answer(5);
    lsp.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = lsp.child.wait();
    hidden(
        "the language server's standard error",
        &std::fs::read_to_string(&stderr).unwrap_or_default(),
    );
}

/// A key written in the workspace, in a configuration file there or in a key file there, is
/// refused without being shown, and so is a key setting among the editor's (which a
/// workspace's own settings can hold).
#[test]
fn a_key_in_the_workspace_is_refused_and_not_shown() {
    let home = crate::fresh_home("team-keys", "workspace");
    let work = workspace(&home);
    let config = work.join("pilotfish.toml");
    let config_arg = config.display().to_string();
    let check = ["config", "check", "--config", &config_arg];
    std::fs::write(
        &config,
        format!("[backend]\nendpoint = \"http://127.0.0.1:9\"\napi_key = \"{KEY}\"\n"),
    )
    .unwrap();
    let out = crate::pilotfish_as_user(&home, &work, &check);
    let said = text(&out);
    assert!(
        !out.status.success() && said.contains("inside the workspace"),
        "{said}"
    );
    hidden("the refusal of a key in the workspace", &said);
    std::fs::write(work.join("key"), KEY).unwrap();
    std::fs::write(
        &config,
        "[backend]\nendpoint = \"http://127.0.0.1:9\"\napi_key_file = \"key\"\n",
    )
    .unwrap();
    let out = crate::pilotfish_as_user(&home, &work, &check);
    let said = text(&out);
    assert!(
        !out.status.success()
            && said.contains("api_key_file")
            && said.contains("inside the workspace"),
        "{said}"
    );
    hidden("the refusal of a key file in the workspace", &said);

    // The editor's settings: the key setting is refused, the others apply.
    let mut lsp = Lsp::start(&["--endpoint", "http://127.0.0.1:9"]);
    lsp.watchdog(Duration::from_secs(60));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": {},
        "initializationOptions": {"backend": {"api_key": KEY, "max_tokens": 8}}}}),
    );
    let (_, mut seen) = lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    lsp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "pilotfish/stats", "params": {}}));
    seen.extend(lsp.answer(2).1);
    let said = format!("{seen:?}");
    assert!(
        said.contains("never taken from the editor's settings"),
        "{said}"
    );
    hidden("the refusal of an editor's key setting", &said);
}
