//! `pilotfish acp`: an Agent Client Protocol (v1) agent on standard input and output, so editors
//! (Zed, JetBrains IDEs, Neovim, Emacs) run pilotfish's agent in their own panels. Sessions run
//! the same agent loop as `pilotfish agent` (`agent::run`) over the same host (`host`): workspace
//! confinement, ignore files, customizations, MCP tools, undo. This crate only speaks the
//! protocol: `rpc` the JSON-RPC lines both ways, `session` a session and its turns, `updates`
//! what the editor is shown, `client` what the editor does for the agent (files, approvals),
//! `terminal` the editor's terminals that commands run in when it offers them, `next_edits`
//! next edit suggestions (the protocol's unstable `nes/*` and `document/*`).

mod choices;
mod client;
mod commands;
mod inspect;
mod methods;
mod next_edits;
mod options;
mod replay;
mod rpc;
mod session;
pub mod terminal;
mod updates;

pub use options::Options;

use std::{
    collections::HashMap,
    io::BufRead,
    sync::{Arc, Mutex, OnceLock, atomic::Ordering},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{
    rpc::{Connection, INVALID_REQUEST, PARSE_ERROR, RpcError},
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
    /// The prompts in flight: their request id (as JSON text) and session, for
    /// `$/cancel_request`.
    inflight: Mutex<HashMap<String, String>>,
    /// The models the server offers, asked once.
    models: OnceLock<Vec<String>>,
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
        inflight: Mutex::default(),
        models: OnceLock::new(),
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
            "session/new" | "session/prompt" | "session/load" | "session/resume" => {
                let key = id.to_string();
                if method == "session/prompt"
                    && let Some(s) = params["sessionId"].as_str()
                {
                    self.lock_inflight().insert(key.clone(), s.to_owned());
                }
                Some(std::thread::spawn(move || {
                    let result = self.long_request(&method, &params);
                    let after = match (&result, method.as_str()) {
                        (Ok(v), "session/new") => v["sessionId"].as_str().map(str::to_owned),
                        (Ok(_), "session/load" | "session/resume") => {
                            params["sessionId"].as_str().map(str::to_owned)
                        }
                        _ => None,
                    };
                    self.conn.respond(&id, result);
                    self.lock_inflight().remove(&key);
                    if let Some(session) = after
                        && let Some(handle) = self.session(&session)
                    {
                        commands::announce_and_watch(&handle, &self.conn);
                    }
                }))
            }
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
                    "loadSession": true,
                    "sessionCapabilities": {"list": {}, "resume": {}, "close": {},
                        "delete": {}},
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
                choices::set_mode(&handle, id, &self.conn)?;
                self.conn.notify(
                    "session/update",
                    json!({"sessionId": handle.id, "update": {"sessionUpdate": "config_option_update",
                        "configOptions": choices::options(&handle)}}),
                );
                Ok(json!({}))
            }
            "nes/start" | "nes/close" | "_pilotfish/nesStats" => {
                self.next_edits.request(method, params)
            }
            _ => methods::request(self, method, params)
                .unwrap_or_else(|| Err(methods::unknown(method))),
        }
    }

    fn long_request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        match method {
            "session/new" => {
                let id = {
                    let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
                    *next += 1;
                    let millis = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis());
                    format!("pilotfish-{millis}-{}-{}", std::process::id(), *next)
                };
                let handle = self.open_session(id.clone(), params)?;
                let answer = json!({"sessionId": id, "modes": session::modes(&handle),
                    "configOptions": choices::options(&handle)});
                self.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id, handle);
                Ok(answer)
            }
            "session/load" => methods::reopen(self, params, true),
            "session/resume" => methods::reopen(self, params, false),
            _ => {
                let handle = self.session_of(params)?;
                session::prompt(&handle, params, &self.conn, &self.options)
            }
        }
    }

    /// Opens a session (new, or to take up a saved one) with the models the server offers.
    fn open_session(&self, id: String, params: &Value) -> Result<Arc<Handle>, RpcError> {
        let caps = *self.caps.lock().unwrap_or_else(|e| e.into_inner());
        let models = self
            .models
            .get_or_init(|| host::chat_model::offered_models(&self.options.backend))
            .clone();
        let handle = session::open(id, params, &self.conn, caps, &self.options, models)?;
        Ok(Arc::new(handle))
    }

    fn lock_inflight(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.inflight.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn notification(&self, method: &str, params: &Value) {
        if method == "$/cancel_request" {
            methods::cancel_request(self, params);
        }
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
