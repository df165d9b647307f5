//! What the editor is told of the server's state: a failed completion in every way an editor
//! may show it, and Copilot's status notifications (busy, the last error).

use std::sync::Mutex;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::sync::lock;

/// What the status notifications report: the last error (until a request succeeds) and how
/// many completions are under way.
#[derive(Debug, Default)]
pub(super) struct StatusState {
    pub(super) error: Option<String>,
    pub(super) busy: usize,
    /// The kinds of failure already shown to the user since the last success.
    pub(super) shown: std::collections::HashSet<String>,
}

/// Tells the user that a completion failed, in every way an editor may show it: a log line
/// for each failure (`window/logMessage`, which every client keeps), a message for the first
/// failure of a kind (`window/showMessage`, which Neovim, Helix and eglot show without any
/// Copilot plugin), and Copilot's status notifications.
pub(super) fn report_failure(
    out: &mpsc::UnboundedSender<Value>,
    status: &Mutex<StatusState>,
    e: &ghost::PipelineError,
) {
    let kind = match e {
        ghost::PipelineError::Backend { error, .. } => error.kind_name(),
        _ => "pipeline".to_owned(),
    };
    let message = format!("pilotfish: no completion: {e}");
    let _ = out.send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
        "params": {"type": 1, "message": message}}));
    let first = lock(status).shown.insert(kind);
    if first {
        let _ = out.send(json!({"jsonrpc": "2.0", "method": "window/showMessage",
            "params": {"type": 1, "message": message}}));
    }
    update_status(out, status, |s| s.error = Some(e.to_string()));
}

/// Applies `change` and, when what the client sees changes, tells it in both protocols:
/// `didChangeStatus` (kind, message, busy) and the legacy `statusNotification`.
pub(super) fn update_status(
    out: &mpsc::UnboundedSender<Value>,
    state: &Mutex<StatusState>,
    change: impl FnOnce(&mut StatusState),
) {
    let mut s = lock(state);
    let before = (s.error.clone(), s.busy > 0);
    change(&mut s);
    if before == (s.error.clone(), s.busy > 0) {
        return;
    }
    let busy = s.busy > 0;
    let (kind, message) = match &s.error {
        Some(m) => ("Error", m.clone()),
        None => ("Normal", String::new()),
    };
    let legacy = match (&s.error, busy) {
        (Some(_), _) => "Error",
        (None, true) => "InProgress",
        (None, false) => "Normal",
    };
    let _ = out.send(json!({"jsonrpc": "2.0", "method": "didChangeStatus",
        "params": {"kind": kind, "message": message, "busy": busy}}));
    let _ = out.send(json!({"jsonrpc": "2.0", "method": "statusNotification",
        "params": {"status": legacy, "message": message}}));
}
