//! Conversations kept between processes: a session of one `pilotfish acp` is saved under the
//! user's state folder, listed and loaded (replayed) in a new process which continues it with
//! the model seeing its earlier turns exactly as they were sent; resumed without replay;
//! closed, deleted; pruned by count; and continued from the terminal by `pilotfish agent
//! --resume`.

use super::*;

/// The messages of the model's request `n`.
fn messages(model: &ScriptedChat, n: usize) -> Vec<Value> {
    let bodies = model.bodies.lock().unwrap();
    bodies
        .get(n)
        .unwrap_or_else(|| panic!("the model got {} requests, not {}", bodies.len(), n + 1))["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// Request `later` starts with every message of request `earlier` exactly as it was sent, then
/// the model's answer to it (`answer`), then a user message carrying `task`.
fn assert_continues(model: &ScriptedChat, earlier: usize, later: usize, answer: &str, task: &str) {
    let before = messages(model, earlier);
    let after = messages(model, later);
    assert!(after.len() >= before.len() + 2, "{after:?}");
    assert_eq!(
        after[..before.len()],
        before[..],
        "the continued request must start with the earlier one, byte for byte"
    );
    assert_eq!(after[before.len()]["role"], "assistant");
    assert_eq!(text_of(&after[before.len()]["content"]), answer);
    let last = after.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(text_of(&last["content"]).contains(task), "{last}");
}

/// The session kinds of the updates that came during step `step`.
fn kinds_in(t: &Value, step: usize) -> Vec<String> {
    t["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["step"] == step)
        .map(|u| u["update"]["sessionUpdate"].as_str().unwrap().to_owned())
        .filter(|k| k != "available_commands_update")
        .collect()
}

/// Every file of the workspace, for checking that saving wrote nothing there.
fn workspace_files(dir: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--ignored",
        ])
        .current_dir(root(dir))
        .output()
        .unwrap();
    let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    files.sort();
    files
}

/// A conversation of one process (a question, a file read, an answer) is saved in the state
/// folder, not the workspace; a new process lists it for the workspace with its title and
/// time, loads it (its prompt, tool call and answer replayed as `session/update`s before the
/// answer to `session/load`), and continues it: the model's next request starts with the
/// earlier request exactly as it was sent, then its answer, then the new prompt.
#[test]
fn a_conversation_is_listed_and_loaded_in_a_new_process_which_continues_it() {
    let dir = workspace("sessions-load");
    let before = workspace_files(&dir);
    let (_rt, model) = scripted(vec![
        read("src/calc.py"),
        Turn::Text("It subtracts.".into()),
        Turn::Text("Now it adds.".into()),
    ]);
    let first = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), prompt("what does add do?")],
        ),
    );
    assert_clean(&first);
    assert_eq!(stop_reason(&first, 0), "end_turn", "{}", why(&first));
    let id = session_id(&first, 0);
    let kept = dir.join(format!("state/pilotfish/agent-sessions/{id}.json"));
    assert!(
        kept.exists(),
        "not saved in the state folder{}",
        why(&first)
    );
    assert!(
        dir.join("state/pilotfish/agent-sessions/index.json")
            .exists()
    );
    assert_eq!(
        workspace_files(&dir),
        before,
        "nothing is written in the workspace"
    );

    let cwd = root(&dir);
    let second = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                request("session/list", json!({"cwd": cwd})),
                json!({"do": "load_session", "sessionId": id, "cwd": cwd, "mcpServers": []}),
                prompt("now make it add"),
            ],
        ),
    );
    assert_clean(&second);
    let caps = &result(&second, "initialize", 0)["agentCapabilities"];
    assert_eq!(caps["loadSession"], true, "{caps}");
    for cap in ["list", "resume", "close"] {
        assert!(caps["sessionCapabilities"][cap].is_object(), "{caps}");
    }
    let listed = &result(&second, "session/list", 0)["sessions"];
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["sessionId"], id.as_str());
    assert_eq!(listed[0]["title"], "what does add do?");
    assert_eq!(listed[0]["cwd"], cwd.display().to_string());
    assert!(
        listed[0]["updatedAt"]
            .as_str()
            .is_some_and(|t| t.len() == 20 && t.ends_with('Z')),
        "{listed}"
    );
    let loaded = result(&second, "session/load", 0);
    assert!(loaded["configOptions"].is_array(), "{loaded}");
    assert_eq!(
        kinds_in(&second, 2),
        [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk"
        ],
        "{}",
        why(&second)
    );
    let replayed: Vec<&Value> = updates(&second, "user_message_chunk");
    assert_eq!(
        replayed[0]["update"]["content"]["text"],
        "what does add do?"
    );
    assert_eq!(said(&second, 2), "It subtracts.");
    let read_call = &updates(&second, "tool_call")[0]["update"];
    assert_eq!(read_call["kind"], "read");
    assert_eq!(read_call["locations"][0]["path"], calc(&dir));
    assert_eq!(stop_reason(&second, 0), "end_turn", "{}", why(&second));
    assert_eq!(said(&second, 3), "Now it adds.");
    assert_continues(&model, 1, 2, "It subtracts.", "now make it add");
    // The whole conversation is saved again, the touched files with it.
    let text = std::fs::read_to_string(&kept).unwrap();
    assert!(text.contains("Now it adds.") && text.contains("now make it add"));
}

