//! The reference MCP server, `@modelcontextprotocol/server-everything` (pinned in
//! `tools/mcp-servers/package.json`), started over stdio by node: its tools listed with their
//! schemas, called with good and broken arguments, a long call cancelled, and its process gone
//! once the `Server` is dropped.

use std::{
    process::Command,
    sync::atomic::{AtomicBool, Ordering},
    thread,
    time::Duration,
};

use mcp::{McpError, Server, ServerSpec};
use serde_json::{Value, json};

use super::{alive, gone, repo, timed};

/// Installs the pinned server (once per machine) and says how to start it.
fn everything() -> ServerSpec {
    let tools = repo().join("tools/mcp-servers");
    let setup = Command::new("bash")
        .arg(tools.join("setup.sh"))
        .status()
        .unwrap();
    assert!(setup.success(), "tools/mcp-servers/setup.sh failed");
    let entry = tools.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    ServerSpec {
        name: "everything".into(),
        command: "node".into(),
        args: vec![entry.display().to_string(), "stdio".into()],
        env: vec![("PILOTFISH_MCP_TEST".into(), "from the spec".into())],
        ..Default::default()
    }
}

#[test]
fn server_everything_lists_and_calls_its_tools() {
    let server = Server::start(&everything(), &repo(), Duration::from_secs(60)).unwrap();
    let tool = |name: &str| {
        let found = server.tools().iter().find(|t| t.name == name);
        found.unwrap_or_else(|| panic!("no tool {name} in {:?}", server.tools()))
    };
    assert_eq!(tool("echo").input_schema["required"], json!(["message"]));
    assert_eq!(
        tool("get-sum").input_schema["properties"]["a"]["type"],
        "number"
    );
    assert_eq!(tool("get-sum").model_name(), "mcp_everything_get-sum");
    assert!(!tool("get-sum").description.is_empty());
    assert!(
        server
            .instructions()
            .is_some_and(|i| i.contains("Everything Server"))
    );

    let cases: &[(&str, Value, bool, &str)] = &[
        (
            "echo",
            json!({"message": "hello from pilotfish"}),
            false,
            "Echo: hello from pilotfish",
        ),
        (
            "get-sum",
            json!({"a": 2, "b": 3.5}),
            false,
            "The sum of 2 and 3.5 is 5.5.",
        ),
        // Broken arguments and unknown tools are the tool's failures, reported as results.
        (
            "get-sum",
            json!({"a": "x"}),
            true,
            "Invalid arguments for tool get-sum",
        ),
        (
            "no-such-tool",
            json!({}),
            true,
            "Tool no-such-tool not found",
        ),
        ("get-tiny-image", json!({}), false, "[image: image/png]"),
        (
            "get-resource-reference",
            json!({}),
            false,
            "Resource 1: This is a plaintext resource",
        ),
        (
            "get-env",
            json!({}),
            false,
            "\"PILOTFISH_MCP_TEST\": \"from the spec\"",
        ),
    ];
    let never = AtomicBool::new(false);
    for (name, args, is_error, text) in cases {
        let result = server
            .call(name, args, &never, Duration::from_secs(30))
            .unwrap();
        assert_eq!(result.is_error, *is_error, "{name}: {}", result.text);
        assert!(
            result.text.contains(text),
            "{name}: `{text}` is not in {}",
            result.text
        );
    }
}

#[test]
fn server_everything_stops_a_cancelled_call_and_exits_when_dropped() {
    let server = Server::start(&everything(), &repo(), Duration::from_secs(60)).unwrap();
    let cancel = AtomicBool::new(false);
    let long = json!({"duration": 10, "steps": 10});
    let result = thread::scope(|scope| {
        let call = scope.spawn(|| {
            server.call(
                "trigger-long-running-operation",
                &long,
                &cancel,
                Duration::from_secs(30),
            )
        });
        thread::sleep(Duration::from_millis(500));
        cancel.store(true, Ordering::Relaxed);
        call.join().unwrap()
    });
    assert!(
        matches!(result, Err(McpError::Cancelled { .. })),
        "{result:?}"
    );

    let never = AtomicBool::new(false);
    let echo = server.call(
        "echo",
        &json!({"message": "still here"}),
        &never,
        Duration::from_secs(30),
    );
    assert_eq!(echo.unwrap().text, "Echo: still here");

    let pid = server.pid();
    assert!(alive(pid));
    let ((), took) = timed(|| drop(server));
    // node exits by itself once its input closes, well within the second of grace.
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert!(gone(pid), "the server is still there after drop");
}
