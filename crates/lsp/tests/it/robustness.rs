//! Bad input and load: the server answers what it can, reports errors per the protocol and
//! never stops serving.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

use crate::client::{Client, config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_initialize_and_unknown_methods() {
    let model = ScriptedModel::start(vec![Reply::text("x", 1)], Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    let r = c.call("getCompletions", json!({})).await;
    assert_eq!(r["error"]["code"], -32002);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///a.py", "text": "x"}}),
    )
    .await;
    c.initialize(json!({})).await;
    let r = c.call("textDocument/hover", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    c.notify("$/setTrace", json!({"value": "off"})).await;
    c.notify("made/up", json!(null)).await;
    // The document sent before `initialize` was dropped.
    let r = c
        .call("textDocument/inlineCompletion", json!({"textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}}))
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c
        .call(
            "textDocument/inlineCompletion",
            json!({"position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_frames_get_parse_errors_and_the_stream_goes_on() {
    let model = ScriptedModel::start(vec![Reply::text("x", 1)], Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    c.raw(b"Content-Length: 9\r\n\r\n{\"broken\"").await;
    c.raw(b"Content-Length: 2\r\n\r\n[]").await;
    c.raw(b"Content-Type: nothing else\r\n\r\n").await;
    // A Content-Length shorter than the body: the rest is read as a bad header.
    c.raw(b"Content-Length: 5\r\n\r\n{\"id\": 1, \"method\": \"x\"}\r\n\r\n")
        .await;
    c.raw(&[0xff, 0xfe, b'\r', b'\n', b'\r', b'\n']).await;
    let mut errors = Vec::new();
    for _ in 0..5 {
        errors.push(c.next().await);
    }
    assert!(
        errors
            .iter()
            .all(|e| e["id"] == Value::Null && e["error"]["code"].is_i64()),
        "{errors:?}"
    );
    assert_eq!(
        errors
            .iter()
            .filter(|e| e["error"]["code"] == -32700)
            .count(),
        4
    );
    assert_eq!(
        errors
            .iter()
            .filter(|e| e["error"]["code"] == -32600)
            .count(),
        1,
        "an array is not a message"
    );
    let r = c.initialize(json!({})).await;
    assert!(
        r["result"]["capabilities"].is_object(),
        "still serving: {r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_out_of_range_are_reported_and_lose_nothing() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    c.initialize(json!({})).await;
    let uri = "file:///w/a.py";
    c.open(uri, "python", "def f(items):\n    return \n").await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 40, "character": 0}, "end": {"line": 41, "character": 0}}, "text": "x"}]}),
    )
    .await;
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": "file:///never/opened.py", "version": 2}, "contentChanges": [{"text": "x"}]}))
        .await;
    let id = c
        .request_id(
            "textDocument/inlineCompletion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 11}}),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(
        r["result"]["items"][0]["insertText"], "total(items)",
        "the text was kept"
    );
    let logs: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .collect();
    assert_eq!(logs.len(), 2, "{seen:?}");
    assert!(
        logs[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("out of range")
    );
}

/// The model answers with the number at the end of the prompt's last line, plus one: the
/// answer shows which document state the prompt was built from.
fn echo_model() -> impl Fn(&Value) -> Reply {
    |body| {
        let prompt = body["prompt"].as_str().unwrap_or_default();
        let last = prompt.rsplit('\n').next().unwrap_or_default();
        let n: u64 = last
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
        Reply::text(&format!(" + {}", n + 1), 4)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typing_storm_ends_with_the_last_state() {
    let model = ScriptedModel::answering(echo_model(), Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    c.initialize(json!({})).await;
    let uri = "file:///w/storm.py";
    c.open(uri, "python", "def f():\n    x = 0\n").await;
    let mut ids = Vec::new();
    let changes = 3000;
    for v in 1..=changes {
        // Replace line 1 with `    x = v`.
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": v + 1},
                   "contentChanges": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}, "text": format!("    x = {v}\n")}]}),
        )
        .await;
        if v % 10 == 0 {
            let character = format!("    x = {v}").len();
            ids.push(
                c.request_id("textDocument/inlineCompletion", json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": character}}))
                    .await,
            );
        }
    }
    let mut seen = Vec::new();
    let mut last = Value::Null;
    for id in &ids {
        last = c.response(*id, &mut seen).await;
    }
    assert_eq!(
        last["result"]["items"][0]["insertText"],
        format!(" + {}", changes + 1),
        "the last answer is built from the last state"
    );
    let stats = c.call("pilotfish/stats", json!({})).await;
    assert_eq!(stats["result"]["latency"]["count"], ids.len());
    eprintln!(
        "storm: {} changes, {} requests; {}",
        changes,
        ids.len(),
        stats["result"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_documents_and_a_huge_one() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    c.initialize(json!({})).await;
    for i in 0..10_000 {
        c.open(
            &format!("file:///w/m{i}.py"),
            "python",
            &format!("def f{i}():\n    return {i}\n"),
        )
        .await;
    }
    // 50 MB: a Python file of repeated functions, the cursor at its end.
    let unit = "def g(items):\n    return sum(item.price for item in items)\n\n";
    let mut huge = unit.repeat(50_000_000 / unit.len());
    huge.push_str("amount = ");
    let lines = huge.matches('\n').count();
    let started = Instant::now();
    c.open("file:///w/huge.py", "python", &huge).await;
    let r = c
        .call("textDocument/inlineCompletion", json!({"textDocument": {"uri": "file:///w/huge.py"}, "position": {"line": lines, "character": 9}}))
        .await;
    assert_eq!(r["result"]["items"][0]["insertText"], "total(items)", "{r}");
    eprintln!(
        "50 MB document opened and completed in {:?}",
        started.elapsed()
    );
    let stats = c.call("pilotfish/stats", json!({})).await;
    assert_eq!(stats["result"]["documents"], 10_001);
}
