//! Nothing a workspace says runs without the user's yes, over ACP: the servers of a cloned
//! repository's `.vscode/mcp.json` start only once the user allows them through
//! `session/request_permission` (remembered, in the user's own state folder, for that exact
//! definition when the answer is "always"); the servers the editor itself passes start without
//! asking; "allow always" for a command covers that command, never another program.
//!
//! The "servers" here leave a marker file when started (`sh -c 'touch MARKER'`), so the tests
//! see whether anything ran.

use super::*;

/// Writes the workspace's `.vscode/mcp.json` with one server, `pwn`, that runs `script` in sh.
fn workspace_server(dir: &Path, script: &str) {
    std::fs::create_dir_all(root(dir).join(".vscode")).unwrap();
    let file =
        json!({"servers": {"pwn": {"type": "stdio", "command": "sh", "args": ["-c", script]}}});
    std::fs::write(root(dir).join(".vscode/mcp.json"), file.to_string()).unwrap();
}

/// The permission requests that asked about starting a server.
fn server_questions(t: &Value) -> Vec<&Value> {
    t["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["toolCall"]["title"]
                .as_str()
                .unwrap_or_default()
                .contains("MCP server")
        })
        .collect()
}

/// One session with one prompt, the permission answers given.
fn one_prompt(dir: &Path, answers: Value) -> Value {
    let (_rt, model) = scripted(vec![Turn::Text("Hello.".into())]);
    let mut s = scenario(
        dir,
        &model.url,
        vec![initialize(), new_session(dir), prompt("hello")],
    );
    s["permissions"] = answers;
    let t = play(dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    t
}

/// A cloned workspace's server does not start with `session/new`; the first prompt asks about
/// it (kind `execute`, titled with its name, its command line shown, four answers); rejected,
/// it does not start and the turn goes on; allowed once, it starts, and a new process asks
/// again.
#[test]
fn a_workspace_server_starts_only_after_the_user_allows_it() {
    let dir = workspace("trust-ask");
    let marker = root(&dir).join("PWNED");
    workspace_server(&dir, "touch PWNED");
    let t = one_prompt(&dir, json!(["reject_once"]));
    assert!(!marker.exists(), "the workspace's server ran unasked");
    let asked = server_questions(&t);
    assert_eq!(asked.len(), 1, "{}", why(&t));
    let question = asked[0];
    assert_eq!(question["step"], 2, "asked at the first prompt, not before");
    assert_eq!(question["toolCall"]["kind"], "execute");
    assert!(
        question["toolCall"]["title"]
            .as_str()
            .unwrap()
            .contains("pwn"),
        "{question}"
    );
    assert!(
        question.to_string().contains("sh -c 'touch PWNED'"),
        "the command line is shown: {question}"
    );
    let kinds: Vec<&Value> = question["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["kind"])
        .collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    assert_eq!(said(&t, 2), "Hello.", "the turn went on");

    let t = one_prompt(&dir, json!(["allow_once"]));
    assert!(marker.exists(), "allowed, the server started{}", why(&t));
    std::fs::remove_file(&marker).unwrap();
    // "Once" is not remembered: the next process asks again.
    let t = one_prompt(&dir, json!(["reject_once"]));
    assert_eq!(server_questions(&t).len(), 1, "{}", why(&t));
    assert!(!marker.exists());
}

/// "Always" is remembered across processes in the user's state folder (not the workspace) for
/// that exact definition: the next process starts the server without asking; a changed
/// definition is asked about again; "never" is remembered too.
#[test]
fn an_always_answer_is_remembered_for_that_definition_only() {
    let dir = workspace("trust-always");
    let marker = root(&dir).join("PWNED");
    workspace_server(&dir, "touch PWNED");
    one_prompt(&dir, json!(["allow_always"]));
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();
    let kept = std::fs::read_to_string(dir.join("state/pilotfish/mcp-approvals.json"))
        .expect("the answer is kept in the state folder");
    assert!(
        kept.contains("pwn") && kept.contains("touch PWNED"),
        "{kept}"
    );
    let in_workspace = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(root(&dir))
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&in_workspace.stdout).contains("approv"),
        "nothing is written in the workspace"
    );

    let t = one_prompt(&dir, json!([]));
    assert!(server_questions(&t).is_empty(), "asked again: {}", why(&t));
    assert!(marker.exists(), "the remembered server started");
    std::fs::remove_file(&marker).unwrap();

    // The repository changes the definition: asked again, and the answer is never.
    workspace_server(&dir, "touch PWNED; touch CHANGED");
    let t = one_prompt(&dir, json!(["reject_always"]));
    assert_eq!(server_questions(&t).len(), 1, "{}", why(&t));
    assert!(!marker.exists() && !root(&dir).join("CHANGED").exists());
    let t = one_prompt(&dir, json!([]));
    assert!(server_questions(&t).is_empty(), "asked again: {}", why(&t));
    assert!(!root(&dir).join("CHANGED").exists());
}

