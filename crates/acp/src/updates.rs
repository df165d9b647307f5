//! A turn as the editor sees it: `session/update` notifications for the model's words as they
//! arrive, each tool call when the model makes it (a title, its kind, the files it touches), when
//! it starts running (after its permission) and when it ends (its result, and for an edit the
//! file's text before and after).

use std::{
    path::{Component, Path, PathBuf},
    sync::Arc,
};

use agent::{
    conversation::{Outcome, ToolCall},
    run::{Event, Observer},
};
use serde_json::{Value, json};

use crate::rpc::Connection;

/// Sends a session's updates, and notes what the turn's calls did for the saved conversation.
pub(crate) struct Updates {
    pub(crate) conn: Arc<Connection>,
    pub(crate) session: String,
    pub(crate) root: PathBuf,
    /// The ids of the calls that failed.
    pub(crate) failed: Vec<String>,
    /// The files the calls edited.
    pub(crate) touched: Vec<String>,
}

impl Updates {
    pub(crate) fn new(conn: Arc<Connection>, session: String, root: PathBuf) -> Updates {
        Updates {
            conn,
            session,
            root,
            failed: Vec::new(),
            touched: Vec::new(),
        }
    }

    pub(crate) fn send(&self, update: Value) {
        self.conn.notify(
            "session/update",
            json!({"sessionId": self.session, "update": update}),
        );
    }
}

impl Observer for Updates {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Text(piece) => self.send(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": piece}})),
            Event::Answer(_) => {}
            Event::ToolStart(call) => {
                let (title, kind, locations) = describe(call, &self.root);
                self.send(json!({"sessionUpdate": "tool_call", "toolCallId": call.id,
                    "title": title, "kind": kind, "status": "pending",
                    "locations": locations, "rawInput": raw_input(&call.arguments)}));
            }
            // Its permission granted, the call runs: clients show it running until it ends.
            Event::ToolRunning(call) => self.send(json!({"sessionUpdate": "tool_call_update",
                "toolCallId": call.id, "status": "in_progress"})),
            Event::ToolEnd(call, outcome) => {
                self.send(ended(call, outcome));
                if !outcome.ok {
                    self.failed.push(call.id.clone());
                }
                for d in &outcome.diffs {
                    if !self.touched.contains(&d.path) {
                        self.touched.push(d.path.clone());
                    }
                }
                if outcome.ok
                    && let Some(plan) = plan(call)
                {
                    self.send(plan);
                }
            }
            Event::Note(note) => eprintln!("pilotfish acp: note: {note}"),
        }
    }
}

/// The `plan` update for a `manage_todo_list` call that wrote the list: each step with its
/// state (the list is sent whole, as ACP wants).
pub(crate) fn plan(call: &ToolCall) -> Option<Value> {
    if call.name != "manage_todo_list" {
        return None;
    }
    let args: Value = serde_json::from_str(&call.arguments).ok()?;
    if args["operation"] == "read" {
        return None;
    }
    let entries: Vec<Value> = args["todoList"]
        .as_array()?
        .iter()
        .map(|t| {
            let status = match t["status"].as_str() {
                Some("in-progress") => "in_progress",
                Some("completed") => "completed",
                _ => "pending",
            };
            json!({"content": t["title"].as_str().unwrap_or_default(),
                "priority": "medium", "status": status})
        })
        .collect();
    Some(json!({"sessionUpdate": "plan", "entries": entries}))
}

/// The update for a call that ended.
pub(crate) fn ended(call: &ToolCall, outcome: &Outcome) -> Value {
    let mut content = vec![json!({"type": "content",
        "content": {"type": "text", "text": outcome.content}})];
    for d in &outcome.diffs {
        content.push(json!({"type": "diff", "path": d.path, "oldText": d.old, "newText": d.new}));
    }
    json!({"sessionUpdate": "tool_call_update", "toolCallId": call.id,
        "status": if outcome.ok { "completed" } else { "failed" }, "content": content})
}

/// A call's title, its kind (`read`, `edit`, `search`, `execute`, `other`) and the files it
/// names, for the editor.
pub(crate) fn describe(call: &ToolCall, root: &Path) -> (String, &'static str, Vec<Value>) {
    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let text = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
    let file = text("filePath");
    let kind = match call.name.as_str() {
        "read_file" | "list_dir" | "get_errors" | "get_terminal_output" => "read",
        "edit_file"
        | "insert_edit_into_file"
        | "replace_string_in_file"
        | "multi_replace_string_in_file"
        | "create_file" => "edit",
        "file_search" | "grep_search" | "search_codebase" | "semantic_search"
        | "get_changed_files" => "search",
        "run_in_terminal" => "execute",
        _ => "other",
    };
    let title = match call.name.as_str() {
        "read_file" => format!("Read {file}"),
        "list_dir" => format!("List {}", text("path")),
        "create_file" => format!("Create {file}"),
        "multi_replace_string_in_file" => "Edit several places".to_owned(),
        _ if kind == "edit" => format!("Edit {file}"),
        "file_search" | "grep_search" | "search_codebase" | "semantic_search" => {
            format!("Search for {}", text("query"))
        }
        "run_in_terminal" => format!("Run `{}`", text("command")),
        "get_errors" => "Check for errors".to_owned(),
        name => name.to_owned(),
    };
    let mut paths: Vec<String> = Vec::new();
    for key in ["filePath", "path"] {
        if let Some(p) = args[key].as_str() {
            paths.push(p.to_owned());
        }
    }
    for list in ["filePaths", "replacements"] {
        for item in args[list].as_array().into_iter().flatten() {
            if let Some(p) = item.as_str().or(item["filePath"].as_str()) {
                paths.push(p.to_owned());
            }
        }
    }
    let mut locations: Vec<Value> = Vec::new();
    for p in paths {
        // Only places inside the workspace are shown: the call itself is refused otherwise.
        if let Some(path) = inside(root, &p)
            && !locations.iter().any(|l| l["path"] == path)
        {
            let mut location = json!({ "path": path });
            if call.name == "read_file"
                && let Some(line) = args["startLineNumberBaseZero"].as_u64()
            {
                location["line"] = json!(line);
            }
            locations.push(location);
        }
    }
    (title, kind, locations)
}

/// `path` made absolute against `root`, when it stays inside it without following links.
fn inside(root: &Path, path: &str) -> Option<String> {
    let mut out = PathBuf::new();
    for c in root.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.starts_with(root)
        .then(|| out.to_string_lossy().into_owned())
}

/// A call's arguments as JSON when they parse, as the text the model wrote otherwise.
pub(crate) fn raw_input(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}
