//! How the agent's tools reach a file's text: the disk, or an editor that holds the user's
//! unsaved buffers and takes the agent's writes (ACP's `fs/*` methods). Paths given here are
//! already confined to the workspace.

use std::path::Path;

/// Reads and writes whole text files. Errors are short reasons for the model ("is a binary
/// file"); the caller names the file.
pub trait FileAccess: Send {
    /// Whether the file exists (an edit of a missing file creates it).
    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn read(&self, path: &Path) -> Result<String, String>;
    fn write(&self, path: &Path, text: &str) -> Result<(), String>;
    /// Whether what is written lands on the disk at once, so the language's own checker can
    /// look at it.
    fn on_disk(&self) -> bool {
        false
    }
}

/// Files larger than this are not read whole.
pub const READ_LIMIT: u64 = 2 << 20;

/// The disk.
#[derive(Debug, Clone, Copy, Default)]
pub struct Disk;

impl FileAccess for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        read_disk(path)
    }

    fn write(&self, path: &Path, text: &str) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("could not be created: {e}"))?;
        }
        std::fs::write(path, text).map_err(|e| format!("could not be written: {e}"))
    }

    fn on_disk(&self) -> bool {
        true
    }
}

/// A text file from the disk: not a folder, not larger than [`READ_LIMIT`], not binary, UTF-8.
pub fn read_disk(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if meta.is_dir() {
        return Err("is a folder: use list_dir".into());
    }
    if meta.len() > READ_LIMIT {
        return Err("is larger than 2 MB: search it with grep_search".into());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?;
    checked_text(bytes)
}

/// Bytes as text, refused when binary or not UTF-8.
pub fn checked_text(bytes: Vec<u8>) -> Result<String, String> {
    if bytes.contains(&0) {
        return Err("is a binary file".into());
    }
    String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_owned())
}
