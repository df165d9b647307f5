//! Next edit suggestions over ACP (the protocol's unstable draft): `nes/start` opens a next-edit
//! session, `document/didOpen|didChange|didClose|didFocus` keep its documents and their edit
//! history, `nes/suggest` answers with what the language server's `copilotInlineEdit` would
//! for the same edits (the same request builder, `lsp::documents::Documents::next_edit_request`,
//! and the same configuration, `host::next_edits`, so the model receives the same bytes),
//! `nes/accept` and `nes/reject` are counted as the language server counts them, `nes/close`
//! ends the session. Offered only to a client whose `initialize` carries `clientCapabilities.nes`.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use lsp::{
    documents::{Documents, file_uri, uri_to_path},
    position::{Encoding, to_offset, to_position},
};
use serde_json::{Value, json};

use crate::rpc::RpcError;

/// How many suggestions are remembered for their acceptance, per session.
const MAX_SHOWN: usize = 64;

/// What `initialize` announces to a client that speaks the draft: the document events wanted,
/// changes as ranges, positions in UTF-16.
pub(crate) fn capabilities() -> Value {
    json!({
        "events": {"document": {
            "didOpen": {}, "didChange": {"syncKind": "incremental"}, "didClose": {}, "didFocus": {},
        }},
    })
}

/// One next-edit session: the editor's documents and their edits, the workspace's folders, the
/// suggestions offered and not yet settled, and what the user did with them.
#[derive(Default)]
struct NesSession {
    docs: Documents,
    /// Workspace folders, as paths.
    folders: Vec<String>,
    shown: Vec<String>,
    accepted: u64,
    rejected: u64,
}

/// Every next-edit session of the connection, and where suggestions are asked.
pub(crate) struct NextEdits {
    config: Result<Arc<host::next_edits::NextEdits>, String>,
    excluded: Arc<dyn Fn(&str) -> bool + Send + Sync>,
    sessions: Mutex<HashMap<String, NesSession>>,
    next: AtomicU64,
    told: AtomicBool,
}

impl NextEdits {
    pub(crate) fn new(config: Result<host::next_edits::NextEdits, String>) -> NextEdits {
        NextEdits {
            config: config.map(Arc::new),
            excluded: Arc::new(host::exclusion::excluder()),
            sessions: Mutex::default(),
            next: AtomicU64::new(0),
            told: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, NesSession>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `nes/start`, `nes/close` and `_pilotfish/nesStats`.
    pub(crate) fn request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "nes/start" => {
                if let Err(why) = &self.config {
                    return Err(RpcError::internal(format!(
                        "next edits have no model: {why}"
                    )));
                }
                let n = self.next.fetch_add(1, Ordering::SeqCst) + 1;
                let id = format!("pilotfish-nes-{}-{n}", std::process::id());
                let mut session = NesSession::default();
                let uris = params["workspaceUri"].as_str().into_iter().chain(
                    params["workspaceFolders"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|f| f["uri"].as_str()),
                );
                for uri in uris {
                    let path = uri_to_path(uri);
                    if !session.folders.contains(&path) {
                        session.folders.push(path);
                    }
                }
                self.lock().insert(id.clone(), session);
                Ok(json!({ "sessionId": id }))
            }
            "nes/close" => {
                let id = session_id(params)?;
                self.lock().remove(id);
                Ok(json!({}))
            }
            _ => {
                let sessions = self.lock();
                let s = sessions
                    .get(session_id(params)?)
                    .ok_or_else(|| unknown(params))?;
                Ok(json!({"shown": s.shown.len(), "accepted": s.accepted, "rejected": s.rejected}))
            }
        }
    }

    /// `document/*`, `nes/accept` and `nes/reject`: nothing is answered; a problem is logged.
    pub(crate) fn notification(&self, method: &str, params: &Value) {
        if let Err(e) = self.notify(method, params) {
            eprintln!("pilotfish acp: {method}: {}", e.message);
        }
    }

