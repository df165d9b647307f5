//! What can go wrong reading MCP configuration and talking to MCP servers, each failure named
//! so that a user reading the message knows which server failed and what to look at.

use std::{io, path::PathBuf, time::Duration};

/// Everything that can go wrong. Entries of `.vscode/mcp.json` that cannot be used
/// ([`McpError::Unsupported`], [`McpError::MissingCommand`], [`McpError::BadEntry`],
/// [`McpError::UnresolvedVariable`]) are reported as text in `Workspace::problems` rather
/// than returned; the others come from reading the file or from a running server.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot read {path}: {source}")]
    ReadConfig {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{path} is not valid JSON (comments and trailing commas are allowed): {source}; fix the file or move it away"
    )]
    ConfigSyntax {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: {detail}")]
    ConfigShape { path: PathBuf, detail: String },
    #[error(
        "MCP server `{server}` is an {transport} server; pilotfish takes stdio and streamable HTTP (`\"type\": \"http\"`) servers"
    )]
    Unsupported { server: String, transport: String },
    #[error(
        "MCP server `{server}` has no `command`; give the program that starts it in .vscode/mcp.json"
    )]
    MissingCommand { server: String },
    #[error("MCP server `{server}`: {detail}")]
    BadEntry { server: String, detail: String },
    #[error(
        "MCP server `{server}` uses `{variable}`, which pilotfish cannot ask for; put the value in the server's `env` or in your environment and refer to it as `${{env:NAME}}`"
    )]
    UnresolvedVariable { server: String, variable: String },
    #[error(
        "MCP server `{server}`: command `{command}` was not found; check the server's `command` in .vscode/mcp.json (or your MCP client's configuration) and that the program is installed and on PATH"
    )]
    CommandNotFound { server: String, command: String },
    #[error(
        "MCP server `{server}`: its working folder {cwd} is not a folder; check the workspace path"
    )]
    Cwd { server: String, cwd: PathBuf },
    #[error(
        "MCP server `{server}`: could not start `{command}`: {source}; check the server's `command` in .vscode/mcp.json (or your MCP client's configuration)"
    )]
    Spawn {
        server: String,
        command: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "MCP server `{server}` {how} during `{method}`{}",
        stderr_lines(stderr)
    )]
    Exited {
        server: String,
        method: String,
        /// What happened, as a phrase: "exited with status 1", "was killed by signal 9".
        how: String,
        /// The last lines the server wrote to standard error.
        stderr: Vec<String>,
    },
    #[error(
        "MCP server `{server}` did not answer `{method}` within {limit:?}{note}; check that it works when run by hand, or allow it more time{}",
        stderr_lines(stderr)
    )]
    Timeout {
        server: String,
        method: String,
        limit: Duration,
        /// Empty, or what else the server did that may explain the silence.
        note: String,
        stderr: Vec<String>,
    },
    #[error(
        "MCP server `{server}` at {url} could not be reached during `{method}`: {detail}; check the server's `url` and that it is running"
    )]
    Http {
        server: String,
        url: String,
        method: String,
        detail: String,
    },
    #[error("the `{method}` request to MCP server `{server}` was cancelled")]
    Cancelled { server: String, method: String },
    #[error("MCP server `{server}` answered `{method}` with error {code}: {message}")]
    Rpc {
        server: String,
        method: String,
        code: i64,
        message: String,
    },
    #[error(
        "MCP server `{server}` sent a malformed answer to `{method}`: {detail}; is it an MCP server?"
    )]
    Protocol {
        server: String,
        method: String,
        detail: String,
    },
}

/// A server's last lines on standard error as the tail of a message, or nothing.
fn stderr_lines(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from("; its last lines on standard error:");
    for line in lines {
        out.push_str("\n    ");
        out.push_str(line);
    }
    out
}
