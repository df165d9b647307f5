//! Files on disk as the commands see them: the workspace root, paths relative to it, text
//! read with clear errors, and `PATH:LINE:COLUMN` locations.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The folder that relative paths in prompts are relative to: the enclosing git repository's
/// root, else the current folder.
#[derive(Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
    cwd: PathBuf,
}

/// A text file read from the workspace.
#[derive(Debug)]
pub(crate) struct TextFile {
    /// The path relative to the workspace root, with `/` separators.
    pub(crate) relative: String,
    pub(crate) language_id: String,
    pub(crate) text: String,
}

impl Workspace {
    pub(crate) fn discover() -> Result<Workspace> {
        let cwd = std::env::current_dir().context("could not determine the current folder")?;
        let root = cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&cwd)
            .to_path_buf();
        Ok(Workspace { root, cwd })
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Reads a UTF-8 text file given relative to the current folder (or absolute).
    pub(crate) fn read_text(&self, path: &Path) -> Result<TextFile> {
        let full = self.cwd.join(path);
        let bytes =
            std::fs::read(&full).with_context(|| format!("could not read {}", path.display()))?;
        if bytes.contains(&0) {
            bail!(
                "{} looks like a binary file (it contains NUL bytes): give a text file",
                path.display()
            );
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "{} is not UTF-8 text (invalid byte at offset {}): convert it to UTF-8 first",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        let relative = self.relative(&full);
        let language_id = languages::detect_language_from_path(&relative, "plaintext").into_owned();
        Ok(TextFile {
            relative,
            language_id,
            text,
        })
    }

    fn relative(&self, full: &Path) -> String {
        let normal = normalize(full);
        let shown = normal.strip_prefix(&self.root).unwrap_or(&normal);
        shown
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Removes `.` and `..` components without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A cursor given as `PATH:LINE:COLUMN`, line and column counted from 1.
#[derive(Debug)]
pub(crate) struct Location {
    pub(crate) path: PathBuf,
    line: usize,
    column: usize,
}

impl Location {
    pub(crate) fn parse(s: &str) -> Result<Location> {
        let mut parts = s.rsplitn(3, ':');
        let (Some(column), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            bail!("`{s}` is not a location: write PATH:LINE:COLUMN, for example src/main.rs:12:5");
        };
        let number = |what: &str, v: &str| -> Result<usize> {
            match v.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => bail!("`{v}` is not a valid {what} in `{s}`: lines and columns count from 1"),
            }
        };
        Ok(Location {
            path: PathBuf::from(path),
            line: number("line", line)?,
            column: number("column", column)?,
        })
    }

    /// The byte offset of this location in `text`; the column may be one past the line's end.
    pub(crate) fn byte_offset(&self, text: &str) -> Result<usize> {
        let mut start = 0usize;
        for _ in 1..self.line {
            match text[start..].find('\n') {
                Some(nl) => start += nl + 1,
                None => bail!(
                    "line {} is past the end of {} ({} lines)",
                    self.line,
                    self.path.display(),
                    text.split('\n').count()
                ),
            }
        }
        let line = &text[start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let line = line.strip_suffix('\r').unwrap_or(line);
        let chars = line.chars().count();
        if self.column > chars + 1 {
            bail!(
                "column {} is past the end of line {} of {} ({} characters)",
                self.column,
                self.line,
                self.path.display(),
                chars
            );
        }
        let within = line
            .char_indices()
            .nth(self.column - 1)
            .map_or(line.len(), |(i, _)| i);
        Ok(start + within)
    }
}

/// The workspace on disk, for following imports: text files under a root, read on demand,
/// excluded files never.
#[derive(Debug)]
pub(crate) struct DiskFiles {
    pub(crate) root: PathBuf,
    pub(crate) exclusions: Option<ignore::gitignore::Gitignore>,
}

impl DiskFiles {
    pub(crate) fn new(root: &str) -> anyhow::Result<DiskFiles> {
        let root = PathBuf::from(root);
        let exclusions = host::exclusion::load(&root)?;
        Ok(DiskFiles { root, exclusions })
    }
}

/// Imported files larger than this are not read.
const MAX_IMPORTED_FILE_BYTES: u64 = 1 << 20;

impl syntax::WorkspaceFiles for DiskFiles {
    fn read(&self, path: &str) -> Option<String> {
        if path.split('/').any(|p| p == "..") {
            return None;
        }
        if let Some(rules) = &self.exclusions
            && host::exclusion::is_excluded(rules, &self.root, path)
        {
            return None;
        }
        let full = self.root.join(path);
        let meta = std::fs::metadata(&full).ok()?;
        if !meta.is_file() || meta.len() > MAX_IMPORTED_FILE_BYTES {
            return None;
        }
        let bytes = std::fs::read(&full).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.root.join(dir)) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect()
    }
}
