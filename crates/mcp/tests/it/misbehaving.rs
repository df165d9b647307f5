//! Fake servers (`tests/fakes/fake_server.py`, one mode per misbehaviour) against the client:
//! garbage on standard output, an immediate exit, a hang, a crash in the middle of a call,
//! requests to the client, a command that does not exist. Each must give an error that names
//! the server and says what happened, within a bounded time, and never a panic.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    thread,
    time::Duration,
};

use mcp::{CallResult, McpError, Server, ServerSpec};
use serde_json::{Value, json};

use super::{alive, eventually, gone, repo, timed};

const START: Duration = Duration::from_secs(10);
const CALL: Duration = Duration::from_secs(10);

/// The fake server in `mode`, named `fake-<mode>`.
fn fake(mode: &str) -> ServerSpec {
    let script = repo().join("crates/mcp/tests/fakes/fake_server.py");
    ServerSpec {
        name: format!("fake-{mode}"),
        command: "python3".into(),
        args: vec![script.display().to_string(), mode.into()],
        env: vec![("FAKE_TOKEN".into(), "t0k3n".into())],
        ..Default::default()
    }
}

/// A fake written in sh: `tests/fakes/<script>`.
fn sh_fake(name: &str, script: &str) -> ServerSpec {
    let script = repo().join("crates/mcp/tests/fakes").join(script);
    ServerSpec {
        name: name.into(),
        command: "sh".into(),
        args: vec![script.display().to_string()],
        env: Vec::new(),
        ..Default::default()
    }
}

fn start(mode: &str) -> Server {
    Server::start(&fake(mode), &repo(), START).unwrap_or_else(|e| panic!("{mode}: {e}"))
}

fn call(server: &Server, tool: &str, args: Value, limit: Duration) -> Result<CallResult, McpError> {
    server.call(tool, &args, &AtomicBool::new(false), limit)
}

/// Asserts that `error` mentions every one of `parts`.
fn mentions(error: &McpError, parts: &[&str]) {
    let text = error.to_string();
    for part in parts {
        assert!(text.contains(part), "`{part}` is not in: {text}");
    }
}

/// What a call should give: its result (`is_error`, text), or parts of its error's message.
type Want<'a> = Result<(bool, &'a str), &'a [&'a str]>;

