//! `pilotfish agent` fixes a bug in a small repository when a scripted model (a fake: it plays
//! the tool calls a model would make) drives it; the workspace's walls hold whatever path a
//! call names; `--undo` restores what the run changed.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::{Value, json};
use test_utils::scripted_chat::{ScriptedChat, Turn};

mod trust;

fn repo(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-agent-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("repo/src")).unwrap();
    std::fs::write(
        dir.join("repo/src/calc.py"),
        "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    )
    .unwrap();
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

fn agent(dir: &Path, url: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(["agent", "--folder"])
        .arg(dir.join("repo"))
        .args(["--endpoint", url, "--format", "json"])
        .args(extra)
        .env("XDG_STATE_HOME", dir.join("state"))
        .output()
        .unwrap()
}

fn events(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn the_agent_fixes_a_bug_and_undo_restores_it() {
    let dir = repo("fix");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call("file_search", json!({"query": "**/*.py"})),
        Turn::call(
            "read_file",
            json!({"filePath": "src/calc.py", "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 10}),
        ),
        Turn::call(
            "edit_file",
            json!({"filePath": "src/calc.py", "explanation": "add adds",
                   "code": "def add(a, b):\n    return a + b\n# ...existing code...\n"}),
        ),
        Turn::call("get_errors", json!({"filePaths": ["src/calc.py"]})),
        Turn::call(
            "run_in_terminal",
            json!({"command": "cd src && python3 -c 'import calc; assert calc.add(2, 3) == 5; print(\"tests pass\")'",
                   "explanation": "check the fix", "isBackground": false}),
        ),
        Turn::Text("Fixed: add subtracted instead of adding.".into()),
    ]));
    let out = agent(&dir, &model.url, &["--yes", "fix the add function"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = std::fs::read_to_string(dir.join("repo/src/calc.py")).unwrap();
    assert_eq!(
        fixed,
        "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
    );
    // Every round tells the server when to stop, with no limit set by anyone.
    let limits: Vec<Value> = model
        .bodies
        .lock()
        .unwrap()
        .iter()
        .map(|b| b["max_tokens"].clone())
        .collect();
    assert_eq!(limits, vec![json!(4096); 6]);
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    assert_eq!(results.len(), 5, "{ev:?}");
    assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("src/calc.py")
    );
    assert!(
        results[2]["content"]
            .as_str()
            .unwrap()
            .contains("no errors")
    );
    assert!(
        results[4]["content"]
            .as_str()
            .unwrap()
            .contains("tests pass")
    );
    assert_eq!(
        ev.last().unwrap(),
        &json!({"type": "done", "rounds": 6, "reason": "the model answered without calling a tool"})
    );
    // What the model was sent: the tools, the system prompt's rules, each result by call id.
    let bodies = model.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 6);
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"edit_file") && tools.contains(&"get_errors"),
        "{tools:?}"
    );
    let system = bodies[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("you MUST call get_errors"), "{system}");
    let last = bodies[5]["messages"].as_array().unwrap();
    let tool_message = last.iter().rev().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool_message["tool_call_id"], "call_5_0");

    let undo = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(["agent", "--undo", "--folder"])
        .arg(dir.join("repo"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .output()
        .unwrap();
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert!(String::from_utf8_lossy(&undo.stdout).contains("restored src/calc.py"));
    assert!(
        std::fs::read_to_string(dir.join("repo/src/calc.py"))
            .unwrap()
            .contains("a - b")
    );
}

#[test]
fn calls_outside_the_workspace_are_refused_and_the_run_goes_on() {
    let dir = repo("walls");
    std::os::unix::fs::symlink(dir.join("outside.txt"), dir.join("repo/link.txt")).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("repo/up")).unwrap();
    let outside = dir.join("outside.txt").display().to_string();
    let read = |path: &str| {
        Turn::call(
            "read_file",
            json!({"filePath": path, "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 5}),
        )
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        read("../outside.txt"),
        read(&outside),
        read("link.txt"),
        read("up/outside.txt"),
        read("secrets.txt"),
        Turn::call(
            "edit_file",
            json!({"filePath": "../new.txt", "code": "x\n", "explanation": ""}),
        ),
        Turn::call(
            "create_file",
            json!({"filePath": "up/made.txt", "content": "x\n"}),
        ),
        Turn::call("grep_search", json!({"query": "hunter2"})),
        Turn::call("list_dir", json!({"path": "."})),
        Turn::call("edit_file", json!({"filePath": "src/calc.py"})),
        Turn::call("no_such_tool", json!({})),
        Turn::Calls(
            String::new(),
            vec![("read_file".into(), "{not json".into())],
        ),
        Turn::call(
            "run_in_terminal",
            json!({"command": "touch ran.txt", "explanation": "", "isBackground": false}),
        ),
        Turn::call(
            "replace_string_in_file",
            json!({"filePath": "link.txt", "oldString": "not", "newString": "now"}),
        ),
        Turn::call("list_dir", json!({"path": ".."})),
        Turn::call("get_errors", json!({"filePaths": ["../outside.txt"]})),
        Turn::call("file_search", json!({"query": "../*.txt"})),
        Turn::Text("I could not reach those files.".into()),
    ]));
    let out = agent(&dir, &model.url, &["look around"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    let content = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    for (i, r) in results.iter().enumerate().take(7) {
        assert_eq!(r["ok"], false, "{i}: {}", content(i));
        assert!(
            !content(i).contains("not yours") && !content(i).contains("hunter2"),
            "{i}"
        );
    }
    assert!(
        content(0).contains("outside the workspace"),
        "{}",
        content(0)
    );
    assert!(content(4).contains(".copilotignore"), "{}", content(4));
    // Searches and listings leave ignored files out.
    assert_eq!(content(7), "no match");
    assert!(
        !content(8).contains("secrets.txt") && content(8).contains("src/"),
        "{}",
        content(8)
    );
    // Broken calls get errors the model can act on.
    assert!(
        content(9).contains("missing field `code`"),
        "{}",
        content(9)
    );
    assert!(
        content(10).contains("there is no tool `no_such_tool`"),
        "{}",
        content(10)
    );
    assert!(content(11).contains("not valid JSON"), "{}", content(11));
    // Without --yes and without a terminal, commands are declined.
    assert!(content(12).contains("declined"), "{}", content(12));
    assert!(!dir.join("repo/ran.txt").exists());
    // Every tool that takes a path keeps to the workspace.
    assert_eq!(results[13]["ok"], false, "{}", content(13));
    assert_eq!(results[14]["ok"], false, "{}", content(14));
    assert!(
        content(15).contains("outside the workspace"),
        "{}",
        content(15)
    );
    assert_eq!(content(16), "no file matches");
    assert_eq!(
        std::fs::read_to_string(dir.join("outside.txt")).unwrap(),
        "not yours\n"
    );
    assert!(!dir.join("new.txt").exists() && !dir.join("made.txt").exists());
}

#[test]
fn a_server_failure_mid_run_keeps_the_edits_and_says_how_to_undo() {
    let dir = repo("fail");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call(
            "replace_string_in_file",
            json!({"filePath": "src/calc.py", "oldString": "    return a - b", "newString": "    return a + b"}),
        ),
        Turn::Status(500),
    ]));
    let out = agent(&dir, &model.url, &["fix it"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("round 2") && stderr.contains("--undo"),
        "{stderr}"
    );
    assert!(
        std::fs::read_to_string(dir.join("repo/src/calc.py"))
            .unwrap()
            .contains("a + b")
    );
    // The round limit is an error too.
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call("list_dir", json!({"path": "."})),
        Turn::call("list_dir", json!({"path": "."})),
    ]));
    let out = agent(&dir, &model.url, &["--max-rounds", "2", "loop"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("round limit (2)"));
}

