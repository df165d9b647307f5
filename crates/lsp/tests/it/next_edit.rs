//! `textDocument/copilotInlineEdit` as a client meets it, against the fake next-edit model
//! (`test_utils::fake_next_edit`, which renames `Point(` to `Point3D(` in the lines it is asked
//! to rewrite): the edit in Copilot's shape for the current version in each position encoding,
//! what gets no edit (a stale version, no edit made yet, an excluded file, a document changed
//! while the model answers, a failing model), errors for what cannot be answered, a newer
//! request superseding an older one, cancellation, and the `sweep` strategy.

use std::time::Duration;

use serde_json::{Value, json};
use test_utils::fake_next_edit::{FakeNextEditModel, Script};

use crate::client::{Client, config};

const URI: &str = "file:///ws/src/point.ts";
/// `café` makes UTF-8 and UTF-16 positions differ on the line of the suggestion.
const TEXT: &str = "class Point {\n  constructor(public x: number, public y: number) {}\n}\n\nfunction origin() {\n  return new Point(0, 0);\n}\n\nexport function unit() {\n  const café = new Point(1, 1);\n  return café;\n}\n";
const LATER_USE: &str = "  const café = new Point(1, 1);";

fn rename() -> Script {
    Script::Replace("Point(".into(), "Point3D(".into())
}

/// A server whose next edits go to `model` with `strategy`.
fn server(model: &FakeNextEditModel, strategy: &str) -> Client {
    let mut cfg = config("http://127.0.0.1:9");
    let timeout = Duration::from_secs(10);
    let model = if strategy == "sweep" {
        ghost::next_edit::Model::Completion(
            backends::Backend::new(
                backends::Kind::LlamaCppCompletion,
                &model.url,
                Duration::from_secs(1),
                timeout,
            )
            .unwrap(),
            256,
        )
    } else {
        ghost::next_edit::Model::Chat(
            backends::chat::ChatBackend::new(
                backends::chat::ChatKind::OpenAi,
                &model.url,
                Duration::from_secs(1),
                timeout,
            )
            .unwrap(),
        )
    };
    cfg.next_edit = Some(lsp::NextEditConfig {
        model,
        strategy: strategy.to_owned(),
        wording: std::sync::Arc::new(nes::strategies::copilot::Wording::pilotfish()),
        notice: None,
    });
    Client::start(cfg)
}

/// Initialized with `encoding`, the document open (version 1) and the class renamed by a
/// `didChange` (version 2).
async fn renamed(model: &FakeNextEditModel, strategy: &str, encoding: &str) -> Client {
    let mut c = server(model, strategy);
    c.initialize(json!({"capabilities": {"general": {"positionEncodings": [encoding]}}}))
        .await;
    c.open(URI, "typescript", TEXT).await;
    change(&mut c, URI, 2, (0, 11), "3D").await;
    c
}

/// Inserts `text` at `(line, character)` as version `version`.
async fn change(c: &mut Client, uri: &str, version: i64, at: (u32, u32), text: &str) {
    let at = json!({"line": at.0, "character": at.1});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version},
               "contentChanges": [{"range": {"start": at, "end": at}, "text": text}]}),
    )
    .await;
}

/// The params of a request on the later use's `Point`, in `encoding`'s units.
fn on_later_use(version: i64, encoding: &str) -> Value {
    json!({"textDocument": {"uri": URI, "version": version},
           "position": {"line": 9, "character": column(LATER_USE, "Point", encoding)}})
}

fn column(line: &str, before: &str, encoding: &str) -> usize {
    let prefix = &line[..line.find(before).unwrap()];
    match encoding {
        "utf-8" => prefix.len(),
        "utf-32" => prefix.chars().count(),
        _ => prefix.encode_utf16().count(),
    }
}

fn edits(answer: &Value) -> &Vec<Value> {
    answer["result"]["edits"]
        .as_array()
        .unwrap_or_else(|| panic!("no edits: {answer}"))
}

