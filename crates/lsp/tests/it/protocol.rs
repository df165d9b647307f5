//! The protocol as clients speak it: LSP's inline completions, Copilot's plugins' methods.

use std::time::Duration;

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

use crate::client::{Client, config};

const URI: &str = "file:///work/shop/orders.py";
const ORDERS: &str =
    "from cart import total\n\n\ndef order_total(items):\n    amount = \n    return amount\n";

async fn ready(model: &ScriptedModel, init: Value) -> Client {
    let mut c = Client::start(config(&model.url));
    c.initialize(init).await;
    c.open(URI, "python", ORDERS).await;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_and_capabilities() {
    let model = ScriptedModel::start(vec![Reply::text("x", 1)], Duration::ZERO).await;
    let mut c = Client::start(config(&model.url));
    let init = c
        .initialize(
            json!({"capabilities": {"general": {"positionEncodings": ["utf-32", "utf-16"]}},
                           "rootUri": "file:///work"}),
        )
        .await;
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-32");
    assert!(caps["inlineCompletionProvider"].is_object());
    assert_eq!(caps["textDocumentSync"]["change"], 2);
    assert_eq!(init["result"]["serverInfo"]["name"], "pilotfish");
    let again = c.call("initialize", json!({})).await;
    assert_eq!(again["error"]["code"], -32600);
    assert_eq!(c.call("shutdown", Value::Null).await["result"], Value::Null);
    let after = c.call("getCompletions", json!({})).await;
    assert_eq!(
        after["error"]["code"], -32600,
        "requests after shutdown are refused"
    );
    c.notify("exit", Value::Null).await;
    assert!(c.server.await.unwrap(), "exit after shutdown is clean");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_completion_in_each_position_encoding() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    for (encoding, character) in [("utf-16", 13), ("utf-8", 14), ("utf-32", 13)] {
        let mut c = Client::start(config(&model.url));
        c.initialize(json!({"capabilities": {"general": {"positionEncodings": [encoding]}}}))
            .await;
        // "é" is two bytes and one UTF-16 unit: the cursor's character differs by encoding.
        let text = ORDERS.replace("    amount = \n", "    amouént = \n");
        c.open(URI, "python", &text).await;
        let r = c
            .call(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": character},
                       "context": {"triggerKind": 2}}),
            )
            .await;
        let item = &r["result"]["items"][0];
        assert_eq!(item["insertText"], "total(items)", "{encoding}: {r}");
        let at = json!({"line": 4, "character": character});
        assert_eq!(item["range"]["start"], at, "{encoding}");
        assert_eq!(item["range"]["end"], at, "{encoding}");
        assert_eq!(
            item["command"]["command"],
            "github.copilot.didAcceptCompletionItem"
        );
    }
}

/// An inline completion item ends without the model's final line break, as Copilot's methods'
/// texts do: accepted, it leaves no empty line behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_completion_items_end_without_the_models_final_line_break() {
    let text = "def add(a, b):\n    \n\nprint(add(1, 2))\n";
    for answer in ["    return a + b\n", "    return a + b\n    "] {
        let model = ScriptedModel::start(vec![Reply::text(answer, 3)], Duration::ZERO).await;
        let mut c = Client::start(config(&model.url));
        c.initialize(json!({"capabilities": {}})).await;
        c.open(URI, "python", text).await;
        let r = c
            .call(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 1, "character": 4},
                       "context": {"triggerKind": 1}}),
            )
            .await;
        let item = &r["result"]["items"][0];
        let insert = item["insertText"].as_str().unwrap_or_else(|| panic!("{r}"));
        assert!(!insert.ends_with('\n'), "{answer:?}: {r}");
        // Accepted as an editor accepts it: the text replaces the item's range (on line 1,
        // where characters are bytes).
        let (start, end) = (&item["range"]["start"], &item["range"]["end"]);
        assert_eq!(
            (&start["line"], &end["line"]),
            (&json!(1), &json!(1)),
            "{r}"
        );
        let line = "    ";
        let from = start["character"].as_u64().unwrap() as usize;
        let to = end["character"].as_u64().unwrap() as usize;
        let accepted = format!("{}{insert}{}", &line[..from], &line[to..]);
        assert_eq!(
            text.replacen("\n    \n", &format!("\n{accepted}\n"), 1),
            "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n",
            "{answer:?}: {r}"
        );
    }
}

