//! One running MCP server: started and initialized, its tools listed, tools called with a time
//! limit and a cancel flag, and stopped with everything it started when dropped.

use std::{
    collections::HashSet,
    fmt,
    path::Path,
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc::RecvTimeoutError,
    },
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{
    McpError, ServerSpec, content,
    process::{Process, describe_exit, lock},
    rpc::{Connection, Reply},
};

/// The protocol version this client asks for. The server may answer with another; since the
/// parts used here (initialization, tool listing and calls over stdio) are the same in every
/// version so far, any is accepted.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// How often a waiting call looks at its cancel flag and at the process: the longest a
/// cancellation takes to be noticed.
const POLL: Duration = Duration::from_millis(20);
/// How long an answer may still take to arrive once the process has exited (it may be in the
/// pipe), and how long an exited server's last words on standard error are waited for.
const EXIT_GRACE: Duration = Duration::from_millis(300);
/// How long a server is given to exit by itself once its input is closed.
const STOP_GRACE: Duration = Duration::from_secs(1);
/// How many lines of standard error an error message quotes.
const STDERR_LINES: usize = 10;

/// A tool a server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The server's name, as configured.
    pub server: String,
    /// The tool's own name, which [`Server::call`] takes.
    pub name: String,
    pub description: String,
    /// A JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
}

impl Tool {
    /// The name to offer a model: see [`crate::model_name`].
    pub fn model_name(&self) -> String {
        crate::model_name(&self.server, &self.name)
    }
}

/// What a tool call returned, as text a model can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResult {
    /// The tool reported a failure (bad arguments, an error of its own); the text says what.
    pub is_error: bool,
    pub text: String,
}

/// A started MCP server. Calls may come from any thread, several at once.
pub struct Server {
    name: String,
    tools: Vec<Tool>,
    instructions: Option<String>,
    connection: Connection,
    process: Process,
    /// How the server died and its last words, worked out once for every later error.
    death: Mutex<Option<(String, Vec<String>)>>,
}

/// How long a request may wait, and what may stop it early.
struct Wait<'a> {
    deadline: Option<Instant>,
    limit: Duration,
    cancel: Option<&'a AtomicBool>,
}

