//! What the editor does for the agent: file reads and writes through its `fs/*` methods (so the
//! model sees unsaved buffers and edits land in the editor), and the user's approvals through
//! `session/request_permission`, with `allow_always` and `reject_always` remembered for the
//! session (for a terminal command: that command, never another program).

use std::{
    collections::BTreeSet,
    path::Path,
    sync::{Arc, Mutex, atomic::AtomicBool},
    time::Duration,
};

use agent::{
    commands::Always,
    conversation::ToolCall,
    run::{Approvals, Decision},
};
use host::{files::FileAccess, mcp_approvals::Answer};
use serde_json::{Value, json};

use crate::{
    rpc::{Connection, Failure},
    updates::{describe, raw_input},
};

/// How long the editor may take to read or write a file.
const FILE_LIMIT: Duration = Duration::from_secs(30);
/// How long a question may stay unanswered (the user may be away; a cancel ends it sooner).
const QUESTION_LIMIT: Duration = Duration::from_secs(3600);

/// The editor's file methods, each used when the editor offers it; the disk otherwise.
pub(crate) struct ClientFiles {
    pub(crate) conn: Arc<Connection>,
    pub(crate) session: String,
    pub(crate) read: bool,
    pub(crate) write: bool,
    /// The session's cancel flag: a cancel ends a wait for the editor at once.
    pub(crate) cancel: Arc<AtomicBool>,
}

impl FileAccess for ClientFiles {
    fn read(&self, path: &Path) -> Result<String, String> {
        if !self.read {
            return host::files::read_disk(path);
        }
        if path.is_dir() {
            return Err("is a folder: use list_dir".into());
        }
        let answer = self
            .conn
            .request(
                "fs/read_text_file",
                json!({"sessionId": self.session, "path": path.to_string_lossy()}),
                FILE_LIMIT,
                Some(&self.cancel),
            )
            .map_err(|e| format!("cannot be read: {e}"))?;
        match answer["content"].as_str() {
            Some(text) if text.contains('\0') => Err("is a binary file".into()),
            Some(text) => Ok(text.to_owned()),
            None => Err("cannot be read: the editor's answer had no `content`".into()),
        }
    }

    fn write(&self, path: &Path, text: &str) -> Result<(), String> {
        if !self.write {
            return host::files::Disk.write(path, text);
        }
        self.conn
            .request(
                "fs/write_text_file",
                json!({"sessionId": self.session, "path": path.to_string_lossy(), "content": text}),
                FILE_LIMIT,
                Some(&self.cancel),
            )
            .map(|_| ())
            .map_err(|e| format!("could not be written: {e}"))
    }

    fn on_disk(&self) -> bool {
        !self.write
    }
}

/// What the user said "always" to in this session: terminal commands by what the answer
/// covers (`agent::commands::Always`: the command, never another program), other tools by name.
#[derive(Debug, Default)]
pub(crate) struct Remembered {
    pub(crate) allowed: BTreeSet<String>,
    pub(crate) rejected: BTreeSet<String>,
    pub(crate) commands_allowed: Vec<Always>,
    pub(crate) commands_rejected: Vec<Always>,
}

impl Remembered {
    /// The remembered answer for a call, if one covers it.
    fn recall(&self, call: &ToolCall) -> Option<Decision> {
        match command_of(call) {
            Some(command) => {
                if self.commands_rejected.iter().any(|a| a.covers(&command)) {
                    Some(Decision::Reject)
                } else if self.commands_allowed.iter().any(|a| a.covers(&command)) {
                    Some(Decision::Allow)
                } else {
                    None
                }
            }
            None if self.rejected.contains(&call.name) => Some(Decision::Reject),
            None if self.allowed.contains(&call.name) => Some(Decision::Allow),
            None => None,
        }
    }

    /// Remembers an "always" answer (`allow`: yes or no) for what it covers.
    fn remember(&mut self, call: &ToolCall, allow: bool) {
        match (command_of(call), allow) {
            (Some(command), true) => self.commands_allowed.push(Always::of(&command)),
            (Some(command), false) => self.commands_rejected.push(Always::of(&command)),
            (None, true) => {
                self.allowed.insert(call.name.clone());
            }
            (None, false) => {
                self.rejected.insert(call.name.clone());
            }
        }
    }
}

