//! Nothing a workspace says runs without the user's yes, on the command line: a cloned
//! repository's `.vscode/mcp.json` server (here `sh -c 'touch PWNED'`, which leaves a marker
//! when started) starts only with `--yes`, an answer on the terminal, or an earlier "always"
//! for that exact definition. The terminal is a real pseudo-terminal (`script` from
//! util-linux), so the question is asked as a user would see it.

use super::*;

fn workspace_server(dir: &Path, script: &str) {
    std::fs::create_dir_all(dir.join("repo/.vscode")).unwrap();
    let file = json!({"servers": {"pwn": {"command": "sh", "args": ["-c", script]}}});
    std::fs::write(dir.join("repo/.vscode/mcp.json"), file.to_string()).unwrap();
}

/// `pilotfish agent` on a pseudo-terminal, `typed` given as the user's keys; what the terminal
/// showed. Standard input stays open until the run ends: `script` hangs the terminal up when
/// its input closes, which would end the run early.
fn on_terminal(dir: &Path, url: &str, typed: &str) -> String {
    use std::io::{Read, Write};
    let line = format!(
        "{} agent --folder {} --endpoint {url} --format json hello",
        env!("CARGO_BIN_EXE_pilotfish"),
        dir.join("repo").display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("XDG_STATE_HOME", dir.join("state"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("util-linux's script runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(typed.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut shown = String::new();
        let _ = stdout.read_to_string(&mut shown);
        shown
    });
    let status = child.wait().unwrap();
    drop(stdin);
    let shown = reader.join().unwrap();
    assert!(status.success(), "{status}: {shown}");
    shown
}

fn model(runtime: &tokio::runtime::Runtime, answers: usize) -> ScriptedChat {
    runtime.block_on(ScriptedChat::start(
        (0..answers).map(|_| Turn::Text("Hello.".into())).collect(),
    ))
}

/// Without a terminal and without `--yes`, the server does not start, and standard error names
/// it, shows its command line and says how to allow it; `--yes` starts it for that run only.
#[test]
fn a_workspace_server_does_not_start_without_a_yes() {
    let dir = repo("trust-unasked");
    let marker = dir.join("repo/PWNED");
    workspace_server(&dir, "touch PWNED");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = model(&runtime, 3);
    let out = agent(&dir, &model.url, &["hello"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!marker.exists(), "the workspace's server ran unasked");
    for said in ["`pwn`", "sh -c 'touch PWNED'", "--yes", "terminal"] {
        assert!(stderr.contains(said), "{said} not in: {stderr}");
    }
    let out = agent(&dir, &model.url, &["hello", "--yes"]);
    assert!(out.status.success());
    assert!(marker.exists(), "--yes starts it");
    std::fs::remove_file(&marker).unwrap();
    // --yes is for one run: nothing was remembered.
    let out = agent(&dir, &model.url, &["hello"]);
    assert!(out.status.success());
    assert!(!marker.exists());
}

/// On a terminal the user is asked with the whole command shown: "n" starts nothing, "a"
/// starts it and remembers that definition, so a later run without a terminal starts it; a
/// changed definition is not covered and, with no terminal, does not start.
#[test]
fn asked_on_the_terminal_and_always_is_remembered_for_that_definition() {
    let dir = repo("trust-terminal");
    let marker = dir.join("repo/PWNED");
    workspace_server(&dir, "touch PWNED");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = model(&runtime, 5);
    let shown = on_terminal(&dir, &model.url, "n\n");
    assert!(shown.contains("sh -c 'touch PWNED'"), "{shown}");
    assert!(shown.contains("pwn"), "{shown}");
    assert!(!marker.exists(), "answered no, it ran");

    let shown = on_terminal(&dir, &model.url, "a\n");
    assert!(
        marker.exists(),
        "answered always, it did not start: {shown}"
    );
    std::fs::remove_file(&marker).unwrap();
    assert!(
        dir.join("state/pilotfish/mcp-approvals.json").is_file(),
        "the answer is kept in the user's state folder"
    );

    let out = agent(&dir, &model.url, &["hello"]);
    assert!(
        out.status.success(),
        "{}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(marker.exists(), "the remembered definition did not start");
    std::fs::remove_file(&marker).unwrap();

    workspace_server(&dir, "touch PWNED; touch CHANGED");
    let out = agent(&dir, &model.url, &["hello"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !marker.exists() && !dir.join("repo/CHANGED").exists(),
        "a changed definition ran on an old approval"
    );
    assert!(stderr.contains("touch CHANGED"), "{stderr}");
}
