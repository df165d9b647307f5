//! The disk side of the `chat` crate's customizations: files read with sizes capped and
//! binaries and symbolic-link loops reported, and prompt files (`.github/prompts/NAME.prompt.md`)
//! used as slash commands.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use chat::files::{Entry, EntryKind, Files, FsError, text_of};

/// Customization files from disk: sizes capped, binaries and symbolic-link loops reported.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskFiles;

fn fs_error(e: &std::io::Error) -> FsError {
    match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::NotFound, _) => FsError::NotFound,
        // ELOOP: too many levels of symbolic links.
        (_, Some(40)) => FsError::SymlinkLoop,
        (std::io::ErrorKind::IsADirectory, _) => FsError::IsDirectory,
        (std::io::ErrorKind::NotADirectory, _) => FsError::NotDirectory,
        _ => FsError::Unreadable(e.to_string()),
    }
}

impl Files for DiskFiles {
    fn read_text(&self, path: &Path) -> Result<String, FsError> {
        let meta = std::fs::metadata(path).map_err(|e| fs_error(&e))?;
        if meta.is_dir() {
            return Err(FsError::IsDirectory);
        }
        if meta.len() > 1 << 20 {
            return Err(FsError::TooLarge(meta.len()));
        }
        text_of(&std::fs::read(path).map_err(|e| fs_error(&e))?)
    }

    fn list(&self, dir: &Path) -> Result<Vec<Entry>, FsError> {
        let meta = std::fs::metadata(dir).map_err(|e| fs_error(&e))?;
        if !meta.is_dir() {
            return Err(FsError::NotDirectory);
        }
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| fs_error(&e))? {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name().to_string_lossy().into_owned();
            // Follow links; one that cannot be followed is listed as a file so that reading
            // it reports why.
            let kind = match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_dir() => EntryKind::Dir,
                Ok(m) if m.is_file() => EntryKind::File,
                Ok(_) => EntryKind::Other,
                Err(e) if e.raw_os_error() == Some(40) => EntryKind::File,
                Err(_) => EntryKind::Other,
            };
            out.push(Entry { name, kind });
        }
        Ok(out)
    }
}

/// The message with a prompt file's text before it: `--prompt NAME`, or a message starting
/// with `/NAME`. Prompt files are `.github/prompts/NAME.prompt.md` in a workspace folder.
pub fn expand_prompt_file(
    folders: &[PathBuf],
    message: &str,
    named: Option<&str>,
) -> Result<String> {
    let (name, rest) = match named {
        Some(n) => (n.to_owned(), message.to_owned()),
        None => match message.strip_prefix('/') {
            Some(m)
                if m.split_whitespace()
                    .next()
                    .is_some_and(|n| !n.contains('/')) =>
            {
                let name = m.split_whitespace().next().unwrap_or_default();
                (name.to_owned(), m[name.len()..].trim_start().to_owned())
            }
            _ => return Ok(message.to_owned()),
        },
    };
    let mut available = Vec::new();
    for folder in folders {
        let dir = folder.join(".github/prompts");
        let path = dir.join(format!("{name}.prompt.md"));
        if let Ok(text) = DiskFiles.read_text(&path) {
            let body = match chat::frontmatter::split(&text) {
                Ok((_, body)) => body.trim().to_owned(),
                Err(e) => bail!(
                    "the prompt file {} has a broken header: {e}",
                    path.display()
                ),
            };
            return Ok(if rest.trim().is_empty() {
                body
            } else {
                format!("{body}\n\n{rest}")
            });
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            available.extend(entries.flatten().filter_map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .strip_suffix(".prompt.md")
                    .map(str::to_owned)
            }));
        }
    }
    available.sort();
    bail!(
        "there is no prompt file {name}.prompt.md in .github/prompts{}",
        if available.is_empty() {
            String::new()
        } else {
            format!(" (there are: {})", available.join(", "))
        }
    )
}

/// The prompt files of the folders, as slash commands: (name, description from the header).
pub fn prompt_files(folders: &[PathBuf]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder.join(".github/prompts")) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_suffix(".prompt.md") else {
                continue;
            };
            if out.iter().any(|(n, _)| n == name) {
                continue;
            }
            let description = DiskFiles
                .read_text(&entry.path())
                .ok()
                .and_then(|text| {
                    let (head, _) = chat::frontmatter::split(&text).ok()?;
                    head?.description
                })
                .unwrap_or_else(|| format!("the prompt file {file}"));
            out.push((name.to_owned(), description));
        }
    }
    out.sort();
    out
}
