//! `pilotfish acp` held to its contract (`acp.md`) by a real client: the scripted editor in
//! `tools/acp-client` (built on the official ACP TypeScript SDK) plays each scenario against the
//! binary and prints a transcript, while a scripted model (a fake: it plays a model's moves)
//! answers the agent. The tests read the transcript, the files, and what the model was sent.

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{
        OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use test_utils::scripted_chat::{ScriptedChat, Turn};

mod choices;
mod mcp_http;
mod next_edits;
mod panels;
mod sandbox;
mod sessions;
mod terminals;
mod trust;

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";
/// What an editor holds for `src/calc.py` when it has a change not yet saved.
const UNSAVED: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return -a  # unsaved\n";

/// A workspace in a fresh temporary folder: `repo/` (a git repository with `src/calc.py`, an
/// ignored `secrets.txt`), `outside.txt` beside it, and the state, home and configuration
/// folders the agent is given, so that nothing of the machine's own leaks in.
fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-acp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("repo/src")).unwrap();
    for folder in ["state", "home", "config"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    // The paths the agent reports are compared with these, so they must not hide a symbolic link.
    let dir = std::fs::canonicalize(&dir).unwrap();
    std::fs::write(dir.join("repo/src/calc.py"), CALC).unwrap();
    std::fs::write(dir.join("repo/.copilotignore"), "secrets.txt\n").unwrap();
    std::fs::write(dir.join("repo/secrets.txt"), "hunter2\n").unwrap();
    std::fs::write(dir.join("outside.txt"), "not yours\n").unwrap();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.join("repo"))
        .status()
        .unwrap();
    dir
}

fn root(dir: &Path) -> PathBuf {
    dir.join("repo")
}

fn calc(dir: &Path) -> String {
    root(dir).join("src/calc.py").display().to_string()
}

/// The scenario's agent: `pilotfish acp` on the scripted model, with its own state and home.
fn scenario(dir: &Path, url: &str, steps: Vec<Value>) -> Value {
    json!({
        "agent": {
            "argv": [env!("CARGO_BIN_EXE_pilotfish"), "acp", "--endpoint", url],
            "env": {
                "XDG_STATE_HOME": dir.join("state"),
                "HOME": dir.join("home"),
                "XDG_CONFIG_HOME": dir.join("config"),
            },
            "cwd": root(dir),
        },
        "capabilities": offered(false),
        "steps": steps,
    })
}

/// The client capabilities: both fs methods, or none; never a terminal, so that pilotfish runs
/// commands itself and a test can see whether they ran.
fn offered(fs: bool) -> Value {
    json!({"fs": {"readTextFile": fs, "writeTextFile": fs}, "terminal": false})
}

fn initialize() -> Value {
    json!({"do": "initialize"})
}

fn new_session(dir: &Path) -> Value {
    json!({"do": "new_session", "cwd": root(dir), "mcpServers": []})
}

fn prompt(text: &str) -> Value {
    json!({"do": "prompt", "text": text})
}

/// A request step for any agent method (`params.sessionId` "$last" is the last session).
fn request(method: &str, params: Value) -> Value {
    json!({"do": "request", "method": method, "params": params})
}

