//! Commands in the editor's terminals: with `clientCapabilities.terminal`, `run_in_terminal`
//! goes through `terminal/*` (the scripted editor runs the command as an editor does and keeps
//! its output as it arrives), the tool call shows the terminal while it runs, the model is told
//! the output and the exit status, and a cancelled turn kills the command in the editor.

use super::*;

/// The editor offers terminals (and no file methods).
fn with_terminals(mut s: Value) -> Value {
    s["capabilities"] =
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": true});
    s
}

/// The `terminal/*` requests the agent made, by method, in order.
fn terminal_methods(t: &Value) -> Vec<String> {
    t["terminals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap().to_owned())
        .collect()
}

/// A command the model runs is run by the editor, confined by the sandbox, in the workspace; its output arrives in pieces (the first
/// line before the second was printed); the tool call shows the terminal before the command
/// ends; the model gets the whole output and the exit status; pilotfish runs nothing itself.
#[test]
fn a_command_runs_in_the_editors_terminal_and_its_output_streams() {
    let dir = workspace("terminal-runs");
    let command = "echo first; sleep 2; echo second; touch ran-here.txt; exit 3";
    let (_rt, model) = scripted(vec![run(command), Turn::Text("It failed.".into())]);
    let mut s = with_terminals(scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("run it")],
    ));
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert_eq!(
        terminal_methods(&t),
        [
            "terminal/create",
            "terminal/wait_for_exit",
            "terminal/output",
            "terminal/release"
        ],
        "{}",
        why(&t)
    );
    let create = t["agent_requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "terminal/create")
        .unwrap();
    // The editor is asked to run the sandbox's command line (bubblewrap, then pilotfish's
    // seccomp helper, then the command in bash), not the bare command.
    let program = create["params"]["command"].as_str().unwrap();
    assert!(program.ends_with("bwrap"), "{}", create["params"]);
    let args: Vec<&str> = create["params"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(args.contains(&"__sandbox-exec"), "{args:?}");
    assert!(args.last().unwrap().contains(command), "{args:?}");
    assert_eq!(create["params"]["cwd"], json!(root(&dir)));
    assert!(
        create["params"]["sessionId"].is_string(),
        "{}",
        create["params"]
    );
    // The editor ran it (in the workspace) and saw its output as it came.
    assert!(root(&dir).join("ran-here.txt").exists());
    let run = &t["terminal_runs"]["term-1"];
    let chunks: Vec<&str> = run["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(chunks.len() >= 2, "one piece only: {chunks:?}");
    assert!(
        chunks[0].contains("first") && !chunks[0].contains("second"),
        "{chunks:?}"
    );
    assert_eq!(run["exit"]["code"], 3, "{run}");
    // The editor was shown the terminal in the tool call while the command ran.
    let shown = t["updates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| {
            u["update"]["sessionUpdate"] == "tool_call_update"
                && u["update"]["content"][0] == json!({"type": "terminal", "terminalId": "term-1"})
        })
        .unwrap_or_else(|| panic!("no tool_call_update showed the terminal{}", why(&t)));
    assert!(
        shown["at_ms"].as_f64().unwrap() < run["exit"]["at_ms"].as_f64().unwrap(),
        "the terminal was shown only after the command ended: {shown}"
    );
    let (call, _) = tool_calls(&t)[0];
    assert_eq!(shown["update"]["toolCallId"], call["toolCallId"]);
    let told = last_tool_result(&model, 1);
    assert!(told.contains("first\nsecond"), "{told}");
    assert!(told.contains("[exit status 3]"), "{told}");
}

/// Cancelling the turn while the command runs kills it in the editor's terminal (the editor
/// sees `terminal/kill`, the process dies by a signal and never reaches its next line), the
/// terminal is released, and the prompt ends `cancelled`.
#[test]
fn a_cancelled_command_is_killed_in_the_editors_terminal() {
    let dir = workspace("terminal-cancel");
    let command = "echo started; sleep 60; touch too-late.txt";
    let (_rt, model) = scripted(vec![run(command), Turn::Text("unreachable".into())]);
    let mut step = prompt("run the slow one");
    step["cancel_when_output"] = json!("started");
    let mut s = with_terminals(scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), step],
    ));
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "cancelled", "{}", why(&t));
    let methods = terminal_methods(&t);
    assert_eq!(methods.first().map(String::as_str), Some("terminal/create"));
    assert!(
        methods.iter().any(|m| m == "terminal/kill"),
        "{methods:?}{}",
        why(&t)
    );
    assert_eq!(
        methods.last().map(String::as_str),
        Some("terminal/release"),
        "{methods:?}"
    );
    let run = &t["terminal_runs"]["term-1"];
    assert_eq!(run["exit"]["signal"], "SIGKILL", "{run}");
    assert!(!root(&dir).join("too-late.txt").exists());
}

/// A background command gets an editor terminal that is not waited for (the model is told its
/// id at once), and `get_terminal_output` reads that terminal (`terminal/output`).
#[test]
fn a_background_command_runs_in_an_editor_terminal_read_on_request() {
    let dir = workspace("terminal-background");
    let (_rt, model) = scripted(vec![
        Turn::call(
            "run_in_terminal",
            json!({"command": "echo bg-out", "explanation": "", "isBackground": true}),
        ),
        Turn::call("get_terminal_output", json!({"id": "bg-1"})),
        Turn::Text("Read it.".into()),
    ]);
    let mut s = with_terminals(scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("start it")],
    ));
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let methods = terminal_methods(&t);
    assert_eq!(
        methods[..2],
        ["terminal/create", "terminal/output"],
        "{}",
        why(&t)
    );
    assert!(
        !methods.iter().any(|m| m == "terminal/wait_for_exit"),
        "{methods:?}"
    );
    assert!(last_tool_result(&model, 1).contains("bg-1"));
    let read = last_tool_result(&model, 2);
    assert!(
        read.contains("[still running]") || read.contains("bg-out\n[exited with status 0]"),
        "{read}"
    );
}

/// Output past the shell's limit (16 KB) is cut in the middle for the model, as in pilotfish's
/// own shell: both ends and the exit status reach it.
#[test]
fn long_output_from_an_editor_terminal_is_cut_in_the_middle() {
    let dir = workspace("terminal-long");
    let command = "echo start-marker; head -c 40000 /dev/zero | tr '\\0' a; echo; echo end-marker";
    let (_rt, model) = scripted(vec![run(command), Turn::Text("Long.".into())]);
    let mut s = with_terminals(scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("print a lot")],
    ));
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    // The editor ran it, and kept more than the model is given.
    assert_eq!(terminal_methods(&t)[0], "terminal/create", "{}", why(&t));
    let told = last_tool_result(&model, 1);
    assert!(
        told.len() < 20_000,
        "{} bytes reached the model",
        told.len()
    );
    assert!(told.contains("characters cut from the middle"), "{told}");
    assert!(told.starts_with("start-marker"), "{}", &told[..100]);
    assert!(
        told.contains("end-marker\n[exit status 0]"),
        "{}",
        &told[told.len() - 200..]
    );
}