#[test]
fn subagents_preferences_command_rules_and_changed_files() {
    let dir = repo("more");
    let root = dir.join("repo");
    std::fs::create_dir_all(root.join(".github/agents")).unwrap();
    std::fs::write(
        root.join(".github/agents/reviewer.agent.md"),
        "---\ndescription: Reviews code\ntools: [read_file]\n---\nYou review Python code and answer in one line.\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap()
    };
    git(&["add", "src/calc.py"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "start",
    ]);
    std::fs::write(
        root.join("src/calc.py"),
        "def add(a, b):\n    return a + b\n",
    )
    .unwrap();
    let config = dir.join("config.toml");
    std::fs::write(&config, "[agent]\ndeny = [\"git push\"]\n").unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call("runSubagent", json!({"agentName": "reviewer", "prompt": "review src/calc.py"})),
        // The subagent's own rounds.
        Turn::call(
            "read_file",
            json!({"filePath": "src/calc.py", "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 3}),
        ),
        Turn::Text("add looks right now.".into()),
        // Back in the main loop.
        Turn::call("get_changed_files", json!({"workspacePaths": [], "sourceControlState": ["unstaged"]})),
        Turn::call("run_in_terminal", json!({"command": "ls src && git status --short", "explanation": "", "isBackground": false})),
        Turn::call("run_in_terminal", json!({"command": "ls && git push origin main", "explanation": "", "isBackground": false})),
        Turn::call("updateUserPreferences", json!({"facts": ["The user prefers pytest over unittest"]})),
        Turn::Text("Reviewed.".into()),
    ]));
    let config_arg = config.display().to_string();
    let out = agent(
        &dir,
        &model.url,
        &["--yes", "--config", &config_arg, "review"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    let content = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    // The subagent's final answer is runSubagent's result.
    assert_eq!(results[1]["name"], "runSubagent", "{ev:?}");
    assert_eq!(content(1), "add looks right now.");
    let bodies = model.bodies.lock().unwrap().clone();
    assert_eq!(
        bodies[1]["messages"][0]["content"],
        "You review Python code and answer in one line.\n"
    );
    let sub_tools: Vec<&str> = bodies[1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(sub_tools, ["read_file"]);
    // git diff of the unstaged change.
    assert!(content(2).contains("+    return a + b"), "{}", content(2));
    // Read-only sub-commands ran without asking; a denied one is refused even with --yes.
    assert_eq!(results[3]["ok"], true, "{}", content(3));
    assert!(content(3).contains("calc.py"));
    assert_eq!(results[4]["ok"], false);
    assert!(
        content(4).contains("deny rule `git push`"),
        "{}",
        content(4)
    );
    // The fact is put in the next run's prompt.
    let again = runtime.block_on(ScriptedChat::start(vec![Turn::Text("ok".into())]));
    let out = agent(&dir, &again.url, &["anything"]);
    assert!(out.status.success());
    let system = again.bodies.lock().unwrap()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("The user prefers pytest over unittest"),
        "{system}"
    );
}

#[test]
fn search_codebase_gives_a_small_workspace_whole_and_ranks_a_large_one() {
    let dir = repo("search");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let search = || {
        Turn::call(
            "search_codebase",
            json!({"query": "how is multiplication done"}),
        )
    };
    let model = runtime.block_on(ScriptedChat::start(vec![search(), Turn::Text("ok".into())]));
    let out = agent(&dir, &model.url, &["where is mul"]);
    let ev = events(&out);
    let result = ev.iter().find(|e| e["type"] == "tool_result").unwrap();
    let text = result["content"].as_str().unwrap();
    assert!(
        text.contains("here is all of it") && text.contains("def mul"),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "ignored files stay out: {text}");
    // A larger workspace: the chunk that defines what is asked comes first.
    for i in 0..40 {
        let filler: String = (0..30)
            .map(|j| format!("def helper_{i}_{j}(x):\n    return x + {j}\n"))
            .collect();
        std::fs::write(dir.join(format!("repo/src/filler_{i}.py")), filler).unwrap();
    }
    std::fs::write(
        dir.join("repo/src/shipping.py"),
        "def shipping_cost(weight, distance):\n    return weight * distance * 0.1\n",
    )
    .unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call(
            "search_codebase",
            json!({"query": "shipping cost for a weight"}),
        ),
        Turn::Text("ok".into()),
    ]));
    let out = agent(&dir, &model.url, &["where is shipping"]);
    let ev = events(&out);
    let result = ev.iter().find(|e| e["type"] == "tool_result").unwrap();
    let text = result["content"].as_str().unwrap();
    assert!(
        text.starts_with("─── src/shipping.py lines 0-1 ───"),
        "{text}"
    );
}

