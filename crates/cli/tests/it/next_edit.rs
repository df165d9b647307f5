//! Next edit suggestions end to end, with real processes and a fake model
//! (`test_utils::fake_next_edit`, which rewrites the lines it is asked to rewrite by a scripted
//! replacement): `pilotfish next-edit` (one request, `--dry-run`, `--batch`, answers that are
//! no edit, a model that fails), `pilotfish lsp`'s `textDocument/copilotInlineEdit` from the
//! edits its `didChange` notifications reported, and the Neovim plugin showing, accepting and
//! dismissing a suggestion in a real Neovim. The scenario is always the same: the user renamed
//! `class Point` to `class Point3D`, the cursor is on a later `new Point(`, and the model
//! renames that use too.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use test_utils::fake_next_edit::{FakeNextEditModel, Script};

use crate::assert_clean_failure;

pub(super) const URI: &str = "file:///ws/src/point.ts";
/// The document before the rename. `café` makes UTF-8, UTF-16 and byte offsets differ on the
/// line of the suggestion.
pub(super) const TEXT: &str = "class Point {\n  constructor(public x: number, public y: number) {}\n}\n\nfunction origin() {\n  return new Point(0, 0);\n}\n\nexport function unit() {\n  const café = new Point(1, 1);\n  return café;\n}\n";
/// Where `3D` is typed: after `class Point`.
const RENAME_AT: usize = 11;
/// The lines Copilot's prompt asks the model to rewrite for a cursor on line 9: two above, the
/// cursor's, five below (to the end of the document), joined by `\n`.
const WINDOW: &str =
    "\nexport function unit() {\n  const café = new Point(1, 1);\n  return café;\n}\n";

/// The document after the user's rename.
fn renamed_class() -> String {
    format!("{}3D{}", &TEXT[..RENAME_AT], &TEXT[RENAME_AT..])
}

/// The document once the suggestion is taken: the later use renamed, the other one (outside
/// the lines the model rewrites) left.
fn expected() -> String {
    renamed_class().replace("new Point(1, 1)", "new Point3D(1, 1)")
}

/// The document with the class and both uses renamed.
fn both_renamed() -> String {
    expected().replace("new Point(0, 0)", "new Point3D(0, 0)")
}

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The request of the scenario: the cursor on `Point(1, 1)`, after `new `.
pub(super) fn rename_request(strategy: Option<&str>) -> Value {
    let now = renamed_class();
    let cursor = now.find("Point(1, 1)").unwrap();
    let mut request = json!({
        "documents": [{"uri": URI, "language_id": "typescript", "text": TEXT}],
        "edits": [{"uri": URI, "start": RENAME_AT, "end": RENAME_AT, "text": "3D"}],
        "cursor": {"uri": URI, "offset": utf16(&now[..cursor])},
    });
    if let Some(s) = strategy {
        request["options"] = json!({ "strategy": s });
    }
    request
}

/// `text` with `[start, end)` (UTF-16 units) of each edit replaced, the last edit first.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut units: Vec<u16> = text.encode_utf16().collect();
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| e["start"].as_u64());
    for e in edits.iter().rev() {
        let (start, end) = (
            e["start"].as_u64().unwrap() as usize,
            e["end"].as_u64().unwrap() as usize,
        );
        units.splice(start..end, e["text"].as_str().unwrap().encode_utf16());
    }
    String::from_utf16(&units).unwrap()
}

/// A runtime running the fake, kept alive as long as the fake is used.
fn fake(script: Script) -> (tokio::runtime::Runtime, FakeNextEditModel) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let model = runtime.block_on(FakeNextEditModel::start(script));
    (runtime, model)
}

