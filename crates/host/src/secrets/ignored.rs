//! Git-ignored files: the agent's tools read one only after the user's yes (once, or always
//! for that workspace). "Always" answers are kept in `ignored-reads.json` in the state folder,
//! per workspace folder.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use ignore::gitignore::Gitignore;

/// Whether git would ignore `real` (a resolved path inside `root`): the `.gitignore` files of
/// its folders from `root` down, and `.git/info/exclude`; the deepest match wins.
pub fn is_git_ignored(root: &Path, real: &Path) -> bool {
    let Ok(rel) = real.strip_prefix(root) else {
        return false;
    };
    let is_dir = real.is_dir();
    let mut verdict = None;
    let exclude = root.join(".git/info/exclude");
    let mut files = vec![(root.to_path_buf(), exclude)];
    let mut dir = root.to_path_buf();
    files.push((dir.clone(), dir.join(".gitignore")));
    for part in rel.parent().into_iter().flat_map(|p| p.components()) {
        dir.push(part);
        files.push((dir.clone(), dir.join(".gitignore")));
    }
    for (base, file) in files {
        if !file.is_file() {
            continue;
        }
        let (rules, _) = Gitignore::new(&file);
        let Ok(below) = real.strip_prefix(&base) else {
            continue;
        };
        let m = rules.matched_path_or_any_parents(below, is_dir);
        if m.is_ignore() {
            verdict = Some(true);
        } else if m.is_whitelist() {
            verdict = Some(false);
        }
    }
    verdict.unwrap_or(false)
}

/// The remembered "always" answers.
#[derive(Debug, Default)]
pub struct Store {
    path: Option<PathBuf>,
    allowed: BTreeMap<String, BTreeSet<String>>,
}

fn store_path() -> Result<PathBuf> {
    Ok(crate::state::state_dir()?.join("ignored-reads.json"))
}

impl Store {
    /// The answers in the user's state folder (none when it cannot be read).
    pub fn open() -> Store {
        let Ok(path) = store_path() else {
            return Store::default();
        };
        let allowed = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        Store {
            path: Some(path),
            allowed,
        }
    }

    /// Whether the user said "always" for this file of this workspace.
    pub fn allows(&self, root: &Path, rel: &str) -> bool {
        self.allowed
            .get(&root.to_string_lossy().into_owned())
            .is_some_and(|files| files.contains(rel))
    }

    /// Remembers "always" for this file of this workspace.
    pub fn allow(&mut self, root: &Path, rel: &str) -> Result<()> {
        self.allowed
            .entry(root.to_string_lossy().into_owned())
            .or_default()
            .insert(rel.to_owned());
        let path = self
            .path
            .clone()
            .context("no state folder (set HOME or XDG_STATE_HOME) to remember the answer in")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, serde_json::to_string_pretty(&self.allowed)?)
            .with_context(|| format!("{} could not be written", path.display()))
    }
}
