//! `updateUserPreferences`: facts the user asked the agent to remember, kept in the state
//! folder and given to later runs' system prompts.

use std::{io::Write, path::PathBuf};

use anyhow::Result;

use crate::state::state_dir;

/// Where `updateUserPreferences` keeps its facts, one per line.
pub fn preferences_path() -> Result<PathBuf> {
    Ok(state_dir()?.join("preferences.md"))
}

/// Adds facts to the preferences file.
pub fn remember(facts: &[String]) -> Result<PathBuf> {
    let path = preferences_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    for fact in facts.iter().map(|f| f.trim()).filter(|f| !f.is_empty()) {
        writeln!(file, "- {}", fact.replace('\n', " "))?;
    }
    Ok(path)
}

/// The remembered facts, for the prompt of later runs.
pub fn preferences() -> Option<String> {
    let text = std::fs::read_to_string(preferences_path().ok()?).ok()?;
    (!text.trim().is_empty()).then_some(text)
}