fn read(path: &str) -> Turn {
    Turn::call(
        "read_file",
        json!({"filePath": path, "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 20}),
    )
}

fn run(command: &str) -> Turn {
    Turn::call(
        "run_in_terminal",
        json!({"command": command, "explanation": "", "isBackground": false}),
    )
}

/// The edit of `agent.rs`'s bug fix: `add` adds, the rest of the file kept.
fn fix_add() -> Turn {
    Turn::call(
        "edit_file",
        json!({"filePath": "src/calc.py", "explanation": "add adds",
               "code": "def add(a, b):\n    return a + b\n# ...existing code...\n"}),
    )
}

/// Installs the editor's SDK once per test run (`tools/acp-client/setup.sh`).
fn editor() -> &'static PathBuf {
    static EDITOR: OnceLock<PathBuf> = OnceLock::new();
    EDITOR.get_or_init(|| {
        test_utils::run_tool(
            "acp-client/setup.sh",
            "the acp tests drive pilotfish with the official ACP SDK",
        );
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/acp-client/editor.js")
    })
}

/// Plays a scenario with the scripted editor and returns its transcript.
fn play(dir: &Path, scenario: &Value) -> Value {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let file = dir.join(format!(
        "scenario-{}.json",
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::write(&file, serde_json::to_vec_pretty(scenario).unwrap()).unwrap();
    let out = Command::new("node")
        .arg(editor())
        .arg(&file)
        .output()
        .expect("node runs the scripted editor");
    assert!(
        out.status.success(),
        "the scripted editor failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the editor's transcript is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// What went wrong, for assertion messages: the editor's errors, the error answers, how the agent
/// ended and the end of its standard error (where "unrecognized subcommand" would be).
fn why(t: &Value) -> String {
    let failed: Vec<String> = t["responses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("error").is_some())
        .map(|r| format!("{} -> {}", r["method"], r["error"]))
        .collect();
    let stderr = t["stderr"].as_str().unwrap_or("");
    let tail: String = stderr
        .chars()
        .rev()
        .take(3000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!(
        "\nerrors: {}\nerror answers: {failed:?}\nexit: {}\nagent stderr (end):\n{tail}",
        t["errors"], t["exit"]
    )
}

/// What every run must show whatever it tests: the editor had no trouble (every step answered,
/// every `session/update` valid against the ACP v1 schema), and standard output carried only
/// protocol messages.
fn assert_clean(t: &Value) {
    assert_eq!(t["errors"], json!([]), "{}", why(t));
    assert_eq!(
        t["stray_lines"],
        json!([]),
        "standard output must carry only protocol messages{}",
        why(t)
    );
}

/// The answers to one method, in the order they were asked.
fn answers<'a>(t: &'a Value, method: &str) -> Vec<&'a Value> {
    t["responses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == method)
        .collect()
}

/// The result of the `n`th request of `method`, which must have succeeded.
fn result<'a>(t: &'a Value, method: &str, n: usize) -> &'a Value {
    let all = answers(t, method);
    let answer = all
        .get(n)
        .unwrap_or_else(|| panic!("no answer {n} to {method}{}", why(t)));
    assert!(
        answer.get("result").is_some(),
        "{method} {n} failed: {}{}",
        answer["error"],
        why(t)
    );
    &answer["result"]
}

fn stop_reason(t: &Value, n: usize) -> &str {
    result(t, "session/prompt", n)["stopReason"]
        .as_str()
        .unwrap_or("(none)")
}

fn session_id(t: &Value, n: usize) -> String {
    result(t, "session/new", n)["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("session/new gave no sessionId{}", why(t)))
        .to_owned()
}

/// The `session/update` records of one kind (`agent_message_chunk`, `tool_call`, ...), in order;
/// each is `{step, at_ms, sessionId, update}`.
fn updates<'a>(t: &'a Value, kind: &str) -> Vec<&'a Value> {
    t["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["update"]["sessionUpdate"] == kind)
        .collect()
}

/// The words of the agent's message chunks that came during step `step`.
fn said(t: &Value, step: usize) -> String {
    updates(t, "agent_message_chunk")
        .iter()
        .filter(|u| u["step"] == step)
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect()
}

/// The text of a chat message's content, whether a string or a list of parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => other.to_string(),
    }
}

/// What the model was told by the last tool result in its request `n`.
fn last_tool_result(model: &ScriptedChat, n: usize) -> String {
    let bodies = model.bodies.lock().unwrap();
    let body = bodies
        .get(n)
        .unwrap_or_else(|| panic!("the model got {} requests, not {}", bodies.len(), n + 1));
    let message = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("request {n} carries no tool result: {body}"));
    text_of(&message["content"])
}

/// Every request the model got, as one text, for checking that something never reached it.
fn everything_sent(model: &ScriptedChat) -> String {
    model
        .bodies
        .lock()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect()
}

/// Each tool call's `tool_call` and the last `tool_call_update` for it, in the order the calls
/// started; the update must come after the call.
fn tool_calls(t: &Value) -> Vec<(&Value, &Value)> {
    let all = t["updates"].as_array().unwrap();
    all.iter()
        .enumerate()
        .filter(|(_, u)| u["update"]["sessionUpdate"] == "tool_call")
        .map(|(i, call)| {
            let id = &call["update"]["toolCallId"];
            let end = all[i + 1..]
                .iter()
                .rfind(|u| {
                    u["update"]["sessionUpdate"] == "tool_call_update"
                        && &u["update"]["toolCallId"] == id
                })
                .unwrap_or_else(|| panic!("no tool_call_update after tool_call {id}{}", why(t)));
            (&call["update"], &end["update"])
        })
        .collect()
}

/// The scripted model on its own runtime, which must live as long as the model is needed.
fn scripted(turns: Vec<Turn>) -> (tokio::runtime::Runtime, ScriptedChat) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(turns));
    (runtime, model)
}