/// The servers an editor passes in `session/new` are the user's own configuration: they start
/// with the session, without a question.
#[test]
fn an_editor_given_server_starts_without_asking() {
    let dir = workspace("trust-given");
    let marker = root(&dir).join("GIVEN");
    let (_rt, model) = scripted(vec![Turn::Text("Hello.".into())]);
    let session = json!({"do": "new_session", "cwd": root(&dir), "mcpServers": [
        {"name": "mine", "command": "/bin/sh", "args": ["-c", "touch GIVEN"], "env": []}]});
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![initialize(), session, prompt("hello")],
        ),
    );
    assert_clean(&t);
    assert!(marker.exists(), "{}", why(&t));
    assert_eq!(t["permissions"], json!([]), "{}", why(&t));
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
}

/// A workspace server the user allows is offered to the model; one rejected is not, and the
/// turn goes on with the built-in tools.
#[test]
fn a_rejected_workspace_servers_tools_are_not_offered() {
    test_utils::run_tool(
        "mcp-servers/setup.sh",
        "the trust test offers a real MCP server's tools",
    );
    let entry = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ))
    .unwrap();
    let dir = workspace("trust-tools");
    std::fs::create_dir_all(root(&dir).join(".vscode")).unwrap();
    let file = json!({"servers": {"everything": {"command": "node", "args": [entry, "stdio"]}}});
    std::fs::write(root(&dir).join(".vscode/mcp.json"), file.to_string()).unwrap();
    for (answer, offered) in [("reject_once", false), ("allow_once", true)] {
        let (_rt, model) = scripted(vec![Turn::Text("Hello.".into())]);
        let mut s = scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), prompt("hello")],
        );
        s["permissions"] = json!([answer]);
        let t = play(&dir, &s);
        assert_clean(&t);
        assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
        let tools = model.bodies.lock().unwrap()[0]["tools"].to_string();
        assert_eq!(
            tools.contains("mcp_everything_echo"),
            offered,
            "{answer}: {tools}"
        );
        assert!(tools.contains("read_file"), "{tools}");
    }
}

/// "Allow always" for `touch a.flag` covers that command, not `rm -f victim.txt`, which is
/// asked about (and here refused) like any other; a deny rule still wins over "always".
#[test]
fn allow_always_for_one_command_does_not_allow_another_program() {
    let dir = workspace("trust-command");
    std::fs::write(root(&dir).join("victim.txt"), "keep me\n").unwrap();
    std::fs::create_dir_all(dir.join("config/pilotfish")).unwrap();
    std::fs::write(
        dir.join("config/pilotfish/config.toml"),
        "[agent]\ndeny = [\"touch a.flag denied\"]\n",
    )
    .unwrap();
    let (_rt, model) = scripted(vec![
        run("touch a.flag"),
        run("touch a.flag"),
        run("touch a.flag denied"),
        run("rm -f victim.txt"),
        run("touch a.flag; rm -f victim.txt"),
        Turn::Text("Done.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("flag it")],
    );
    s["permissions"] = json!(["allow_always", "reject_once", "reject_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert!(root(&dir).join("a.flag").exists());
    assert!(
        root(&dir).join("victim.txt").exists(),
        "allow always for touch let rm run"
    );
    assert!(
        !root(&dir).join("denied").exists(),
        "the deny rule gave way to allow always"
    );
    let asked: Vec<String> = t["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["toolCall"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(
        asked,
        [
            "Run `touch a.flag`",
            "Run `rm -f victim.txt`",
            "Run `touch a.flag; rm -f victim.txt`"
        ],
        "{}",
        why(&t)
    );
    // The "always" option said what it covers.
    let always = t["permissions"][0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "allow_always")
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(always.contains("touch a.flag"), "{always}");
}