    fn notify(&self, method: &str, params: &Value) -> Result<(), RpcError> {
        let mut sessions = self.lock();
        let s = sessions
            .get_mut(session_id(params)?)
            .ok_or_else(|| unknown(params))?;
        let uri = params["uri"].as_str().unwrap_or_default();
        let version = params["version"].as_i64().unwrap_or(0);
        match method {
            "document/didOpen" => s.docs.open(
                uri,
                params["languageId"].as_str().unwrap_or_default(),
                version,
                params["text"].as_str().unwrap_or_default().to_owned(),
            ),
            "document/didChange" => {
                let changes = params["contentChanges"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                s.docs
                    .change(uri, version, &changes, Encoding::Utf16)
                    .map_err(|e| RpcError::invalid_params(e.to_string()))?;
            }
            "document/didClose" => s.docs.close(uri),
            "document/didFocus" => s.docs.focus(uri),
            "nes/accept" | "nes/reject" => {
                let id = params["id"].as_str().unwrap_or_default();
                // Only the suggestions this agent made, each once.
                if let Some(at) = s.shown.iter().position(|x| x == id) {
                    s.shown.remove(at);
                    if method == "nes/accept" {
                        s.accepted += 1;
                    } else {
                        s.rejected += 1;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `nes/suggest`: the request built under the lock, the model asked without it (the
    /// editor's changes keep arriving meanwhile).
    pub(crate) fn suggest(&self, params: &Value) -> Result<Value, RpcError> {
        let config = self
            .config
            .clone()
            .map_err(|why| RpcError::internal(format!("next edits have no model: {why}")))?;
        let id = session_id(params)?.to_owned();
        let uri = params["uri"]
            .as_str()
            .ok_or_else(|| RpcError::invalid_params("nes/suggest needs `uri`"))?;
        let (request, text) = {
            let sessions = self.lock();
            let s = sessions.get(&id).ok_or_else(|| unknown(params))?;
            let Some(document) = s.docs.get(uri) else {
                return Err(RpcError::invalid_params(format!(
                    "{uri} is not open in this session: send document/didOpen first"
                )));
            };
            let version = params["version"].as_i64().unwrap_or(document.version);
            if document.moved_past(version) || (self.excluded)(&document.path) {
                return Ok(json!({ "suggestions": [] }));
            }
            let p = &params["position"];
            let offset = to_offset(
                &document.text,
                p["line"].as_u64().unwrap_or(0) as usize,
                p["character"].as_u64().unwrap_or(0) as usize,
                Encoding::Utf16,
            )
            .map_err(|e| RpcError::invalid_params(format!("`position`: {e}")))?;
            let root = s
                .folders
                .iter()
                .filter(|f| document.path.starts_with(f.trim_end_matches('/')))
                .max_by_key(|f| f.len())
                .map(|f| file_uri(f));
            let request = s
                .docs
                .next_edit_request(uri, offset, &config.strategy, &*self.excluded, root)
                .ok_or_else(|| RpcError::invalid_params(format!("{uri} is not open")))?;
            (request, document.text.clone())
        };
        self.tell_once(&config);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RpcError::internal(format!("no async runtime: {e}")))?;
        let outcome = runtime.block_on(ghost::next_edit::suggest(
            &request,
            &config.model,
            &config.wording,
        ));
        let next = match outcome {
            Ok(ghost::next_edit::NextEdit::CutShort { .. }) => {
                eprintln!("pilotfish acp: next edit: {}", ghost::next_edit::CUT_SHORT);
                return Ok(json!({ "suggestions": [] }));
            }
            Ok(next) => next,
            Err(e) => return Err(RpcError::internal(format!("next edit: {e}"))),
        };
        let Some(s) = next.suggestion() else {
            return Ok(json!({ "suggestions": [] }));
        };
        let n = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let suggestion_id = format!("nes-{n}");
        let byte = |units: usize| nes::history::byte_offset(&text, units).unwrap_or(text.len());
        let at = |units: usize| {
            let (line, character) = to_position(&text, byte(units), Encoding::Utf16);
            json!({"line": line, "character": character})
        };
        if let Some(session) = self.lock().get_mut(&id) {
            if session.shown.len() >= MAX_SHOWN {
                session.shown.remove(0);
            }
            session.shown.push(suggestion_id.clone());
        }
        Ok(json!({"suggestions": [{
            "kind": "edit", "id": suggestion_id, "uri": uri,
            "edits": [{"range": {"start": at(s.start), "end": at(s.end)}, "newText": s.text}],
        }]}))
    }

    /// Says once why Copilot's texts are not used, as the language server does.
    fn tell_once(&self, config: &host::next_edits::NextEdits) {
        if let Some(notice) = &config.notice
            && config.strategy != "sweep"
            && !self.told.swap(true, Ordering::SeqCst)
        {
            eprintln!("pilotfish acp: next edit: {notice}");
        }
    }
}

fn session_id(params: &Value) -> Result<&str, RpcError> {
    params["sessionId"]
        .as_str()
        .ok_or_else(|| RpcError::invalid_params("`sessionId` is missing"))
}

fn unknown(params: &Value) -> RpcError {
    RpcError::invalid_params(format!(
        "there is no next-edit session {}: start one with nes/start",
        params["sessionId"]
    ))
}
