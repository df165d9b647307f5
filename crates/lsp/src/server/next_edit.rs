//! `textDocument/copilotInlineEdit`: Copilot's next edit suggestions, as its language server
//! serves them. The request is built from the edit log (`crate::edits`) and the document at the
//! cursor, debounced, superseded by a newer request for the same document, sent through
//! `ghost::next_edit`, and answered only if the document has not changed meanwhile.

use std::{sync::Arc, time::Duration};

use nes::request::Request;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::{INVALID_PARAMS, Located, REQUEST_CANCELLED, Server, Stop, lock};
use crate::position::to_position;

/// How many suggestions are remembered for their acceptance.
const MAX_SHOWN: usize = 64;

/// How long a request waits for the next keystroke before asking the model.
const DEBOUNCE: Duration = Duration::from_millis(75);

/// Where a next edit is sent, set by the server's caller.
#[derive(Debug, Clone)]
pub struct NextEditConfig {
    pub model: ghost::next_edit::Model,
    /// `copilot` or `sweep`.
    pub strategy: String,
    /// The `copilot` strategy's fixed texts: Copilot's own where the user fetched them, else
    /// pilotfish's.
    pub wording: Arc<nes::strategies::copilot::Wording>,
    /// Why the wording is not Copilot's and what to run for it, logged at the first next edit
    /// of the `copilot` strategy.
    pub notice: Option<String>,
}

/// What the editor said it did with the next edits it was given, as `pilotfish/stats` shows
/// it, for suggestions this server made.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Decisions {
    /// `textDocument/didShowInlineEdit`.
    pub shown: u64,
    /// The edit's command, `github.copilot.didAcceptCompletionItem`.
    pub accepted: u64,
    /// `textDocument/didRejectInlineEdit`.
    pub rejected: u64,
}

impl Decisions {
    pub(super) fn to_json(self) -> Value {
        json!({"shown": self.shown, "accepted": self.accepted, "rejected": self.rejected})
    }
}

/// The uuid of the suggestion a notification names: Copilot's `{item: edit}` (the uuid is the
/// argument of the edit's command), or a bare `{uuid}`.
fn uuid_of(params: &Value) -> Option<&str> {
    params["item"]["command"]["arguments"][0]
        .as_str()
        .or(params["uuid"].as_str())
}

/// The answer with no suggestion.
fn no_edits() -> Value {
    json!({ "edits": [] })
}

impl Server {
    pub(super) fn next_edit(&mut self, id: Value, params: &Value) {
        self.stop_warming();
        let Located {
            uri, offset, stale, ..
        } = match self.locate(params, self.encoding) {
            Ok(l) => l,
            Err(message) => return self.send_error(id, INVALID_PARAMS, &message),
        };
        let Some(config) = self.config.next_edit.clone() else {
            return self.respond(id, no_edits());
        };
        self.tell_texts_once(&config);
        let document = self.docs.get(&uri).expect("located");
        if stale || (self.config.excluded)(&document.path) {
            return self.respond(id, no_edits());
        }
        let request = self.next_edit_request(&uri, offset, &config.strategy);
        let serial = self.next_uuid;
        self.next_uuid += 1;
        let document = self.docs.get(&uri).expect("located");
        let shown = Shown {
            uuid: format!("nes-{serial}"),
            serial,
            uri: uri.clone(),
            text: document.text.clone(),
            version: document.version,
            encoding: self.encoding,
            edits: self.shown_edits.clone(),
        };
        let key = format!("nes:{uri}");
        let (stop, stop_rx) = oneshot::channel();
        let pending = super::Pending {
            id: id.clone(),
            stop,
        };
        if let Some(previous) = self.pending.insert(key, pending) {
            let _ = previous.stop.send(Stop::Superseded);
        }
        let out = self.out.clone();
        tokio::spawn(async move {
            let work = async {
                tokio::time::sleep(DEBOUNCE).await;
                ghost::next_edit::suggest(&request, &config.model, &config.wording).await
            };
            let outcome = tokio::select! {
                biased;
                stop = stop_rx => Err(stop.unwrap_or(Stop::Superseded)),
                outcome = work => Ok(outcome),
            };
            let message = match outcome {
                Err(Stop::Cancelled) => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": REQUEST_CANCELLED, "message": "cancelled"}}),
                Err(Stop::Superseded) => json!({"jsonrpc": "2.0", "id": id, "result": no_edits()}),
                Ok(outcome) => {
                    let result = shown.answer(outcome, &out);
                    json!({"jsonrpc": "2.0", "id": id, "result": result})
                }
            };
            let _ = out.send(message);
        });
    }

