//! Notifications from the client: the documents' life (open, change, close, focus), the
//! workspace's folders and settings, what the user did with a suggestion, and cancellation.
//! Each kind has its own handler; `notification` only dispatches.

use serde_json::Value;

use super::{Server, Stop, lock};
use crate::documents::uri_to_path;

impl Server {
    /// Handles one notification; `Some(clean)` when the client asked to exit.
    pub(super) fn notification(&mut self, method: &str, params: Value) -> Option<bool> {
        if method == "exit" {
            return Some(self.shutdown);
        }
        if !self.initialized {
            // Notifications before `initialize` are dropped, as the protocol says.
            return None;
        }
        match method {
            "initialized" if self.pull_configuration => self.request_configuration(),
            "textDocument/didOpen" => self.did_open(&params),
            "textDocument/didChange" => self.did_change(&params),
            "textDocument/didClose" => self.did_close(&params),
            "textDocument/didFocus" => {
                if let Some(uri) = params["textDocument"]["uri"]
                    .as_str()
                    .or(params["uri"].as_str())
                {
                    self.docs.focus(uri);
                }
            }
            "workspace/didChangeWorkspaceFolders" => self.did_change_folders(&params["event"]),
            "workspace/didChangeConfiguration" => self.did_change_configuration(&params),
            "textDocument/didShowCompletion" => {}
            "textDocument/didShowInlineEdit" => self.did_show_inline_edit(&params),
            // A next edit the user turned down (or that was left unshown): forgotten.
            "textDocument/didRejectInlineEdit" | "textDocument/reportCachedInlineEdit" => {
                self.did_reject_inline_edit(method, &params);
            }
            "textDocument/didPartiallyAcceptCompletion" => self.pipeline.record_decision(true),
            "$/cancelRequest" => self.cancel_request(&params["id"]),
            _ => {}
        }
        None
    }

    fn did_open(&mut self, params: &Value) {
        let doc = &params["textDocument"];
        if let (Some(uri), Some(text)) = (doc["uri"].as_str(), doc["text"].as_str()) {
            self.docs.open(
                uri,
                doc["languageId"].as_str().unwrap_or_default(),
                doc["version"].as_i64().unwrap_or(0),
                text.to_owned(),
            );
            self.warm(uri);
        }
    }

    fn did_change(&mut self, params: &Value) {
        // Typing has started: the server's time is the completion's now.
        self.stop_warming();
        let doc = &params["textDocument"];
        let uri = doc["uri"].as_str().unwrap_or_default().to_owned();
        let changes = params["contentChanges"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let version = doc["version"].as_i64().unwrap_or(0);
        if let Err(e) = self.docs.change(&uri, version, &changes, self.encoding) {
            self.log(1, &e.to_string());
        }
        // A next edit asked for the text before this change would be about text that is gone:
        // it is answered with no edits now.
        if let Some(p) = self.pending.remove(&format!("nes:{uri}")) {
            let _ = p.stop.send(Stop::Superseded);
        }
    }

    fn did_close(&mut self, params: &Value) {
        if let Some(uri) = params["textDocument"]["uri"].as_str() {
            self.docs.close(uri);
            lock(&self.shown).remove(uri);
            for key in [uri.to_owned(), format!("nes:{uri}")] {
                if let Some(p) = self.pending.remove(&key) {
                    let _ = p.stop.send(Stop::Superseded);
                }
            }
            self.pipeline.cancel_document(&uri_to_path(uri));
        }
    }

    fn did_change_folders(&mut self, event: &Value) {
        for f in event["removed"].as_array().into_iter().flatten() {
            if let Some(uri) = f["uri"].as_str() {
                let path = uri_to_path(uri);
                self.folders.retain(|p| *p != path);
            }
        }
        for f in event["added"].as_array().into_iter().flatten() {
            if let Some(uri) = f["uri"].as_str() {
                self.folders.push(uri_to_path(uri));
            }
        }
    }

    /// New settings pushed, or (empty) a hint to pull them when the client serves
    /// `workspace/configuration`.
    fn did_change_configuration(&mut self, params: &Value) {
        let settings = &params["settings"];
        if settings.is_null() || settings.as_object().is_some_and(|o| o.is_empty()) {
            if self.pull_configuration {
                self.request_configuration();
            }
        } else {
            self.reconfigure(settings);
        }
    }

    /// Stops the request with this id, which then answers with the cancellation error.
    fn cancel_request(&mut self, id: &Value) {
        let key = self
            .pending
            .iter()
            .find(|(_, p)| p.id == *id)
            .map(|(k, _)| k.clone());
        if let Some(key) = key
            && let Some(p) = self.pending.remove(&key)
        {
            let _ = p.stop.send(Stop::Cancelled);
        }
    }
}