/// An invoked inline completion (the user asked) offers candidates to cycle through, the
/// ghost text's own first; an automatic one, the ghost text alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invoked_inline_completion_offers_candidates_to_cycle() {
    // FAKE: the scripted model, `total(items)` at temperature 0 and `sum(items)` when sampled.
    let model = ScriptedModel::answering(
        |body| {
            if body["temperature"].as_f64().unwrap_or(0.0) == 0.0 {
                Reply::text("total(items)", 3)
            } else {
                Reply::text("sum(items)", 3)
            }
        },
        Duration::ZERO,
    )
    .await;
    let mut c = ready(&model, json!({"capabilities": {}})).await;
    let texts = |r: &Value| -> Vec<String> {
        r["result"]["items"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|i| i["insertText"].as_str().unwrap().to_owned())
            .collect()
    };
    for (kind, expected) in [
        (2, vec!["total(items)"]),
        (1, vec!["total(items)", "sum(items)"]),
    ] {
        let r = c
            .call(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13},
                       "context": {"triggerKind": kind}}),
            )
            .await;
        assert_eq!(texts(&r), expected, "triggerKind {kind}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_plugins_request_shapes() {
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let mut c = ready(&model, json!({"capabilities": {}})).await;
    // copilot.vim: `doc` with the position, version and formatting inside, plus the same at
    // the top level, and copilot.lua's `_: true` on every request.
    let r = c
        .call(
            "getCompletions",
            json!({"doc": {"uri": URI, "version": 1, "position": {"line": 4, "character": 13},
                           "insertSpaces": true, "tabSize": 4, "indentSize": 4,
                           "relativePath": "shop/orders.py", "languageId": "python", "path": "/work/shop/orders.py"},
                   "textDocument": {"uri": URI, "version": 1},
                   "position": {"line": 4, "character": 13}, "_": true}),
        )
        .await;
    let item = &r["result"]["completions"][0];
    assert_eq!(item["text"], "    amount = total(items)", "{r}");
    assert_eq!(item["displayText"], "total(items)");
    assert_eq!(item["range"]["start"], json!({"line": 4, "character": 0}));
    assert_eq!(item["range"]["end"], json!({"line": 4, "character": 13}));
    assert_eq!(item["docVersion"], 1);
    let uuid = item["uuid"].clone();
    assert!(uuid.as_str().is_some());
    for method in ["notifyShown", "notifyAccepted", "notifyRejected"] {
        let r = c
            .call(method, json!({"uuid": uuid, "uuids": [uuid], "_": true}))
            .await;
        assert_eq!(r["result"], "OK", "{method}");
    }
    // copilot.lua's `textDocument` + `position` form, no `doc`.
    let r = c
        .call(
            "getCompletions",
            json!({"textDocument": {"uri": URI, "version": 1}, "position": {"line": 4, "character": 13}, "_": true}),
        )
        .await;
    assert_eq!(r["result"]["completions"][0]["displayText"], "total(items)");
    // A version the server has moved past: nothing, not an error.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": ORDERS}]}),
    )
    .await;
    let r = c
        .call(
            "getCompletions",
            json!({"doc": {"uri": URI, "version": 1, "position": {"line": 4, "character": 13}}}),
        )
        .await;
    assert_eq!(r["result"]["completions"], json!([]), "{r}");
    for (method, key) in [
        ("checkStatus", "status"),
        ("signInInitiate", "status"),
        ("signInConfirm", "status"),
        ("signOut", "status"),
        ("getVersion", "version"),
    ] {
        let r = c.call(method, json!({"_": true})).await;
        assert!(r["result"][key].is_string(), "{method}: {r}");
    }
    assert_eq!(
        c.call(
            "setEditorInfo",
            json!({"editorInfo": {"name": "Neovim", "version": "0.11"}})
        )
        .await["result"],
        "OK"
    );
    let r = c
        .call(
            "workspace/executeCommand",
            json!({"command": "github.copilot.didAcceptCompletionItem", "arguments": [uuid]}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycling_and_the_panel() {
    let model = ScriptedModel::start(
        vec![
            Reply::text("total(items)", 3),
            Reply::text("sum(items)", 3),
            Reply::text("len(items)", 3),
        ],
        Duration::ZERO,
    )
    .await;
    let mut c = ready(&model, json!({"capabilities": {}})).await;
    let r = c
        .call(
            "getCompletionsCycling",
            json!({"doc": {"uri": URI, "version": 1, "position": {"line": 4, "character": 13}}}),
        )
        .await;
    let mut shown: Vec<&str> = r["result"]["completions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["displayText"].as_str().unwrap())
        .collect();
    shown.sort();
    assert_eq!(shown, ["len(items)", "sum(items)", "total(items)"]);

    let id = c
        .request_id(
            "getPanelCompletions",
            json!({"doc": {"uri": URI, "version": 1, "position": {"line": 4, "character": 13}}, "panelId": "panel-1"}),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["solutionCountTarget"], 3);
    while !seen.iter().any(|m| m["method"] == "PanelSolutionsDone") {
        let m = c.next().await;
        seen.push(m);
    }
    let solutions: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "PanelSolution")
        .collect();
    assert!(!solutions.is_empty());
    assert!(
        solutions
            .iter()
            .all(|s| s["params"]["panelId"] == "panel-1")
    );
    assert!(solutions.iter().all(|s| {
        s["params"]["completionText"]
            .as_str()
            .unwrap()
            .starts_with("    amount = ")
    }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_request_supersedes_and_cancel_is_answered() {
    let model = ScriptedModel::start(
        vec![Reply::text(&"x".repeat(200), 1)],
        Duration::from_millis(20),
    )
    .await;
    let mut c = ready(&model, json!({"capabilities": {}})).await;
    let params = json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13}});
    let first = c
        .request_id("textDocument/inlineCompletion", params.clone())
        .await;
    let second = c
        .request_id("textDocument/inlineCompletion", params.clone())
        .await;
    let mut seen = Vec::new();
    let r1 = c.response(first, &mut seen).await;
    assert_eq!(r1["result"]["items"], json!([]), "superseded: {r1}");
    c.notify("$/cancelRequest", json!({"id": second})).await;
    let r2 = c.response(second, &mut seen).await;
    assert_eq!(r2["error"]["code"], -32800, "{r2}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_reach_the_prompt_and_excluded_files_do_not() {
    let model = ScriptedModel::start(vec![Reply::text("shipping", 3)], Duration::ZERO).await;
    let mut c = ready(
        &model,
        json!({"capabilities": {}, "workspaceFolders": [{"uri": "file:///work", "name": "work"}]}),
    )
    .await;
    c.open(
        "file:///work/secret/keys.py",
        "python",
        "API_KEY = 'hunter2'\n",
    )
    .await;
    c.open(
        "file:///work/shop/cart.py",
        "python",
        "def total(items):\n    return sum(items)\n",
    )
    .await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 4, "character": 13}, "end": {"line": 4, "character": 13}}, "text": "total(items) + "}]}),
    )
    .await;
    let r = c
        .call(
            "textDocument/inlineCompletion",
            json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 28}}),
        )
        .await;
    assert_eq!(r["result"]["items"][0]["insertText"], "shipping", "{r}");
    let bodies = model.bodies.lock().unwrap().clone();
    let sent = bodies.last().unwrap().to_string();
    assert!(
        sent.contains("amount = total(items) + "),
        "the edit is in the prompt"
    );
    assert!(
        sent.contains("def total(items):"),
        "the open neighbour's definitions are in the prompt"
    );
    assert!(!sent.contains("hunter2"), "the excluded file never leaves");
    // The excluded document itself gets nothing, and the model is not asked.
    let before = model.requests();
    let r = c
        .call(
            "textDocument/inlineCompletion",
            json!({"textDocument": {"uri": "file:///work/secret/keys.py"}, "position": {"line": 0, "character": 10}}),
        )
        .await;
    assert_eq!(r["result"]["items"], json!([]));
    assert_eq!(model.requests(), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_from_the_editor() {
    let first = ScriptedModel::start(vec![Reply::text("first", 3)], Duration::ZERO).await;
    let second = ScriptedModel::start(vec![Reply::text("second", 3)], Duration::ZERO).await;
    let third = ScriptedModel::start(vec![Reply::text("third", 3)], Duration::ZERO).await;
    let unused = ScriptedModel::start(vec![Reply::text("unused", 3)], Duration::ZERO).await;
    let ask = json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13}});
    // initializationOptions win over the start-up configuration.
    let mut c = Client::start(config(&unused.url));
    c.initialize(json!({"capabilities": {"workspace": {"configuration": true}},
                        "initializationOptions": {"pilotfish": {"backend": {"endpoint": first.url}}}}))
        .await;
    // Pull configuration: the server asks after `initialized`; this client answers later.
    let mut seen = Vec::new();
    let pull = loop {
        let m = c.next().await;
        if m["method"] == "workspace/configuration" {
            break m;
        }
        seen.push(m);
    };
    assert_eq!(pull["params"]["items"][0]["section"], "pilotfish");
    c.open(URI, "python", ORDERS).await;
    let r = c.call("textDocument/inlineCompletion", ask.clone()).await;
    assert_eq!(r["result"]["items"][0]["insertText"], "first");
    c.send(json!({"jsonrpc": "2.0", "id": pull["id"], "result": [{"backend": {"endpoint": second.url}}]}))
        .await;
    let r = c.call("textDocument/inlineCompletion", ask.clone()).await;
    assert_eq!(r["result"]["items"][0]["insertText"], "second");
    // Pushed settings.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pilotfish": {"backend": {"endpoint": third.url}}}}),
    )
    .await;
    let r = c.call("textDocument/inlineCompletion", ask.clone()).await;
    assert_eq!(r["result"]["items"][0]["insertText"], "third");
    // Bad settings are reported, and the previous ones stay.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pilotfish": {"completion": {"multiline": "sometimes"}}}}),
    )
    .await;
    let id = c
        .request_id("textDocument/inlineCompletion", ask.clone())
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["items"][0]["insertText"], "third");
    assert!(
        seen.iter().any(|m| m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("sometimes")),
        "{seen:?}"
    );
    assert_eq!(unused.requests(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_backend_is_reported_as_status() {
    let port = test_utils::free_port();
    let mut c = Client::start(config(&format!("http://127.0.0.1:{port}")));
    c.initialize(json!({"capabilities": {}})).await;
    c.open(URI, "python", ORDERS).await;
    let id = c
        .request_id(
            "getCompletions",
            json!({"doc": {"uri": URI, "version": 1, "position": {"line": 4, "character": 13}}}),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["completions"], json!([]));
    // Busy while the request ran, then the error.
    assert!(
        seen.iter()
            .any(|m| m["method"] == "didChangeStatus" && m["params"]["busy"] == true)
    );
    assert!(
        seen.iter()
            .any(|m| m["method"] == "statusNotification" && m["params"]["status"] == "InProgress")
    );
    let status = seen
        .iter()
        .find(|m| m["method"] == "didChangeStatus" && m["params"]["kind"] == "Error")
        .expect("a status notification");
    assert_eq!(status["params"]["kind"], "Error");
    assert!(
        status["params"]["message"]
            .as_str()
            .unwrap()
            .contains("is the server running")
    );
    assert!(
        seen.iter()
            .any(|m| m["method"] == "statusNotification" && m["params"]["status"] == "Error")
    );
}

/// Editors without Copilot's status protocol (Neovim's own client, Helix, eglot) show
/// `window/showMessage`: the first failure of a kind is shown, every one is logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_shown_once_per_kind_and_logged_each_time() {
    let port = test_utils::free_port();
    let mut c = Client::start(config(&format!("http://127.0.0.1:{port}")));
    c.initialize(json!({"capabilities": {}})).await;
    c.open(URI, "python", ORDERS).await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let id = c
            .request_id(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13},
                       "context": {"triggerKind": 1}}),
            )
            .await;
        let r = c.response(id, &mut seen).await;
        assert_eq!(r["result"]["items"], json!([]));
    }
    let of = |method: &str| -> Vec<&Value> {
        seen.iter()
            .filter(|m| m["method"] == method && m["params"]["type"] == 1)
            .collect()
    };
    let shown = of("window/showMessage");
    assert_eq!(shown.len(), 1, "{seen:?}");
    assert!(
        shown[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("is the server running"),
        "{shown:?}"
    );
    let logged: Vec<_> = of("window/logMessage")
        .into_iter()
        .filter(|m| {
            m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("no completion")
        })
        .collect();
    assert_eq!(logged.len(), 2, "{seen:?}");
}

