//! The editing tools' common path: a file changed through a function of its text, journaled
//! before the first change, written through the workspace's file access; several
//! replacements all or nothing.

use std::path::PathBuf;

use agent::conversation::{Diff, Outcome};

use agent::tools;

use super::Workspace;

impl Workspace {
    /// Changes a file through `change` (given its text, or `None` when it does not exist),
    /// journaling it first; the result carries the file's syntax errors after the change.
    pub(super) fn edit(
        &mut self,
        path: &str,
        change: impl FnOnce(Option<&str>) -> Result<String, String>,
    ) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return Outcome::failed(e),
        };
        let old = if self.files.exists(&path) {
            match self.read_text(&path) {
                Ok(t) => Some(t),
                Err(e) => return Outcome::failed(e),
            }
        } else {
            None
        };
        let new = match change(old.as_deref()) {
            Ok(n) => n,
            Err(e) => {
                return Outcome::failed(format!("{} was not changed: {e}", self.shown(&path)));
            }
        };
        if !self.journal.before.contains_key(&path) {
            self.journal.before.insert(path.clone(), old.clone());
            // Saved before the change, so that a crash still leaves a way back.
            if let Err(e) = self.journal.save(&self.journal_path) {
                return Outcome::failed(format!(
                    "the undo journal could not be written, so nothing was changed: {e}"
                ));
            }
        }
        if let Err(e) = self.files.write(&path, &new) {
            return Outcome::failed(format!("{} {e}", self.shown(&path)));
        }
        let verb = if old.is_some() { "edited" } else { "created" };
        let errors = self.errors_in(&path, &new);
        let mut outcome = Outcome::done(format!("{} {verb}.\n{errors}", self.shown(&path)));
        outcome.diffs.push(Diff {
            path: path.to_string_lossy().into_owned(),
            old,
            new,
        });
        outcome
    }

    /// Several replacements, all computed before any file is written: all or nothing.
    pub(super) fn multi_replace(&mut self, replacements: &[tools::ReplaceString]) -> Outcome {
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        for (i, r) in replacements.iter().enumerate() {
            let path = match self.resolve(&r.file_path) {
                Ok(p) => p,
                Err(e) => {
                    return Outcome::failed(format!("replacement {i}: {e}; nothing was changed"));
                }
            };
            let current = match files.iter().find(|(p, _)| *p == path) {
                Some((_, text)) => text.clone(),
                None => match self.read_text(&path) {
                    Ok(t) => t,
                    Err(e) => {
                        return Outcome::failed(format!(
                            "replacement {i}: {e}; nothing was changed"
                        ));
                    }
                },
            };
            match agent::edit::replace_string(&current, &r.old_string, &r.new_string) {
                Ok(new) => match files.iter_mut().find(|(p, _)| *p == path) {
                    Some(entry) => entry.1 = new,
                    None => files.push((path, new)),
                },
                Err(e) => {
                    return Outcome::failed(format!(
                        "replacement {i} ({}): {e}; nothing was changed",
                        r.file_path
                    ));
                }
            }
        }
        let mut out = Outcome::done("");
        for (path, new) in files {
            let result = self.edit(&path.to_string_lossy(), |_| Ok(new));
            if !result.ok {
                return result;
            }
            out.content.push_str(&result.content);
            out.diffs.extend(result.diffs);
        }
        out
    }
}