/// The model's words reach the editor as several `agent_message_chunk` updates while the model
/// is still talking (not one block at the end), and the prompt ends with `end_turn`;
/// `initialize` answers protocol 1 with no sign-in.
#[test]
fn a_streamed_answer_arrives_as_chunks_and_the_turn_ends() {
    let dir = workspace("stream");
    let pieces = ["The answer ", "is ", "forty-two."]
        .map(String::from)
        .to_vec();
    let (_rt, model) = scripted(vec![Turn::Pieces(pieces, Duration::from_millis(400))]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("What is the answer?"),
            ],
        ),
    );
    assert_clean(&t);
    let init = result(&t, "initialize", 0);
    assert_eq!(init["protocolVersion"], 1, "{init}");
    assert_eq!(init["authMethods"], json!([]), "{init}");
    assert!(init["agentCapabilities"].is_object(), "{init}");
    let session = session_id(&t, 0);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let chunks = updates(&t, "agent_message_chunk");
    assert!(chunks.iter().all(|u| u["sessionId"] == session.as_str()));
    assert_eq!(said(&t, 2), "The answer is forty-two.");
    assert!(chunks.len() >= 2, "one chunk is not a stream: {chunks:?}");
    // The pieces came 400 ms apart: the first must have been shown well before the end.
    let answer = &answers(&t, "session/prompt")[0];
    let answered_at = answer["sent_ms"].as_f64().unwrap() + answer["ms"].as_f64().unwrap();
    let first_at = chunks[0]["at_ms"].as_f64().unwrap();
    assert!(
        answered_at - first_at >= 400.0,
        "the first chunk came {first_at} ms, the answer {answered_at} ms"
    );
    let bodies = model.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 1);
    // No one set an answer limit, and the server is told one all the same.
    assert_eq!(bodies[0]["max_tokens"], 4096, "{}", bodies[0]);
    let user = bodies[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(text_of(&user["content"]).contains("What is the answer?"));
}

