//! Copilot's plugins' methods answered as Copilot's own server answers them: positions in
//! UTF-16 whatever encoding was negotiated, a plugin's own version counter taken for the text
//! the server has, texts without a final line break, a panel that always ends, and a reason in
//! the log for every empty answer the user could do something about. The requests are the
//! shapes copilot.vim 1.26 sends (`autoload/copilot/doc.vim`: `doc` with the position and
//! `b:changedtick`, copied to `textDocument` and `position`) and copilot.lua's (the same plus
//! `relativePath` and `_ = true`).

use std::time::Duration;

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

use crate::client::{Client, config};

const URI: &str = "file:///work/shop/sum.py";

/// A function whose body's first line is `s = "é" + ` (the cursor at its end): `é` is two
/// bytes in UTF-8 and one unit in UTF-16, so every encoding counts the cursor differently.
fn source(line_break: &str) -> String {
    ["def add(a, b):", "    s = \"é\" + ", "    return s", ""].join(line_break)
}

/// The cursor after `s = "é" + `, in UTF-16 units, as the plugins send it.
const CURSOR_UTF16: u64 = 14;

/// copilot.vim's request (`copilot#doc#Params()`): the buffer's `changedtick` as the version.
fn vim_params(version: i64, extra: Value) -> Value {
    let position = json!({"line": 1, "character": CURSOR_UTF16});
    let mut params = json!({
        "doc": {"uri": URI, "version": version, "insertSpaces": true, "tabSize": 4,
                "indentSize": 4, "position": position},
        "textDocument": {"uri": URI, "version": version},
        "position": position,
    });
    if let (Some(p), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    params
}

/// copilot.lua's request (`util.get_doc_params()`): the same with `relativePath` and `_`.
fn lua_params(version: i64) -> Value {
    let position = json!({"line": 1, "character": CURSOR_UTF16});
    json!({
        "doc": {"uri": URI, "version": version, "relativePath": "sum.py", "insertSpaces": true,
                "tabSize": 4, "indentSize": 4, "position": position},
        "textDocument": {"uri": URI, "version": version, "relativePath": "sum.py"},
        "position": position,
        "_": true,
    })
}

/// A server whose model always answers `a + b` and a line break, opened on `text` at
/// version 0 (as Neovim's client opens a buffer).
async fn opened(model: &ScriptedModel, encoding: &str, text: &str) -> Client {
    let mut c = Client::start(config(&model.url));
    c.initialize(
        json!({"capabilities": {"general": {"positionEncodings": [encoding]}},
                        "workspaceFolders": [{"uri": "file:///work/shop", "name": "shop"}]}),
    )
    .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "python", "version": 0, "text": text}}),
    )
    .await;
    c
}

async fn model() -> ScriptedModel {
    ScriptedModel::start(vec![Reply::text("a + b\n", 2)], Duration::ZERO).await
}

