//! Named chat sessions: the turns of a conversation kept under the user's state folder, so a
//! later `pilotfish chat --session NAME` goes on from them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chat::Turn;

/// A named conversation, stored as a JSON list of turns under the user's state folder
/// (`$XDG_STATE_HOME/pilotfish/sessions`, else `~/.local/state/pilotfish/sessions`).
#[derive(Debug)]
pub struct Session {
    path: PathBuf,
    pub turns: Vec<Turn>,
}

impl Session {
    pub fn open(name: &str) -> Result<Session> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            || name.starts_with('.')
        {
            bail!(
                "session name `{name}` may use letters, digits, `-`, `_` and `.` only (it names a file)"
            );
        }
        let base = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state"))
            })
            .context("neither XDG_STATE_HOME nor HOME is set: nowhere to keep the session")?;
        let path = base
            .join("pilotfish")
            .join("sessions")
            .join(format!("{name}.json"));
        let turns = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "the session file {} is not a list of turns; move it away to start the session anew",
                    path.display()
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
        };
        Ok(Session { path, turns })
    }

    /// Adds a turn and writes the file whole (a new file renamed over the old, so a crash
    /// never leaves half a session).
    pub fn append(&mut self, turn: Turn) -> Result<()> {
        self.turns.push(turn);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&self.turns)?)
            .with_context(|| format!("could not write {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("could not write {}", self.path.display()))?;
        Ok(())
    }
}
