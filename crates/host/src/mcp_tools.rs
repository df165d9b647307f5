//! MCP servers' tools offered to the agent beside the built-in ones: the servers a session names
//! and those of the workspace's `.vscode/mcp.json` the user approved, started once (a stdio
//! server) or connected to (a streamable HTTP one, through `backends::http`), their tools named
//! `mcp_<server>_<tool>`, every call bounded in time. A server that fails is a problem the user
//! is told of and an error the model sees, never a stuck or crashed session.

use std::{
    path::Path,
    sync::{Arc, atomic::AtomicBool},
    time::Duration,
};

use agent::conversation::{Outcome, ToolSpec};

pub use mcp::ServerSpec;

/// How long a server may take to start and list its tools.
pub const START_LIMIT: Duration = Duration::from_secs(20);
/// How long one tool call may take.
pub const CALL_LIMIT: Duration = Duration::from_secs(120);

/// The servers of the workspace's `.vscode/mcp.json` that `given` (an editor's own) does not
/// name, which need the user's approval before they start, and the problems with the file.
pub fn workspace_servers(root: &Path, given: &[ServerSpec]) -> (Vec<ServerSpec>, Vec<String>) {
    match mcp::workspace_servers(root) {
        Ok(ws) => (
            ws.servers
                .into_iter()
                .filter(|s| !given.iter().any(|g| g.name == s.name))
                .collect(),
            ws.problems,
        ),
        Err(e) => (Vec::new(), vec![e.to_string()]),
    }
}

/// A server started over stdio, or reached over streamable HTTP.
enum Running {
    Stdio(mcp::Server),
    Http(mcp::HttpServer),
}

impl Running {
    fn tools(&self) -> &[mcp::Tool] {
        match self {
            Running::Stdio(s) => s.tools(),
            Running::Http(s) => s.tools(),
        }
    }

    fn call(
        &self,
        tool: &str,
        arguments: &serde_json::Value,
        cancel: &AtomicBool,
    ) -> Result<mcp::CallResult, mcp::McpError> {
        match self {
            Running::Stdio(s) => s.call(tool, arguments, cancel, CALL_LIMIT),
            Running::Http(s) => s.call(tool, arguments, cancel, CALL_LIMIT),
        }
    }
}

/// The MCP transport's HTTP, sent by `backends` (the crate that speaks HTTP).
struct BackendsHttp;

impl mcp::HttpClient for BackendsHttp {
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        limit: Duration,
        cancel: &AtomicBool,
        enough: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<mcp::HttpReply, String> {
        let reply = backends::http::post(url, headers, body, limit, cancel, enough)?;
        let content_type = reply
            .header("content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        Ok(mcp::HttpReply {
            status: reply.status,
            content_type,
            session: reply.header("mcp-session-id").map(str::to_owned),
            body: reply.body,
        })
    }
}

/// The running servers and the tools they offer.
#[derive(Default)]
pub struct McpTools {
    servers: Vec<Arc<Running>>,
    /// Model name → (server index, the tool's own name, its spec).
    tools: Vec<(usize, String, ToolSpec)>,
    problems: Vec<String>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTools")
            .field("servers", &self.servers.len())
            .field("tools", &self.tools.len())
            .field("problems", &self.problems)
            .finish()
    }
}

impl McpTools {
    /// Starts these servers in `root`, one after the other; what fails is kept in `problems`.
    /// A workspace's own servers come here only once the user has approved them
    /// (`crate::mcp_approvals`).
    pub fn start(root: &Path, specs: &[ServerSpec]) -> McpTools {
        let mut out = McpTools::default();
        out.start_more(root, specs);
        out
    }

    /// Starts more servers beside the running ones; returns the problems of these.
    pub fn start_more(&mut self, root: &Path, specs: &[ServerSpec]) -> Vec<String> {
        let before = self.problems.len();
        for spec in specs {
            let running = if spec.url.is_some() {
                mcp::HttpServer::connect(spec, Arc::new(BackendsHttp), START_LIMIT)
                    .map(Running::Http)
            } else {
                mcp::Server::start(spec, root, START_LIMIT).map(Running::Stdio)
            };
            match running {
                Ok(server) => self.add(server),
                Err(e) => self.problems.push(e.to_string()),
            }
        }
        self.problems[before..].to_vec()
    }

    fn add(&mut self, server: Running) {
        let index = self.servers.len();
        for tool in server.tools() {
            let name = mcp::model_name(&tool.server, &tool.name);
            if self.tools.iter().any(|(_, _, s)| s.name == name) {
                self.problems.push(format!(
                    "two MCP tools are named {name}; the second, from {}, is left out",
                    tool.server
                ));
                continue;
            }
            let spec = ToolSpec {
                name,
                description: tool.description.clone(),
                parameters: tool.input_schema.clone(),
            };
            self.tools.push((index, tool.name.clone(), spec));
        }
        self.servers.push(Arc::new(server));
    }

    /// The tools as offered to a model.
    pub fn specs(&self) -> impl Iterator<Item = ToolSpec> + '_ {
        self.tools.iter().map(|(_, _, s)| s.clone())
    }

    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Whether `name` is one of these tools.
    pub fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|(_, _, s)| s.name == name)
    }

    /// Calls a tool; whatever goes wrong becomes an error the model reads.
    pub fn call(&self, name: &str, arguments: &str, cancel: &AtomicBool) -> Outcome {
        let Some((index, tool, _)) = self.tools.iter().find(|(_, _, s)| s.name == name) else {
            return Outcome::failed(format!("there is no MCP tool named {name}"));
        };
        let arguments: serde_json::Value = if arguments.trim().is_empty() {
            serde_json::json!({})
        } else {
            match serde_json::from_str(arguments) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                Ok(_) => {
                    return Outcome::failed(format!("{name}'s arguments must be a JSON object"));
                }
                Err(e) => {
                    return Outcome::failed(format!("{name}'s arguments are not valid JSON: {e}"));
                }
            }
        };
        match self.servers[*index].call(tool, &arguments, cancel) {
            Ok(result) if result.is_error => Outcome::failed(result.text),
            Ok(result) => Outcome::done(result.text),
            Err(e) => Outcome::failed(format!("{name} failed: {e}")),
        }
    }
}
