//! JSON-RPC 2.0 over a server's standard input and output, one message a line (MCP's stdio
//! transport): requests matched to their answers by id, the server's own requests answered,
//! and whatever else it writes skipped.
//!
//! A reader thread owns standard output and a writer thread owns standard input, so that no
//! caller ever blocks on a pipe: a server that stops reading its input fills the pipe and
//! stalls only the writer, while callers wait on channels with deadlines of their own.

use std::{
    collections::HashMap,
    io::{self, BufReader, Read, Write},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
        mpsc,
    },
    thread,
};

use serde_json::{Value, json};

use crate::process::{lock, read_line};

/// The longest message read from a server; longer lines are cut and so not valid JSON. Large
/// enough for tool results carrying images.
const MAX_MESSAGE: usize = 64 << 20;
/// How much of a stray line is kept to quote in an error message.
const QUOTE: usize = 200;

/// What a request's caller receives.
#[derive(Debug)]
pub(crate) enum Reply {
    Result(Value),
    Error {
        code: i64,
        message: String,
    },
    /// The connection closed before the answer came.
    Closed,
}

/// A request sent and not yet answered.
pub(crate) struct Pending {
    pub(crate) id: u64,
    pub(crate) replies: mpsc::Receiver<Reply>,
}

/// One server's JSON-RPC connection.
pub(crate) struct Connection {
    shared: Arc<Shared>,
    outgoing: mpsc::Sender<Outgoing>,
    next_id: AtomicU64,
}

enum Outgoing {
    Line(Vec<u8>),
    /// Close standard input: the stdio transport's way of asking a server to exit.
    Close,
}

#[derive(Default)]
struct Shared {
    /// The callers waiting for an answer, by request id. An answer whose id is not here (its
    /// caller gave up) is dropped.
    pending: Mutex<HashMap<u64, mpsc::Sender<Reply>>>,
    /// Why the connection closed, once it has.
    closed: Mutex<Option<String>>,
    stray: Mutex<Stray>,
}

/// Lines on standard output that were not JSON-RPC, which the transport forbids but servers
/// that log to standard output write anyway.
#[derive(Default)]
struct Stray {
    count: usize,
    last: String,
}

impl Connection {
    /// Starts the reader and writer threads of a server named `name`.
    pub(crate) fn new(
        name: &str,
        input: impl Write + Send + 'static,
        output: impl Read + Send + 'static,
    ) -> io::Result<Connection> {
        let shared = Arc::new(Shared::default());
        let (outgoing, queue) = mpsc::channel();
        let writer_shared = Arc::clone(&shared);
        thread::Builder::new()
            .name(format!("mcp-writer-{name}"))
            .spawn(move || write_all(input, &queue, &writer_shared))?;
        let reader_shared = Arc::clone(&shared);
        let replies = outgoing.clone();
        thread::Builder::new()
            .name(format!("mcp-reader-{name}"))
            .spawn(move || read_all(output, &reader_shared, &replies))?;
        Ok(Connection {
            shared,
            outgoing,
            next_id: AtomicU64::new(1),
        })
    }

    /// Sends a request; None when the connection has closed.
    pub(crate) fn request(&self, method: &str, params: Value) -> Option<Pending> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, replies) = mpsc::channel();
        lock(&self.shared.pending).insert(id, sender);
        // Checked after registering: `close` sets the reason before it empties the map, so
        // either it sees this request or this sees the reason.
        if self.closed().is_some() {
            self.forget(id);
            return None;
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&message);
        Some(Pending { id, replies })
    }

    pub(crate) fn notify(&self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message);
    }

    /// Stops waiting for `id`: its answer, if it ever comes, is dropped.
    pub(crate) fn forget(&self, id: u64) {
        lock(&self.shared.pending).remove(&id);
    }

    pub(crate) fn closed(&self) -> Option<String> {
        lock(&self.shared.closed).clone()
    }

    /// Marks the connection closed (`how` says why) and wakes every waiting caller.
    pub(crate) fn close(&self, how: &str) {
        self.shared.close(how);
    }

    /// Closes the server's standard input once what was queued before is written.
    pub(crate) fn close_input(&self) {
        let _ = self.outgoing.send(Outgoing::Close);
    }

    /// A note for error messages about the stray lines on standard output, if there were any.
    pub(crate) fn stray_note(&self) -> String {
        let stray = lock(&self.shared.stray);
        match stray.count {
            0 => String::new(),
            count => format!(
                "; it wrote {count} line{} to standard output that {} not JSON-RPC (the last: `{}`), and an MCP server over stdio must write only JSON-RPC messages there",
                if count == 1 { "" } else { "s" },
                if count == 1 { "is" } else { "are" },
                stray.last
            ),
        }
    }

    fn send(&self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        // After the writer has stopped the message has nowhere to go, and the closed
        // connection is what callers hear about.
        let _ = self.outgoing.send(Outgoing::Line(line));
    }
}