/// The command line of a `run_in_terminal` call.
fn command_of(call: &ToolCall) -> Option<String> {
    if call.name != "run_in_terminal" {
        return None;
    }
    let args: Value = serde_json::from_str(&call.arguments).ok()?;
    Some(args["command"].as_str()?.to_owned())
}

/// The names of the "always" options: what such an answer covers.
fn always_names(call: &ToolCall) -> (String, String) {
    match command_of(call) {
        Some(command) => {
            let covered = Always::of(&command).shown();
            (
                format!("Always allow `{covered}`"),
                format!("Always reject `{covered}`"),
            )
        }
        None => (
            format!("Always allow {}", call.name),
            format!("Always reject {}", call.name),
        ),
    }
}

/// The user, asked through the editor.
pub(crate) struct Permissions {
    pub(crate) conn: Arc<Connection>,
    pub(crate) session: String,
    pub(crate) root: std::path::PathBuf,
    pub(crate) remembered: Arc<Mutex<Remembered>>,
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Permissions {
    /// Asks the editor about `call` with `options`; the chosen option's id, or the decision
    /// when there is no choice to read (cancelled, or no answer: rejected).
    fn request(
        &self,
        call: &ToolCall,
        question: &str,
        options: Value,
    ) -> Result<Option<String>, Decision> {
        let (title, kind, _) = describe(call, &self.root);
        let params = json!({
            "sessionId": self.session,
            "toolCall": {"toolCallId": call.id, "title": title, "kind": kind, "status": "pending",
                "rawInput": raw_input(&call.arguments),
                "content": [{"type": "content", "content": {"type": "text", "text": question}}]},
            "options": options,
        });
        let answer = self.conn.request(
            "session/request_permission",
            params,
            QUESTION_LIMIT,
            Some(&self.cancel),
        );
        let outcome = match answer {
            Ok(v) => v,
            Err(Failure::Cancelled) => return Err(Decision::Cancelled),
            Err(e) => {
                eprintln!("pilotfish acp: no answer to a permission request: {e}");
                return Err(Decision::Reject);
            }
        };
        let outcome = &outcome["outcome"];
        if outcome["outcome"] == "cancelled" {
            return Err(Decision::Cancelled);
        }
        Ok(outcome["optionId"].as_str().map(str::to_owned))
    }
}

impl Approvals for Permissions {
    /// A git-ignored file to read: allow once, always (remembered for the workspace by the
    /// tools, beyond this session), or reject.
    fn ask_or_remember(&mut self, call: &ToolCall, question: &str) -> (Decision, bool) {
        let options = json!([
            {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow_always", "name": "Always allow in this workspace", "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
        ]);
        match self.request(call, question, options) {
            Err(decision) => (decision, false),
            Ok(Some(id)) if id == "allow_once" => (Decision::Allow, false),
            Ok(Some(id)) if id == "allow_always" => (Decision::Allow, true),
            Ok(_) => (Decision::Reject, false),
        }
    }

    fn ask(&mut self, call: &ToolCall, question: &str) -> Decision {
        if let Some(decision) = self
            .remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .recall(call)
        {
            return decision;
        }
        let (title, kind, _) = describe(call, &self.root);
        let (always, never) = always_names(call);
        let options = json!([
            {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow_always", "name": always, "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
            {"optionId": "reject_always", "name": never, "kind": "reject_always"},
        ]);
        let params = json!({
            "sessionId": self.session,
            "toolCall": {"toolCallId": call.id, "title": title, "kind": kind, "status": "pending",
                "rawInput": raw_input(&call.arguments),
                "content": [{"type": "content", "content": {"type": "text", "text": question}}]},
            "options": options,
        });
        let answer = self.conn.request(
            "session/request_permission",
            params,
            QUESTION_LIMIT,
            Some(&self.cancel),
        );
        let outcome = match answer {
            Ok(v) => v,
            Err(Failure::Cancelled) => return Decision::Cancelled,
            Err(e) => {
                eprintln!("pilotfish acp: no answer to a permission request: {e}");
                return Decision::Reject;
            }
        };
        let outcome = &outcome["outcome"];
        if outcome["outcome"] == "cancelled" {
            return Decision::Cancelled;
        }
        let mut r = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        match outcome["optionId"].as_str() {
            Some("allow_once") => Decision::Allow,
            Some("allow_always") => {
                r.remember(call, true);
                Decision::Allow
            }
            Some("reject_always") => {
                r.remember(call, false);
                Decision::Reject
            }
            // A refusal, or an answer this agent did not offer: nothing runs.
            _ => Decision::Reject,
        }
    }
}

/// Asks the user, through the editor, whether to start one of the workspace's MCP servers: a
/// tool call of kind `execute` titled with the server's name and showing its command line,
/// reported to the editor as it is settled. `None` when the question got no answer (the turn
/// was cancelled, or the editor failed): the server then does not start.
pub(crate) fn ask_to_start(
    conn: &Connection,
    session: &str,
    spec: &host::mcp_tools::ServerSpec,
    line: &str,
    cancel: &AtomicBool,
) -> Option<Answer> {
    let id = format!("pilotfish-mcp-server-{}", spec.name);
    let (title, text, raw) = match &spec.url {
        // Header values may be keys: only their names are shown.
        Some(url) => (
            format!(
                "Connect to the MCP server {} from .vscode/mcp.json",
                spec.name
            ),
            format!(
                "The workspace's .vscode/mcp.json asks to connect to this MCP server and offer its tools to the model:\n\n    {line}\n\nAllow it only if you trust this workspace."
            ),
            json!({"url": url,
                "headers": spec.headers.iter().map(|(k, _)| k).collect::<Vec<_>>()}),
        ),
        None => (
            format!("Start the MCP server {} from .vscode/mcp.json", spec.name),
            format!(
                "The workspace's .vscode/mcp.json asks to run this program:\n\n    {line}\n\nAllow it only if you trust this workspace."
            ),
            json!({"command": spec.command, "args": spec.args,
                "env": spec.env.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>()}),
        ),
    };
    let content = json!([{"type": "content", "content": {"type": "text", "text": text}}]);
    let update = |fields: Value| {
        conn.notify(
            "session/update",
            json!({"sessionId": session, "update": fields}),
        );
    };
    update(
        json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": title,
        "kind": "execute", "status": "pending", "rawInput": raw, "content": content}),
    );
    let params = json!({
        "sessionId": session,
        "toolCall": {"toolCallId": id, "title": title, "kind": "execute", "status": "pending",
            "rawInput": raw, "content": content},
        "options": [
            {"optionId": "allow_once", "name": "Start it this time", "kind": "allow_once"},
            {"optionId": "allow_always", "name": "Always start this definition", "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Do not start it", "kind": "reject_once"},
            {"optionId": "reject_always", "name": "Never start this definition", "kind": "reject_always"},
        ],
    });
    let answer = match conn.request(
        "session/request_permission",
        params,
        QUESTION_LIMIT,
        Some(cancel),
    ) {
        Ok(v) => match v["outcome"]["optionId"].as_str() {
            _ if v["outcome"]["outcome"] == "cancelled" => None,
            Some("allow_once") => Some(Answer::AllowOnce),
            Some("allow_always") => Some(Answer::AllowAlways),
            Some("reject_always") => Some(Answer::RejectAlways),
            // A refusal, or an answer this agent did not offer: the server does not start.
            _ => Some(Answer::RejectOnce),
        },
        Err(Failure::Cancelled) => None,
        Err(e) => {
            eprintln!("pilotfish acp: no answer to a permission request: {e}");
            None
        }
    };
    let started = matches!(answer, Some(Answer::AllowOnce | Answer::AllowAlways));
    let said = if started {
        "allowed: starting it"
    } else {
        "not started"
    };
    update(
        json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
        "status": if started { "completed" } else { "failed" },
        "content": [{"type": "content", "content": {"type": "text", "text": said}}]}),
    );
    answer
}