/// Each tool call is reported as a `tool_call` (id, title, kind, a starting status, the file's
/// absolute path in `locations`) and ended by a `tool_call_update`, `completed` or `failed`; the
/// edit's update carries a `diff` with the path and the text before and after.
#[test]
fn tool_calls_are_reported_with_kinds_locations_and_the_edits_diff() {
    let dir = workspace("tools");
    let (_rt, model) = scripted(vec![
        read("src/calc.py"),
        Turn::call("grep_search", json!({"query": "def mul"})),
        fix_add(),
        read("src/missing.py"),
        Turn::Text("Fixed.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), prompt("fix add")],
        ),
    );
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let calls = tool_calls(&t);
    let kinds: Vec<&Value> = calls.iter().map(|(call, _)| &call["kind"]).collect();
    assert_eq!(kinds, ["read", "search", "edit", "read"], "{calls:?}");
    let ends: Vec<&Value> = calls.iter().map(|(_, end)| &end["status"]).collect();
    assert_eq!(
        ends,
        ["completed", "completed", "completed", "failed"],
        "{calls:?}"
    );
    for (call, _) in &calls {
        assert!(call["toolCallId"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(
            call["title"].as_str().is_some_and(|s| !s.is_empty()),
            "{call}"
        );
        assert!(
            call["status"] == "pending" || call["status"] == "in_progress",
            "a tool starts pending or in progress: {call}"
        );
    }
    let ids: std::collections::HashSet<&str> = calls
        .iter()
        .map(|(call, _)| call["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "each call its own id");
    for i in [0, 2] {
        assert_eq!(
            calls[i].0["locations"][0]["path"],
            calc(&dir),
            "{}",
            calls[i].0
        );
    }
    let diff = calls[2].1["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "diff"))
        .unwrap_or_else(|| panic!("the edit's update has no diff: {}", calls[2].1));
    assert_eq!(diff["path"], calc(&dir));
    let (old, new) = (
        diff["oldText"].as_str().unwrap_or(""),
        diff["newText"].as_str().unwrap_or(""),
    );
    assert!(old.contains("return a - b"), "{diff}");
    assert!(
        new.contains("return a + b") && !new.contains("return a - b"),
        "{diff}"
    );
}

/// With the fs capabilities offered, `read_file` goes through `fs/read_text_file` and the model
/// sees the editor's unsaved text; the edit reads the buffer the same way and lands through
/// `fs/write_text_file`, built on the unsaved text, while the file on disk stays as it was.
#[test]
fn with_fs_capabilities_the_editors_buffers_are_read_and_written() {
    let dir = workspace("fs");
    let (_rt, model) = scripted(vec![
        read("src/calc.py"),
        fix_add(),
        Turn::Text("Fixed.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("fix add")],
    );
    s["capabilities"] = offered(true);
    s["buffers"] = json!({ calc(&dir): UNSAVED });
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let fs = t["fs"].as_array().unwrap();
    assert!(
        fs.iter()
            .any(|c| c["method"] == "fs/read_text_file" && c["path"] == calc(&dir)),
        "{fs:?}"
    );
    assert!(
        last_tool_result(&model, 1).contains("# unsaved"),
        "the model saw the disk, not the buffer: {}",
        last_tool_result(&model, 1)
    );
    let writes: Vec<&Value> = fs
        .iter()
        .filter(|c| c["method"] == "fs/write_text_file")
        .collect();
    assert_eq!(writes.len(), 1, "{fs:?}");
    assert_eq!(writes[0]["path"], calc(&dir));
    let written = FIXED.to_owned() + "\n\ndef neg(a):\n    return -a  # unsaved\n";
    assert_eq!(writes[0]["content"], written.as_str());
    assert_eq!(t["buffers"][calc(&dir)], written.as_str());
    assert_eq!(
        std::fs::read_to_string(root(&dir).join("src/calc.py")).unwrap(),
        CALC,
        "the editor owns the file: pilotfish must not write it"
    );
}

/// Without the fs capabilities, no `fs/*` request is made: the disk is read and written (the
/// editor's buffers, not offered, stay unseen), and `pilotfish agent --undo` restores the file.
#[test]
fn without_fs_capabilities_the_disk_is_read_and_written() {
    let dir = workspace("disk");
    let (_rt, model) = scripted(vec![
        read("src/calc.py"),
        fix_add(),
        Turn::Text("Fixed.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("fix add")],
    );
    s["buffers"] = json!({ calc(&dir): UNSAVED });
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let fs_requests: Vec<&Value> = t["agent_requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"].as_str().unwrap_or("").starts_with("fs/"))
        .collect();
    assert_eq!(fs_requests, Vec::<&Value>::new());
    let seen = last_tool_result(&model, 1);
    assert!(
        seen.contains("return a - b") && !seen.contains("# unsaved"),
        "{seen}"
    );
    let path = root(&dir).join("src/calc.py");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), FIXED);
    // The edit was journalled like an agent run's.
    let undo = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(["agent", "--undo", "--folder"])
        .arg(root(&dir))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("HOME", dir.join("home"))
        .output()
        .unwrap();
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CALC);
}

/// `run_in_terminal` asks with `session/request_permission`, offering the four option kinds; a
/// rejection (once or always) means the command does not run (it would have created a file) and
/// the model is told the user declined, and the turn goes on.
#[test]
fn a_refused_command_does_not_run_and_the_model_is_told() {
    let dir = workspace("refuse");
    let commands = 3;
    let mut turns: Vec<Turn> = (0..commands)
        .map(|i| run(&format!("touch refused-{i}.txt")))
        .collect();
    turns.push(Turn::Text("Nothing ran.".into()));
    let (_rt, model) = scripted(turns);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("make some files")],
    );
    // The third answer is there for an agent that does not remember reject_always.
    s["permissions"] = json!(["reject_once", "reject_always", "reject_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, 2), "Nothing ran.");
    let asked = t["permissions"].as_array().unwrap();
    assert!(asked.len() >= 2, "{asked:?}");
    for permission in asked {
        let mut kinds: Vec<&str> = permission["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(
            kinds,
            ["allow_always", "allow_once", "reject_always", "reject_once"],
            "{permission}"
        );
        assert!(
            permission["toolCall"]["toolCallId"]
                .as_str()
                .is_some_and(|id| !id.is_empty()),
            "the request names the tool call it is about: {permission}"
        );
    }
    for i in 0..commands {
        assert!(
            !root(&dir).join(format!("refused-{i}.txt")).exists(),
            "refused command {i} ran"
        );
        let told = last_tool_result(&model, i + 1).to_lowercase();
        assert!(told.contains("declined"), "{i}: {told}");
    }
}

/// A permission request answered with the outcome `cancelled` (which ACP defines as the turn
/// being cancelled before the user answered) runs nothing; the prompt is answered, either
/// `cancelled` or, if the turn went on, with the model told the user declined; and the session
/// serves the next prompt.
#[test]
fn a_cancelled_permission_answer_runs_nothing() {
    let dir = workspace("dismiss");
    let (_rt, model) = scripted(vec![
        run("touch dismissed.txt"),
        Turn::Text("Done.".into()),
        Turn::Text("Done.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![
            initialize(),
            new_session(&dir),
            prompt("make a file"),
            prompt("and now?"),
        ],
    );
    s["permissions"] = json!(["cancelled"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(t["permissions"].as_array().unwrap().len(), 1, "{}", why(&t));
    assert!(!root(&dir).join("dismissed.txt").exists());
    match stop_reason(&t, 0) {
        "cancelled" => {}
        "end_turn" => {
            let told = last_tool_result(&model, 1).to_lowercase();
            assert!(told.contains("declined"), "{told}");
        }
        other => panic!("the turn ended {other}{}", why(&t)),
    }
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, 3), "Done.");
}

/// `allow_once` and `allow_always` let the command run; after `allow_always` that command is
/// not asked about again in that session, while a new session asks afresh.
#[test]
fn allow_always_stops_asking_for_the_rest_of_the_session() {
    let dir = workspace("allow");
    let (_rt, model) = scripted(vec![
        run("touch once.txt"),
        run("touch always.txt"),
        run("touch always.txt again.txt"),
        Turn::Text("Made them.".into()),
        run("touch always.txt fresh.txt"),
        Turn::Text("Refused.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![
            initialize(),
            new_session(&dir),
            prompt("make three files"),
            new_session(&dir),
            prompt("make one more"),
        ],
    );
    s["permissions"] = json!(["allow_once", "allow_always", "reject_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    for made in ["once.txt", "always.txt", "again.txt"] {
        assert!(root(&dir).join(made).exists(), "{made} was not made");
    }
    let asked: Vec<&Value> = t["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["sessionId"])
        .collect();
    let (first, second) = (session_id(&t, 0), session_id(&t, 1));
    assert_ne!(first, second);
    assert_eq!(asked, [&json!(first), &json!(first), &json!(second)]);
    assert!(!root(&dir).join("fresh.txt").exists());
    // The commands that ran were reported as tool calls of kind execute that completed.
    let ran: Vec<&Value> = tool_calls(&t)
        .into_iter()
        .filter(|(_, end)| end["status"] == "completed")
        .map(|(call, _)| &call["kind"])
        .collect();
    assert_eq!(ran, ["execute", "execute", "execute"], "{}", why(&t));
}

/// `session/cancel` while the model's stream has stalled answers the pending prompt with
/// `stopReason: "cancelled"` within 2 seconds, closes the model request, and leaves the session
/// usable for the next prompt.
#[test]
fn cancel_during_a_stalled_stream_ends_the_turn_within_two_seconds() {
    let dir = workspace("cancel");
    let (_rt, model) = scripted(vec![
        Turn::Stall("Let me think".into()),
        Turn::Text("Still here.".into()),
    ]);
    let mut cancel = prompt("think hard");
    cancel["cancel_after_first_chunk"] = json!(true);
    // The pause keeps the agent alive for a while after the cancel, so that the model request
    // is seen closed by the cancel, not by the process ending.
    let s = scenario(
        &dir,
        &model.url,
        vec![
            initialize(),
            new_session(&dir),
            cancel,
            json!({"do": "sleep", "ms": 3000}),
            prompt("are you there?"),
        ],
    );
    let editor = {
        let dir = dir.clone();
        std::thread::spawn(move || play(&dir, &s))
    };
    while model.abandoned() == 0 && !editor.is_finished() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let closed_while_running = !editor.is_finished();
    let t = editor.join().unwrap();
    assert_clean(&t);
    assert_eq!(said(&t, 2), "Let me think");
    let cancelled = &answers(&t, "session/prompt")[0];
    assert!(
        cancelled.get("cancel_sent_ms").is_some(),
        "the turn ended before it could be cancelled{}",
        why(&t)
    );
    assert_eq!(stop_reason(&t, 0), "cancelled", "{}", why(&t));
    let after = cancelled["ms_after_cancel"].as_f64().unwrap();
    eprintln!("acp: the cancelled prompt answered {after:.0} ms after session/cancel");
    assert!(after < 2000.0, "answered {after} ms after the cancel");
    assert!(
        closed_while_running && model.abandoned() == 1,
        "the cancel did not close the stalled model request{}",
        why(&t)
    );
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, 4), "Still here.");
}

/// The second prompt's request to the model carries the first prompt and its answer, in order,
/// before the new question.
#[test]
fn the_second_prompt_carries_the_first_as_history() {
    let dir = workspace("history");
    let (_rt, model) = scripted(vec![
        Turn::Text("Pelicans eat fish.".into()),
        Turn::Text("About two kilograms.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("What do pelicans eat?"),
                prompt("How much a day?"),
            ],
        ),
    );
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, 3), "About two kilograms.");
    let bodies = model.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    let at = |role: &str, text: &str| {
        messages
            .iter()
            .position(|m| m["role"] == role && text_of(&m["content"]).contains(text))
            .unwrap_or_else(|| panic!("no {role} message with {text:?}: {messages:?}"))
    };
    let question = at("user", "What do pelicans eat?");
    let answer = at("assistant", "Pelicans eat fish.");
    let next = at("user", "How much a day?");
    assert!(question < answer && answer < next, "{messages:?}");
    assert!(!bodies[0].to_string().contains("How much a day?"));
}

/// An agent that offers `loadSession` replays a session's history as `session/update`s to a new
/// process and continues it; one that does not, refuses `session/load` with an error.
#[test]
fn a_session_is_loaded_only_where_offered_and_then_replayed() {
    let dir = workspace("load");
    let (_rt, model) = scripted(vec![Turn::Text("Pelicans eat fish.".into())]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                prompt("What do pelicans eat?"),
            ],
        ),
    );
    assert_clean(&t);
    let loadable = result(&t, "initialize", 0)["agentCapabilities"]["loadSession"] == true;
    let session = session_id(&t, 0);
    let (_rt2, again) = scripted(vec![Turn::Text("Yes.".into())]);
    let load =
        json!({"do": "load_session", "sessionId": session, "cwd": root(&dir), "mcpServers": []});
    let t = play(
        &dir,
        &scenario(
            &dir,
            &again.url,
            vec![initialize(), load, prompt("Do you remember?")],
        ),
    );
    if !loadable {
        let answer = &answers(&t, "session/load")[0];
        assert!(
            answer.get("error").is_some(),
            "session/load without loadSession: {answer}"
        );
        return;
    }
    assert_clean(&t);
    result(&t, "session/load", 0);
    let replayed = |kind: &str| -> String {
        updates(&t, kind)
            .iter()
            .filter(|u| u["step"] == 1)
            .filter_map(|u| u["update"]["content"]["text"].as_str())
            .collect()
    };
    assert!(replayed("user_message_chunk").contains("What do pelicans eat?"));
    assert!(replayed("agent_message_chunk").contains("Pelicans eat fish."));
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert!(everything_sent(&again).contains("What do pelicans eat?"));
}

/// The MCP servers named in `session/new` are started and their tools offered as
/// `mcp_<server>_<tool>` beside the built-in ones; calling one asks permission first, and its
/// result reaches the model.
#[test]
fn an_mcp_servers_tool_is_offered_called_and_its_result_given_to_the_model() {
    let dir = workspace("mcp");
    test_utils::run_tool(
        "mcp-servers/setup.sh",
        "the acp test calls a tool of the reference MCP server",
    );
    let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let entry = std::fs::canonicalize(entry).unwrap();
    // The schema wants an absolute command.
    let node = Command::new("node")
        .args(["-p", "process.execPath"])
        .output()
        .unwrap();
    let node = String::from_utf8(node.stdout).unwrap().trim().to_owned();
    let (_rt, model) = scripted(vec![
        Turn::call("mcp_everything_echo", json!({"message": "pelican-42"})),
        Turn::Text("It echoed.".into()),
    ]);
    let session = json!({"do": "new_session", "cwd": root(&dir), "mcpServers": [
        {"name": "everything", "command": node, "args": [entry, "stdio"], "env": []}]});
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), session, prompt("echo something")],
    );
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let tools: Vec<String> = model.bodies.lock().unwrap()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        tools.iter().any(|n| n == "mcp_everything_echo") && tools.iter().any(|n| n == "read_file"),
        "{tools:?}"
    );
    assert_eq!(t["permissions"].as_array().unwrap().len(), 1);
    let told = last_tool_result(&model, 1);
    assert!(told.contains("pelican-42"), "{told}");
    let calls = tool_calls(&t);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1["status"], "completed", "{:?}", calls[0]);
}