/// `session/resume` takes a conversation up without telling it again (no message updates) and
/// the next prompt continues it; `session/close` frees the session (a prompt to it is refused)
/// while the saved conversation stays listed; `session/delete` removes it.
#[test]
fn a_resumed_session_continues_without_replay_and_close_frees_it() {
    let dir = workspace("sessions-resume");
    let (_rt, model) = scripted(vec![
        Turn::Text("Teal it is.".into()),
        Turn::Text("It was teal.".into()),
    ]);
    let first = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("remember the colour teal"),
            ],
        ),
    );
    assert_clean(&first);
    let id = session_id(&first, 0);
    let cwd = root(&dir);
    let again = json!({"sessionId": "$last", "prompt": [{"type": "text", "text": "hello?"}]});
    let second = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                request(
                    "session/resume",
                    json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
                ),
                prompt("which colour?"),
                request("session/close", json!({"sessionId": "$last"})),
                request("session/prompt", again),
                request("session/list", json!({"cwd": cwd})),
                request("session/delete", json!({"sessionId": id})),
                request("session/list", json!({"cwd": cwd})),
            ],
        ),
    );
    assert_clean(&second);
    let resumed = result(&second, "session/resume", 0);
    assert!(resumed["configOptions"].is_array(), "{resumed}");
    assert_eq!(kinds_in(&second, 1), Vec::<String>::new(), "no replay");
    assert_eq!(said(&second, 2), "It was teal.", "{}", why(&second));
    assert_continues(&model, 0, 1, "Teal it is.", "which colour?");
    assert_eq!(result(&second, "session/close", 0), &json!({}));
    let refused = &answers(&second, "session/prompt")[1]["error"];
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("no session")),
        "a closed session takes no prompt: {refused}"
    );
    assert_eq!(model.bodies.lock().unwrap().len(), 2);
    let still = &result(&second, "session/list", 0)["sessions"];
    assert_eq!(still[0]["sessionId"], id.as_str(), "closed, still saved");
    assert_eq!(result(&second, "session/delete", 0), &json!({}));
    assert_eq!(result(&second, "session/list", 1)["sessions"], json!([]));
    assert!(
        !dir.join(format!("state/pilotfish/agent-sessions/{id}.json"))
            .exists()
    );
}

/// With `[sessions] max_count = 2`, the third conversation saved pushes out the least recently
/// continued one: its file goes and it is no longer listed.
#[test]
fn old_sessions_are_pruned_by_count() {
    let dir = workspace("sessions-prune");
    std::fs::create_dir_all(dir.join("config/pilotfish")).unwrap();
    std::fs::write(
        dir.join("config/pilotfish/config.toml"),
        "[sessions]\nmax_count = 2\n",
    )
    .unwrap();
    let (_rt, model) = scripted(vec![
        Turn::Text("One.".into()),
        Turn::Text("Two.".into()),
        Turn::Text("Three.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("first"),
                new_session(&dir),
                prompt("second"),
                new_session(&dir),
                prompt("third"),
                request("session/list", json!({"cwd": root(&dir)})),
            ],
        ),
    );
    assert_clean(&t);
    let ids: Vec<String> = (0..3).map(|n| session_id(&t, n)).collect();
    let listed: Vec<&str> = result(&t, "session/list", 0)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()], "{}", why(&t));
    let folder = dir.join("state/pilotfish/agent-sessions");
    assert!(!folder.join(format!("{}.json", ids[0])).exists());
    assert!(folder.join(format!("{}.json", ids[2])).exists());
}

/// `pilotfish agent --resume ID` continues a conversation begun in an editor: the model's
/// request starts with the editor's request exactly as it was sent, its answer, then the new
/// task; `--sessions` lists the conversation; `--resume` without an id takes the latest.
#[test]
fn pilotfish_agent_resume_continues_a_saved_conversation() {
    let dir = workspace("sessions-agent");
    let (_rt, model) = scripted(vec![
        Turn::Text("Noted: teal.".into()),
        Turn::Text("The word was teal.".into()),
        Turn::Text("Still teal.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("remember the word teal"),
            ],
        ),
    );
    assert_clean(&t);
    let id = session_id(&t, 0);
    let agent = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .arg("agent")
            .args(args)
            .args(["--folder", root(&dir).to_str().unwrap()])
            .args(["--endpoint", &model.url])
            .env("XDG_STATE_HOME", dir.join("state"))
            .env("HOME", dir.join("home"))
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pilotfish agent {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let listed = agent(&["--sessions"]);
    assert!(
        listed.contains(&id) && listed.contains("remember the word teal"),
        "{listed}"
    );
    let out = agent(&["--resume", &id, "what was the word?"]);
    assert!(out.contains("The word was teal."), "{out}");
    assert_continues(&model, 0, 1, "Noted: teal.", "what was the word?");
    let out = agent(&["--resume", "and now?"]);
    assert!(out.contains("Still teal."), "{out}");
    assert_continues(&model, 1, 2, "The word was teal.", "and now?");
}

/// `pilotfish acp --no-save` keeps nothing: the conversation runs, and no session folder is
/// written.
#[test]
fn no_save_keeps_nothing() {
    let dir = workspace("sessions-nosave");
    let (_rt, model) = scripted(vec![Turn::Text("Hello.".into())]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("hello")],
    );
    s["agent"]["argv"]
        .as_array_mut()
        .unwrap()
        .push(json!("--no-save"));
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert!(!dir.join("state/pilotfish/agent-sessions").exists());
}
