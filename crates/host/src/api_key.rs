//! The API key of a model server: where it is read from, in which order, and that it never
//! comes from the workspace. The key is a [`Secret`]: it is sent as a bearer token and shown
//! nowhere (`config check` says where it came from and shows `(hidden)`).
//!
//! The first of these that is set gives the key: `api_key_env` (the name of a variable that
//! holds it), `api_key_file` (a file that holds it), `api_key_command` (a command that prints
//! it), `api_key` (the key itself, in the user's configuration file), and, when none of them
//! is set, `$PILOTFISH_API_KEY`. A key in a file inside the workspace (the configuration file
//! or `api_key_file`) is refused: a workspace is shared and committed, a key is not.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

pub use backends::Secret;

/// The variable that gives the key when no setting does.
pub const KEY_VAR: &str = "PILOTFISH_API_KEY";

/// The settings of one section (`[backend]` or `[chat]`) that give a key.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeySettings<'a> {
    pub env: Option<&'a str>,
    pub file: Option<&'a Path>,
    pub command: Option<&'a str>,
    pub inline: Option<&'a Secret>,
}

impl KeySettings<'_> {
    /// Whether any setting gives a key (else `$PILOTFISH_API_KEY` may).
    pub fn any(&self) -> bool {
        self.env.is_some() || self.file.is_some() || self.command.is_some() || self.inline.is_some()
    }
}

/// Where a key came from, in words for `config check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `api_key_env`: the variable named.
    Env(String),
    /// `api_key_file`: the file.
    File(PathBuf),
    /// `api_key_command`: the command.
    Command(String),
    /// `api_key` in the configuration file.
    Inline,
    /// `$PILOTFISH_API_KEY`.
    Variable,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Env(var) => write!(f, "api_key_env (${var})"),
            Source::File(path) => write!(f, "api_key_file ({})", path.display()),
            Source::Command(command) => write!(f, "api_key_command (`{command}`)"),
            Source::Inline => f.write_str("api_key in the configuration file"),
            Source::Variable => write!(f, "${KEY_VAR}"),
        }
    }
}

/// A key and where it came from.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub secret: Secret,
    pub source: Source,
}

/// The key the settings give, else `$PILOTFISH_API_KEY`'s, else none. `workspace` is the
/// workspace's root: a key file inside it is refused.
pub fn resolve(settings: KeySettings, workspace: &Path) -> Result<Option<ApiKey>> {
    let key = |secret: Option<Secret>, source: Source, empty: &str| match secret {
        Some(secret) => Ok(Some(ApiKey { secret, source })),
        None => bail!("{empty}"),
    };
    if let Some(var) = settings.env {
        let value = std::env::var(var).unwrap_or_default();
        return key(
            Secret::new(&value),
            Source::Env(var.to_owned()),
            &format!("api_key_env names {var}, which is not set in the environment"),
        );
    }
    if let Some(path) = settings.file {
        refuse_in_workspace(path, "api_key_file", workspace)?;
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "could not read api_key_file {}: give the path of a file that holds the key",
                path.display()
            )
        })?;
        return key(
            Secret::new(&text),
            Source::File(path.to_owned()),
            &format!("api_key_file {} is empty", path.display()),
        );
    }
    if let Some(command) = settings.command {
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .stderr(std::process::Stdio::inherit())
            .output()
            .with_context(|| format!("could not run api_key_command `{command}`"))?;
        if !out.status.success() {
            bail!("api_key_command `{command}` failed ({})", out.status);
        }
        let text = String::from_utf8(out.stdout)
            .context("api_key_command printed something that is not text")?;
        return key(
            Secret::new(&text),
            Source::Command(command.to_owned()),
            &format!("api_key_command `{command}` printed nothing"),
        );
    }
    if let Some(secret) = settings.inline {
        return Ok(Some(ApiKey {
            secret: secret.clone(),
            source: Source::Inline,
        }));
    }
    Ok(std::env::var(KEY_VAR)
        .ok()
        .and_then(|v| Secret::new(&v))
        .map(|secret| ApiKey {
            secret,
            source: Source::Variable,
        }))
}