/// Waits until the fake has received `n` requests.
async fn received(model: &FakeNextEditModel, n: usize) {
    for _ in 0..2000 {
        if model.requests() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the model received {} requests, not {n}", model.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_edit_in_copilots_shape_in_each_encoding() {
    let model = FakeNextEditModel::start(rename()).await;
    for encoding in ["utf-16", "utf-8", "utf-32"] {
        let mut c = renamed(&model, "copilot", encoding).await;
        let answer = c
            .call("textDocument/copilotInlineEdit", on_later_use(2, encoding))
            .await;
        let edits = edits(&answer);
        assert_eq!(edits.len(), 1, "{encoding}: {answer}");
        let e = &edits[0];
        // `3D` after the use's `Point`, in the client's units.
        let at = json!({"line": 9, "character": column(LATER_USE, "(1, 1)", encoding)});
        assert_eq!(
            e["range"],
            json!({"start": at, "end": at}),
            "{encoding}: {e}"
        );
        assert_eq!(e["text"], "3D");
        assert_eq!(e["textDocument"], json!({"uri": URI, "version": 2}));
        assert_eq!(
            e["command"]["command"],
            "github.copilot.didAcceptCompletionItem"
        );
        let uuid = e["command"]["arguments"][0].as_str().expect("a uuid");
        assert!(uuid.starts_with("nes-"), "{e}");
        // Shown, turned down, shown again, accepted: all taken without complaint.
        c.notify("textDocument/didShowInlineEdit", json!({ "item": e }))
            .await;
        c.notify("textDocument/didRejectInlineEdit", json!({ "item": e }))
            .await;
        let accepted = c
            .call("workspace/executeCommand", e["command"].clone())
            .await;
        assert_eq!(accepted["result"], Value::Null, "{accepted}");
        assert!(accepted.get("error").is_none(), "{accepted}");
    }
    assert_eq!(model.requests(), 3);
}

/// A stale version, a document with no edit yet, a file excluded from prompts: no edits, and
/// the model not asked. An unknown document or a request without a position: an error, and
/// the server goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_gets_no_edit_and_what_is_an_error() {
    let model = FakeNextEditModel::start(rename()).await;
    // Before any edit, Copilot's prompt has nothing to go on.
    let mut c = server(&model, "copilot");
    c.initialize(json!({})).await;
    c.open(URI, "typescript", TEXT).await;
    let answer = c
        .call("textDocument/copilotInlineEdit", on_later_use(1, "utf-16"))
        .await;
    assert_eq!(answer["result"], json!({"edits": []}), "{answer}");
    change(&mut c, URI, 2, (0, 11), "3D").await;
    let stale = c
        .call("textDocument/copilotInlineEdit", on_later_use(1, "utf-16"))
        .await;
    assert_eq!(stale["result"], json!({"edits": []}), "{stale}");
    let unknown = c
        .call(
            "textDocument/copilotInlineEdit",
            json!({"textDocument": {"uri": "file:///ws/src/nope.ts", "version": 1},
                   "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is not open"),
        "{unknown}"
    );
    let no_position = c
        .call(
            "textDocument/copilotInlineEdit",
            json!({"textDocument": {"uri": URI, "version": 2}}),
        )
        .await;
    assert_eq!(no_position["error"]["code"], -32602, "{no_position}");
    // An excluded file (the test configuration excludes paths with `secret`) gets nothing,
    // however it was edited.
    let secret = "file:///ws/src/secret.ts";
    c.open(secret, "typescript", TEXT).await;
    change(&mut c, secret, 2, (0, 11), "3D").await;
    let answer = c
        .call(
            "textDocument/copilotInlineEdit",
            json!({"textDocument": {"uri": secret, "version": 2},
                   "position": {"line": 9, "character": 19}}),
        )
        .await;
    assert_eq!(answer["result"], json!({"edits": []}), "{answer}");
    assert_eq!(model.requests(), 0, "nothing was sent so far");
    // The server survived all that, and the excluded file's edits stay out of the prompt.
    let answer = c
        .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    assert_eq!(edits(&answer).len(), 1, "{answer}");
    let sent = model.last_body().unwrap().to_string();
    assert!(sent.contains("point.ts"), "{sent}");
    assert!(
        !sent.contains("secret"),
        "an excluded file was sent: {sent}"
    );
}

/// A newer request for the same document supersedes the one waiting (answered with no edits,
/// never sent); one superseded while the model answers has its connection closed.
/// `$/cancelRequest` answers -32800 and closes the model's connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn superseded_and_cancelled_requests() {
    let model = FakeNextEditModel::start(rename()).await;
    let mut c = renamed(&model, "copilot", "utf-16").await;
    let first = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    let second = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    let mut seen = Vec::new();
    let a = c.response(first, &mut seen).await;
    assert_eq!(a["result"], json!({"edits": []}), "{a}");
    let b = c.response(second, &mut seen).await;
    assert_eq!(edits(&b).len(), 1, "{b}");
    assert_eq!(model.requests(), 1, "the superseded request was never sent");

    // Superseded while the model answers.
    model.set(Script::Late(Duration::from_secs(5), Box::new(rename())));
    let slow = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    received(&model, 2).await;
    model.set(rename());
    let quick = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    let a = c.response(slow, &mut seen).await;
    assert_eq!(a["result"], json!({"edits": []}), "{a}");
    let b = c.response(quick, &mut seen).await;
    assert_eq!(edits(&b).len(), 1, "{b}");

    // Cancelled while the model answers.
    model.set(Script::Hang);
    let hung = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    received(&model, 4).await;
    c.notify("$/cancelRequest", json!({ "id": hung })).await;
    let r = c.response(hung, &mut seen).await;
    assert_eq!(r["error"]["code"], -32800, "{r}");
    for _ in 0..2000 {
        if model.abandoned() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        model.abandoned(),
        2,
        "the superseded and the cancelled requests' connections were closed"
    );
    // Still serving.
    model.set(rename());
    let answer = c
        .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    assert_eq!(edits(&answer).len(), 1, "{answer}");
}

