//! `pilotfish acp`: an Agent Client Protocol (v1) agent on standard input and output, so editors
//! (Zed, JetBrains IDEs, Neovim, Emacs) run pilotfish's agent in their own panels. Sessions run
//! the same agent loop as `pilotfish agent` (`agent::run`) over the same host (`host`): workspace
//! confinement, ignore files, customizations, MCP tools, undo. This crate only speaks the
//! protocol: `rpc` the JSON-RPC lines both ways, `session` a session and its turns, `updates`
//! what the editor is shown, `client` what the editor does for the agent (files, approvals),
//! `terminal` the editor's terminals that commands run in when it offers them, `next_edits`
//! next edit suggestions (the protocol's unstable `nes/*` and `document/*`).

mod client;
mod inspect;
mod next_edits;
mod options;
mod rpc;
mod session;
pub mod terminal;
mod updates;

pub use options::Options;

use std::{
    collections::HashMap,
    io::BufRead,
    sync::{Arc, Mutex, atomic::Ordering},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{
    rpc::{Connection, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError},
    session::{ClientCaps, Handle},
};

/// The protocol version spoken.
pub const PROTOCOL_VERSION: u64 = 1;

/// How long running turns get to stop when the client's input ends.
const STOP_LIMIT: Duration = Duration::from_secs(3);

/// The server's state shared by the reading thread and the turns.
struct Server {
    conn: Arc<Connection>,
    options: Options,
    caps: Mutex<ClientCaps>,
    sessions: Mutex<HashMap<String, Arc<Handle>>>,
    next: Mutex<u64>,
    next_edits: next_edits::NextEdits,
}

/// Serves one client until its input ends; then stops every turn (waiting a little for them)
/// and returns, which stops the sessions' shells and MCP servers.
pub fn serve(
    input: impl BufRead,
    output: Box<dyn std::io::Write + Send>,
    options: Options,
) -> std::io::Result<()> {
    let server = Arc::new(Server {
        conn: Connection::new(output),
        next_edits: next_edits::NextEdits::new(options.next_edits.clone()),
        options,
        caps: Mutex::default(),
        sessions: Mutex::default(),
        next: Mutex::new(0),
    });
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    let mut input = input;
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("pilotfish acp: standard input failed: {e}");
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(worker) = server.clone().receive(&line) {
            workers.push(worker);
        }
        workers.retain(|w| !w.is_finished());
        if server.conn.is_closed() {
            break;
        }
    }
    server.conn.close();
    for handle in server
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
    {
        handle.cancel.store(true, Ordering::SeqCst);
    }
    let deadline = Instant::now() + STOP_LIMIT;
    while workers.iter().any(|w| !w.is_finished()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    server
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    Ok(())
}

impl Server {
    /// Handles one line; a request that takes long runs on a thread of its own.
    fn receive(self: Arc<Self>, line: &[u8]) -> Option<JoinHandle<()>> {
        let message: Value = match std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(t).map_err(|e| e.to_string()))
        {
            Ok(v) => v,
            Err(e) => {
                self.conn.respond(
                    &Value::Null,
                    Err(RpcError {
                        code: PARSE_ERROR,
                        message: format!("the line is not JSON: {e}"),
                    }),
                );
                return None;
            }
        };
        let id = message.get("id").cloned();
        let Some(method) = message["method"].as_str().map(str::to_owned) else {
            if id.is_some() && (message.get("result").is_some() || message.get("error").is_some()) {
                self.conn.answer(&message);
            } else {
                self.conn.respond(
                    &id.unwrap_or(Value::Null),
                    Err(RpcError {
                        code: INVALID_REQUEST,
                        message:
                            "a message needs a `method` (or is an answer with `result` or `error`)"
                                .into(),
                    }),
                );
            }
            return None;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            self.notification(&method, &params);
            return None;
        };
        match method.as_str() {
            // Turns and sessions (which start MCP servers) take time: the reading goes on.
            "session/new" | "session/prompt" => Some(std::thread::spawn(move || {
                let result = self.long_request(&method, &params);
                let after = match (&result, method.as_str()) {
                    (Ok(v), "session/new") => v["sessionId"].as_str().map(str::to_owned),
                    _ => None,
                };
                self.conn.respond(&id, result);
                if let Some(session) = after
                    && let Some(handle) = self.session(&session)
                {
                    self.conn.notify(
                        "session/update",
                        json!({"sessionId": session, "update": session::commands(&handle)}),
                    );
                }
            })),
            // A next edit waits for the model: the reading goes on.
            "nes/suggest" => Some(std::thread::spawn(move || {
                let result = self.next_edits.suggest(&params);
                self.conn.respond(&id, result);
            })),
            _ => {
                let result = self.request(&method, &params);
                self.conn.respond(&id, result);
                None
            }
        }
    }

    fn request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "initialize" => {
                if !params["protocolVersion"].is_u64() {
                    return Err(RpcError::invalid_params(
                        "initialize needs `protocolVersion`, the protocol version the client speaks (1)",
                    ));
                }
                let fs = &params["clientCapabilities"]["fs"];
                *self.caps.lock().unwrap_or_else(|e| e.into_inner()) = ClientCaps {
                    read: fs["readTextFile"].as_bool().unwrap_or(false),
                    write: fs["writeTextFile"].as_bool().unwrap_or(false),
                    terminal: params["clientCapabilities"]["terminal"]
                        .as_bool()
                        .unwrap_or(false),
                };
                // What is not supported is left out rather than said `false`: ACP reads a missing
                // capability as false, and some clients (agent-shell) read any field as true.
                let mut agent_caps = json!({
                    "promptCapabilities": {"embeddedContext": true},
                    "mcpCapabilities": {"http": true},
                });
                // Next edits are the protocol's unstable draft: offered to a client that says it
                // speaks it.
                if params["clientCapabilities"]["nes"].is_object() {
                    agent_caps["nes"] = next_edits::capabilities();
                    agent_caps["positionEncoding"] = json!("utf-16");
                }
                Ok(json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "agentCapabilities": agent_caps,
                    "authMethods": [],
                    "agentInfo": {"name": "pilotfish", "title": "pilotfish",
                        "version": env!("CARGO_PKG_VERSION")},
                }))
            }
            // No sign-in: a local model needs none.
            "authenticate" => Ok(json!({})),
            "_pilotfish/lastRequest" => {
                let handle = self.session_of(params)?;
                let last = handle.last.lock().unwrap_or_else(|e| e.into_inner());
                match &*last {
                    Some(last) => Ok(inspect::answer(last)),
                    None => Err(RpcError::invalid_params(
                        "this session has sent no request to the model yet: send a prompt first",
                    )),
                }
            }
            "session/set_mode" => {
                let handle = self.session_of(params)?;
                let id = params["modeId"].as_str().unwrap_or("(none given)");
                let Some(mode) = session::Mode::parse(id, &handle) else {
                    let ids: Vec<String> = session::modes(&handle)["availableModes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["id"].as_str().map(str::to_owned))
                        .collect();
                    return Err(RpcError::invalid_params(format!(
                        "there is no mode {id}; the modes are {}",
                        ids.join(", ")
                    )));
                };
                let id = mode.id();
                *handle.mode.lock().unwrap_or_else(|e| e.into_inner()) = mode;
                self.conn.notify(
                    "session/update",
                    json!({"sessionId": handle.id, "update": {"sessionUpdate": "current_mode_update",
                        "currentModeId": id}}),
                );
                Ok(json!({}))
            }
            "nes/start" | "nes/close" | "_pilotfish/nesStats" => {
                self.next_edits.request(method, params)
            }
            _ => Err(RpcError {
                code: METHOD_NOT_FOUND,
                message: format!("pilotfish does not know the method {method}"),
            }),
        }
    }

    fn long_request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "session/new" => {
                let id = {
                    let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
                    *next += 1;
                    format!("pilotfish-{}-{}", std::process::id(), *next)
                };
                let caps = *self.caps.lock().unwrap_or_else(|e| e.into_inner());
                let handle = session::open(id.clone(), params, &self.conn, caps, &self.options)?;
                let modes = session::modes(&handle);
                self.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone(), Arc::new(handle));
                Ok(json!({"sessionId": id, "modes": modes}))
            }
            _ => {
                let handle = self.session_of(params)?;
                session::prompt(&handle, params, &self.conn, &self.options)
            }
        }
    }

    fn notification(&self, method: &str, params: &Value) {
        if method == "session/cancel" {
            match params["sessionId"].as_str().and_then(|s| self.session(s)) {
                Some(handle) => handle.cancel.store(true, Ordering::SeqCst),
                None => eprintln!("pilotfish acp: session/cancel for an unknown session"),
            }
        }
        if method.starts_with("document/") || method == "nes/accept" || method == "nes/reject" {
            self.next_edits.notification(method, params);
        }
        // Other notifications need no answer, and none is given.
    }

    fn session(&self, id: &str) -> Option<Arc<Handle>> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    fn session_of(&self, params: &Value) -> Result<Arc<Handle>, RpcError> {
        let Some(id) = params["sessionId"].as_str() else {
            return Err(RpcError::invalid_params("`sessionId` is missing"));
        };
        self.session(id)
            .ok_or_else(|| RpcError::invalid_params(format!("there is no session {id}")))
    }
}
