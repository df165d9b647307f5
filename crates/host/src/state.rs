//! Where pilotfish keeps what outlives a run: the user's state folder.

use std::path::PathBuf;

use anyhow::{Context, Result};

/// The user's state folder for pilotfish.
pub fn state_dir() -> Result<PathBuf> {
    Ok(std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state")))
        .context("neither XDG_STATE_HOME nor HOME is set: nowhere to keep pilotfish's state")?
        .join("pilotfish"))
}
