//! Who asks: the session header, the `user` field and the API key every request to a model
//! server carries.
//!
//! A shared server (a llama-server with several slots, or vLLM replicas behind a router) is
//! asked by many people at once. A router with session or prefix affinity sends a person back
//! to the replica that holds their prompt when each request says whose it is, so every request
//! carries a session header (`X-Session-Id` unless configured) stable per person and workspace,
//! and OpenAI-compatible requests a `user` field, a digest of account and machine unless
//! configured. Neither carries a name: both are digests. Slots are never pinned (llama.cpp's
//! `id_slot` is for one user; on a shared server it takes a slot another person's prompt is in).
//!
//! The API key is a [`Secret`]: it is sent as a bearer token and never formatted, whether by
//! `Debug`, `Display` or serde.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::{Backend, BackendError};

/// The session header's name unless configured.
pub const DEFAULT_SESSION_HEADER: &str = "X-Session-Id";

/// A value never shown: an API key. `Debug`, `Display` and `Serialize` all give `(hidden)`;
/// only [`Secret::expose`] gives the text, for the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret, trimmed of the white space a file or a command's output ends with; `None`
    /// when nothing is left.
    pub fn new(text: &str) -> Option<Secret> {
        let text = text.trim();
        (!text.is_empty()).then(|| Secret(text.to_owned()))
    }

    /// The text itself, to send. Nothing else should call this.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(hidden)")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(hidden)")
    }
}

impl serde::Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("(hidden)")
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Secret, D::Error> {
        let text = String::deserialize(d)?;
        Secret::new(&text).ok_or_else(|| serde::de::Error::custom("an API key may not be empty"))
    }
}

/// What each request says of who asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The session header's name; empty: no header.
    pub header: String,
    /// The header's value: a digest of account, machine and workspace.
    pub session: String,
    /// The `user` field of OpenAI-compatible requests; empty: none.
    pub user: String,
}

impl Identity {
    /// The identity of `account` on `machine` working in `workspace`.
    pub fn of(account: &str, machine: &str, workspace: &Path) -> Identity {
        Identity {
            header: DEFAULT_SESSION_HEADER.to_owned(),
            session: digest(&["session", account, machine, &workspace.to_string_lossy()]),
            user: digest(&["user", account, machine]),
        }
    }

    /// This process's: the account and machine it runs on, and the workspace of its current
    /// folder (see [`workspace_root`]).
    pub fn here() -> Identity {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        Identity::of(&account(), &machine(), &workspace_root(&cwd))
    }

    /// The same person working in `workspace` (a folder the editor opened, not the folder this
    /// process runs in; see [`workspace_root`]): the session changes with the workspace, the
    /// header's name and the `user` field stay as configured.
    pub fn in_workspace(&self, workspace: &Path) -> Identity {
        let moved = Identity::of(&account(), &machine(), &workspace_root(workspace));
        Identity {
            session: moved.session,
            ..self.clone()
        }
    }

    /// Adds the session header and the key (as a bearer token) to a request.
    pub(crate) fn sign(
        &self,
        builder: reqwest::RequestBuilder,
        key: Option<&Secret>,
    ) -> reqwest::RequestBuilder {
        let mut builder = builder;
        if !self.header.is_empty() && !self.session.is_empty() {
            builder = builder.header(self.header.as_str(), self.session.as_str());
        }
        if let Some(key) = key {
            builder = builder.bearer_auth(key.expose());
        }
        builder
    }

    /// Adds the `user` field to an OpenAI-compatible body, where there is one to add.
    pub(crate) fn stamp(&self, body: &mut serde_json::Value) {
        if !self.user.is_empty()
            && let Some(body) = body.as_object_mut()
        {
            body.insert("user".to_owned(), serde_json::json!(self.user));
        }
    }
}

impl Backend {
    /// Whether others may share the server: it takes a key, or is not on this machine. Such a
    /// server's slots are never pinned (`id_slot`): a pinned slot may hold another person's
    /// prompt, or be busy with their request.
    pub fn is_shared(&self) -> bool {
        let host = self
            .endpoint
            .split("://")
            .nth(1)
            .unwrap_or_default()
            .split(['/', '?'])
            .next()
            .unwrap_or_default();
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let name = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => host.split(':').next().unwrap_or_default(),
        };
        let local = name == "localhost"
            || name
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        self.api_key.is_some() || !local
    }

    /// A request to `url` with the key and the session header.
    pub(crate) fn signed(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        self.identity.sign(builder, self.api_key.as_ref())
    }
}

/// An HTTP error as a [`BackendError`]: a 401 or 403 is [`BackendError::Unauthorized`], which
/// says how to give a key.
pub(crate) fn status_error(url: String, status: u16, body: String, key_sent: bool) -> BackendError {
    if matches!(status, 401 | 403) {
        BackendError::Unauthorized {
            url,
            status,
            body,
            key_sent,
        }
    } else {
        BackendError::Status { url, status, body }
    }
}