pub(super) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("pilotfish-next-edit-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A configuration file of the test's own, so that the machine's does not leak in.
pub(super) fn config(dir: &Path, toml: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

/// `pilotfish next-edit ARGS --config CONFIG`, with `stdin`.
fn next_edit(args: &[&str], config: &Path, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .arg("next-edit")
        .args(args)
        .arg("--config")
        .arg(config)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .env_remove("PILOTFISH_MODEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The copilot strategy (the default) and sweep each send exactly what the dry run shows, to
/// their own endpoint, and the model's rewrite of the lines comes back as one edit of the
/// document as it is now: for copilot the smallest (`3D` after the later use's `Point`), for
/// sweep, whose window holds both uses, one that renames both.
#[test]
fn next_edit_carries_the_rename_to_the_later_use() {
    let dir = scratch("rename");
    let cfg = config(&dir, "");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    let path = dir.join("request.json");
    for (strategy, endpoint) in [
        (None, "/v1/chat/completions"),
        (Some("sweep"), "/completion"),
    ] {
        std::fs::write(&path, rename_request(strategy).to_string()).unwrap();
        let file = path.to_str().unwrap();
        let v = json_of(&next_edit(
            &[
                "--request",
                file,
                "--endpoint",
                &model.url,
                "--model",
                "fake-nes",
            ],
            &cfg,
            b"",
        ));
        let edits = v["edits"].as_array().expect("edits");
        assert_eq!(edits.len(), 1, "{strategy:?}: {v}");
        assert_eq!(edits[0]["uri"], URI);
        let now = renamed_class();
        if strategy.is_none() {
            // The smallest edit: `3D` typed after the use's `Point`.
            let at = utf16(&now[..now.find("Point(1, 1)").unwrap() + "Point".len()]);
            assert_eq!(
                (&edits[0]["start"], &edits[0]["end"], &edits[0]["text"]),
                (&json!(at), &json!(at), &json!("3D")),
                "{v}"
            );
            assert_eq!(apply(&now, edits), expected());
        } else {
            // Sweep's window is 21 lines: both uses are in it, and one edit renames both.
            assert_eq!(apply(&now, edits), both_renamed(), "{v}");
        }

        let sent = model.received.lock().unwrap().last().cloned().unwrap();
        assert_eq!(sent.path, endpoint, "{strategy:?}");
        let dry = json_of(&next_edit(
            &["--request", file, "--model", "fake-nes", "--dry-run"],
            &cfg,
            b"",
        ));
        if strategy.is_none() {
            // Copilot's request: its messages and predicted output as the dry run shows
            // them, streamed, deterministic.
            assert_eq!(sent.body["messages"], dry["messages"]);
            assert_eq!(sent.body["prediction"], dry["prediction"]);
            assert_eq!(
                sent.body["prediction"],
                json!({"type": "content", "content": WINDOW})
            );
            assert_eq!(sent.body["model"], "fake-nes");
            assert_eq!(sent.body["stream"], true);
            assert_eq!(sent.body["temperature"], 0);
        } else {
            assert_eq!(sent.body["prompt"], dry["prompt"]);
            assert_eq!(sent.body["stop"], dry["stop"]);
        }
    }
    assert_eq!(model.requests(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--dry-run` prints the model, Copilot's messages and the predicted output, and contacts
/// nobody, not even the server it was given; a request with no edit says it would send
/// nothing.
#[test]
fn a_dry_run_prints_what_would_be_sent_and_sends_nothing() {
    let dir = scratch("dry");
    let cfg = config(&dir, "");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    let request = rename_request(None).to_string();
    let v = json_of(&next_edit(
        &[
            "--request",
            "-",
            "--dry-run",
            "--endpoint",
            &model.url,
            "--model",
            "fake-nes",
        ],
        &cfg,
        request.as_bytes(),
    ));
    assert_eq!(v["model"], "fake-nes");
    let roles: Vec<&Value> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["role"])
        .collect();
    assert_eq!(roles, [&json!("system"), &json!("user")], "{v}");
    let user = v["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("<|code_to_edit|>")
            && user.contains("const café = new <|cursor|>Point(1, 1);"),
        "{user}"
    );
    assert!(
        user.contains("-class Point {\n+class Point3D {"),
        "the rename is in the edit history: {user}"
    );
    assert_eq!(
        v["prediction"],
        json!({"type": "content", "content": WINDOW})
    );
    // With no edit there is nothing to go on.
    let mut quiet = rename_request(None);
    quiet["edits"] = json!([]);
    let v = json_of(&next_edit(
        &["--request", "-", "--dry-run"],
        &cfg,
        quiet.to_string().as_bytes(),
    ));
    assert!(v["skipped"].as_str().unwrap().contains("no edit"), "{v}");
    assert!(v.get("messages").is_none(), "{v}");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(model.requests(), 0, "a dry run sends nothing");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The dry run names the model a real run would ask: `[next_edit] model`, else `[chat] model`,
/// with `--model` winning over both.
#[test]
fn the_dry_run_names_the_configured_model() {
    let dir = scratch("dry-model");
    let request = rename_request(None).to_string();
    let dry = |toml: &str, extra: &[&str]| {
        let cfg = config(&dir, toml);
        let args = [&["--request", "-", "--dry-run"][..], extra].concat();
        json_of(&next_edit(&args, &cfg, request.as_bytes()))["model"].clone()
    };
    assert_eq!(dry("[chat]\nmodel = \"chat-model\"\n", &[]), "chat-model");
    assert_eq!(
        dry(
            "[chat]\nmodel = \"chat-model\"\n[next_edit]\nmodel = \"nes-model\"\n",
            &[]
        ),
        "nes-model"
    );
    assert_eq!(
        dry(
            "[next_edit]\nmodel = \"nes-model\"\n",
            &["--model", "flag-model"]
        ),
        "flag-model"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--batch` answers every line, in order, with `{"error": "line N: ..."}` for each bad one,
/// and goes on; bad lines never reach the model.
#[test]
fn batch_answers_every_line_in_order() {
    let dir = scratch("batch");
    let cfg = config(&dir, "");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    let good = rename_request(None).to_string();
    let mut unknown = rename_request(None);
    unknown["edits"][0]["uri"] = json!("file:///ws/src/other.ts");
    let mut past_end = rename_request(None);
    past_end["edits"][0]["start"] = json!(900);
    past_end["edits"][0]["end"] = json!(900);
    let mut cursor_past_end = rename_request(None);
    cursor_past_end["cursor"]["offset"] = json!(900);
    let mut strategy = rename_request(None);
    strategy["options"] = json!({"strategy": "zeta"});
    let mut input = Vec::new();
    for line in [
        good.as_bytes(),
        b"{\"documents\": [",
        unknown.to_string().as_bytes(),
        past_end.to_string().as_bytes(),
        cursor_past_end.to_string().as_bytes(),
        b"{\"documents\": \"\xff\xfe\"}",
        strategy.to_string().as_bytes(),
        b"   ",
        rename_request(Some("sweep")).to_string().as_bytes(),
    ] {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let out = next_edit(&["--batch", "--endpoint", &model.url], &cfg, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expect_error = |i: usize, needle: &str| {
        let error = answers[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("answer {i} should be an error: {}", answers[i]));
        assert!(
            error.contains(needle),
            "answer {i}: {error:?} should say {needle:?}"
        );
    };
    // The blank line is no request: eight answers for nine lines.
    assert_eq!(answers.len(), 8, "{answers:?}");
    for (i, after) in [(0, expected()), (7, both_renamed())] {
        let edits = answers[i]["edits"].as_array().expect("edits");
        assert_eq!(apply(&renamed_class(), edits), after, "answer {i}");
    }
    expect_error(1, "line 2: the request is not valid");
    expect_error(
        2,
        "line 3: edit 0 names file:///ws/src/other.ts, which is not among the documents",
    );
    expect_error(
        3,
        "line 4: edit 0 of file:///ws/src/point.ts replaces [900, 900)",
    );
    expect_error(4, "line 5: the cursor's offset 900 is past the end");
    expect_error(5, "line 6: not UTF-8");
    expect_error(6, "line 7: unknown strategy `zeta`: use copilot or sweep");
    assert_eq!(model.requests(), 2, "only the good lines reach the model");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An answer that repeats the lines, or is no rewrite of them at all (the refusal Copilot's
/// instructions ask for, or unrelated text), is no suggestion: `{"edits": []}`, not an error.
/// Copilot's own library would put unrelated text in place of the code; pilotfish's contract
/// says it does not (`docs/next-edit.md`).
#[test]
fn answers_that_are_no_rewrite_give_no_edits() {
    let dir = scratch("junk");
    let cfg = config(&dir, "");
    let (_runtime, model) = fake(Script::Echo);
    let request = rename_request(None).to_string();
    for script in [
        Script::Echo,
        Script::Text("Sorry, I can't assist with that.".into()),
        Script::Text("lorem ipsum dolor\nsit amet, consectetur\nadipiscing elit\n".into()),
    ] {
        model.set(script.clone());
        let v = json_of(&next_edit(
            &["--request", "-", "--endpoint", &model.url],
            &cfg,
            request.as_bytes(),
        ));
        assert_eq!(v, json!({"edits": []}), "{script:?}");
    }
    assert_eq!(model.requests(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An answer the server stopped at the token limit is an unfinished rewrite: no edit, with a
/// note on standard error saying why and what to raise, for both strategies.
#[test]
fn an_answer_stopped_at_the_token_limit_gives_no_edit() {
    let dir = scratch("limit");
    let cfg = config(&dir, "");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    for strategy in ["copilot", "sweep"] {
        let request = rename_request(Some(strategy)).to_string();
        let run = || {
            next_edit(
                &["--request", "-", "--endpoint", &model.url],
                &cfg,
                request.as_bytes(),
            )
        };
        model.set(Script::Replace("Point(".into(), "Point3D(".into()));
        let whole = run();
        assert_eq!(
            json_of(&whole)["edits"].as_array().unwrap().len(),
            1,
            "{strategy}"
        );
        model.set(Script::AtLimit("Point(".into(), "Point3D(".into()));
        let cut = run();
        assert_eq!(json_of(&cut), json!({"edits": []}), "{strategy}");
        let err = String::from_utf8_lossy(&cut.stderr);
        assert!(
            err.contains("token limit") && err.contains("max_tokens"),
            "{strategy}: {err}"
        );
    }
    assert_eq!(model.requests(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model that fails (HTTP 500, no answer within the configured time, a stream that ends
/// before its end) is one clear line on standard error and exit code 1; in `--batch` it is the
/// line's error and the next line is still answered.
#[test]
fn a_failing_model_is_a_clear_error() {
    let dir = scratch("fail");
    // A short total time, for the model that never answers.
    let cfg = config(&dir, "[chat]\ntimeout_seconds = 0.5\n");
    let (_runtime, model) = fake(Script::Status(500));
    let request = rename_request(None).to_string();
    let run = || {
        next_edit(
            &["--request", "-", "--endpoint", &model.url],
            &cfg,
            request.as_bytes(),
        )
    };
    assert_clean_failure(&run(), "500");
    model.set(Script::Hang);
    let started = Instant::now();
    let out = run();
    assert_clean_failure(&out, "did not answer within 500ms");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the time limit holds: {:?}",
        started.elapsed()
    );
    model.set(Script::Cut("Point(".into(), "Point3D(".into()));
    let out = run();
    assert_clean_failure(&out, "closed the stream before the completion ended");
    // Nothing listens there.
    let out = next_edit(
        &["--request", "-", "--endpoint", "http://127.0.0.1:9"],
        &cfg,
        request.as_bytes(),
    );
    assert_clean_failure(&out, "is the server running?");
    // In a batch the failure is that line's answer.
    model.set(Script::Status(500));
    let input = format!("{request}\n{}\n", rename_request(None));
    let out = next_edit(
        &["--batch", "--endpoint", &model.url],
        &cfg,
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (i, l) in lines.iter().enumerate() {
        let e = l["error"].as_str().unwrap_or_default();
        assert!(
            e.starts_with(&format!("line {}: ", i + 1)) && e.contains("500"),
            "{l}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An error is said once: the reason a request failed is not repeated after itself (the
/// chain of an error that both quotes its cause and names it as its source would be).
#[test]
fn errors_are_said_once() {
    let dir = scratch("once");
    let cfg = config(&dir, "");
    let request = rename_request(None).to_string();
    let out = next_edit(
        &["--request", "-", "--endpoint", "http://127.0.0.1:9"],
        &cfg,
        request.as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("is the server running?").count(),
        1,
        "{stderr}"
    );
    let mut unknown = rename_request(None);
    unknown["edits"][0]["uri"] = json!("file:///ws/src/other.ts");
    let out = next_edit(
        &["--batch", "--endpoint", "http://127.0.0.1:9"],
        &cfg,
        format!("{unknown}\n").as_bytes(),
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        answer.matches("which is not among the documents").count(),
        1,
        "{answer}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `pilotfish lsp` configured for the fake (`[chat] endpoint`): after `didOpen` and a
/// `didChange` that renames the class, `textDocument/copilotInlineEdit` on the later use
/// answers the edit that renames it, in Copilot's shape, for the current version; showing and
/// accepting it are taken, and the server then shuts down cleanly.
#[test]
fn the_language_server_suggests_the_rename_from_the_edits_it_saw() {
    let dir = scratch("lsp");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    let cfg = config(
        &dir,
        &format!(
            "[chat]\nendpoint = \"{}\"\nmodel = \"fake-nes\"\n",
            model.url
        ),
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args(["lsp", "--config"])
        .arg(&cfg)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .env_remove("PILOTFISH_MODEL");
    let mut lsp = super::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(20));
    let request = |lsp: &mut super::servers::Lsp, id: i64, method: &str, params: Value| {
        lsp.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        lsp.answer(id).0
    };
    let notify = |lsp: &mut super::servers::Lsp, method: &str, params: Value| {
        lsp.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    };
    let init = request(&mut lsp, 1, "initialize", json!({"capabilities": {}}));
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    notify(&mut lsp, "initialized", json!({}));
    notify(
        &mut lsp,
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "typescript", "version": 1, "text": TEXT}}),
    );
    notify(
        &mut lsp,
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 11}}, "text": "3D"}]}),
    );
    let line = "  const café = new Point(1, 1);";
    let character = utf16(&line[..line.find("Point").unwrap()]);
    let answer = request(
        &mut lsp,
        2,
        "textDocument/copilotInlineEdit",
        json!({"textDocument": {"uri": URI, "version": 2}, "position": {"line": 9, "character": character}}),
    );
    let edits = answer["result"]["edits"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(edits.len(), 1, "{answer}");
    let edit = &edits[0];
    assert_eq!(edit["textDocument"], json!({"uri": URI, "version": 2}));
    let at = json!({"line": 9, "character": character + "Point".len()});
    assert_eq!(edit["range"], json!({"start": at, "end": at}), "{edit}");
    assert_eq!(edit["text"], "3D");
    assert_eq!(
        edit["command"]["command"],
        "github.copilot.didAcceptCompletionItem"
    );
    assert!(edit["command"]["arguments"][0].is_string(), "{edit}");
    assert_eq!(apply_lsp(&renamed_class(), edit), expected());
    // What the model was sent: Copilot's request, with the rename in its history.
    let sent = model.received.lock().unwrap().last().cloned().unwrap();
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.body["model"], "fake-nes");
    assert_eq!(
        sent.body["prediction"],
        json!({"type": "content", "content": WINDOW})
    );
    let user = sent.body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("-class Point {\n+class Point3D {"), "{user}");
    // Shown, then accepted through the edit's own command.
    notify(
        &mut lsp,
        "textDocument/didShowInlineEdit",
        json!({ "item": edit }),
    );
    let accepted = request(
        &mut lsp,
        3,
        "workspace/executeCommand",
        edit["command"].clone(),
    );
    assert_eq!(accepted["result"], Value::Null, "{accepted}");
    assert!(accepted["error"].is_null(), "{accepted}");
    let down = request(&mut lsp, 4, "shutdown", Value::Null);
    assert!(down["error"].is_null(), "{down}");
    notify(&mut lsp, "exit", Value::Null);
    let status = lsp.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An LSP edit (UTF-16 positions) applied to `text`.
fn apply_lsp(text: &str, edit: &Value) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(utf16).sum();
        start + p["character"].as_u64().unwrap() as usize
    };
    let (start, end) = (
        offset(&edit["range"]["start"]),
        offset(&edit["range"]["end"]),
    );
    apply(
        text,
        &[json!({"start": start, "end": end, "text": edit["text"]})],
    )
}

/// The Neovim plugin (`editors/neovim`, `pilotfish.nes`) in a real Neovim 0.11.4 against
/// `pilotfish lsp` and the fake: typing the rename brings the suggestion for the use near the
/// cursor (drawn as a virtual line), `<M-CR>` applies it; asked for on the other use (the
/// plugin's `request`), `<M-Esc>` turns it down and leaves the buffer alone, and asked again it
/// is accepted.
#[test]
fn the_neovim_plugin_shows_accepts_and_dismisses_a_next_edit() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let nvim = Command::new("bash")
        .arg(repo.join("tools/neovim.sh"))
        .output()
        .expect("tools/neovim.sh runs");
    assert!(nvim.status.success(), "tools/neovim.sh installs Neovim");
    let nvim = String::from_utf8(nvim.stdout).unwrap();
    let nvim = nvim.lines().last().unwrap().to_owned();
    let dir = scratch("nvim");
    let (_runtime, model) = fake(Script::Replace("Point(".into(), "Point3D(".into()));
    // No [chat] endpoint: next edits go to the completions' server given on the command line.
    let cfg = config(&dir, "");
    let file = dir.join("point.ts");
    std::fs::write(&file, TEXT).unwrap();
    let out = dir.join("nes.json");
    let run = Command::new(&nvim)
        .args(["--headless", "--clean", "-c"])
        .arg(format!(
            "luafile {}",
            repo.join("crates/cli/tests/editors/next_edit.lua")
                .display()
        ))
        .env("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish"))
        .env("CONFIG", &cfg)
        .env("ENDPOINT", &model.url)
        .env("PLUGIN", repo.join("editors/neovim"))
        .env("FILE", &file)
        .env("OUT", &out)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .env_remove("PILOTFISH_MODEL")
        .output()
        .expect("nvim runs");
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        run.status.success(),
        "nvim: {seen} {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_str(&seen).unwrap();
    assert_eq!(v["failure"], Value::Null, "{v}");
    let origin_renamed = renamed_class().replace("new Point(0, 0)", "new Point3D(0, 0)");
    // After the rename, the use near the cursor: the line as it would read, drawn below it;
    // accepted, it is in the buffer.
    assert_eq!(
        v["first"],
        json!({"line": 5, "virt_lines": ["  return new Point3D(0, 0);"]}),
        "{v}"
    );
    assert_eq!(v["accepted"].as_str().unwrap(), origin_renamed, "{v}");
    assert_eq!(
        v["after_accept"],
        Value::Null,
        "nothing left to suggest there: {v}"
    );
    // On the other use: shown, turned down (the buffer untouched), shown again, accepted.
    let second = json!({"line": 9, "virt_lines": ["  const café = new Point3D(1, 1);"]});
    assert_eq!(v["second"], second, "{v}");
    assert_eq!(v["dismissed"].as_str().unwrap(), origin_renamed, "{v}");
    assert_eq!(v["third"], second, "{v}");
    assert_eq!(v["final"].as_str().unwrap(), both_renamed(), "{v}");
    // Copilot's strategy, on the chat endpoint of the completions' server.
    let asked = model
        .received
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .count();
    assert!(
        asked >= 3,
        "the model was asked for each suggestion: {asked}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example `docs/next-edit.md` walks through gives what the page says: the dry run shows
/// the current file by its path in the workspace folder, and the example answer is the edit the
/// page prints.
#[test]
fn the_documented_example_gives_the_documented_edit() {
    let dir = scratch("documented");
    let config = config(&dir, "");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/next-edit");
    let request = examples.join("rename.json");
    let dry = json_of(&next_edit(
        &["--request", request.to_str().unwrap(), "--dry-run"],
        &config,
        b"",
    ));
    let user = dry["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("\ncurrent_file_path: src/point.ts\n"),
        "{user}"
    );
    assert!(
        user.contains("-export class Point {\n+export class Point3D {"),
        "{user}"
    );
    let answer = examples.join("answer.txt");
    let out = json_of(&next_edit(
        &[
            "--request",
            request.to_str().unwrap(),
            "--answer",
            answer.to_str().unwrap(),
        ],
        &config,
        b"",
    ));
    assert_eq!(
        out,
        json!({"edits": [{"uri": "file:///ws/src/point.ts", "start": 226, "end": 226, "text": "3D"}]})
    );
    let docs = std::fs::read_to_string(examples.join("../../docs/next-edit.md")).unwrap();
    assert!(
        docs.contains(r#"`{"edits": [{"uri": "file:///ws/src/point.ts", "start": 226, "end": 226, "text": "3D"}]}`"#),
        "docs/next-edit.md prints the example's edit"
    );
}