/// A model that fails, or whose answer the server stopped at the token limit, is said in the
/// log, and the request gets no edits, not an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_cut_answer_is_logged_and_gets_no_edit() {
    let cut = Script::AtLimit("Point(".into(), "Point3D(".into());
    for (script, says) in [(Script::Status(500), "500"), (cut, "token limit")] {
        let model = FakeNextEditModel::start(script).await;
        let mut c = renamed(&model, "copilot", "utf-16").await;
        let id = c
            .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
            .await;
        let mut seen = Vec::new();
        let answer = c.response(id, &mut seen).await;
        assert_eq!(answer["result"], json!({"edits": []}), "{answer}");
        let logged = seen
            .iter()
            .filter(|m| m["method"] == "window/logMessage")
            .map(|m| m["params"]["message"].as_str().unwrap_or_default())
            .collect::<Vec<_>>();
        assert!(
            logged
                .iter()
                .any(|m| m.contains("next edit") && m.contains(says)),
            "{seen:?}"
        );
    }
}

/// A document that changes while the model answers gets no edits (`docs/next-edit.md`): the
/// suggestion was made for text that is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_changed_while_the_model_answers_gets_no_edit() {
    let model =
        FakeNextEditModel::start(Script::Late(Duration::from_millis(300), Box::new(rename())))
            .await;
    let mut c = renamed(&model, "copilot", "utf-16").await;
    let id = c
        .request_id("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    received(&model, 1).await;
    // The user types on while the model thinks.
    change(&mut c, URI, 3, (11, 1), "\n").await;
    let answer = c.response(id, &mut Vec::new()).await;
    assert_eq!(answer["result"], json!({"edits": []}), "{answer}");
}

