//! `eval`'s cases, scores, intervals and report from the outside: fixture repositories in,
//! cases out; properties over generated repositories and over this workspace's own code.

mod cases;
mod properties;
mod report;

use eval::{Repository, SourceFile};

/// A repository of `(path, text)` files, changed most recently in the order given.
pub(crate) fn repository(files: &[(&str, &str)]) -> Repository {
    Repository {
        files: files
            .iter()
            .map(|(p, t)| SourceFile {
                path: (*p).to_owned(),
                text: (*t).to_owned(),
            })
            .collect(),
        recency: files.iter().map(|(p, _)| (*p).to_owned()).collect(),
    }
}

/// The line of `text` (1-based).
pub(crate) fn line_of(text: &str, line: usize) -> &str {
    text.split('\n').nth(line - 1).unwrap_or_default()
}
