//! Completion requests in both protocols: LSP 3.18 `textDocument/inlineCompletion` and
//! Copilot's plugins' `getCompletions`, `getCompletionsCycling` and `getPanelCompletions`. A
//! request is located and judged on the message loop (stale, excluded), then run on a spawned
//! task that answers it once, whatever happens to it.
//!
//! Copilot's methods count positions in UTF-16 code units whatever encoding the client
//! negotiated for the standard methods, as Copilot's own server does: copilot.lua asks Neovim
//! for UTF-16 positions for them even when Neovim's client agreed on UTF-8.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Instant,
};

use ghost::{Ask, Outcome, Pipeline, Suggestion, Trace};
use prompt::request::RequestJson;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::{
    Flavor, INVALID_PARAMS, Latencies, Located, Pending, REQUEST_CANCELLED, Server, Stop,
    inspect::LastRequest,
    items::{Placement, copilot_item, copilot_items, empty_result, inline_items},
    lock,
    status::{StatusState, report_failure, update_status},
    warming,
};
use crate::position::Encoding;

/// How many solutions the panel is told to expect when nothing will come.
const NO_SOLUTIONS: u32 = 0;

impl Flavor {
    /// The unit of the request's and the answer's positions.
    fn encoding(self, negotiated: Encoding) -> Encoding {
        match self {
            Flavor::Inline => negotiated,
            Flavor::Copilot | Flavor::Panel => Encoding::Utf16,
        }
    }
}

/// The suggestions last shown for a document (Copilot's `getCompletions`), and where.
pub(super) struct Shown {
    version: i64,
    offset: usize,
    suggestions: Vec<Suggestion>,
}

/// What a completion task needs from the server, taken when the request arrives.
struct Job {
    id: Value,
    uri: String,
    flavor: Flavor,
    candidates: u32,
    panel_id: Value,
    request: RequestJson,
    files: Option<Arc<dyn syntax::WorkspaceFiles + Send + Sync>>,
    path: String,
    text: String,
    offset: usize,
    /// The version the answer names (the request's, else the document's).
    version: i64,
    /// The document's version as the server has it.
    doc_version: i64,
    /// For cycling: the suggestions already shown at this cursor, which the answer starts
    /// with (copilot.el takes the first as the one shown and steps to the second).
    earlier: Vec<Suggestion>,
    shown: Arc<Mutex<HashMap<String, Shown>>>,
    encoding: Encoding,
    uuid_base: u64,
    arrived: Instant,
    pipeline: Arc<Pipeline>,
    out: mpsc::UnboundedSender<Value>,
    status: Arc<Mutex<StatusState>>,
    latencies: Arc<Mutex<Latencies>>,
    last: Arc<LastRequest>,
    /// Edits and requests since this one arrived, which stop a warming at its cursor.
    warming_stops: tokio::sync::watch::Receiver<u64>,
}

/// What the pipeline's result becomes: the answer to send (none when the panel's count has
/// answered the request already), and the trace to keep for `pilotfish/inspect`.
type Answer = (Option<Value>, Option<(Trace, Vec<(String, String)>)>);

impl Server {
    pub(super) fn complete(&mut self, id: Value, params: &Value, flavor: Flavor, candidates: u32) {
        self.stop_warming();
        let encoding = flavor.encoding(self.encoding);
        let located = match self.locate(params, encoding) {
            Ok(l) => l,
            Err(message) => return self.send_error(id, INVALID_PARAMS, &message),
        };
        let panel_id = params["panelId"].clone();
        if let Some(why) = self.refusal(&located) {
            return self.answer_nothing(id, flavor, &panel_id, &why);
        }
        let job = self.job(id.clone(), located, flavor, candidates, panel_id);
        // One completion at a time per document: a newer request supersedes the older one.
        let (stop, stop_rx) = oneshot::channel();
        let pending = Pending {
            id: id.clone(),
            stop,
        };
        if let Some(previous) = self.pending.insert(job.uri.clone(), pending) {
            let _ = previous.stop.send(Stop::Superseded);
        }
        if flavor == Flavor::Panel {
            self.respond(id, json!({"solutionCountTarget": candidates}));
        }
        tokio::spawn(job.run(stop_rx));
    }

    /// Why a located request gets no suggestion before any work, if it does not.
    fn refusal(&self, located: &Located) -> Option<String> {
        let document = self.docs.get(&located.uri)?;
        if located.stale {
            let asked = located.version.unwrap_or_default();
            return Some(format!(
                "no suggestion for {}: the request is about version {asked}, and the document \
                 has changed since (now version {})",
                document.path, document.version
            ));
        }
        if (self.config.excluded)(&document.path) {
            return Some(format!(
                "no suggestion for {}: a .copilotignore or .pilotfishignore names it, so its \
                 content never leaves the machine",
                document.path
            ));
        }
        None
    }