/// Applies a Copilot completion as the plugins do: `text` replaces `range`, whose characters
/// count UTF-16 units (the lines split as the document's line breaks split them).
fn accept(document: &str, item: &Value) -> String {
    let line_break = if document.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut lines: Vec<String> = document.split(line_break).map(str::to_owned).collect();
    let (start, end) = (&item["range"]["start"], &item["range"]["end"]);
    assert_eq!(start["line"], end["line"], "one line replaced: {item}");
    let line = &mut lines[start["line"].as_u64().unwrap() as usize];
    let byte = |units: u64| {
        let mut seen = 0;
        line.char_indices()
            .find(|(_, c)| {
                let here = seen >= units;
                seen += c.len_utf16() as u64;
                here
            })
            .map_or(line.len(), |(i, _)| i)
    };
    let (from, to) = (
        byte(start["character"].as_u64().unwrap()),
        byte(end["character"].as_u64().unwrap()),
    );
    line.replace_range(from..to, item["text"].as_str().unwrap());
    lines.join(line_break)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_just_opened_gets_a_suggestion_in_utf16_whatever_the_encoding() {
    let model = model().await;
    for encoding in ["utf-8", "utf-16", "utf-32"] {
        for line_break in ["\n", "\r\n"] {
            let text = source(line_break);
            let mut c = opened(&model, encoding, &text).await;
            // The plugin's counter says 3 while `didOpen` said 0: it still describes this text.
            for params in [vim_params(3, json!({})), lua_params(3)] {
                let r = c.call("getCompletions", params).await;
                let item = &r["result"]["completions"][0];
                let case = format!("{encoding}, {line_break:?}: {r}");
                assert_eq!(item["displayText"], "a + b", "{case}");
                assert_eq!(item["text"], "    s = \"é\" + a + b", "{case}");
                assert_eq!(
                    item["range"],
                    json!({"start": {"line": 1, "character": 0},
                           "end": {"line": 1, "character": CURSOR_UTF16}}),
                    "{case}"
                );
                assert_eq!(
                    item["position"],
                    json!({"line": 1, "character": CURSOR_UTF16}),
                    "{case}"
                );
                // Accepted as the plugins accept it: no extra line, nothing doubled.
                let expected = source(line_break).replace("\" + ", "\" + a + b");
                assert_eq!(accept(&text, item), expected, "{case}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycling_and_the_panel_count_utf16_too() {
    let model = model().await;
    let text = source("\r\n");
    let mut c = opened(&model, "utf-8", &text).await;
    let r = c
        .call("getCompletionsCycling", vim_params(7, json!({})))
        .await;
    let items = r["result"]["completions"].as_array().unwrap();
    assert!(!items.is_empty(), "{r}");
    for item in items {
        assert_eq!(item["range"]["end"]["character"], CURSOR_UTF16, "{r}");
        assert_eq!(item["displayText"], "a + b", "{r}");
    }
    let id = c
        .request_id(
            "getPanelCompletions",
            vim_params(7, json!({"panelId": "copilot:///panel/1"})),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["solutionCountTarget"], 3, "{r}");
    while !seen.iter().any(|m| m["method"] == "PanelSolutionsDone") {
        seen.push(c.next().await);
    }
    let solutions: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "PanelSolution")
        .collect();
    assert!(!solutions.is_empty(), "{seen:?}");
    for s in solutions {
        let p = &s["params"];
        assert_eq!(p["panelId"], "copilot:///panel/1");
        assert_eq!(p["completionText"], "    s = \"é\" + a + b", "{p}");
        assert_eq!(p["displayText"], "a + b", "{p}");
        assert_eq!(p["range"]["end"]["character"], CURSOR_UTF16, "{p}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_version_the_document_has_left_is_stale_and_the_log_says_so() {
    let model = model().await;
    let text = source("\n");
    let mut c = opened(&model, "utf-16", &text).await;
    // Typing: the client's didChange versions follow its own counter.
    for version in [5, 6] {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version},
                   "contentChanges": [{"text": text}]}),
        )
        .await;
    }
    let fresh = c.call("getCompletions", lua_params(6)).await;
    assert_eq!(fresh["result"]["completions"][0]["displayText"], "a + b");
    let asked = model.requests();
    for (version, kind) in [
        (5, "a version the document had"),
        (0, "the opening version"),
    ] {
        let id = c
            .request_id("getCompletions", vim_params(version, json!({})))
            .await;
        let mut seen = Vec::new();
        let r = c.response(id, &mut seen).await;
        assert_eq!(r["result"]["completions"], json!([]), "{kind}: {r}");
        let logged: Vec<&Value> = seen
            .iter()
            .filter(|m| m["method"] == "window/logMessage")
            .collect();
        assert!(
            logged.iter().any(|m| {
                let message = m["params"]["message"].as_str().unwrap_or_default();
                message.contains(&format!("version {version}")) && message.contains("now version 6")
            }),
            "{kind}: the log says why: {seen:?}"
        );
    }
    assert_eq!(model.requests(), asked, "a stale request asks no model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_panel_ends_and_says_why() {
    let model = model().await;
    let text = source("\n");
    let mut c = opened(&model, "utf-16", &text).await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 9}, "contentChanges": [{"text": text}]}),
    )
    .await;
    // Version 0 is the one the document left: the panel gets nothing, and is told it is done.
    let id = c.request_id("getPanelCompletions", lua_params(0)).await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["solutionCountTarget"], 0, "{r}");
    while !seen.iter().any(|m| m["method"] == "PanelSolutionsDone") {
        seen.push(c.next().await);
    }
    assert!(
        seen.iter().any(|m| m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("no suggestion")),
        "{seen:?}"
    );
    assert!(!seen.iter().any(|m| m["method"] == "PanelSolution"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_panel_is_answered_once_and_ends() {
    let model = ScriptedModel::start(
        vec![Reply::text(&"x".repeat(200), 1)],
        Duration::from_millis(20),
    )
    .await;
    let text = source("\n");
    let mut c = opened(&model, "utf-16", &text).await;
    let id = c
        .request_id(
            "getPanelCompletions",
            vim_params(0, json!({"panelId": "p"})),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["solutionCountTarget"], 3, "{r}");
    c.notify("$/cancelRequest", json!({"id": id})).await;
    while !seen.iter().any(|m| m["method"] == "PanelSolutionsDone") {
        seen.push(c.next().await);
    }
    // Whatever comes next is the answer to the next request, not a second one to the panel's.
    let next = c.request_id("getVersion", json!({})).await;
    loop {
        let m = c.next().await;
        assert_ne!(
            m["id"],
            json!(id),
            "the panel's request is answered once: {m}"
        );
        if m["id"] == json!(next) {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_excluded_file_gets_nothing_and_the_log_says_why() {
    let model = model().await;
    let mut c = Client::start(config(&model.url));
    c.initialize(json!({"capabilities": {}})).await;
    let secret = "file:///work/secret/keys.py";
    c.open(secret, "python", "API_KEY = \n").await;
    let id = c
        .request_id(
            "getCompletions",
            json!({"doc": {"uri": secret, "version": 1, "position": {"line": 0, "character": 10}}}),
        )
        .await;
    let mut seen = Vec::new();
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["completions"], json!([]), "{r}");
    assert!(
        seen.iter().any(|m| m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains(".copilotignore")),
        "{seen:?}"
    );
    assert_eq!(model.requests(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_answer_ends_without_a_line_break() {
    // The model indents the line itself: the blank line's white space is not in the prompt.
    let model =
        ScriptedModel::start(vec![Reply::text("    return a + b\n", 3)], Duration::ZERO).await;
    // The cursor on the empty body of a function: Copilot asks for a block here, and the
    // answer ends with the line break that ends its last line.
    let text = "def add(a, b):\n    \n\nprint(add(1, 2))\n";
    let mut c = opened(&model, "utf-16", text).await;
    let r = c
        .call(
            "getCompletions",
            json!({"doc": {"uri": URI, "version": 0, "position": {"line": 1, "character": 4}}}),
        )
        .await;
    let item = &r["result"]["completions"][0];
    assert_eq!(item["text"], "    return a + b", "{r}");
    assert!(
        !item["displayText"].as_str().unwrap().ends_with('\n'),
        "{r}"
    );
    assert_eq!(
        accept(text, item),
        "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n"
    );
}

/// The fake model: `a + b` for the ghost text (temperature 0), `b + a` for the candidates
/// asked when cycling.
async fn two_answers() -> ScriptedModel {
    ScriptedModel::answering(
        |body| {
            if body["temperature"].as_f64().unwrap_or(0.0) == 0.0 {
                Reply::text("a + b\n", 2)
            } else {
                Reply::text("b + a\n", 2)
            }
        },
        Duration::ZERO,
    )
    .await
}

/// copilot.el takes the first of a cycling answer as the suggestion already shown and steps to
/// the second, so the answer starts with what `getCompletions` gave at that cursor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycling_starts_with_the_suggestion_shown() {
    let model = two_answers().await;
    let mut c = opened(&model, "utf-16", &source("\n")).await;
    let r = c.call("getCompletions", lua_params(0)).await;
    assert_eq!(r["result"]["completions"][0]["displayText"], "a + b");
    let r = c.call("getCompletionsCycling", lua_params(0)).await;
    let shown: Vec<&Value> = r["result"]["completions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["displayText"])
        .collect();
    assert_eq!(shown, [&json!("a + b"), &json!("b + a")], "{r}");
    let uuids: std::collections::HashSet<&Value> = r["result"]["completions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["uuid"])
        .collect();
    assert_eq!(uuids.len(), 2, "each item has its own uuid: {r}");
    // Elsewhere (another cursor), cycling has nothing shown to start with.
    let mut elsewhere = lua_params(0);
    elsewhere["doc"]["position"]["character"] = json!(4);
    elsewhere["position"]["character"] = json!(4);
    let r = c.call("getCompletionsCycling", elsewhere).await;
    assert!(
        r["result"]["completions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["displayText"] != "a + b"),
        "{r}"
    );
}

/// A whole session as copilot.vim 1.26 runs it in Vim (`autoload/copilot/agent.vim`): its
/// `initialize`, its settings pushed, the buffer opened with `b:changedtick` as its version and
/// its text joined with `\n` (Vim drops a CRLF file's carriage returns from its lines), the
/// suggestion asked for, shown, cycled, accepted and the buffer sent again whole, then the
/// panel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copilot_vim_session_replayed() {
    let model = two_answers().await;
    let mut c = Client::start(config(&model.url));
    let init = c
        .call(
            "initialize",
            json!({"capabilities": {"workspace": {"workspaceFolders": true},
                                    "window": {"showDocument": {"support": true}}},
                   "initializationOptions": {"editorInfo": {"name": "Vim", "version": "9.0.1378"},
                                             "editorPluginInfo": {"name": "copilot.vim", "version": "1.26.0"}},
                   "workspaceFolders": []}),
        )
        .await;
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    c.notify("initialized", json!({})).await;
    let mut seen = Vec::new();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"http": {"proxy": null, "proxyStrictSSL": null},
                            "github-enterprise": {"uri": null}}}),
    )
    .await;
    let status = c
        .call("checkStatus", json!({"localChecksOnly": true}))
        .await;
    assert_eq!(status["result"]["status"], "OK", "{status}");
    let text = source("\n");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "version": 4, "languageId": "python", "text": text}}),
    )
    .await;
    let id = c
        .request_id("getCompletions", vim_params(4, json!({})))
        .await;
    let r = c.response(id, &mut seen).await;
    let first = &r["result"]["completions"][0];
    assert_eq!(first["displayText"], "a + b", "{r}");
    assert_eq!(first["docVersion"], 4, "{r}");
    let shown = c.call("notifyShown", json!({"uuid": first["uuid"]})).await;
    assert_eq!(shown["result"], "OK");
    let r = c
        .call("getCompletionsCycling", vim_params(4, json!({})))
        .await;
    let cycled: Vec<&Value> = r["result"]["completions"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let other = cycled
        .iter()
        .find(|c| c["displayText"] == "b + a")
        .unwrap_or_else(|| panic!("cycling offers the other suggestion: {r}"));
    let accepted = c
        .call("notifyAccepted", json!({"uuid": other["uuid"]}))
        .await;
    assert_eq!(accepted["result"], "OK");
    let after = accept(&text, other);
    assert_eq!(after, source("\n").replace("\" + ", "\" + b + a"));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 9}, "contentChanges": [{"text": after}]}),
    )
    .await;
    let rejected = c
        .call("notifyRejected", json!({"uuids": [first["uuid"]]}))
        .await;
    assert_eq!(rejected["result"], "OK");
    // The panel on the accepted line, its cursor at the end (UTF-16).
    let end = "    s = \"é\" + b + a".encode_utf16().count();
    let mut params = vim_params(9, json!({"panelId": "copilot:///3"}));
    params["doc"]["position"]["character"] = json!(end);
    params["position"]["character"] = json!(end);
    let id = c.request_id("getPanelCompletions", params).await;
    let r = c.response(id, &mut seen).await;
    assert_eq!(r["result"]["solutionCountTarget"], 3, "{r}");
    while !seen.iter().any(|m| m["method"] == "PanelSolutionsDone") {
        seen.push(c.next().await);
    }
    let solutions: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "PanelSolution")
        .collect();
    assert!(!solutions.is_empty(), "{seen:?}");
    assert!(
        solutions
            .iter()
            .all(|s| s["params"]["panelId"] == "copilot:///3")
    );
    // Vim's settings are not pilotfish's: they are left alone without an error.
    assert!(
        !seen
            .iter()
            .any(|m| m["method"] == "didChangeStatus" && m["params"]["kind"] == "Error"),
        "{seen:?}"
    );
}
