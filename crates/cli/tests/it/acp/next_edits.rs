//! Next edits over ACP (the protocol's unstable `nes/*` and `document/*`), driven by the
//! official SDK's client, against the same fake next-edit model as the language server's test:
//! the same edits (the rename of `class Point`) and the same cursor give the same request to
//! the model, byte for byte, and the same edit back; accepting and rejecting are counted.

use std::time::Duration;

use test_utils::fake_next_edit::{FakeNextEditModel, Script};

use super::*;
use crate::next_edit::{TEXT, URI, config, scratch};

/// Where the rename is typed, and where the cursor then is (line 9, before `Point(1, 1)`, in
/// UTF-16 units).
fn cursor() -> (usize, usize) {
    let line = "  const café = new Point(1, 1);";
    (
        9,
        line[..line.find("Point").unwrap()].encode_utf16().count(),
    )
}

const WORKSPACE: &str = "file:///ws";

/// The rename as a content change, the same for both protocols.
fn rename() -> Value {
    json!([{"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 11}},
        "text": "3D"}])
}

/// A home, state, cache and configuration of the test's own for a pilotfish process.
fn own_folders(command: &mut Command, dir: &Path) {
    for (var, folder) in [
        ("HOME", "home"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_CONFIG_HOME", "config-home"),
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        command.env(var, dir.join(folder));
    }
    for var in [
        "PILOTFISH_CONFIG",
        "PILOTFISH_ENDPOINT",
        "PILOTFISH_BACKEND",
        "PILOTFISH_MODEL",
        "PILOTFISH_COPILOT_TEXTS",
    ] {
        command.env_remove(var);
    }
}

/// `pilotfish lsp` with `cfg`: open, rename, ask `copilotInlineEdit` at the cursor; its edit.
fn language_server(dir: &Path, cfg: &Path) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command.args(["lsp", "--config"]).arg(cfg);
    own_folders(&mut command, dir);
    let mut lsp = crate::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(60));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": {}, "workspaceFolders": [{"uri": WORKSPACE, "name": "ws"}]}}),
    );
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": URI, "languageId": "typescript", "version": 1, "text": TEXT}}}),
    );
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": URI, "version": 2}, "contentChanges": rename()}}),
    );
    let (line, character) = cursor();
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/copilotInlineEdit",
        "params": {"textDocument": {"uri": URI, "version": 2},
            "position": {"line": line, "character": character}}}),
    );
    let (answer, _) = lsp.answer(2);
    lsp.send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": null}));
    lsp.answer(3);
    lsp.send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = lsp.child.wait();
    let edits = answer["result"]["edits"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(edits.len(), 1, "the language server made no edit: {answer}");
    edits[0].clone()
}

/// The same over ACP: `nes/start`, the document opened and renamed through `document/*`,
/// `nes/suggest` at the cursor (accepted), again (rejected), and the counts.
fn over_acp(dir: &Path, cfg: &Path) -> Value {
    let (line, character) = cursor();
    let suggest = json!({"do": "sdk_request", "method": "nes/suggest", "params": {
        "sessionId": "$nes", "uri": URI, "version": 2,
        "position": {"line": line, "character": character}, "triggerKind": "automatic"}});
    let steps = vec![
        initialize(),
        json!({"do": "sdk_request", "method": "nes/start", "params": {"workspaceUri": WORKSPACE}}),
        json!({"do": "sdk_notify", "method": "document/didOpen", "params": {"sessionId": "$nes",
            "uri": URI, "languageId": "typescript", "version": 1, "text": TEXT}}),
        json!({"do": "sdk_notify", "method": "document/didChange", "params": {"sessionId": "$nes",
            "uri": URI, "version": 2, "contentChanges": rename()}}),
        json!({"do": "sdk_notify", "method": "document/didFocus", "params": {"sessionId": "$nes",
            "uri": URI, "version": 2, "position": {"line": line, "character": character},
            "visibleRange": {"start": {"line": 0, "character": 0}, "end": {"line": 12, "character": 0}}}}),
        suggest.clone(),
        json!({"do": "sdk_notify", "method": "nes/accept", "params": {"sessionId": "$nes", "id": "$suggestion"}}),
        suggest,
        json!({"do": "sdk_notify", "method": "nes/reject", "params": {"sessionId": "$nes",
            "id": "$suggestion", "reason": "rejected"}}),
        json!({"do": "sdk_request", "method": "_pilotfish/nesStats", "params": {"sessionId": "$nes"}}),
        json!({"do": "sdk_request", "method": "nes/close", "params": {"sessionId": "$nes"}}),
    ];
    let mut env = serde_json::Map::new();
    for (var, folder) in [
        ("HOME", "home"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_CONFIG_HOME", "config-home"),
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        env.insert(var.into(), json!(dir.join(folder)));
    }
    let s = json!({
        "agent": {"argv": [env!("CARGO_BIN_EXE_pilotfish"), "acp", "--config", cfg],
            "env": env, "cwd": dir},
        "capabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false,
            "nes": {}},
        "steps": steps,
    });
    play(dir, &s)
}

