//! MCP servers' tools offered to the agent beside the built-in ones: the servers a session names
//! and those of the workspace's `.vscode/mcp.json` the user approved, started once, their tools named
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

/// The running servers and the tools they offer.
#[derive(Default)]
pub struct McpTools {
    servers: Vec<Arc<mcp::Server>>,
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
            match mcp::Server::start(spec, root, START_LIMIT) {
                Ok(server) => self.add(server),
                Err(e) => self.problems.push(e.to_string()),
            }
        }
        self.problems[before..].to_vec()
    }

    fn add(&mut self, server: mcp::Server) {
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
        match self.servers[*index].call(tool, &arguments, cancel, CALL_LIMIT) {
            Ok(result) if result.is_error => Outcome::failed(result.text),
            Ok(result) => Outcome::done(result.text),
            Err(e) => Outcome::failed(format!("{name} failed: {e}")),
        }
    }
}
