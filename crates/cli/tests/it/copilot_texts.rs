//! Copilot's prompt texts, which pilotfish does not ship, as the front ends find them: with
//! the file `tools/copilot-texts.sh` writes, `pilotfish next-edit` sends Copilot's wording;
//! without it (or with other texts) pilotfish's own, and standard error (the command line) or
//! the log (the language server) says once what to run. The scenario is `next_edit`'s rename.

use std::{
    path::Path,
    process::{Command, Output, Stdio},
    time::Duration,
};

use serde_json::{Value, json};

use super::next_edit::{TEXT, URI, config, rename_request, scratch};

/// Without Copilot's texts (`$PILOTFISH_COPILOT_TEXTS` names no file, or a file of other
/// texts) the `copilot` request is sent in pilotfish's own wording, and standard error says
/// once, for a whole batch, why and what to run; with the texts `tools/copilot-texts.sh`
/// fetches, the request is sent in Copilot's and nothing is said.
#[test]
fn without_copilots_texts_the_request_is_worded_by_pilotfish_and_says_what_to_run() {
    let dir = scratch("texts");
    let cfg = config(&dir, "");
    let request = rename_request(None).to_string();
    let batch = format!("{request}\n{request}\n");
    let foreign = dir.join("foreign.json");
    std::fs::write(
        &foreign,
        r#"{"nes_system": "x", "nes_postscript": "y {path}", "recent_edits_heading": "z"}"#,
    )
    .unwrap();
    let run = |texts: &Path| {
        let out = next_edit(&["--batch", "--dry-run"], &cfg, batch.as_bytes(), texts);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], lines[1]);
        let system = lines[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_owned();
        (system, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let mut ours = Vec::new();
    for (texts, why) in [
        (dir.join("none.json"), "are not at"),
        (foreign.clone(), "SHA-256"),
    ] {
        let (system, stderr) = run(&texts);
        assert_eq!(
            stderr.matches("bash tools/copilot-texts.sh").count(),
            1,
            "{stderr}"
        );
        assert!(stderr.contains(why), "{stderr}");
        assert!(stderr.contains(&texts.display().to_string()), "{stderr}");
        ours.push(system);
    }
    assert_eq!(ours[0], ours[1], "pilotfish's wording either way");
    // The sweep strategy sends none of Copilot's texts and is told nothing of them.
    let sweep = rename_request(Some("sweep")).to_string();
    let out = next_edit(
        &["--request", "-", "--dry-run"],
        &cfg,
        sweep.as_bytes(),
        &dir.join("none.json"),
    );
    assert!(out.status.success());
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("copilot-texts"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With the texts fetched from Copilot's package, Copilot's wording and no word of it.
    let fetched = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/copilot-texts.sh"))
        .output()
        .expect("bash runs");
    assert!(
        fetched.status.success(),
        "tools/copilot-texts.sh failed: {}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    let path = String::from_utf8_lossy(&fetched.stdout)
        .lines()
        .last()
        .expect("the script prints the file's path last")
        .to_owned();
    let (system, stderr) = run(Path::new(&path));
    assert!(!stderr.contains("copilot-texts"), "{stderr}");
    assert_ne!(system, ours[0], "Copilot's wording is not pilotfish's");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pilotfish lsp` without Copilot's texts: the log says what to run at the first next edit
/// asked for, and not again at the second. (No model is listening: the answers are empty.)
#[test]
fn the_language_server_logs_once_what_to_run_for_copilots_texts() {
    let dir = scratch("texts-lsp");
    let cfg = config(&dir, "[chat]\nendpoint = \"http://127.0.0.1:9\"\n");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args(["lsp", "--config"])
        .arg(&cfg)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .env_remove("PILOTFISH_MODEL")
        .env("PILOTFISH_COPILOT_TEXTS", dir.join("none.json"));
    let mut lsp = super::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(20));
    let mut id = 0;
    let mut ask = |lsp: &mut super::servers::Lsp, method: &str, params: Value| {
        id += 1;
        lsp.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        lsp.answer(id)
    };
    let notify = |lsp: &mut super::servers::Lsp, method: &str, params: Value| {
        lsp.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    };
    ask(&mut lsp, "initialize", json!({"capabilities": {}}));
    notify(&mut lsp, "initialized", json!({}));
    notify(
        &mut lsp,
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "typescript", "version": 1, "text": TEXT}}),
    );
    notify(
        &mut lsp,
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 11}}, "text": "3D"}]}),
    );
    let told = |notes: &[Value]| {
        notes
            .iter()
            .filter(|n| {
                n["method"] == "window/logMessage"
                    && n["params"]["message"].as_str().is_some_and(|m| {
                        m.contains("bash tools/copilot-texts.sh") && m.contains("none.json")
                    })
            })
            .count()
    };
    let at = json!({"textDocument": {"uri": URI, "version": 2}, "position": {"line": 9, "character": 19}});
    let (first, notes) = ask(&mut lsp, "textDocument/copilotInlineEdit", at.clone());
    assert_eq!(first["result"]["edits"], json!([]), "{first}");
    assert_eq!(told(&notes), 1, "{notes:?}");
    let (_, notes) = ask(&mut lsp, "textDocument/copilotInlineEdit", at);
    assert_eq!(told(&notes), 0, "said once: {notes:?}");
    let (down, _) = ask(&mut lsp, "shutdown", Value::Null);
    assert!(down["error"].is_null(), "{down}");
    notify(&mut lsp, "exit", Value::Null);
    assert_eq!(lsp.child.wait().unwrap().code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pilotfish next-edit ARGS --config CONFIG` with `stdin`, Copilot's texts looked for at
/// `texts`.
fn next_edit(args: &[&str], config: &Path, stdin: &[u8], texts: &Path) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .arg("next-edit")
        .args(args)
        .arg("--config")
        .arg(config)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .env_remove("PILOTFISH_MODEL")
        .env("PILOTFISH_COPILOT_TEXTS", texts)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}
