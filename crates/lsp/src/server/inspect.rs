//! `pilotfish/inspect`: the prompt exactly as sent, as the self-contained page
//! `pilotfish complete --html` writes, for the editor to show. Without a cursor it is the last
//! completion's request (prompt, request, timings, answer or error); with `textDocument` and
//! `position` it is the prompt a completion there would send, built without asking the model.

use std::sync::{Arc, Mutex};

use ghost::{Pipeline, Trace};
use serde_json::{Value, json};

use super::{INVALID_PARAMS, Located, Server, lock};
use crate::position::{Encoding, to_position};

/// `RequestFailed` in LSP 3.17: the request was valid but could not be answered.
const REQUEST_FAILED: i64 = -32803;

/// The last completion that built a prompt, kept to be shown on request.
#[derive(Default)]
pub(super) struct LastRequest(Mutex<Option<Recorded>>);

struct Recorded {
    /// The document's path and text when asked, and the cursor: the title is worked out only
    /// when the page is asked for, not on every keystroke.
    path: String,
    text: String,
    offset: usize,
    trace: Trace,
    answers: Vec<(String, String)>,
    backend: backends::Backend,
}

impl LastRequest {
    /// Keeps `trace` when it holds a prompt: a request answered from the cache built none,
    /// and the one shown stays the one that was sent.
    pub(super) fn record(
        &self,
        (path, text, offset): (String, String, usize),
        trace: Trace,
        answers: Vec<(String, String)>,
        pipeline: &Pipeline,
    ) {
        if trace.prompt.is_some() {
            *lock(&self.0) = Some(Recorded {
                path,
                text,
                offset,
                trace,
                answers,
                backend: pipeline.backend().clone(),
            });
        }
    }

    fn page(&self) -> Option<Value> {
        let last = lock(&self.0);
        let r = last.as_ref()?;
        let title = title(&r.path, &r.text, r.offset);
        let html = ghost::inspect::page(&r.trace, &r.backend, &title, r.answers.clone())?;
        Some(json!({"title": title, "html": html}))
    }
}

/// `PATH:LINE:COLUMN` (1-based, in characters) of `offset` in `text`.
fn title(path: &str, text: &str, offset: usize) -> String {
    let (line, character) = to_position(text, offset, Encoding::Utf32);
    format!("{path}:{}:{}", line + 1, character + 1)
}

impl Server {
    pub(super) fn inspect(&mut self, id: Value, params: &Value) {
        let names_cursor = params.get("textDocument").is_some() || params.get("doc").is_some();
        if !names_cursor {
            return match self.last.page() {
                Some(page) => self.respond(id, page),
                None => self.send_error(
                    id,
                    REQUEST_FAILED,
                    "no completion has built a prompt yet in this session: type in a file, \
                     or send `textDocument` and `position` for the prompt at a cursor",
                ),
            };
        }
        let Located { uri, offset, .. } = match self.locate(params, self.encoding) {
            Ok(l) => l,
            Err(message) => return self.send_error(id, INVALID_PARAMS, &message),
        };
        let document = self.docs.get(&uri).expect("located");
        if (self.config.excluded)(&document.path) {
            return self.send_error(
                id,
                REQUEST_FAILED,
                &format!(
                    "{} is excluded (.copilotignore or .pilotfishignore): nothing of it is put \
                     in a prompt",
                    document.path
                ),
            );
        }
        let title = title(&document.path, &document.text, offset);
        let request = self.request_json(&uri, offset);
        let files = request
            .workspace_root
            .as_deref()
            .and_then(|root| (self.config.files)(root));
        let pipeline: Arc<Pipeline> = self.pipeline.clone();
        let out = self.out.clone();
        tokio::spawn(async move {
            let prepared = pipeline
                .prepare(&request, files.as_deref().map(|f| f as _))
                .await;
            let message = match prepared {
                Ok(trace) => {
                    match ghost::inspect::page(&trace, pipeline.backend(), &title, Vec::new()) {
                        Some(html) => json!({"jsonrpc": "2.0", "id": id,
                        "result": {"title": title, "html": html}}),
                        None => {
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": REQUEST_FAILED,
                        "message": "no prompt was built for this cursor"}})
                        }
                    }
                }
                Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": REQUEST_FAILED,
                    "message": format!("the prompt could not be built: {e}")}}),
            };
            let _ = out.send(message);
        });
    }
}