/// Refuses a file that holds a key (`what`: the setting that names it) inside the workspace.
/// Where the workspace is the home folder itself (a home kept in git), a warning is printed
/// instead: the user's own configuration lives there.
pub fn refuse_in_workspace(path: &Path, what: &str, workspace: &Path) -> Result<()> {
    let full = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let root = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    if !full.starts_with(&root) {
        return Ok(());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let home = home.map(|h| h.canonicalize().unwrap_or(h));
    let message = format!(
        "{what} {} is inside the workspace {}, which others share and commit: keep the key outside it (api_key_file in your own configuration, such as ~/.config/pilotfish/api-key, or $PILOTFISH_API_KEY)",
        path.display(),
        root.display()
    );
    if home.as_deref() == Some(root.as_path()) {
        eprintln!("pilotfish: warning: {message}");
        return Ok(());
    }
    bail!("{message}")
}

/// A key file named in the configuration file at `p` means the same wherever pilotfish runs:
/// `~/` is the home folder, a relative path is relative to the file. A key written in a
/// configuration file inside the workspace is refused.
pub(crate) fn settle_file(p: &Path, file: &mut Option<PathBuf>, inline: bool) -> Result<()> {
    if let Some(f) = file.as_mut() {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if let (Ok(rest), Some(home)) = (f.strip_prefix("~"), home) {
            *f = home.join(rest);
        } else if f.is_relative() {
            *f = p.parent().unwrap_or(Path::new(".")).join(&f);
        }
    }
    if inline {
        let workspace = current_workspace();
        refuse_in_workspace(p, "the configuration file with api_key", &workspace)?;
    }
    Ok(())
}

/// The workspace of the current folder (see [`backends::identity::workspace_root`]).
pub fn current_workspace() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    backends::identity::workspace_root(&cwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir()
            .join(format!("pilotfish-api-key-{}", std::process::id()))
            .join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// One test for all the environment's variables: tests run in threads of one process.
    #[test]
    fn the_first_setting_given_wins_and_the_variable_comes_last() {
        let home = dir("precedence");
        let file = home.join("key");
        std::fs::write(&file, "from-file\n").unwrap();
        let inline = Secret::new("from-config").unwrap();
        let elsewhere = dir("workspace");
        // SAFETY: no other test of this crate reads these variables.
        unsafe {
            std::env::set_var("PILOTFISH_TEST_KEY_VAR", "from-env");
            std::env::set_var(KEY_VAR, "from-pilotfish-var");
        }
        let all = KeySettings {
            env: Some("PILOTFISH_TEST_KEY_VAR"),
            file: Some(&file),
            command: Some("echo from-command"),
            inline: Some(&inline),
        };
        let said = |s: KeySettings| {
            let key = resolve(s, &elsewhere).unwrap().unwrap();
            (key.secret.expose().to_owned(), key.source)
        };
        let (text, source) = said(all);
        assert_eq!(
            (text.as_str(), source),
            ("from-env", Source::Env("PILOTFISH_TEST_KEY_VAR".to_owned()))
        );
        let no_env = KeySettings { env: None, ..all };
        assert_eq!(
            said(no_env),
            ("from-file".to_owned(), Source::File(file.clone()))
        );
        let no_file = KeySettings {
            file: None,
            ..no_env
        };
        assert_eq!(said(no_file).0, "from-command");
        let no_command = KeySettings {
            command: None,
            ..no_file
        };
        assert_eq!(said(no_command), ("from-config".to_owned(), Source::Inline));
        assert_eq!(
            said(KeySettings::default()),
            ("from-pilotfish-var".to_owned(), Source::Variable)
        );
        // A variable named but unset is an error, not a fall-through to the next setting.
        let unset = KeySettings {
            env: Some("PILOTFISH_TEST_KEY_UNSET"),
            ..all
        };
        let error = resolve(unset, &elsewhere).unwrap_err().to_string();
        assert!(error.contains("PILOTFISH_TEST_KEY_UNSET"), "{error}");
        // SAFETY: as above.
        unsafe { std::env::remove_var(KEY_VAR) };
        assert!(
            resolve(KeySettings::default(), &elsewhere)
                .unwrap()
                .is_none()
        );
        // Where a key came from is said; the key never is.
        let shown = format!(
            "{:?} {}",
            resolve(no_env, &elsewhere).unwrap(),
            Source::Inline
        );
        assert!(!shown.contains("from-file"), "{shown}");
    }

    #[test]
    fn a_key_file_inside_the_workspace_is_refused() {
        let workspace = dir("shared-repo");
        let file = workspace.join(".pilotfish-key");
        std::fs::write(&file, "sk-in-the-repo").unwrap();
        let settings = KeySettings {
            file: Some(&file),
            ..KeySettings::default()
        };
        let error = format!("{:#}", resolve(settings, &workspace).unwrap_err());
        assert!(
            error.contains("inside the workspace") && error.contains("api_key_file"),
            "{error}"
        );
        assert!(!error.contains("sk-in-the-repo"), "{error}");
        let outside = dir("outside");
        assert!(resolve(settings, &outside).unwrap().is_some());
    }
}
