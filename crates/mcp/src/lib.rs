//! A Model Context Protocol client: servers started over stdio, their tools listed and called.
//!
//! An MCP server is a program the user configures (in VS Code's `.vscode/mcp.json`, which
//! [`workspace_servers`] reads, or in an editor's session) that offers tools to a model. This
//! crate starts one as a child process and speaks JSON-RPC with it over its standard input and
//! output, one message a line, as MCP's stdio transport prescribes:
//!
//! ```no_run
//! use std::{path::Path, sync::atomic::AtomicBool, time::Duration};
//!
//! let root = Path::new(".");
//! let workspace = mcp::workspace_servers(root)?;
//! for spec in &workspace.servers {
//!     let server = mcp::Server::start(spec, root, Duration::from_secs(20))?;
//!     for tool in server.tools() {
//!         println!("{}: {}", mcp::model_name(&tool.server, &tool.name), tool.description);
//!     }
//!     let cancel = AtomicBool::new(false);
//!     let args = serde_json::json!({"message": "hi"});
//!     let result = server.call("echo", &args, &cancel, Duration::from_secs(60))?;
//!     println!("{}", result.text);
//! }
//! # Ok::<(), mcp::McpError>(())
//! ```
//!
//! Servers are other people's programs, so the client assumes nothing of them: every wait is
//! bounded, a server that exits or hangs becomes an error naming it (with the last lines it
//! wrote to standard error), stray output is skipped, and a dropped [`Server`] takes its whole
//! process group with it. No async runtime: a reader and a writer thread per server, and
//! channels. Streamable HTTP servers ([`HttpServer`]) are reached through an [`HttpClient`]
//! the caller gives, so this crate stays free of HTTP and async code; the older SSE transport is
//! reported as unsupported.
//!
//! Module map: `config` reads `.vscode/mcp.json`; `process` owns the child process and its
//! standard error; `rpc` matches requests to answers over its pipes; `server` is the MCP
//! conversation (handshake, tool list, calls); `http` the same over streamable HTTP; `content`
//! turns a tool's result into text.

mod config;
mod content;
mod error;
mod http;
mod process;
mod rpc;
mod server;

pub use config::{ServerSpec, Workspace, workspace_servers};
pub use error::McpError;
pub use http::{HttpClient, HttpReply, HttpServer};
pub use server::{CallResult, PROTOCOL_VERSION, Server, Tool};

/// The longest tool name OpenAI's API accepts; other providers accept at least as much.
pub const MAX_MODEL_NAME: usize = 64;

/// The name a tool is offered to a model under: `mcp_<server>_<tool>`, every character outside
/// `[A-Za-z0-9_-]` replaced by `_` (model APIs accept no others), cut to [`MAX_MODEL_NAME`].
///
/// Two tools may end up with the same name (a long common prefix, or names differing only in
/// replaced characters); the caller that offers them decides which one wins.
pub fn model_name(server: &str, tool: &str) -> String {
    format!("mcp_{server}_{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_MODEL_NAME)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names() {
        let long = "t".repeat(100);
        // Cut to 64 characters: the 6 of `mcp_s_` and 58 of the tool's.
        let cut = format!("mcp_s_{}", "t".repeat(58));
        let cases: &[(&str, &str, &str)] = &[
            ("github", "create_issue", "mcp_github_create_issue"),
            ("everything", "get-sum", "mcp_everything_get-sum"),
            ("my server", "do.it/now", "mcp_my_server_do_it_now"),
            // One `_` per character, not per UTF-8 byte.
            ("café", "naïve", "mcp_caf__na_ve"),
            ("", "", "mcp__"),
            ("s", &long, &cut),
        ];
        for (server, tool, want) in cases {
            let got = model_name(server, tool);
            assert_eq!(&got, want, "model_name({server:?}, {tool:?})");
            assert!(got.len() <= MAX_MODEL_NAME);
        }
    }
}