impl Shared {
    fn close(&self, how: &str) {
        lock(&self.closed).get_or_insert_with(|| how.to_owned());
        let waiting = std::mem::take(&mut *lock(&self.pending));
        for sender in waiting.into_values() {
            let _ = sender.send(Reply::Closed);
        }
    }

    fn stray(&self, line: &str) {
        let mut stray = lock(&self.stray);
        stray.count += 1;
        stray.last = line.chars().take(QUOTE).collect();
    }
}

/// The writer thread: writes queued lines until told to close or the pipe breaks.
fn write_all(mut input: impl Write, queue: &mpsc::Receiver<Outgoing>, shared: &Shared) {
    while let Ok(Outgoing::Line(line)) = queue.recv() {
        if input.write_all(&line).and_then(|()| input.flush()).is_err() {
            shared.close("closed its standard input");
            return;
        }
    }
}

/// The reader thread: dispatches every line of standard output until it ends.
fn read_all(output: impl Read, shared: &Shared, outgoing: &mpsc::Sender<Outgoing>) {
    let mut reader = BufReader::new(output);
    let mut line = Vec::new();
    while let Ok(true) = read_line(&mut reader, MAX_MESSAGE, &mut line) {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(text) {
            // Batches were dropped from MCP in 2025-06-18, but older servers may send them.
            Ok(Value::Array(messages)) if !messages.is_empty() => {
                for message in &messages {
                    dispatch(message, text, shared, outgoing);
                }
            }
            Ok(message) => dispatch(&message, text, shared, outgoing),
            Err(_) => shared.stray(text),
        }
    }
    shared.close("closed its standard output");
}

/// Handles one message: an answer goes to its caller, a request from the server is answered,
/// a notification is ignored, and anything else counts as a stray line.
fn dispatch(message: &Value, line: &str, shared: &Shared, outgoing: &mpsc::Sender<Outgoing>) {
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        shared.stray(line);
        return;
    }
    let id = message.get("id").filter(|id| !id.is_null());
    match (message.get("method").and_then(Value::as_str), id) {
        (Some(method), Some(id)) => {
            let answer = answer_server_request(method, id);
            let mut line = answer.to_string().into_bytes();
            line.push(b'\n');
            let _ = outgoing.send(Outgoing::Line(line));
        }
        (Some(_), None) => {}
        (None, Some(id)) => {
            let Some(id) = request_id(id) else {
                return;
            };
            let Some(sender) = lock(&shared.pending).remove(&id) else {
                return;
            };
            let _ = sender.send(reply(message));
        }
        // An error without an id: the server could not read something sent to it. The caller
        // concerned times out; there is no telling which one it was.
        (None, None) => {}
    }
}

/// The answer to a server's request. A client that offers no capabilities still answers,
/// so that the server does not wait: `ping` as the protocol says, anything else (roots,
/// sampling, elicitation) as a method this client does not have.
fn answer_server_request(method: &str, id: &Value) -> Value {
    if method == "ping" {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32601, "message": format!("pilotfish does not support `{method}`")},
    })
}

/// Our ids are numbers; a server that turns them into strings is understood too.
fn request_id(id: &Value) -> Option<u64> {
    match id {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn reply(message: &Value) -> Reply {
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let mut text = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_owned();
        match error.get("data") {
            None | Some(Value::Null) => {}
            Some(Value::String(data)) => text = format!("{text} ({data})"),
            Some(data) => text = format!("{text} ({data})"),
        }
        return Reply::Error {
            code,
            message: text,
        };
    }
    Reply::Result(message.get("result").cloned().unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let cases = [
            (
                json!({"result": {"a": 1}}),
                "Result(Object {\"a\": Number(1)})",
            ),
            (json!({}), "Result(Null)"),
            (
                json!({"error": {"code": -32602, "message": "bad", "data": "field x"}}),
                "Error { code: -32602, message: \"bad (field x)\" }",
            ),
            (
                json!({"error": {"message": "odd", "data": {"k": 1}}}),
                "Error { code: 0, message: \"odd ({\\\"k\\\":1})\" }",
            ),
        ];
        for (message, want) in cases {
            assert_eq!(format!("{:?}", reply(&message)), want, "{message}");
        }
    }

    #[test]
    fn server_requests_are_answered() {
        let cases = [
            (
                "ping",
                json!(3),
                json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
            ),
            (
                "roots/list",
                json!("r1"),
                json!({"jsonrpc": "2.0", "id": "r1", "error": {"code": -32601, "message": "pilotfish does not support `roots/list`"}}),
            ),
        ];
        for (method, id, want) in cases {
            assert_eq!(answer_server_request(method, &id), want);
        }
    }
}
