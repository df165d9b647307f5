//! The files an editor would have open beside a case's file: those it imports and those that
//! import it, the most recently changed first (the order `git log` names them in), at most
//! [`MAX_OPEN`].

use std::collections::{BTreeSet, HashMap};

use syntax::Lang;

use super::Repository;

/// Open neighbours per case at most, as an editor keeps a handful of tabs.
pub const MAX_OPEN: usize = 8;

/// The repository's files as `syntax` reads them: by path, one folder at a time.
#[derive(Debug)]
pub(crate) struct Files<'a> {
    pub(crate) by_path: HashMap<&'a str, &'a str>,
}

impl<'a> Files<'a> {
    pub(crate) fn new(repo: &'a Repository) -> Files<'a> {
        Files {
            by_path: repo
                .files
                .iter()
                .map(|f| (f.path.as_str(), f.text.as_str()))
                .collect(),
        }
    }
}

impl syntax::WorkspaceFiles for Files<'_> {
    fn read(&self, path: &str) -> Option<String> {
        self.by_path.get(path).map(|t| (*t).to_owned())
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let prefix = if dir.is_empty() || dir == "." {
            String::new()
        } else {
            format!("{}/", dir.trim_end_matches('/'))
        };
        self.by_path
            .keys()
            .filter_map(|p| p.strip_prefix(prefix.as_str()))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect()
    }
}

/// Who imports whom: for each file with a grammar, the repository files it imports.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    imports: HashMap<String, BTreeSet<String>>,
    importers: HashMap<String, BTreeSet<String>>,
}

impl Graph {
    pub(crate) fn new(repo: &Repository, langs: &HashMap<&str, Lang>) -> Graph {
        let files = Files::new(repo);
        let mut graph = Graph::default();
        for file in &repo.files {
            let Some(&lang) = langs.get(file.path.as_str()) else {
                continue;
            };
            for import in syntax::imports(lang, &file.text) {
                let found = syntax::resolve_candidates(lang, &file.path, &import, &files)
                    .into_iter()
                    .find(|c| c != &file.path && files.by_path.contains_key(c.as_str()));
                if let Some(target) = found {
                    graph
                        .imports
                        .entry(file.path.clone())
                        .or_default()
                        .insert(target.clone());
                    graph
                        .importers
                        .entry(target)
                        .or_default()
                        .insert(file.path.clone());
                }
            }
        }
        graph
    }

    /// The open neighbours of `path`: imported and importing files, the most recently changed
    /// first (`recency` is the repository's files as `git log` names them, newest first; a file
    /// it does not name comes after, by path), at most [`MAX_OPEN`].
    pub(crate) fn neighbours(&self, path: &str, recency: &HashMap<&str, usize>) -> Vec<String> {
        let empty = BTreeSet::new();
        let mut all: Vec<&String> = self
            .imports
            .get(path)
            .unwrap_or(&empty)
            .union(self.importers.get(path).unwrap_or(&empty))
            .collect();
        all.sort_by_key(|p| (recency.get(p.as_str()).copied().unwrap_or(usize::MAX), *p));
        all.into_iter().take(MAX_OPEN).cloned().collect()
    }
}
