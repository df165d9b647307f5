//! Warming at the cursor: after a completion whose prompt was lowered to the server's speed
//! (the server did not hold enough of it to read the whole one within the first-token target),
//! and a short pause in the typing, the whole prompt a completion at that cursor would send is
//! read by the model server ahead, in short pieces (`ghost::Pipeline::warm_at_cursor`). The
//! next keystroke's prompt then has its full budget back and reads only what is new. Any edit
//! or request stops it at once (dropping its request closes the connection).

use std::{sync::Arc, time::Duration};

use ghost::Pipeline;
use prompt::request::RequestJson;
use serde_json::json;
use tokio::sync::{mpsc, watch};

/// The pause after a lowered completion before its cursor is warmed: typing on within it
/// costs the server nothing.
const PAUSE: Duration = Duration::from_millis(400);

/// Stops and starts the warming at the cursor; clones share it.
#[derive(Debug, Clone)]
pub(super) struct CursorWarming {
    /// Counts the edits and requests that stop a warming: one under way stops when it moves.
    stops: Arc<watch::Sender<u64>>,
}

impl Default for CursorWarming {
    fn default() -> CursorWarming {
        CursorWarming {
            stops: Arc::new(watch::channel(0).0),
        }
    }
}

impl CursorWarming {
    /// Stops the warming under way or waiting for its pause, if any.
    pub(super) fn stop(&self) {
        self.stops.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// What stops a warming started later: the edits and requests from now on.
    pub(super) fn stopped_from_now(&self) -> watch::Receiver<u64> {
        self.stops.subscribe()
    }
}

/// After a completion at `request`'s cursor whose prompt was lowered: warms the whole prompt
/// there after [`PAUSE`], unless an edit or a request came since `stopped` was taken (when the
/// completion was asked). What it did is said in the editor's log.
pub(super) fn after_lowered(
    mut stopped: watch::Receiver<u64>,
    pipeline: Arc<Pipeline>,
    request: RequestJson,
    files: Option<Arc<dyn syntax::WorkspaceFiles + Send + Sync>>,
    out: mpsc::UnboundedSender<serde_json::Value>,
) {
    if stopped.has_changed().unwrap_or(true) {
        return;
    }
    tokio::spawn(async move {
        let path = request.document.path.clone();
        let log = |message: String| {
            let _ = out.send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
                "params": {"type": 4, "message": format!("pilotfish: {message}")}}));
        };
        let warm = async {
            tokio::time::sleep(PAUSE).await;
            let files = files.as_deref().map(|f| f as _);
            pipeline.warm_at_cursor(&request, files).await
        };
        tokio::select! {
            biased;
            _ = stopped.changed() => {}
            warmed = warm => match warmed {
                Ok(w) if w.gave_way => log(format!(
                    "did not warm the model's cache at the cursor in {path} ({} characters read ahead): {}",
                    w.characters,
                    w.skipped.unwrap_or_default()
                )),
                Ok(w) if w.sent => log(format!(
                    "warmed the model's cache at the cursor in {path}: the whole prompt ({} characters) read ahead in {:.0} ms",
                    w.characters, w.ms
                )),
                Ok(_) => {}
                Err(e) => log(format!("could not warm the model's cache at the cursor in {path}: {e}")),
            },
        }
    });
}