/// A line that is not JSON gets `-32700` with id null, an unknown method `-32601`, invalid
/// parameters `-32602`, each answered with the request's id, and the agent serves on.
#[test]
fn bad_lines_get_json_rpc_errors_and_serving_goes_on() {
    let dir = workspace("bad");
    let (_rt, model) = scripted(vec![Turn::Text("Still serving.".into())]);
    let cases = [
        ("{not json", -32700, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":"raw-1","method":"pilotfish/no_such_method","params":{}}"#,
            -32601,
            json!("raw-1"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"raw-2","method":"session/new","params":{"cwd":42,"mcpServers":[]}}"#,
            -32602,
            json!("raw-2"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"raw-3","method":"session/prompt","params":{"sessionId":7}}"#,
            -32602,
            json!("raw-3"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"raw-4","method":"initialize","params":{"protocolVersion":"one"}}"#,
            -32602,
            json!("raw-4"),
        ),
    ];
    // The first bad line comes before `initialize`, the others after it.
    let mut steps = vec![json!({"do": "raw", "line": cases[0].0}), initialize()];
    steps.extend(
        cases[1..]
            .iter()
            .map(|(line, ..)| json!({"do": "raw", "line": line})),
    );
    steps.extend([new_session(&dir), prompt("still there?")]);
    let t = play(&dir, &scenario(&dir, &model.url, steps));
    assert_clean(&t);
    let raw = answers(&t, "raw");
    assert_eq!(raw.len(), cases.len());
    for ((line, code, id), answer) in cases.iter().zip(raw) {
        assert_eq!(answer["error"]["code"], *code, "{line}: {answer}");
        assert_eq!(answer["id"], *id, "{line}: {answer}");
    }
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, cases.len() + 2), "Still serving.");
}