    /// The next-edit request for the cursor at `offset` of `uri`
    /// (`crate::documents::Documents::next_edit_request`, shared with the ACP agent), with the
    /// workspace folder that holds the document.
    fn next_edit_request(&self, uri: &str, offset: usize, strategy: &str) -> Request {
        let document = self.docs.get(uri).expect("located");
        let root = self
            .folder_of(&document.path)
            .map(|f| crate::documents::file_uri(&f));
        self.docs
            .next_edit_request(uri, offset, strategy, &*self.config.excluded, root)
            .expect("located")
    }
}

/// Where a next edit would be shown, and the suggestions remembered for their acceptance.
struct Shown {
    uuid: String,
    serial: u64,
    uri: String,
    text: String,
    version: i64,
    encoding: crate::position::Encoding,
    edits: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Value>>>,
}

impl Shown {
    /// The result for what the model made of the request; failures and answers cut short are
    /// logged, a suggestion is remembered until accepted or rejected.
    fn answer(
        &self,
        outcome: Result<ghost::next_edit::NextEdit, ghost::next_edit::NextEditError>,
        out: &tokio::sync::mpsc::UnboundedSender<Value>,
    ) -> Value {
        let log = |kind: u8, message: String| {
            let _ = out.send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
                "params": {"type": kind, "message": format!("pilotfish: next edit: {message}")}}));
        };
        let next = match outcome {
            Err(e) => {
                log(1, e.to_string());
                return no_edits();
            }
            Ok(ghost::next_edit::NextEdit::CutShort { .. }) => {
                log(3, ghost::next_edit::CUT_SHORT.to_owned());
                return no_edits();
            }
            Ok(next) => next,
        };
        let Some(s) = next.suggestion().cloned() else {
            return no_edits();
        };
        let edit = placed(
            &s,
            &self.text,
            self.encoding,
            &self.uri,
            self.version,
            &self.uuid,
        );
        let mut shown = lock(&self.edits);
        // Suggestions an editor replaced without saying so are never accepted or rejected:
        // only the most recent are kept.
        if shown.len() >= MAX_SHOWN {
            let newest = self.serial;
            shown.retain(|k, _| {
                k.strip_prefix("nes-")
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| n + (MAX_SHOWN as u64) > newest)
            });
        }
        shown.insert(self.uuid.clone(), edit.clone());
        json!({ "edits": [edit] })
    }
}

impl Server {
    /// `textDocument/didShowInlineEdit`: a suggestion reached the user's eyes.
    pub(super) fn did_show_inline_edit(&mut self, params: &Value) {
        if uuid_of(params).is_some_and(|u| lock(&self.shown_edits).contains_key(u)) {
            self.next_edit_decisions.shown += 1;
        }
    }

    /// `textDocument/didRejectInlineEdit` (turned down) or `reportCachedInlineEdit` (left
    /// unshown): the suggestion is forgotten; only the first counts as rejected.
    pub(super) fn did_reject_inline_edit(&mut self, method: &str, params: &Value) {
        let known = uuid_of(params).and_then(|u| lock(&self.shown_edits).remove(u));
        if known.is_some() && method == "textDocument/didRejectInlineEdit" {
            self.next_edit_decisions.rejected += 1;
        }
    }

    /// Logs, at the first next edit of the `copilot` strategy, why Copilot's texts are not
    /// used and what to run for them (the only strategy that sends them).
    fn tell_texts_once(&mut self, config: &NextEditConfig) {
        if let Some(notice) = &config.notice
            && config.strategy != "sweep"
            && !std::mem::replace(&mut self.told_texts, true)
        {
            let message = format!("pilotfish: next edit: {notice}");
            let _ = self
                .out
                .send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
                "params": {"type": 2, "message": message}}));
        }
    }
}

/// A suggestion in Copilot's shape: the text, the document and version it applies to, the
/// range it replaces, and the command an editor runs when it is accepted.
fn placed(
    s: &nes::prompt::Suggestion,
    text: &str,
    encoding: crate::position::Encoding,
    uri: &str,
    version: i64,
    uuid: &str,
) -> Value {
    let byte = |units: usize| nes::history::byte_offset(text, units).unwrap_or(text.len());
    let (sl, sc) = to_position(text, byte(s.start), encoding);
    let (el, ec) = to_position(text, byte(s.end), encoding);
    json!({
        "text": s.text,
        "textDocument": {"uri": uri, "version": version},
        "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
        "command": {"title": "Accept next edit", "command": "github.copilot.didAcceptCompletionItem",
            "arguments": [uuid]},
    })
}
