//! `pilotfish/inspect`: the last completion's prompt and request as a page, and the prompt for
//! a cursor without asking the model; clear errors where there is nothing to show.

use std::time::Duration;

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

use crate::client::{Client, config};

const URI: &str = "file:///work/shop/orders.py";
const ORDERS: &str =
    "from cart import total\n\n\ndef order_total(items):\n    amount = \n    return amount\n";

async fn ready(model: &ScriptedModel) -> Client {
    let mut c = Client::start(config(&model.url));
    c.initialize(json!({"capabilities": {}})).await;
    c.open(URI, "python", ORDERS).await;
    c.open(
        "file:///work/shop/cart.py",
        "python",
        "def total(items):\n    return sum(items)\n",
    )
    .await;
    c
}

/// `method` for the cursor at `line`:`character` of `uri`.
async fn at(c: &mut Client, method: &str, uri: &str, line: u32, character: u32) -> Value {
    c.call(
        method,
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_completion_is_shown_as_sent() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let mut c = ready(&model).await;
    let none = c.call("pilotfish/inspect", json!({})).await;
    assert_eq!(none["error"]["code"], -32803, "{none}");
    assert!(
        none["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no completion"),
        "{none}"
    );
    let r = at(&mut c, "textDocument/inlineCompletion", URI, 4, 13).await;
    assert_eq!(r["result"]["items"][0]["insertText"], "total(items)");
    let page = c.call("pilotfish/inspect", json!({})).await;
    let result = &page["result"];
    assert_eq!(result["title"], "/work/shop/orders.py:5:14", "{page}");
    let html = result["html"].as_str().unwrap();
    // The prompt the model received, part by part, with the request and the answer.
    let sent = model.bodies.lock().unwrap().last().unwrap().to_string();
    assert!(sent.contains("def total(items):"));
    assert!(html.contains("data-part=\"prefix\""), "{html}");
    assert!(html.contains("def order_total(items):\n    amount ="));
    assert!(
        html.contains("def total(items):"),
        "the neighbour's definition"
    );
    assert!(html.contains(&model.url), "the endpoint");
    assert!(html.contains("suggestion 1"));
    assert!(html.contains("default-src 'none'"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompt_for_a_cursor_asks_no_model() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let mut c = ready(&model).await;
    let r = at(&mut c, "pilotfish/inspect", URI, 5, 4).await;
    assert_eq!(r["result"]["title"], "/work/shop/orders.py:6:5", "{r}");
    let html = r["result"]["html"].as_str().unwrap();
    assert!(
        html.contains("def order_total(items):\n    amount ="),
        "{html}"
    );
    assert!(
        !html.contains("The answer"),
        "nothing was asked, so no answer"
    );
    assert_eq!(model.requests(), 0, "the model is not asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_request_shows_its_error_and_bad_cursors_are_refused() {
    let model = ScriptedModel::start(vec![Reply::Status(500)], Duration::ZERO).await;
    let mut c = ready(&model).await;
    c.open(
        "file:///work/secret/keys.py",
        "python",
        "API_KEY = 'hunter2'\n",
    )
    .await;
    let r = at(&mut c, "textDocument/inlineCompletion", URI, 4, 13).await;
    assert_eq!(r["result"]["items"], json!([]));
    let page = c.call("pilotfish/inspect", json!({})).await;
    let html = page["result"]["html"].as_str().unwrap();
    assert!(html.contains("HTTP 500"), "{html}");
    assert!(!html.contains("hunter2"), "an excluded file is never shown");

    let excluded = at(
        &mut c,
        "pilotfish/inspect",
        "file:///work/secret/keys.py",
        0,
        3,
    )
    .await;
    assert_eq!(excluded["error"]["code"], -32803, "{excluded}");
    assert!(
        excluded["error"]["message"]
            .as_str()
            .unwrap()
            .contains("excluded")
    );
    let closed = at(&mut c, "pilotfish/inspect", "file:///work/nope.py", 0, 0).await;
    assert_eq!(closed["error"]["code"], -32602, "{closed}");
    let past = at(&mut c, "pilotfish/inspect", URI, 99, 0).await;
    assert_eq!(past["error"]["code"], -32602, "{past}");
    // The server goes on serving.
    let again = c.call("pilotfish/inspect", json!({})).await;
    assert!(again["result"]["html"].is_string());
}

/// `pilotfish/modelServer`: the managed model server's address as the server's configuration
/// gives it now, `null` when there is none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_managed_model_server_is_named_to_the_editor() {
    let model = ScriptedModel::start(vec![], Duration::ZERO).await;
    let mut c = ready(&model).await;
    let none = c.call("pilotfish/modelServer", json!({})).await;
    assert_eq!(none["result"], json!({"endpoint": null}), "{none}");
    let managed = lsp::ServerConfig {
        model_server: std::sync::Arc::new(|| Some("http://127.0.0.1:4242".to_owned())),
        ..config(&model.url)
    };
    let mut c = Client::start(managed);
    c.initialize(json!({"capabilities": {}})).await;
    let named = c.call("pilotfish/modelServer", json!({})).await;
    assert_eq!(
        named["result"],
        json!({"endpoint": "http://127.0.0.1:4242"}),
        "{named}"
    );
}