#[test]
fn one_shell_per_run_and_background_commands() {
    let dir = repo("shell");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let run = |command: &str, background: bool| {
        Turn::call(
            "run_in_terminal",
            json!({"command": command, "explanation": "", "isBackground": background}),
        )
    };
    let model = runtime.block_on(ScriptedChat::start(vec![
        run("cd src && export PF_SEEN=42", false),
        run("pwd && echo \"seen $PF_SEEN\"", false),
        run("echo started; sleep 0.3; echo served; sleep 30", true),
        run("sleep 1", false),
        Turn::call("get_terminal_output", json!({"id": "bg-1"})),
        Turn::call("get_terminal_output", json!({"id": "bg-9"})),
        run("exit 3", false),
        run("echo \"fresh in $(basename $(pwd))\"", false),
        Turn::Text("done".into()),
    ]));
    let out = agent(&dir, &model.url, &["--yes", "use the shell"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    let content = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    // The folder and the variable survived between commands.
    assert!(content(1).contains("/repo/src\nseen 42"), "{}", content(1));
    assert!(content(2).contains("id: bg-1"), "{}", content(2));
    assert!(content(4).contains("started\nserved"), "{}", content(4));
    assert!(content(4).contains("[still running]"), "{}", content(4));
    assert_eq!(results[5]["ok"], false);
    assert!(content(5).contains("the ids are: bg-1"), "{}", content(5));
    // A command that ends the shell gets a fresh one, in the workspace root.
    assert_eq!(results[6]["ok"], false, "{}", content(6));
    assert!(content(7).contains("fresh in repo"), "{}", content(7));
}

#[test]
fn old_rounds_are_dropped_whole_when_the_budget_is_full() {
    let dir = repo("budget");
    let big: String = (0..300)
        .map(|i| format!("line_{i} = 'some text that fills the budget {i}'\n"))
        .collect();
    std::fs::write(dir.join("repo/src/big.py"), &big).unwrap();
    let read = |first: usize| {
        Turn::call(
            "read_file",
            json!({"filePath": "src/big.py", "startLineNumberBaseZero": first, "endLineNumberBaseZero": first + 99}),
        )
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        read(0),
        read(100),
        read(200),
        Turn::Text("read it all".into()),
    ]));
    let out = agent(
        &dir,
        &model.url,
        &[
            "--max-prompt-tokens",
            "4000",
            "--max-answer-tokens",
            "300",
            "read big.py",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The prompt's limit and the answer's are two options, each doing its own job.
    assert!(
        model
            .bodies
            .lock()
            .unwrap()
            .iter()
            .all(|b| b["max_tokens"] == 300)
    );
    assert!(
        stderr.contains("earlier tool round(s) (read_file) were dropped"),
        "{stderr}"
    );
    let bodies = model.bodies.lock().unwrap().clone();
    let last = bodies.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    let all: String = last
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect();
    // The first read is gone, the newest is there, and every tool message still answers a call.
    assert!(!all.contains("line_5 ="), "the oldest round was dropped");
    assert!(all.contains("line_250 ="));
    assert!(all.contains("[pilotfish]"));
    let call_ids: Vec<&str> = last
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for m in last.iter().filter(|m| m["role"] == "tool") {
        assert!(call_ids.contains(&m["tool_call_id"].as_str().unwrap()));
    }
}

#[test]
fn get_errors_uses_tree_sitter_and_the_languages_own_checker() {
    let dir = repo("errors");
    std::fs::write(dir.join("repo/notes.md"), "# Notes\nTODO: finish\n").unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[agent.checkers]\nmarkdown = \"! grep -n TODO {file}\"\n",
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call(
            "replace_string_in_file",
            json!({"filePath": "src/calc.py", "oldString": "    return a - b", "newString": "    return (a + b"}),
        ),
        Turn::call("get_errors", json!({"filePaths": ["src/calc.py", "notes.md"]})),
        Turn::Text("found them".into()),
    ]));
    let config_arg = config.display().to_string();
    let out = agent(&dir, &model.url, &["--config", &config_arg, "break it"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    // The edit's result already carries the new errors.
    let edited = results[0]["content"].as_str().unwrap();
    assert!(edited.contains("src/calc.py:1:"), "{edited}");
    assert!(edited.contains("python3 -m py_compile"), "{edited}");
    let errors = results[1]["content"].as_str().unwrap();
    assert!(
        errors.contains("2:TODO: finish"),
        "the configured checker ran: {errors}"
    );
}

#[test]
fn the_copilot_tool_profile() {
    let dir = repo("profile");
    std::fs::write(dir.join("repo/src/other.py"), "X = 1\nY = 2\n").unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(vec![
        Turn::call("read_file", json!({"filePath": "src/calc.py", "startLine": 1, "endLine": 2})),
        // One replacement cannot be placed: none is applied.
        Turn::call(
            "multi_replace_string_in_file",
            json!({"explanation": "", "replacements": [
                {"filePath": "src/calc.py", "oldString": "    return a - b", "newString": "    return a + b"},
                {"filePath": "src/other.py", "oldString": "Z = 3", "newString": "Z = 4"}]}),
        ),
        Turn::call(
            "multi_replace_string_in_file",
            json!({"explanation": "", "replacements": [
                {"filePath": "src/calc.py", "oldString": "    return a - b", "newString": "    return a + b"},
                {"filePath": "src/other.py", "oldString": "Y = 2", "newString": "Y = 3"}]}),
        ),
        Turn::call(
            "insert_edit_into_file",
            json!({"filePath": "src/other.py", "explanation": "", "code": "X = 1\nW = 0\n# ...existing code...\n"}),
        ),
        Turn::call("edit_file", json!({"filePath": "src/other.py", "code": "", "explanation": ""})),
        Turn::Text("done".into()),
    ]));
    let out = agent(&dir, &model.url, &["--tools", "copilot", "fix"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out);
    let results: Vec<&Value> = ev.iter().filter(|e| e["type"] == "tool_result").collect();
    let content = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    assert!(
        content(0).contains("lines 0-1") && content(0).contains("def add"),
        "{}",
        content(0)
    );
    assert_eq!(results[1]["ok"], false);
    assert!(content(1).contains("replacement 1"), "{}", content(1));
    assert_eq!(results[2]["ok"], true, "{}", content(2));
    assert_eq!(results[3]["ok"], true, "{}", content(3));
    assert!(
        content(4).contains("there is no tool `edit_file`"),
        "{}",
        content(4)
    );
    assert!(
        std::fs::read_to_string(dir.join("repo/src/calc.py"))
            .unwrap()
            .contains("a + b")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("repo/src/other.py")).unwrap(),
        "X = 1\nW = 0\nY = 3\n"
    );
    let bodies = model.bodies.lock().unwrap().clone();
    let names: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"multi_replace_string_in_file") && names.contains(&"semantic_search"));
    assert!(!names.contains(&"edit_file"), "{names:?}");
}

