//! Slash commands: the workspace's prompt files (`.github/prompts/NAME.prompt.md`) and custom
//! agents (`*.agent.md` of the workspace and the user) announced with
//! `available_commands_update`, and announced again when those files change (a watcher looks
//! once a second while the session is open). `/NAME rest` runs the prompt file's text, or the
//! custom agent on `rest` for that prompt.

use std::{
    sync::{Arc, Weak, atomic::Ordering},
    time::Duration,
};

use serde_json::{Value, json};

use crate::{rpc::Connection, session::Handle};

/// How often the watcher looks at the files.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// The commands of a workspace: prompt files first, then custom agents not shadowed by one.
fn list(root: &std::path::Path) -> Vec<Value> {
    let mut out: Vec<Value> =
        host::customizations::prompt_files(std::slice::from_ref(&root.to_path_buf()))
            .into_iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description,
                    "input": {"hint": "what to add to the prompt file's text"}})
            })
            .collect();
    for agent in host::setup::customizations(root).agents {
        if out.iter().any(|c| c["name"] == agent.name.as_str()) {
            continue;
        }
        let description = agent
            .description
            .clone()
            .unwrap_or_else(|| format!("Run the custom agent {}", agent.name));
        out.push(json!({"name": agent.name, "description": description,
            "input": {"hint": "the task for the agent"}}));
    }
    out
}

/// The `available_commands_update` of a session.
pub(crate) fn update(handle: &Handle) -> Value {
    json!({"sessionUpdate": "available_commands_update", "availableCommands": list(&handle.root)})
}

/// Announces the commands now, then again whenever they change, until the session is closed
/// or the client is gone.
pub(crate) fn announce_and_watch(handle: &Arc<Handle>, conn: &Arc<Connection>) {
    let first = update(handle);
    conn.notify(
        "session/update",
        json!({"sessionId": handle.id, "update": first}),
    );
    let weak: Weak<Handle> = Arc::downgrade(handle);
    let conn = conn.clone();
    std::thread::spawn(move || {
        let mut last = first;
        loop {
            std::thread::sleep(WATCH_EVERY);
            let Some(handle) = weak.upgrade() else { return };
            if handle.closed.load(Ordering::SeqCst) || conn.is_closed() {
                return;
            }
            let now = update(&handle);
            if now != last {
                conn.notify(
                    "session/update",
                    json!({"sessionId": handle.id, "update": now}),
                );
                last = now;
            }
        }
    });
}
