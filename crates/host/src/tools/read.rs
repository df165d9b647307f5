//! `read_file` and `list_dir`, and the reads every tool makes: through the workspace's file
//! access (the editor's buffers or the disk) for what the model reads, from the disk for
//! searches.

use std::path::{Path, PathBuf};

use agent::conversation::Outcome;

use super::Workspace;

impl Workspace {
    /// What the model reads of a file: through the workspace's file access.
    pub(super) fn read_text(&self, path: &Path) -> Result<String, String> {
        self.files
            .read(path)
            .map_err(|e| format!("{} {e}", self.shown(path)))
    }

    /// A file read for a search: from the disk, since asking an editor for every file of the
    /// workspace would be slow and its unsaved buffers are few.
    pub(super) fn read_disk(&self, path: &Path) -> Result<String, String> {
        crate::files::read_disk(path).map_err(|e| format!("{} {e}", self.shown(path)))
    }

    pub(super) fn read_file(&self, path: &str, start: usize, end: usize) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return Outcome::failed(e),
        };
        let text = match self.read_text(&path) {
            Ok(t) => t,
            Err(e) => return Outcome::failed(e),
        };
        let lines: Vec<&str> = text.lines().collect();
        if start >= lines.len().max(1) {
            return Outcome::failed(format!(
                "{} has {} lines (0 to {}); line {start} is past its end",
                self.shown(&path),
                lines.len(),
                lines.len().saturating_sub(1)
            ));
        }
        let end = end.min(lines.len().saturating_sub(1));
        let mut out = format!(
            "{} lines {start}-{end} of {}:\n",
            self.shown(&path),
            lines.len()
        );
        for (i, l) in lines[start..=end].iter().enumerate() {
            out.push_str(&format!("{:>5} {l}\n", start + i));
        }
        Outcome::done(out)
    }

    pub(super) fn list_dir(&self, path: &str) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return Outcome::failed(e),
        };
        let Ok(entries) = std::fs::read_dir(&path) else {
            return Outcome::failed(format!(
                "{} is not a folder that can be listed",
                self.shown(&path)
            ));
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| self.resolve(&e.path().to_string_lossy()).is_ok())
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir() {
                    format!("{name}/")
                } else {
                    name
                }
            })
            .collect();
        names.sort();
        Outcome::done(names.join("\n"))
    }

    /// The workspace's files, ignore files respected, excluded files left out.
    pub(super) fn files(&self) -> Vec<PathBuf> {
        ignore::WalkBuilder::new(&self.root)
            .require_git(false)
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.into_path())
            .filter(|p| self.resolve(&p.to_string_lossy()).is_ok())
            .collect()
    }
}
