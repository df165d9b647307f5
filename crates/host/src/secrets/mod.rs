//! The user's secrets, kept from the model by one list: credential folders and files in the
//! home folder (hidden from commands by the sandbox, read as absent by the agent's tools), the
//! workspace's secret files (never read by the agent's tools), and the values a workspace's
//! `.env` defines (replaced in command output). Defaults below; `[agent] secrets` adds entries
//! and `[agent] not_secrets` removes them. Git-ignored files the agent may read only after a
//! yes are remembered in `ignored` ([`ignored::Store`]).

pub mod ignored;
mod redact;

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

pub use redact::Redactor;

/// Credential folders and files under the home folder.
pub const DEFAULT_CREDENTIALS: &[&str] = &[
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gh",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.kube",
    "~/.azure",
    "~/.config/gcloud",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.password-store",
    "~/.vault-token",
    "~/.local/share/keyrings",
];

/// The workspace's secret files, in gitignore syntax (a `!` line keeps a file readable).
pub const DEFAULT_WORKSPACE_SECRETS: &[&str] = &[
    ".env",
    ".env.*",
    "!*.example",
    "!*.sample",
    "*.pem",
    "*.key",
];

/// Words that mark an environment variable as a secret (`OPENAI_API_KEY`, `GITHUB_TOKEN`,
/// `SSH_AUTH_SOCK`): the sandbox leaves such variables out of a command's environment.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
    "COOKIE",
    "SESSION",
];

/// Whether an environment variable's name says it holds a secret: one of its `_`-separated
/// words is one of [`SECRET_WORDS`] (`GIT_AUTHOR_NAME` is not; `NPM_TOKEN` is).
pub fn is_secret_variable(name: &str) -> bool {
    name.to_ascii_uppercase()
        .split('_')
        .any(|word| SECRET_WORDS.contains(&word))
}

/// The secrets of one workspace for one user.
#[derive(Debug, Clone)]
pub struct Secrets {
    root: PathBuf,
    credentials: Vec<PathBuf>,
    /// The same folders and files with links followed, for matching resolved paths.
    credentials_real: Vec<PathBuf>,
    workspace: Gitignore,
}

impl Secrets {
    /// The list for the workspace at `root`: the defaults, plus `extra` (a `~/` or absolute
    /// entry names a credential, anything else a workspace pattern), less `not_secrets` (entries
    /// spelled as in the list).
    pub fn new(root: &Path, extra: &[String], not_secrets: &[String]) -> Secrets {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let entries = DEFAULT_CREDENTIALS
            .iter()
            .chain(DEFAULT_WORKSPACE_SECRETS)
            .map(|s| s.to_string())
            .chain(extra.iter().cloned())
            .filter(|e| !not_secrets.iter().any(|n| n.trim() == e.trim()));
        let mut credentials = Vec::new();
        let mut builder = GitignoreBuilder::new(root);
        for entry in entries {
            let entry = entry.trim();
            if let Some(rest) = entry.strip_prefix("~/") {
                if let Some(home) = &home {
                    credentials.push(home.join(rest));
                }
            } else if Path::new(entry).is_absolute() {
                credentials.push(PathBuf::from(entry));
            } else if !entry.is_empty() {
                // A pattern that does not parse is left out rather than failing the run.
                let _ = builder.add_line(None, entry);
            }
        }
        let credentials_real = credentials
            .iter()
            .filter_map(|c| c.canonicalize().ok())
            .collect();
        Secrets {
            root: root.to_path_buf(),
            credentials,
            credentials_real,
            workspace: builder.build().unwrap_or_else(|_| Gitignore::empty()),
        }
    }

    /// The credential folders and files, as written (the sandbox hides them and their link
    /// targets).
    pub fn credentials(&self) -> &[PathBuf] {
        &self.credentials
    }

    /// Whether a resolved (links followed) path is, or is inside, a credential.
    pub fn is_credential(&self, real: &Path) -> bool {
        self.credentials
            .iter()
            .chain(&self.credentials_real)
            .any(|c| real.starts_with(c))
    }

    /// Whether a resolved path inside the workspace is one of its secret files.
    pub fn is_workspace_secret(&self, real: &Path) -> bool {
        let Ok(rel) = real.strip_prefix(&self.root) else {
            return false;
        };
        self.workspace
            .matched_path_or_any_parents(rel, real.is_dir())
            .is_ignore()
    }

    /// The redactor of the workspace's `.env` values, read now.
    pub fn redactor(&self) -> Redactor {
        Redactor::load(&self.root, self)
    }
}

#[cfg(test)]
mod tests;