/// The language server and the ACP agent, given the same edits, cursor and model server, send
/// the model the same bytes and propose the same edit (the later `new Point(` renamed), in the
/// ACP draft's shape; the agent announced its NES capabilities (the document events, changes as
/// ranges, UTF-16), and counted one acceptance and one rejection.
#[test]
fn next_edits_over_acp_answer_as_the_language_server_does() {
    let dir = scratch("acp-nes");
    // The agent's environment does not carry these; the configuration file says everything.
    let (runtime, model) = {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let model = runtime.block_on(FakeNextEditModel::start(Script::Replace(
            "Point(".into(),
            "Point3D(".into(),
        )));
        (runtime, model)
    };
    let cfg = config(
        &dir,
        &format!(
            "[chat]\nendpoint = \"{}\"\nmodel = \"fake-nes\"\n",
            model.url
        ),
    );
    let lsp_edit = language_server(&dir.join("lsp"), &cfg);
    let lsp_sent = model.received.lock().unwrap().last().cloned().unwrap();
    let before = model.requests();
    let t = over_acp(&dir, &cfg);
    assert_clean(&t);
    let caps = &result(&t, "initialize", 0)["agentCapabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16", "{caps}");
    assert_eq!(
        caps["nes"]["events"]["document"]["didChange"]["syncKind"], "incremental",
        "{caps}"
    );
    let received = model.received.lock().unwrap().clone();
    assert_eq!(
        received.len(),
        before + 2,
        "one model request per nes/suggest"
    );
    let acp_sent = &received[before];
    assert_eq!(acp_sent.path, lsp_sent.path);
    assert!(
        acp_sent.raw == lsp_sent.raw,
        "the model was sent other bytes over ACP:\nlsp: {}\nacp: {}",
        String::from_utf8_lossy(&lsp_sent.raw),
        String::from_utf8_lossy(&acp_sent.raw)
    );
    let answer = result(&t, "nes/suggest", 0);
    let suggestions = answer["suggestions"].as_array().unwrap();
    assert_eq!(suggestions.len(), 1, "{answer}");
    let s = &suggestions[0];
    assert_eq!(s["kind"], "edit");
    assert_eq!(s["uri"], URI);
    assert_eq!(
        s["edits"],
        json!([{"range": lsp_edit["range"], "newText": lsp_edit["text"]}]),
        "the language server answered {lsp_edit}"
    );
    assert_eq!(lsp_edit["text"], "3D");
    let stats = result(&t, "_pilotfish/nesStats", 0);
    assert_eq!(stats["accepted"], 1, "{stats}");
    assert_eq!(stats["rejected"], 1, "{stats}");
    assert!(result(&t, "nes/close", 0).is_object());
    drop(runtime);
}