/// A server that accepts the connection and never answers costs a keystroke the
/// time-to-first-token limit, not the whole time limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_costs_only_the_first_token_limit() {
    // FAKE: a listener that never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let base = config(&url);
    let configure = base.configure.clone();
    let hung = lsp::ServerConfig {
        configure: std::sync::Arc::new(move |v: &Value| {
            let mut c = configure(v)?;
            c.backend.first_token_timeout = Some(Duration::from_millis(500));
            Ok(c)
        }),
        ..base
    };
    let mut c = Client::start(hung);
    c.initialize(json!({"capabilities": {}})).await;
    c.open(URI, "python", ORDERS).await;
    let mut seen = Vec::new();
    // The first request also waits for the server to describe itself (2 s at most); the
    // next ones do not ask again.
    for limit in [Duration::from_secs(5), Duration::from_secs(2)] {
        let started = std::time::Instant::now();
        let id = c
            .request_id(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13},
                       "context": {"triggerKind": 1}}),
            )
            .await;
        let r = c.response(id, &mut seen).await;
        assert_eq!(r["result"]["items"], json!([]));
        assert!(started.elapsed() < limit, "took {:?}", started.elapsed());
    }
    assert!(
        seen.iter().any(|m| m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("time-to-first-token limit")),
        "{seen:?}"
    );
    hold.abort();
}

