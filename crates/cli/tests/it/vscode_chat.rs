//! The chat view of the VS Code extension in a real VS Code: code-server with the packaged
//! `.vsix` in Chromium, the extension running `pilotfish acp`, and a scripted chat model (a
//! fake: it plays a model's moves, so each step's tool call is known). The browser script is
//! `editors/vscode/test/chat.js`; its screenshots land in `target/tmp/vscode/chat/`.

use std::{path::Path, time::Duration};

use serde_json::json;
use test_utils::{
    scripted_chat::{ScriptedChat, Turn},
    vscode_tools,
};

use crate::vscode::{artifacts, run_browser_script};

fn run(command: &str) -> Turn {
    Turn::call(
        "run_in_terminal",
        json!({"command": command, "explanation": "", "isBackground": false}),
    )
}

/// The model's moves, one per request, in the order the browser script asks.
fn script() -> Vec<Turn> {
    let pieces = [
        "To use **square areas**, ",
        "call the function:\n\n```python\n",
        "print(square_area(3))\n```\n",
    ];
    vec![
        // A streamed answer in three pieces.
        Turn::Pieces(
            pieces.iter().map(|p| p.to_string()).collect(),
            Duration::from_millis(700),
        ),
        // The edit of the open file, then its summary.
        Turn::call(
            "edit_file",
            json!({"filePath": "calc.py", "explanation": "add adds",
                   "code": "def add(a, b):\n    return a + b\n# ...existing code...\n"}),
        ),
        Turn::Text("Fixed: add adds now.".into()),
        // A command asked about and rejected, then another asked about and allowed.
        run("touch denied.flag"),
        Turn::Text("Not run, as you asked.".into()),
        run("touch allowed.flag"),
        Turn::Text("Made it.".into()),
        // A stalled answer, stopped.
        Turn::Stall("Thinking".into()),
        // After the restart, as the custom agent, to a prompt file.
        Turn::Text("Reviewed, after the restart.".into()),
    ]
}

#[test]
fn the_chat_view_streams_edits_asks_stops_and_restarts_in_code_server() {
    let tools = vscode_tools();
    test_utils::run_tool(
        "mcp-servers/setup.sh",
        "the chat view's test starts a real MCP server",
    );
    let mcp = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ))
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(script()));
    let work = crate::temp_dir("vscode-chat");
    let shots = artifacts("chat");
    let state = work.join("state");
    let config = work.join("config");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    let out = run_browser_script(
        "chat.js",
        &[
            ("VSIX", tools.vsix.as_os_str()),
            ("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish").as_ref()),
            ("CHAT_ENDPOINT", model.url.as_ref()),
            ("MCP_ENTRY", mcp.as_os_str()),
            ("WORK", work.as_os_str()),
            ("ARTIFACTS", shots.as_os_str()),
            // The agent's undo journal and configuration stay in the test's folder.
            ("XDG_STATE_HOME", state.as_os_str()),
            ("XDG_CONFIG_HOME", config.as_os_str()),
        ],
    );
    println!("{out}");
    // Every scripted move was asked for: the view ran each step through the agent.
    let bodies = model.bodies.lock().unwrap().clone();
    assert_eq!(
        bodies.len(),
        script().len(),
        "the model was asked {} times",
        bodies.len()
    );
    // The first, after the workspace's MCP server was allowed in the view: its tools offered.
    let first_tools = bodies[0]["tools"].to_string();
    assert!(first_tools.contains("mcp_everything_echo"), "{first_tools}");
    // The last: the custom agent picked as the mode is the system prompt and offers only its
    // tools, and the prompt file picked with `/` is the task.
    let last = bodies.last().unwrap();
    let messages = last["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap_or_default();
    assert!(system.contains("You are a strict reviewer"), "{system}");
    let tools: Vec<&str> = last["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(tools, ["read_file"], "{last}");
    let task = messages.last().unwrap()["content"].to_string();
    assert!(task.contains("Explain this file line by line."), "{task}");
    assert!(task.contains("calc.py"), "{task}");
    for shot in [
        "chat-1-open",
        "chat-2-mcp-server",
        "chat-2-answer",
        "chat-3-edit",
        "chat-4-undone",
        "chat-5-permission",
        "chat-6-allowed",
        "chat-7-stopped",
        "chat-8-restarted",
        "chat-9-inspector",
    ] {
        assert!(
            Path::new(&shots).join(format!("{shot}.png")).is_file(),
            "{shot}"
        );
    }
}

/// With `pilotfish.gguf` and no chat endpoint, the chat answers from the llama-server the
/// language server started for that file (the real SmolLM2 model): one server, loaded once.
#[test]
fn the_chat_shares_the_managed_model_server_of_pilotfish_gguf() {
    let tools = vscode_tools();
    let work = crate::temp_dir("vscode-chat-managed");
    let shots = artifacts("chat-managed");
    let cache = work.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    // The agent's sessions and configuration stay in the test's folder, not the user's.
    let state = work.join("state");
    let config = work.join("config");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    // The model under a path of this test's own (a hard link: no copy, and no link that a
    // canonical path would resolve), so that the servers counted are this test's, not those of
    // other tests using the same cached file.
    let model = work.join("SmolLM2-135M-Instruct.gguf");
    let _ = std::fs::remove_file(&model);
    std::fs::hard_link(test_utils::smollm2_path(), &model)
        .or_else(|_| std::fs::copy(test_utils::smollm2_path(), &model).map(|_| ()))
        .unwrap();
    run_browser_script(
        "chat.js",
        &[
            ("VSIX", tools.vsix.as_os_str()),
            ("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish").as_ref()),
            ("GGUF", model.as_os_str()),
            (
                "PILOTFISH_LLAMA_SERVER",
                test_utils::llama_paths().0.as_os_str(),
            ),
            ("PILOTFISH_CACHE", cache.as_os_str()),
            ("XDG_STATE_HOME", state.as_os_str()),
            ("XDG_CONFIG_HOME", config.as_os_str()),
            ("WORK", work.as_os_str()),
            ("ARTIFACTS", shots.as_os_str()),
        ],
    );
    assert!(shots.join("chat-managed.png").is_file());
}