/// Closing standard input ends the process with status 0 within 5 seconds: at once, after
/// `initialize`, with a session open, and in the middle of a turn whose model has stalled.
#[test]
fn closing_stdin_ends_the_process_within_five_seconds() {
    let dir = workspace("close");
    let mut mid_turn = prompt("think hard");
    mid_turn["close_stdin_after_first_chunk"] = json!(true);
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("at once", vec![]),
        ("after initialize", vec![initialize()]),
        ("with a session open", vec![initialize(), new_session(&dir)]),
        (
            "during a stalled turn",
            vec![initialize(), new_session(&dir), mid_turn],
        ),
    ];
    for (name, steps) in cases {
        let (_rt, model) = scripted(vec![Turn::Stall("Let me think".into())]);
        let mut s = scenario(&dir, &model.url, steps);
        // Waiting past the 5 seconds shows how late a slow exit is.
        s["timeouts"] = json!({"exit_ms": 8000});
        let t = play(&dir, &s);
        assert_clean(&t);
        let exit = &t["exit"];
        assert_eq!(exit["before_stdin_closed"], false, "{name}{}", why(&t));
        assert_eq!(exit["killed"], false, "{name}{}", why(&t));
        assert_eq!(exit["code"], 0, "{name}{}", why(&t));
        let ms = exit["ms_after_stdin_closed"].as_f64().unwrap();
        assert!(ms < 5000.0, "{name}: exited {ms} ms after stdin closed");
    }
}

