//! The undo journal: every file as it was before a run first changed it, saved before the
//! change, so `pilotfish agent --undo` can restore it even after a crash.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::state::state_dir;

/// The state of files before the run first changed them, for `--undo`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Journal {
    /// Path → its text before the run (`None`: the file did not exist).
    pub before: BTreeMap<PathBuf, Option<String>>,
}

impl Journal {
    /// Writes the journal (a new file renamed over the old, so a crash never leaves half of
    /// one).
    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string(self)?)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}

/// Where the undo journal of a workspace's last run is kept (the user's state folder).
pub fn journal_path(root: &Path) -> Result<PathBuf> {
    let base = state_dir()?;
    let name: String = root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Ok(base.join("undo").join(format!("{name}.json")))
}

/// Restores the files the last run in `root` changed; returns what was restored.
pub fn undo(root: &Path) -> Result<Vec<String>> {
    let root = std::fs::canonicalize(root)?;
    let path = journal_path(&root)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("no agent run to undo in {}", root.display())
        }
        Err(e) => return Err(e.into()),
    };
    let journal: Journal = serde_json::from_str(&text)
        .with_context(|| format!("the undo journal {} cannot be read", path.display()))?;
    let mut restored = Vec::new();
    for (file, before) in &journal.before {
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        match before {
            Some(text) => {
                std::fs::write(file, text).with_context(|| format!("could not restore {shown}"))?;
                restored.push(format!("restored {shown}"));
            }
            None => {
                if file.exists() {
                    std::fs::remove_file(file)
                        .with_context(|| format!("could not remove {shown}"))?;
                }
                restored.push(format!("removed {shown} (created by the run)"));
            }
        }
    }
    std::fs::remove_file(&path)?;
    Ok(restored)
}
