//! JSON-RPC 2.0 over newline-delimited JSON, both ways: the client's requests are answered, and
//! the agent's own requests to the client (file access, permission) wait for their answers,
//! which the reading thread hands over by id. Every message is one line, written whole under a
//! lock, so threads never interleave their output.

use std::{
    collections::HashMap,
    io::Write,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use serde_json::{Value, json};

/// JSON-RPC's error codes that this agent answers with.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// An error for a JSON-RPC answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl RpcError {
    pub(crate) fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError {
            code: INVALID_PARAMS,
            message: message.into(),
        }
    }

    pub(crate) fn internal(message: impl Into<String>) -> RpcError {
        RpcError {
            code: INTERNAL_ERROR,
            message: message.into(),
        }
    }
}

/// Why a request to the client got no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The client answered with an error.
    Client(String),
    /// No answer in time, or the connection closed.
    NoAnswer(String),
    /// The user cancelled the turn while waiting.
    Cancelled,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Client(m) => write!(f, "the editor answered: {m}"),
            Failure::NoAnswer(m) => f.write_str(m),
            Failure::Cancelled => f.write_str("cancelled"),
        }
    }
}

type Pending = Mutex<HashMap<u64, mpsc::Sender<Result<Value, String>>>>;

/// The connection's writing half and the requests waiting for answers.
pub(crate) struct Connection {
    out: Mutex<Box<dyn Write + Send>>,
    next: AtomicU64,
    pending: Pending,
    /// Set when the client's input ended or the output broke: nothing more will be answered.
    closed: AtomicBool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Arc<Connection> {
        Arc::new(Connection {
            out: Mutex::new(out),
            next: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
        })
    }

    /// Writes one message as one line.
    pub(crate) fn send(&self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            // The client went away; the reader sees its input end soon.
            self.close();
        }
    }

    pub(crate) fn respond(&self, id: &Value, result: Result<Value, RpcError>) {
        let message = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": e.code, "message": e.message}}),
        };
        self.send(&message);
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request to the client and waits for its answer, at most `limit`, or until
    /// `cancel` is set.
    pub(crate) fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
        cancel: Option<&AtomicBool>,
    ) -> Result<Value, Failure> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Failure::NoAnswer(
                "the editor's connection is closed".into(),
            ));
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        self.lock_pending().insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + limit;
        let result = loop {
            if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                break Err(Failure::Cancelled);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break Err(Failure::NoAnswer(format!(
                    "the editor did not answer {method} within {} s",
                    limit.as_secs()
                )));
            }
            match rx.recv_timeout(left.min(Duration::from_millis(20))) {
                Ok(Ok(value)) => break Ok(value),
                Ok(Err(message)) => break Err(Failure::Client(message)),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break Err(Failure::NoAnswer(
                        "the editor's connection closed before it answered".into(),
                    ));
                }
            }
        };
        self.lock_pending().remove(&id);
        result
    }

    /// Hands an answer from the client to the request waiting for it (a late or unknown one is
    /// dropped).
    pub(crate) fn answer(&self, message: &Value) {
        let Some(id) = message["id"].as_u64() else {
            return;
        };
        let Some(tx) = self.lock_pending().remove(&id) else {
            return;
        };
        let result = match message.get("error") {
            Some(e) => Err(e["message"]
                .as_str()
                .map_or_else(|| e.to_string(), str::to_owned)),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(result);
    }

    /// Ends every wait: the client is gone.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.lock_pending().clear();
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn lock_pending(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<u64, mpsc::Sender<Result<Value, String>>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}