impl Wait<'_> {
    fn new(limit: Duration, cancel: Option<&AtomicBool>) -> Wait<'_> {
        // A limit too large to add to now is no limit.
        let deadline = Instant::now().checked_add(limit);
        Wait {
            deadline,
            limit,
            cancel,
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Server {
    /// Starts the server in `cwd` and initializes it: `initialize`, then
    /// `notifications/initialized`, then `tools/list` page by page. The whole start-up is
    /// bounded by `limit`; on any failure the process is stopped before the error returns.
    pub fn start(spec: &ServerSpec, cwd: &Path, limit: Duration) -> Result<Server, McpError> {
        let wait = Wait::new(limit, None);
        let (process, stdin, stdout) = Process::spawn(spec, cwd)?;
        let connection = match Connection::new(&spec.name, stdin, stdout) {
            Ok(connection) => connection,
            Err(source) => {
                process.stop(Duration::ZERO);
                return Err(McpError::Spawn {
                    server: spec.name.clone(),
                    command: spec.command.clone(),
                    source,
                });
            }
        };
        let mut server = Server {
            name: spec.name.clone(),
            tools: Vec::new(),
            instructions: None,
            connection,
            process,
            death: Mutex::new(None),
        };
        server.initialize(&wait)?;
        Ok(server)
    }

    /// The name it was configured under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tools it offered at start-up.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// What the server asks its clients to tell the model about using it, if anything.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The server's process id, which is also its process group's.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The last lines the server wrote to standard error (at most 50), for a user who wants
    /// to see what it said.
    pub fn stderr(&self) -> Vec<String> {
        self.process.stderr_tail(usize::MAX, Duration::ZERO)
    }

    /// Calls `tool` with `arguments` (an object; `null` is sent as `{}`), waiting at most
    /// `limit` and returning early with [`McpError::Cancelled`] once `cancel` is set. A call
    /// given up on is cancelled at the server too (`notifications/cancelled`), and its answer,
    /// should it come later, is dropped. A tool's own failure is a result with `is_error`; an
    /// error is a failure to get a result.
    pub fn call(
        &self,
        tool: &str,
        arguments: &Value,
        cancel: &AtomicBool,
        limit: Duration,
    ) -> Result<CallResult, McpError> {
        let arguments = match arguments {
            Value::Null => json!({}),
            other => other.clone(),
        };
        let params = json!({"name": tool, "arguments": arguments});
        let result = self.request("tools/call", params, &Wait::new(limit, Some(cancel)))?;
        content::call_result(&result).map_err(|detail| self.malformed("tools/call", detail))
    }

    fn initialize(&mut self, wait: &Wait<'_>) -> Result<(), McpError> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "pilotfish", "version": env!("CARGO_PKG_VERSION")},
        });
        let answer = self.request("initialize", params, wait)?;
        if answer
            .get("protocolVersion")
            .and_then(Value::as_str)
            .is_none()
        {
            return Err(self.malformed("initialize", "it names no `protocolVersion`".into()));
        }
        self.instructions = answer
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.connection.notify("notifications/initialized", None);
        let offers_tools = answer.pointer("/capabilities/tools").is_some();
        self.tools = self.list_tools(wait, offers_tools)?;
        Ok(())
    }

    /// Every page of `tools/list`. A server that did not declare the tools capability may
    /// refuse the request, which then means no tools rather than a failure.
    fn list_tools(&self, wait: &Wait<'_>, offers_tools: bool) -> Result<Vec<Tool>, McpError> {
        let mut tools = Vec::new();
        let mut cursors = HashSet::new();
        let mut params = json!({});
        loop {
            let page = match self.request("tools/list", params, wait) {
                Ok(page) => page,
                Err(McpError::Rpc { .. }) if !offers_tools => return Ok(Vec::new()),
                Err(e) => return Err(e),
            };
            let Some(list) = page.get("tools").and_then(Value::as_array) else {
                return Err(self.malformed("tools/list", "it has no `tools` list".into()));
            };
            tools.extend(list.iter().filter_map(|tool| tool_of(&self.name, tool)));
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(cursor) if !cursor.is_empty() => {
                    if !cursors.insert(cursor.to_owned()) {
                        let detail = format!("it sent the page cursor `{cursor}` twice");
                        return Err(self.malformed("tools/list", detail));
                    }
                    params = json!({"cursor": cursor});
                }
                _ => return Ok(tools),
            }
        }
    }

    /// Sends a request and waits for its answer within `wait`.
    fn request(&self, method: &str, params: Value, wait: &Wait<'_>) -> Result<Value, McpError> {
        if self.connection.closed().is_some() {
            return Err(self.exited(method));
        }
        if wait.cancelled() {
            return Err(McpError::Cancelled {
                server: self.name.clone(),
                method: method.to_owned(),
            });
        }
        let Some(pending) = self.connection.request(method, params) else {
            return Err(self.exited(method));
        };
        let mut exited_at: Option<Instant> = None;
        loop {
            match pending.replies.recv_timeout(POLL) {
                Ok(Reply::Result(result)) => return Ok(result),
                Ok(Reply::Error { code, message }) => {
                    return Err(McpError::Rpc {
                        server: self.name.clone(),
                        method: method.to_owned(),
                        code,
                        message,
                    });
                }
                Ok(Reply::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.exited(method));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if wait.cancelled() {
                self.give_up(pending.id, method, "the user cancelled it".into());
                return Err(McpError::Cancelled {
                    server: self.name.clone(),
                    method: method.to_owned(),
                });
            }
            if wait.expired() {
                let reason = format!("no answer within {:?}", wait.limit);
                self.give_up(pending.id, method, reason);
                return Err(McpError::Timeout {
                    server: self.name.clone(),
                    method: method.to_owned(),
                    limit: wait.limit,
                    note: self.connection.stray_note(),
                    stderr: self.process.stderr_tail(STDERR_LINES, Duration::ZERO),
                });
            }
            // A process that has exited while something else (a child it left behind) holds
            // its standard output open would otherwise be waited for until the deadline.
            if self.process.exited().is_some()
                && exited_at.get_or_insert_with(Instant::now).elapsed() > EXIT_GRACE
            {
                self.connection.close("exited");
                return Err(self.exited(method));
            }
        }
    }

    /// Stops waiting for request `id` and tells the server, which may stop working on it.
    /// The protocol forbids cancelling `initialize`.
    fn give_up(&self, id: u64, method: &str, reason: String) {
        self.connection.forget(id);
        if method != "initialize" {
            let params = json!({"requestId": id, "reason": reason});
            self.connection
                .notify("notifications/cancelled", Some(params));
        }
    }

    /// The error for a server that is gone: how it ended and what it last wrote on standard
    /// error, worked out the first time and repeated after, so later calls fail at once.
    fn exited(&self, method: &str) -> McpError {
        let mut death = lock(&self.death);
        let (how, stderr) = death
            .get_or_insert_with(|| {
                let how = match self.process.wait_exit(EXIT_GRACE) {
                    Some(status) => describe_exit(status),
                    None => self
                        .connection
                        .closed()
                        .unwrap_or_else(|| "stopped answering".into()),
                };
                (how, self.process.stderr_tail(STDERR_LINES, EXIT_GRACE))
            })
            .clone();
        McpError::Exited {
            server: self.name.clone(),
            method: method.to_owned(),
            how,
            stderr,
        }
    }

    fn malformed(&self, method: &str, detail: String) -> McpError {
        McpError::Protocol {
            server: self.name.clone(),
            method: method.to_owned(),
            detail,
        }
    }
}

/// A tool of a `tools/list` page of server `server`; one without a name cannot be called and
/// is skipped.
pub(crate) fn tool_of(server: &str, tool: &Value) -> Option<Tool> {
    let name = tool.get("name").and_then(Value::as_str)?;
    let input_schema = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    Some(Tool {
        server: server.to_owned(),
        name: name.to_owned(),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        input_schema,
    })
}

impl Drop for Server {
    /// Closes the server's input (the stdio transport's request to exit), gives it
    /// a second, then kills its process group and reaps it.
    fn drop(&mut self) {
        self.connection.close_input();
        self.process.stop(STOP_GRACE);
        self.connection.close("was stopped");
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.name)
            .field("pid", &self.process.pid())
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}