#[test]
fn a_well_behaved_fake_answers_every_tool() {
    let server = start("well-behaved");
    let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo", "env", "cwd", "hang", "slow", "fail", "die", "broken", "content"
        ]
    );
    assert_eq!(server.tools()[0].model_name(), "mcp_fake-well-behaved_echo");
    assert_eq!(
        server.tools()[0].input_schema["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(
        server.instructions(),
        Some("Use the fake tools for tests only.")
    );
    let cwd = repo().canonicalize().unwrap().display().to_string();
    let cases: Vec<(&str, Value, Want)> = vec![
        ("echo", json!({"message": "hi"}), Ok((false, "hi"))),
        ("env", json!({"name": "FAKE_TOKEN"}), Ok((false, "t0k3n"))),
        ("cwd", Value::Null, Ok((false, &cwd))),
        ("broken", json!({}), Ok((true, "the file does not exist"))),
        (
            "content",
            json!({}),
            Ok((false, "a picture:\n[image: image/png]\nthe notes")),
        ),
        (
            "fail",
            json!({}),
            Err(&[
                "`fake-well-behaved`",
                "`tools/call`",
                "-32000",
                "database is locked",
            ]),
        ),
        ("nope", json!({}), Err(&["-32602", "Unknown tool: nope"])),
    ];
    for (tool, args, want) in cases {
        match (call(&server, tool, args, CALL), want) {
            (Ok(got), Ok((is_error, text))) => {
                assert_eq!(
                    (got.is_error, got.text.as_str()),
                    (is_error, text),
                    "{tool}"
                );
            }
            (Err(error), Err(parts)) => mentions(&error, parts),
            (got, want) => panic!("{tool}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn tools_are_listed_page_by_page() {
    let server = start("paged");
    assert_eq!(server.tools().len(), 9);
    assert_eq!(server.tools()[8].name, "content");
}

#[test]
fn lines_that_are_not_json_rpc_are_skipped() {
    let server = start("garbage");
    let result = call(&server, "echo", json!({"message": "through"}), CALL).unwrap();
    assert_eq!(result.text, "through");
}

#[test]
fn a_server_that_writes_only_garbage_times_out_and_says_so() {
    let (result, took) = timed(|| {
        Server::start(
            &sh_fake("fake-only-garbage", "only_garbage.sh"),
            &repo(),
            Duration::from_secs(1),
        )
    });
    let error = result.unwrap_err();
    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    mentions(
        &error,
        &[
            "`fake-only-garbage`",
            "`initialize` within 1s",
            "3 lines to standard output that are not JSON-RPC",
            "(the last: `{\"hello\": \"json, but not JSON-RPC\"}`)",
        ],
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn a_server_that_exits_at_once_shows_its_stderr() {
    let (result, took) = timed(|| {
        Server::start(
            &sh_fake("fake-exits-at-once", "exits_at_once.sh"),
            &repo(),
            START,
        )
    });
    let error = result.unwrap_err();
    assert!(matches!(error, McpError::Exited { .. }), "{error}");
    mentions(
        &error,
        &[
            "`fake-exits-at-once`",
            "exited with status 3",
            "`initialize`",
            "error: FAKE_API_KEY is not set",
        ],
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn a_server_that_never_initializes_times_out() {
    let (result, took) =
        timed(|| Server::start(&fake("hang-initialize"), &repo(), Duration::from_secs(1)));
    let error = result.unwrap_err();
    mentions(
        &error,
        &[
            "`fake-hang-initialize`",
            "did not answer `initialize` within 1s",
        ],
    );
    // One second of waiting, and at most one more for the server to exit when stopped.
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn a_hanging_call_times_out_and_is_cancelled_at_the_server() {
    let server = start("well-behaved");
    let (result, took) = timed(|| call(&server, "hang", json!({}), Duration::from_secs(1)));
    let error = result.unwrap_err();
    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    mentions(
        &error,
        &[
            "`fake-well-behaved`",
            "did not answer `tools/call` within 1s",
        ],
    );
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(3),
        "{took:?}"
    );
    let told = eventually(Duration::from_secs(2), || {
        server
            .stderr()
            .iter()
            .any(|l| l.ends_with(": no answer within 1s"))
    });
    assert!(told, "no notifications/cancelled: {:?}", server.stderr());
    // The server is still usable.
    assert_eq!(
        call(&server, "echo", json!({"message": "ok"}), CALL)
            .unwrap()
            .text,
        "ok"
    );
}

#[test]
fn a_call_returns_soon_after_it_is_cancelled() {
    let server = start("well-behaved");
    let cancel = AtomicBool::new(false);
    let (result, since_cancel) = thread::scope(|scope| {
        let call = scope.spawn(|| server.call("hang", &json!({}), &cancel, CALL));
        thread::sleep(Duration::from_millis(300));
        let (result, took) = timed(|| {
            cancel.store(true, Ordering::Relaxed);
            call.join().unwrap()
        });
        (result, took)
    });
    let error = result.unwrap_err();
    assert!(matches!(error, McpError::Cancelled { .. }), "{error}");
    mentions(
        &error,
        &["`tools/call`", "`fake-well-behaved`", "cancelled"],
    );
    assert!(
        since_cancel < Duration::from_millis(200),
        "{since_cancel:?}"
    );
    let told = eventually(Duration::from_secs(2), || {
        server
            .stderr()
            .iter()
            .any(|l| l.ends_with(": the user cancelled it"))
    });
    assert!(told, "no notifications/cancelled: {:?}", server.stderr());

    // Already cancelled: nothing is sent.
    let (result, took) = timed(|| server.call("echo", &json!({}), &cancel, CALL));
    assert!(
        matches!(result, Err(McpError::Cancelled { .. })),
        "{result:?}"
    );
    assert!(took < Duration::from_millis(50), "{took:?}");
}

#[test]
fn a_late_answer_is_dropped() {
    let server = start("well-behaved");
    let late = call(
        &server,
        "slow",
        json!({"seconds": 1}),
        Duration::from_millis(300),
    );
    assert!(matches!(late, Err(McpError::Timeout { .. })), "{late:?}");
    // The fake answers `slow` first, then this; each answer must reach its own caller.
    let next = call(&server, "echo", json!({"message": "mine"}), CALL).unwrap();
    assert_eq!(next.text, "mine");
}

#[test]
fn concurrent_calls_get_their_own_answers() {
    let server = start("well-behaved");
    thread::scope(|scope| {
        let slow = scope.spawn(|| call(&server, "slow", json!({"seconds": 0.3}), CALL));
        let echoes: Vec<_> = (0..3)
            .map(|i| {
                let server = &server;
                scope.spawn(move || call(server, "echo", json!({"message": i}), CALL))
            })
            .collect();
        assert_eq!(slow.join().unwrap().unwrap().text, "slow answer");
        for (i, echo) in echoes.into_iter().enumerate() {
            assert_eq!(echo.join().unwrap().unwrap().text, i.to_string());
        }
    });
}

#[test]
fn a_server_that_dies_mid_call_fails_that_call_and_every_later_one() {
    let server = start("well-behaved");
    let (result, took) = timed(|| call(&server, "die", json!({}), CALL));
    let error = result.unwrap_err();
    assert!(matches!(error, McpError::Exited { .. }), "{error}");
    mentions(
        &error,
        &[
            "`fake-well-behaved` exited with status 5 during `tools/call`",
            "panic: lost the connection to the database",
        ],
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (again, took) = timed(|| call(&server, "echo", json!({"message": "x"}), CALL));
    assert!(matches!(again, Err(McpError::Exited { .. })), "{again:?}");
    assert!(took < Duration::from_millis(100), "{took:?}");
}

#[test]
fn a_server_whose_child_keeps_its_output_open_is_still_seen_to_exit() {
    // This fake's grandchild holds its standard output, which so never ends: the exit must
    // be noticed from the process itself.
    let server = start("ignores-eof");
    let (result, took) = timed(|| call(&server, "die", json!({}), CALL));
    let error = result.unwrap_err();
    mentions(
        &error,
        &[
            "exited with status 5 during `tools/call`",
            "panic: lost the connection to the database",
        ],
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[test]
fn requests_from_the_server_are_answered() {
    let server = start("asks-client");
    let result = call(&server, "echo", json!({}), CALL).unwrap();
    assert_eq!(
        result.text,
        r#"{"ping": {}, "roots/list": -32601, "sampling/createMessage": -32601}"#
    );
}

#[test]
fn commands_and_folders_that_do_not_exist_are_named() {
    let missing = ServerSpec {
        name: "ghost".into(),
        command: "pilotfish-no-such-mcp-server".into(),
        ..Default::default()
    };
    let error = Server::start(&missing, &repo(), START).unwrap_err();
    assert!(matches!(error, McpError::CommandNotFound { .. }), "{error}");
    mentions(
        &error,
        &[
            "`ghost`",
            "`pilotfish-no-such-mcp-server` was not found",
            ".vscode/mcp.json",
        ],
    );

    let nowhere = repo().join("no-such-folder");
    let error = Server::start(&fake("well-behaved"), &nowhere, START).unwrap_err();
    assert!(matches!(error, McpError::Cwd { .. }), "{error}");
}

#[test]
fn dropping_a_server_ends_its_process_group() {
    let server = start("ignores-eof");
    let grandchild = eventually(Duration::from_secs(5), || {
        server.stderr().iter().any(|l| l.starts_with("grandchild "))
    });
    assert!(grandchild, "{:?}", server.stderr());
    let grandchild: u32 = server.stderr()[0]
        .strip_prefix("grandchild ")
        .unwrap()
        .parse()
        .unwrap();
    let pid = server.pid();
    assert!(alive(pid) && alive(grandchild));
    let ((), took) = timed(|| drop(server));
    // The fake ignores its closed input: it gets its second of grace, then is killed.
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    assert!(gone(pid), "the server is left as a zombie");
    assert!(
        eventually(Duration::from_secs(2), || !alive(grandchild)),
        "its child outlived it"
    );
}

#[test]
fn a_server_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Server>();
    let server = std::sync::Arc::new(start("well-behaved"));
    let other = std::sync::Arc::clone(&server);
    let text = thread::spawn(move || call(&other, "echo", json!({"message": "from afar"}), CALL))
        .join()
        .unwrap()
        .unwrap()
        .text;
    assert_eq!(text, "from afar");
}