    /// Answers a request with no suggestion and says why in the log. The panel still gets its
    /// count and its end, so that it stops waiting.
    fn answer_nothing(&self, id: Value, flavor: Flavor, panel_id: &Value, why: &str) {
        self.log(3, why);
        if flavor == Flavor::Panel {
            self.respond(id, json!({ "solutionCountTarget": NO_SOLUTIONS }));
            self.notify(
                "PanelSolutionsDone",
                json!({"panelId": panel_id, "status": "OK"}),
            );
        } else {
            self.respond(id, empty_result(flavor));
        }
    }

    fn job(
        &mut self,
        id: Value,
        located: Located,
        flavor: Flavor,
        candidates: u32,
        panel_id: Value,
    ) -> Job {
        let uuid_base = self.next_uuid;
        // A cycling answer may also hold the one suggestion shown before.
        self.next_uuid += u64::from(candidates) + 1;
        let request = self.request_json(&located.uri, located.offset);
        let document = self.docs.get(&located.uri).expect("located");
        let files = request
            .workspace_root
            .as_deref()
            .and_then(|root| (self.config.files)(root));
        let earlier = match lock(&self.shown).get(&located.uri) {
            Some(s)
                if candidates > 1
                    && (s.version, s.offset) == (document.version, located.offset) =>
            {
                s.suggestions.clone()
            }
            _ => Vec::new(),
        };
        Job {
            id,
            uri: located.uri,
            flavor,
            candidates,
            panel_id,
            request,
            files,
            path: document.path.clone(),
            text: document.text.clone(),
            offset: located.offset,
            // Copilot's plugins compare it with their own counter before they show an item.
            version: located.version.unwrap_or(document.version),
            doc_version: document.version,
            earlier,
            shown: self.shown.clone(),
            encoding: flavor.encoding(self.encoding),
            uuid_base,
            arrived: Instant::now(),
            pipeline: self.pipeline.clone(),
            out: self.out.clone(),
            status: self.status.clone(),
            latencies: self.latencies.clone(),
            last: self.last.clone(),
            warming_stops: self.cursor_warming.stopped_from_now(),
        }
    }
}

impl Job {
    /// Runs the pipeline unless stopped first, then answers exactly once.
    async fn run(self, stop_rx: oneshot::Receiver<Stop>) {
        update_status(&self.out, &self.status, |s| s.busy += 1);
        // The stop is looked at first: a request superseded before its task ran must not
        // start work.
        let outcome = tokio::select! {
            biased;
            stop = stop_rx => Err(stop.unwrap_or(Stop::Superseded)),
            outcome = self.ask() => Ok(outcome),
        };
        // A prompt lowered to the server's speed: the whole one is warmed at this cursor after a
        // pause, so that the next keystroke gets its full budget back. Not on a contended
        // server: reading ahead for one person would delay others' answers.
        let lowered = matches!(&outcome, Ok(Ok(o)) if o.source == Some(ghost::Source::Network)
            && o.trace.full_prompt_tokens.is_some()
            && o.trace.contended.is_none());
        let (message, recorded) = self.answer(outcome);
        // Kept before the answer goes out: an editor may ask `pilotfish/inspect` for this
        // request as soon as it has the answer.
        if let Some((trace, answers)) = recorded {
            let shown = (self.path.clone(), self.text.clone(), self.offset);
            self.last.record(shown, trace, answers, &self.pipeline);
        }
        if self.flavor == Flavor::Panel {
            self.send(json!({"jsonrpc": "2.0", "method": "PanelSolutionsDone",
                "params": {"panelId": self.panel_id, "status": "OK"}}));
        }
        if let Some(message) = message {
            self.send(message);
        }
        update_status(&self.out, &self.status, |s| {
            s.busy = s.busy.saturating_sub(1);
        });
        lock(&self.latencies).push(self.arrived.elapsed());
        if lowered && self.pipeline.settings().warm {
            warming::after_lowered(
                self.warming_stops,
                self.pipeline.clone(),
                self.request,
                self.files,
                self.out,
            );
        }
    }

    /// The pipeline's outcome for this request. An invoked `textDocument/inlineCompletion`
    /// (the user asked, as copilot.el's `copilot-complete` does) gets the ghost text's own
    /// suggestion first, as an automatic request would show it, then up to `candidates` in
    /// all with the sampled ones that differ from it, for the editor to cycle through.
    async fn ask(&self) -> Result<Outcome, ghost::PipelineError> {
        let files = self.files.as_deref().map(|f| f as _);
        let ask = |candidates| Ask {
            candidates,
            arrived: self.arrived,
        };
        if self.flavor != Flavor::Inline || self.candidates == 1 {
            return self
                .pipeline
                .complete(&self.request, files, ask(self.candidates))
                .await;
        }
        let mut first = self.pipeline.complete(&self.request, files, ask(1)).await?;
        // The ghost text stands on its own when sampling fails.
        if let Ok(more) = self
            .pipeline
            .complete(&self.request, files, ask(self.candidates))
            .await
        {
            for s in more.suggestions {
                if !first.suggestions.iter().any(|e| e.text == s.text) {
                    first.suggestions.push(s);
                }
            }
        }
        first.suggestions.truncate(self.candidates as usize);
        Ok(first)
    }

    fn send(&self, message: Value) {
        let _ = self.out.send(message);
    }

