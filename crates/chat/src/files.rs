//! What discovery needs from a file system, as a trait: the crate reads nothing itself. The
//! disk implementation lives with the command line; [`MemFiles`] serves tests and fuzzing.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    /// Anything else (sockets, devices, dangling links): skipped.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: EntryKind,
}

/// Why a file or folder could not be read. Each becomes a problem naming the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    #[error("does not exist")]
    NotFound,
    #[error("is a directory where a file was expected")]
    IsDirectory,
    #[error("is not a directory")]
    NotDirectory,
    #[error("is a binary file, not text")]
    Binary,
    #[error("is not UTF-8 text")]
    NotUtf8,
    #[error("is {0} bytes, more than the 1 MB a customization file may have")]
    TooLarge(u64),
    #[error("leads into a symbolic-link loop")]
    SymlinkLoop,
    #[error("cannot be read: {0}")]
    Unreadable(String),
}

/// Read access to the files customizations live in.
pub trait Files {
    /// The text of a file.
    fn read_text(&self, path: &Path) -> Result<String, FsError>;
    /// The entries of a directory, in any order.
    fn list(&self, dir: &Path) -> Result<Vec<Entry>, FsError>;
}

/// An in-memory file system: files, directories, and injected faults.
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    nodes: BTreeMap<PathBuf, Node>,
}

#[derive(Debug, Clone)]
enum Node {
    File(Vec<u8>),
    Dir,
    Fault(FsError),
}

impl MemFiles {
    pub fn new() -> MemFiles {
        MemFiles::default()
    }

    fn add_parents(&mut self, path: &Path) {
        for parent in path.ancestors().skip(1) {
            if parent.as_os_str().is_empty() {
                break;
            }
            self.nodes.entry(parent.to_path_buf()).or_insert(Node::Dir);
        }
    }

    /// Adds a file (and its folders).
    pub fn file(mut self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> MemFiles {
        let path = path.as_ref().to_path_buf();
        self.add_parents(&path);
        self.nodes
            .insert(path, Node::File(contents.as_ref().to_vec()));
        self
    }

    /// Adds an empty folder.
    pub fn dir(mut self, path: impl AsRef<Path>) -> MemFiles {
        let path = path.as_ref().to_path_buf();
        self.add_parents(&path);
        self.nodes.insert(path, Node::Dir);
        self
    }

    /// Makes reading `path` fail with `error` (it is listed as a file).
    pub fn fault(mut self, path: impl AsRef<Path>, error: FsError) -> MemFiles {
        let path = path.as_ref().to_path_buf();
        self.add_parents(&path);
        self.nodes.insert(path, Node::Fault(error));
        self
    }
}

impl Files for MemFiles {
    fn read_text(&self, path: &Path) -> Result<String, FsError> {
        match self.nodes.get(path) {
            None => Err(FsError::NotFound),
            Some(Node::Dir) => Err(FsError::IsDirectory),
            Some(Node::Fault(e)) => Err(e.clone()),
            Some(Node::File(bytes)) => text_of(bytes),
        }
    }

    fn list(&self, dir: &Path) -> Result<Vec<Entry>, FsError> {
        match self.nodes.get(dir) {
            None => return Err(FsError::NotFound),
            Some(Node::File(_)) => return Err(FsError::NotDirectory),
            Some(Node::Fault(e)) => return Err(e.clone()),
            Some(Node::Dir) => {}
        }
        Ok(self
            .nodes
            .iter()
            .filter(|(p, _)| p.parent() == Some(dir))
            .map(|(p, n)| Entry {
                name: p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                kind: match n {
                    Node::Dir => EntryKind::Dir,
                    _ => EntryKind::File,
                },
            })
            .collect())
    }
}

/// Text of a file's bytes: NUL bytes mean binary, invalid UTF-8 is refused.
pub fn text_of(bytes: &[u8]) -> Result<String, FsError> {
    if bytes.len() > 1 << 20 {
        return Err(FsError::TooLarge(bytes.len() as u64));
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(FsError::Binary);
    }
    String::from_utf8(bytes.to_vec()).map_err(|_| FsError::NotUtf8)
}
