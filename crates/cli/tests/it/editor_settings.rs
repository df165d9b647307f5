//! The editor's settings for `pilotfish lsp`, as VS Code sends them: one that cannot be used
//! is refused by its setting's name, and the rest of the change applies. The models are
//! scripted fakes on loopback (`ScriptedModel`), so that which one answered tells which
//! settings are in force.

use std::{process::Command, time::Duration};

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

use super::servers::Lsp;

const URI: &str = "file:///tmp/pilotfish-editor-settings/orders.py";

/// Asks for an inline completion at the end of the open document's second line; the text of
/// the first item, and the messages that came before the answer.
fn complete(lsp: &mut Lsp, id: i64) -> (Value, Vec<Value>) {
    lsp.send(json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/inlineCompletion", "params": {
        "textDocument": {"uri": URI}, "position": {"line": 1, "character": 12}, "context": {"triggerKind": 1}}}));
    let (answer, seen) = lsp.answer(id);
    (answer["result"]["items"][0]["insertText"].clone(), seen)
}

/// A chat backend that needs a model name, without one: refused by `pilotfish.chat.backend`
/// (not by the command line's `--model`), while the new completions' endpoint in the same
/// change is used.
#[test]
fn a_wrong_chat_setting_is_named_and_the_rest_of_the_change_applies() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let first = runtime.block_on(ScriptedModel::start(
        vec![Reply::text("first", 2)],
        Duration::ZERO,
    ));
    let second = runtime.block_on(ScriptedModel::start(
        vec![Reply::text("second", 2)],
        Duration::ZERO,
    ));
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args([
            "lsp",
            "--backend",
            "openai-completions",
            "--endpoint",
            &first.url,
        ])
        .env("XDG_CACHE_HOME", super::cache_home())
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND");
    let mut lsp = Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(120));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let text = "def order_total(items):\n    total = \n";
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": URI, "languageId": "python", "version": 1, "text": text}}}),
    );
    let (said, _) = complete(&mut lsp, 2);
    assert_eq!(said, "first");
    // VS Code sends the whole of its settings: a new endpoint, and a chat backend without the
    // model it needs.
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {
        "settings": {"pilotfish": {
            "backend": {"kind": "openai-completions", "endpoint": second.url},
            "completion": {},
            "chat": {"kind": "ollama-chat"},
        }}}}),
    );
    let (said, seen) = complete(&mut lsp, 3);
    assert_eq!(said, "second", "the rest of the change applies: {seen:?}");
    let logged: Vec<&str> = seen
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .filter_map(|m| m["params"]["message"].as_str())
        .collect();
    let refusal = logged
        .iter()
        .find(|m| m.contains("was not applied"))
        .unwrap_or_else(|| panic!("no refusal logged: {seen:?}"));
    assert!(refusal.contains("pilotfish.chat.backend"), "{refusal}");
    assert!(refusal.contains("ollama-chat"), "{refusal}");
    // The fix, in the editor's words.
    assert!(refusal.contains("pilotfish.chat.model"), "{refusal}");
    assert!(!refusal.contains("--model"), "{refusal}");
    // Only the wrong setting is named.
    assert!(!refusal.contains("pilotfish.endpoint"), "{refusal}");
}
