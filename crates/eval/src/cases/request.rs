//! A case as the completion pipeline sees it: the editor state (the contract's request) and
//! the workspace's files, with the case's own file as the editor has it, so that no strategy
//! can read the expected text from disk.

use prompt::request::{DocumentJson, Options, Position, RequestJson};

use super::{Case, Repository, neighbours::Files};

/// The repository's files for one case: its own file with the expected text taken out.
#[derive(Debug)]
pub struct CaseFiles<'a> {
    files: Files<'a>,
}

impl<'a> CaseFiles<'a> {
    pub fn new(repo: &'a Repository, case: &'a Case) -> CaseFiles<'a> {
        let mut files = Files::new(repo);
        files
            .by_path
            .insert(case.file.as_str(), case.document.as_str());
        CaseFiles { files }
    }
}

impl syntax::WorkspaceFiles for CaseFiles<'_> {
    fn read(&self, path: &str) -> Option<String> {
        self.files.read(path)
    }

    fn list(&self, dir: &str) -> Vec<String> {
        self.files.list(dir)
    }
}

impl Case {
    /// The request an editor would send at the case's cursor, with the repository at `root`
    /// (an absolute path). `with_neighbours: false` is the `none` strategy's: the current
    /// file alone.
    pub fn request(&self, repo: &Repository, root: &str, with_neighbours: bool) -> RequestJson {
        let root = root.trim_end_matches('/');
        let absolute = |p: &str| format!("{root}/{p}");
        let language =
            |p: &str| Some(languages::detect_language_from_path(p, "plaintext").into_owned());
        let open_documents = if with_neighbours {
            self.open
                .iter()
                .filter_map(|p| repo.files.iter().find(|f| &f.path == p))
                .map(|f| DocumentJson {
                    path: absolute(&f.path),
                    language_id: language(&f.path),
                    text: f.text.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        RequestJson {
            workspace_root: Some(root.to_owned()),
            document: DocumentJson {
                path: absolute(&self.file),
                language_id: language(&self.file),
                text: self.document.clone(),
            },
            position: Position {
                line: self.line - 1,
                character: self.column - 1,
            },
            open_documents,
            recent_edits: vec![],
            diagnostics: vec![],
            traits: vec![],
            code_snippets: vec![],
            tooltip_signature: None,
            options: Options::default(),
        }
    }

    /// Whether the case is honest: its expected text occurs nowhere else in its file (a case
    /// with `copy_from` is counted apart).
    pub fn honest(&self) -> bool {
        self.copy_from.is_none()
    }
}