/// What a server that refused the request for want of a (good) key is told as.
pub(crate) fn refused(url: &str, status: u16, body: &str, key_sent: bool) -> String {
    let said = body.chars().take(200).collect::<String>();
    if key_sent {
        format!(
            "{url} answered HTTP {status} ({said}): it refused the API key sent. Check the key that api_key_file, api_key_env, api_key_command, api_key or $PILOTFISH_API_KEY gives (`pilotfish config check` says which one is used)"
        )
    } else {
        format!(
            "{url} answered HTTP {status} ({said}): the server wants an API key. Give it with api_key_file (a file outside the workspace holding the key), api_key_env (the name of a variable holding it) or api_key_command in [backend] of your configuration file, or set $PILOTFISH_API_KEY"
        )
    }
}

/// Whether `name` can be an HTTP header's name (the configured session header).
pub fn is_header_name(name: &str) -> bool {
    reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
}

/// The workspace a folder belongs to: the nearest folder at or above it with a `.git`, else
/// the folder itself. Editors start the language server in the workspace's folder.
pub fn workspace_root(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&dir)
        .to_path_buf()
}

/// The account this process runs as, by the variables shells set.
fn account() -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_default()
}

/// The machine's name: the kernel's, else the variables that carry it.
fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .or_else(|| {
            ["HOSTNAME", "COMPUTERNAME"]
                .iter()
                .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        })
        .unwrap_or_default()
}

/// The first 32 hex digits of the SHA-256 of the parts, each ended by a zero byte.
fn digest(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for p in parts {
        hash.update(p.as_bytes());
        hash.update([0]);
    }
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_is_stable_per_person_and_workspace_and_names_nobody() {
        let a = Identity::of("ana", "box1", Path::new("/src/shop"));
        assert_eq!(a, Identity::of("ana", "box1", Path::new("/src/shop")));
        assert_eq!(a.header, "X-Session-Id");
        assert_eq!(a.session.len(), 32);
        for other in [
            Identity::of("ana", "box1", Path::new("/src/blog")),
            Identity::of("bo", "box1", Path::new("/src/shop")),
            Identity::of("ana", "box2", Path::new("/src/shop")),
        ] {
            assert_ne!(a.session, other.session);
        }
        // The user field follows the person, not the workspace.
        assert_eq!(
            a.user,
            Identity::of("ana", "box1", Path::new("/src/blog")).user
        );
        assert_ne!(a.user, Identity::of("bo", "box1", Path::new("/")).user);
        assert_ne!(a.user, a.session);
        for text in [&a.session, &a.user] {
            assert!(!text.contains("ana") && !text.contains("box1"), "{text}");
        }
    }

    #[test]
    fn a_folder_inside_a_repository_is_that_repositorys_workspace() {
        let root = std::env::temp_dir().join(format!("pilotfish-identity-{}", std::process::id()));
        let inner = root.join("src/deep");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let canonical = root.canonicalize().unwrap();
        assert_eq!(workspace_root(&inner), canonical);
        assert_eq!(workspace_root(&root), canonical);
        let _ = std::fs::remove_dir_all(&root);
    }

    /// An editor's workspace gives the session, wherever the language server was started; the
    /// configured header and user field stay.
    #[test]
    fn the_session_follows_the_workspace_it_is_moved_to() {
        let root = std::env::temp_dir().join(format!("pilotfish-moved-{}", std::process::id()));
        let inner = root.join("lib");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let mut configured = Identity::here();
        configured.header = "X-Team-Session".to_owned();
        configured.user = "ana".to_owned();
        let moved = configured.in_workspace(&inner);
        let expected = Identity::of(&account(), &machine(), &root.canonicalize().unwrap());
        assert_eq!(moved.session, expected.session);
        assert_ne!(moved.session, configured.session);
        assert_eq!(
            (moved.header.as_str(), moved.user.as_str()),
            ("X-Team-Session", "ana")
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A server on another machine, or one that takes a key, may be shared: its slots are
    /// never pinned.
    #[test]
    fn a_server_elsewhere_or_behind_a_key_is_shared() {
        let at = |url: &str| {
            Backend::new(
                crate::Kind::LlamaCppInfill,
                url,
                std::time::Duration::from_secs(1),
                std::time::Duration::from_secs(1),
            )
            .unwrap()
        };
        for local in [
            "http://127.0.0.1:8080",
            "http://localhost:8080/v1",
            "http://[::1]:8080",
        ] {
            assert!(!at(local).is_shared(), "{local}");
        }
        for shared in [
            "http://10.0.0.5:8080",
            "https://llm.team.example/v1",
            "http://user@llm.lan",
        ] {
            assert!(at(shared).is_shared(), "{shared}");
        }
        let mut keyed = at("http://127.0.0.1:8080");
        keyed.api_key = Secret::new("sk-x");
        assert!(keyed.is_shared());
    }

    #[test]
    fn a_secret_is_never_formatted() {
        let key = Secret::new("  sk-team-0123456789\n").unwrap();
        assert_eq!(key.expose(), "sk-team-0123456789");
        assert_eq!(format!("{key}"), "(hidden)");
        assert_eq!(format!("{key:?}"), "(hidden)");
        assert_eq!(format!("{:?}", Some(key.clone())), "Some((hidden))");
        assert_eq!(serde_json::to_string(&key).unwrap(), "\"(hidden)\"");
        let read: Secret = serde_json::from_str("\"sk-team-0123456789\"").unwrap();
        assert_eq!(read, key);
        assert!(Secret::new(" \n").is_none());
        assert!(serde_json::from_str::<Secret>("\"\"").is_err());
    }
}