/// The `sweep` strategy asks llama.cpp's `/completion` with its own prompt, and its 21-line
/// window holds both uses: one edit renames both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_strategy() {
    let model = FakeNextEditModel::start(rename()).await;
    let mut c = renamed(&model, "sweep", "utf-16").await;
    let answer = c
        .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    let edits = edits(&answer);
    assert_eq!(edits.len(), 1, "{answer}");
    let e = &edits[0];
    // From after the first use's `Point` to after the second's.
    let first = json!({"line": 5, "character": "  return new Point".len()});
    let second = json!({"line": 9, "character": column(LATER_USE, "(1, 1)", "utf-16")});
    assert_eq!(e["range"], json!({"start": first, "end": second}), "{e}");
    assert_eq!(
        e["text"],
        "3D(0, 0);\n}\n\nexport function unit() {\n  const café = new Point3D"
    );
    let sent = model.received.lock().unwrap().last().cloned().unwrap();
    assert_eq!(sent.path, "/completion");
    let prompt = sent.body["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("<|file_sep|>original/point.ts\nclass Point {")
            && prompt.contains("<|file_sep|>current/point.ts\nclass Point3D {")
            && prompt.ends_with("<|file_sep|>updated/point.ts\n"),
        "{prompt}"
    );
}

/// What the editor did with each suggestion reaches `pilotfish/stats`: shown, accepted (the
/// edit's command) and rejected, each for suggestions the server made; a uuid it never gave,
/// or one already settled, counts for nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shown_accepted_and_rejected_are_counted() {
    let model = FakeNextEditModel::start(rename()).await;
    let mut c = renamed(&model, "copilot", "utf-16").await;
    let ask = async |c: &mut Client| {
        let answer = c
            .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
            .await;
        edits(&answer)[0].clone()
    };
    let first = ask(&mut c).await;
    let second = ask(&mut c).await;
    assert_ne!(first["command"], second["command"], "each has its uuid");
    for e in [&first, &second] {
        c.notify("textDocument/didShowInlineEdit", json!({ "item": e }))
            .await;
    }
    c.call("workspace/executeCommand", first["command"].clone())
        .await;
    c.notify(
        "textDocument/didRejectInlineEdit",
        json!({ "item": second }),
    )
    .await;
    // Settled already, or never given: not counted again.
    c.call("workspace/executeCommand", first["command"].clone())
        .await;
    c.notify("textDocument/didRejectInlineEdit", json!({ "item": first }))
        .await;
    c.notify(
        "textDocument/didShowInlineEdit",
        json!({"item": {"command": {"arguments": ["nes-999"]}}}),
    )
    .await;
    let stats = c.call("pilotfish/stats", json!({})).await;
    assert_eq!(
        stats["result"]["next_edits"],
        json!({"shown": 2, "accepted": 1, "rejected": 1}),
        "{stats}"
    );
}

/// New settings can name another next-edit model (`Configured::next_edit`): before them the
/// server has none and answers no edits; after them the model they name is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_choose_the_next_edit_model() {
    let model = FakeNextEditModel::start(rename()).await;
    let mut cfg = config("http://127.0.0.1:9");
    let completions = cfg.configure.clone();
    cfg.configure = std::sync::Arc::new(move |v: &Value| {
        let mut c = completions(v)?;
        if let Some(url) = v["chat"]["endpoint"].as_str() {
            let chat = backends::chat::ChatBackend::new(
                backends::chat::ChatKind::OpenAi,
                url,
                Duration::from_secs(1),
                Duration::from_secs(10),
            )
            .map_err(|e| e.to_string())?;
            c.next_edit = Some(lsp::NextEditConfig {
                model: ghost::next_edit::Model::Chat(chat),
                strategy: "copilot".into(),
                wording: std::sync::Arc::new(nes::strategies::copilot::Wording::pilotfish()),
                notice: None,
            });
        }
        Ok(c)
    });
    let mut c = Client::start(cfg);
    c.initialize(json!({})).await;
    c.open(URI, "typescript", TEXT).await;
    change(&mut c, URI, 2, (0, 11), "3D").await;
    let before = c
        .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    assert_eq!(before["result"], json!({"edits": []}), "{before}");
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pilotfish": {"chat": {"endpoint": model.url}}}}),
    )
    .await;
    let after = c
        .call("textDocument/copilotInlineEdit", on_later_use(2, "utf-16"))
        .await;
    assert_eq!(edits(&after).len(), 1, "{after}");
    assert_eq!(model.requests(), 1);
}