    fn reply(&self, result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": self.id, "result": result})
    }

    /// The empty answer, except for the panel, whose count has answered the request already.
    fn nothing(&self) -> Option<Value> {
        (self.flavor != Flavor::Panel).then(|| self.reply(empty_result(self.flavor)))
    }

    fn answer(&self, outcome: Result<Result<Outcome, ghost::PipelineError>, Stop>) -> Answer {
        match outcome {
            Err(Stop::Cancelled) => {
                let cancelled = json!({"jsonrpc": "2.0", "id": self.id,
                    "error": {"code": REQUEST_CANCELLED, "message": "cancelled"}});
                ((self.flavor != Flavor::Panel).then_some(cancelled), None)
            }
            Err(Stop::Superseded) => (self.nothing(), None),
            Ok(Err(e)) => {
                report_failure(&self.out, &self.status, &e);
                // A failed request is when its prompt is most worth seeing.
                let recorded = match &e {
                    ghost::PipelineError::Backend { error, trace } => Some((
                        (**trace).clone(),
                        vec![("error".to_owned(), error.to_string())],
                    )),
                    _ => None,
                };
                (self.nothing(), recorded)
            }
            Ok(Ok(mut outcome)) => {
                let message = self.succeeded(&outcome);
                let answers = ghost::inspect::answers(&outcome);
                (message, Some((std::mem::take(&mut outcome.trace), answers)))
            }
        }
    }

    /// The answer to a request the pipeline served: the status cleared, its warnings shown
    /// once, why it is empty logged, and the suggestions in the client's shape.
    fn succeeded(&self, outcome: &Outcome) -> Option<Value> {
        update_status(&self.out, &self.status, |s| {
            s.error = None;
            // After a success, the next outage is news again.
            s.shown.retain(|k| k.starts_with("warning: "));
        });
        // A setting that quietly makes completions worse (a server that ignores the suffix)
        // is said once per session.
        for note in outcome
            .trace
            .notes
            .iter()
            .filter(|n| n.starts_with("warning: "))
        {
            if lock(&self.status).shown.insert(note.clone()) {
                self.send(json!({"jsonrpc": "2.0", "method": "window/showMessage",
                    "params": {"type": 2, "message": format!("pilotfish: {note}")}}));
            }
        }
        if outcome.suggestions.is_empty() {
            self.explain_empty(outcome);
        }
        let place = Placement {
            text: &self.text,
            offset: self.offset,
            encoding: self.encoding,
            version: self.version,
            uuid_base: self.uuid_base,
        };
        match self.flavor {
            Flavor::Inline => Some(self.reply(inline_items(outcome, &place))),
            Flavor::Copilot => {
                let suggestions = self.cycled(&outcome.suggestions);
                Some(self.reply(copilot_items(&suggestions, &place)))
            }
            Flavor::Panel => {
                for (i, s) in outcome.suggestions.iter().enumerate() {
                    let item = copilot_item(s, &place, i);
                    self.send(json!({"jsonrpc": "2.0", "method": "PanelSolution",
                        "params": {"panelId": self.panel_id, "completionText": item["text"],
                                   "displayText": item["displayText"], "range": item["range"],
                                   "score": 1.0 - 0.01 * i as f64, "solutionId": item["uuid"]}}));
                }
                None
            }
        }
    }

    /// Copilot's suggestions for this request: for the first request at a cursor, the
    /// pipeline's, remembered as shown; for cycling, the ones shown there first, then the new
    /// ones that differ from them.
    fn cycled(&self, new: &[Suggestion]) -> Vec<Suggestion> {
        if self.candidates == 1 {
            if !new.is_empty() {
                let shown = Shown {
                    version: self.doc_version,
                    offset: self.offset,
                    suggestions: new.to_vec(),
                };
                lock(&self.shown).insert(self.uri.clone(), shown);
            }
            return new.to_vec();
        }
        let mut all = self.earlier.clone();
        for s in new {
            if !all.iter().any(|e| e.text == s.text) {
                all.push(s.clone());
            }
        }
        all
    }

    /// Logs why a request the pipeline served has no suggestion: it was not asked (and why),
    /// or every answer was cut away.
    fn explain_empty(&self, outcome: &Outcome) {
        let why = match (&outcome.skipped, outcome.trace.cuts.is_empty()) {
            (Some(reason), _) => reason.clone(),
            (None, false) => format!(
                "the model's answers were all dropped ({})",
                outcome.trace.cuts.join("; ")
            ),
            (None, true) => "the model answered nothing".to_owned(),
        };
        let why = match (
            outcome.trace.max_prompt_tokens,
            outcome.trace.full_prompt_tokens,
        ) {
            (Some(budget), Some(full)) => {
                format!("{why}; the prompt's budget was {budget} tokens, lowered from {full}")
            }
            (Some(budget), None) => format!("{why}; the prompt's budget was {budget} tokens"),
            _ => why,
        };
        self.send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
            "params": {"type": 4, "message": format!("pilotfish: no suggestion for {}: {why}", self.path)}}));
    }
}