/// Reads of `../outside.txt`, of an absolute path outside, of a symbolic link leading out and
/// of a `.copilotignore`d file, and an edit outside, are refused before any `fs/*` request is
/// made for them (though the editor offers fs and holds buffers for them), each tool call ends
/// `failed`, and the model is told why.
#[test]
fn paths_outside_the_workspace_and_ignored_files_are_refused_before_any_request() {
    let dir = workspace("walls");
    std::os::unix::fs::symlink(dir.join("outside.txt"), root(&dir).join("link.txt")).unwrap();
    let outside = dir.join("outside.txt").display().to_string();
    let secrets = root(&dir).join("secrets.txt").display().to_string();
    let (_rt, model) = scripted(vec![
        read("../outside.txt"),
        read(&outside),
        read("link.txt"),
        read("secrets.txt"),
        Turn::call(
            "edit_file",
            json!({"filePath": "../new.txt", "code": "x\n", "explanation": ""}),
        ),
        Turn::Text("I could not reach those files.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("look around")],
    );
    s["capabilities"] = offered(true);
    s["buffers"] =
        json!({ outside.clone(): "not yours (unsaved)\n", secrets.clone(): "hunter2 (unsaved)\n" });
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let repo = format!("{}/", root(&dir).display());
    for request in t["agent_requests"].as_array().unwrap() {
        let path = request["params"]["path"].as_str().unwrap_or("");
        assert!(
            !request["method"].as_str().unwrap().starts_with("fs/")
                || (path.starts_with(&repo) && path != secrets && !path.ends_with("/link.txt")),
            "a request for a refused path: {request}"
        );
    }
    let calls = tool_calls(&t);
    assert_eq!(calls.len(), 5);
    for (call, end) in &calls {
        assert_eq!(end["status"], "failed", "{call} -> {end}");
    }
    for (round, reason) in [
        (1, "outside the workspace"),
        (2, "outside the workspace"),
        (4, ".copilotignore"),
    ] {
        let told = last_tool_result(&model, round);
        assert!(told.contains(reason), "round {round}: {told}");
    }
    let sent = everything_sent(&model);
    assert!(!sent.contains("not yours") && !sent.contains("hunter2"));
    assert!(!dir.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("outside.txt")).unwrap(),
        "not yours\n"
    );
}

/// One session with a real model: SmolLM2-135M-Instruct on the real llama-server (installed by
/// `tools/smollm2.sh`), its answer streamed to the editor as it is made. A real model's words
/// cannot be predicted, so this proves the path (a real server's stream becoming
/// `agent_message_chunk`s and the turn ending), not the words.
#[test]
fn a_session_with_the_real_small_model_streams_its_answer() {
    let server = test_utils::LlamaServer::smollm2(2048, &[]);
    let dir = workspace("real-model");
    // Short answers keep the test quick on two cores.
    std::fs::create_dir_all(dir.join("config/pilotfish")).unwrap();
    std::fs::write(
        dir.join("config/pilotfish/config.toml"),
        "[chat]\nmax_tokens = 40\ntemperature = 0.0\n",
    )
    .unwrap();
    let mut s = scenario(
        &dir,
        &server.url,
        vec![
            initialize(),
            new_session(&dir),
            prompt("Say hello in one short sentence."),
        ],
    );
    s["capabilities"] = offered(true);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let chunks = updates(&t, "agent_message_chunk");
    assert!(
        chunks.len() >= 2,
        "a real model's answer arrives in pieces: {chunks:?}"
    );
    assert!(!said(&t, 2).trim().is_empty(), "{}", why(&t));
    eprintln!("SmolLM2 over ACP said: {:?}", said(&t, 2));
}
