//! Content exclusion: files a workspace's `.copilotignore` (or `.pilotfishignore`) names never
//! leave the machine. They are not completed, and their text is kept out of every prompt:
//! open tabs, recent edits and imported declarations.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Mutex,
};

use anyhow::{Result, bail};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use prompt::request::RequestJson;

/// The files that name excluded paths, in gitignore syntax, at the workspace root.
const IGNORE_FILES: &[&str] = &[".copilotignore", ".pilotfishignore"];

/// The exclusions of a workspace, if it has any.
pub fn load(root: &Path) -> Result<Option<Gitignore>> {
    let mut builder = GitignoreBuilder::new(root);
    let mut any = false;
    for name in IGNORE_FILES {
        let path = root.join(name);
        if path.is_file() {
            if let Some(err) = builder.add(&path) {
                bail!(
                    "{} has a pattern that cannot be read: {err}",
                    path.display()
                );
            }
            any = true;
        }
    }
    if !any {
        return Ok(None);
    }
    Ok(Some(builder.build().map_err(|e| {
        anyhow::anyhow!("the exclusion patterns cannot be used: {e}")
    })?))
}

/// Whether a workspace-relative or absolute `path` is excluded.
pub fn is_excluded(rules: &Gitignore, root: &Path, path: &str) -> bool {
    let full = if Path::new(path).is_absolute() {
        Path::new(path).to_path_buf()
    } else {
        root.join(path)
    };
    match full.strip_prefix(root) {
        Ok(rel) => rules.matched_path_or_any_parents(rel, false).is_ignore(),
        Err(_) => false,
    }
}

/// Applies the exclusions to a request: an excluded document is an error (nothing may be
/// sent), excluded open tabs and recent edits are dropped. Returns what was dropped.
pub fn apply(rules: &Gitignore, root: &Path, request: &mut RequestJson) -> Result<Vec<String>> {
    if is_excluded(rules, root, &request.document.path) {
        bail!(
            "{} is excluded by the workspace's .copilotignore: nothing about it is sent to a model",
            request.document.path
        );
    }
    let mut dropped = Vec::new();
    request.open_documents.retain(|d| {
        let excluded = is_excluded(rules, root, &d.path);
        if excluded {
            dropped.push(d.path.clone());
        }
        !excluded
    });
    request
        .recent_edits
        .retain(|s| !is_excluded(rules, root, &s.path));
    Ok(dropped)
}

/// Whether a file is excluded by a `.copilotignore` in one of its folders, the rules of each
/// folder read once: the language server's and the ACP agent's next edits both ask it.
pub fn excluder() -> impl Fn(&str) -> bool + Send + Sync {
    let cache: Mutex<HashMap<PathBuf, Option<Gitignore>>> = Mutex::new(HashMap::new());
    move |path: &str| {
        let path = Path::new(path);
        if !path.is_absolute() {
            return false;
        }
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        path.ancestors().skip(1).any(|dir| {
            let rules = cache
                .entry(dir.to_path_buf())
                // A broken pattern file excludes nothing here; `pilotfish prompt` reports it.
                .or_insert_with(|| load(dir).ok().flatten());
            rules
                .as_ref()
                .is_some_and(|r| is_excluded(r, dir, &path.to_string_lossy()))
        })
    }
}