/// The session header a router hashes on names the workspace the editor opened (`rootUri`, or
/// the first of `workspaceFolders`), not the folder the language server was started in: two
/// windows of one person on two repositories are two sessions, and settings the editor sends
/// at start keep it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_header_names_the_editors_workspace() {
    let scratch = std::env::temp_dir().join(format!("pilotfish-lsp-ws-{}", std::process::id()));
    let (shop, blog) = (scratch.join("shop"), scratch.join("blog"));
    for repo in [&shop, &blog] {
        std::fs::create_dir_all(repo.join(".git")).unwrap();
    }
    let model = ScriptedModel::start(vec![Reply::text("total(items)", 3)], Duration::ZERO).await;
    let inits = [
        json!({"capabilities": {}, "rootUri": format!("file://{}", shop.display())}),
        json!({"capabilities": {},
               "workspaceFolders": [{"uri": format!("file://{}", blog.display()), "name": "blog"},
                                    {"uri": format!("file://{}", shop.display()), "name": "shop"}],
               "initializationOptions": {"completion": {"max_tokens": 40}}}),
    ];
    let mut sent = Vec::new();
    for init in inits {
        let before = model.sessions.lock().unwrap().len();
        let mut c = ready(&model, init).await;
        let r = c
            .call(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 13},
                       "context": {"triggerKind": 2}}),
            )
            .await;
        assert_eq!(r["result"]["items"][0]["insertText"], "total(items)", "{r}");
        let sessions = model.sessions.lock().unwrap()[before..].to_vec();
        assert!(!sessions.is_empty(), "the completion reached the model");
        assert!(sessions.iter().all(|s| *s == sessions[0]), "{sessions:?}");
        sent.push(sessions[0].clone());
    }
    let here = backends::Identity::here();
    assert_eq!(sent[0], here.in_workspace(&shop).session);
    assert_eq!(sent[1], here.in_workspace(&blog).session);
    assert_ne!(sent[0], sent[1]);
    assert!(
        !sent.contains(&here.session),
        "not the process's own folder"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