/// The default tool set is `original`, Copilot's agent mode's first published tools; its old
/// name `seed004` still selects it, though the help no longer shows it; an unknown name is
/// refused with the names there are.
#[test]
fn the_original_tool_profile_and_its_old_name() {
    let dir = repo("original");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let offered = |extra: &[&str]| {
        let model = runtime.block_on(ScriptedChat::start(vec![Turn::Text("done".into())]));
        let mut args = extra.to_vec();
        args.push("look around");
        let out = agent(&dir, &model.url, &args);
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bodies = model.bodies.lock().unwrap().clone();
        bodies[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .collect::<Vec<String>>()
    };
    let default = offered(&[]);
    assert!(
        default.iter().any(|n| n == "edit_file")
            && !default.iter().any(|n| n == "insert_edit_into_file"),
        "{default:?}"
    );
    assert_eq!(offered(&["--tools", "original"]), default);
    assert_eq!(offered(&["--tools", "seed004"]), default);
    assert_ne!(offered(&["--tools", "copilot"]), default);

    let out = agent(&dir, "http://127.0.0.1:9", &["--tools", "newest", "x"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("original or copilot"), "{err}");
    assert!(!err.to_lowercase().contains("seed"), "{err}");
    for command in ["agent", "acp"] {
        let help = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        assert!(help.contains("original"), "{help}");
        assert!(!help.to_lowercase().contains("seed"), "{help}");
    }
}

/// The workspace's `.vscode/mcp.json` gives `pilotfish agent` a real MCP server's tools (the
/// reference server from npm, installed by `tools/mcp-servers/setup.sh`) beside the built-in
/// ones; the server and its calls are approved like a terminal command (`--yes` here; without
/// it there is no terminal to ask on, so the server does not start); a server that cannot
/// start is reported and the run goes on.
#[test]
fn mcp_servers_of_the_workspace_give_the_agent_tools() {
    test_utils::run_tool(
        "mcp-servers/setup.sh",
        "the agent calls an MCP server's tool",
    );
    let dir = repo("mcp");
    let entry = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ))
    .unwrap();
    std::fs::create_dir_all(dir.join("repo/.vscode")).unwrap();
    std::fs::write(
        dir.join("repo/.vscode/mcp.json"),
        format!(
            "{{\n  // the reference server, and one that is not installed\n  \"servers\": {{\n    \"everything\": {{\"type\": \"stdio\", \"command\": \"node\", \"args\": [{:?}, \"stdio\"]}},\n    \"missing\": {{\"command\": \"no-such-mcp-server-here\"}},\n  }}\n}}\n",
            entry.display().to_string()
        ),
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let echo = || Turn::call("mcp_everything_echo", json!({"message": "heron-7"}));
    let model = runtime.block_on(ScriptedChat::start(vec![
        echo(),
        Turn::Text("done".into()),
        echo(),
        Turn::Text("done".into()),
    ]));
    let out = agent(&dir, &model.url, &["echo it", "--yes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("no-such-mcp-server-here"), "{stderr}");
    let bodies = model.bodies.lock().unwrap().clone();
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"mcp_everything_echo"), "{tools:?}");
    assert!(tools.contains(&"read_file"), "{tools:?}");
    let told = bodies[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(told.contains("Echo: heron-7"), "{told}");
    // Without --yes and without a terminal, the workspace's server is not started (nothing
    // approved it), standard error says so, and the call reaches no server.
    let out = agent(&dir, &model.url, &["echo it"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("MCP server `everything`") && stderr.contains("--yes"),
        "{stderr}"
    );
    let bodies = model.bodies.lock().unwrap().clone();
    assert!(!bodies[2].to_string().contains("mcp_everything_echo"));
    let told = bodies[3]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!told.contains("Echo: heron-7"), "{told}");
    // --no-mcp starts none.
    let model = runtime.block_on(ScriptedChat::start(vec![Turn::Text("ok".into())]));
    let out = agent(&dir, &model.url, &["hi", "--no-mcp"]);
    assert!(out.status.success());
    let bodies = model.bodies.lock().unwrap().clone();
    assert!(!bodies[0].to_string().contains("mcp_everything_echo"));
}
