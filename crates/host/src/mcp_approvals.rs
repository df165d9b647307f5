//! The user's word on a workspace's MCP servers. A repository's `.vscode/mcp.json` names
//! programs to run, and a cloned repository is anyone's: its servers start only once the user
//! has approved that exact definition (command, arguments, environment, folder). Answers given
//! "always" are kept in the user's own state folder (never the workspace), keyed by the
//! workspace folder, the server's name and a SHA-256 of its definition, so a changed definition
//! is asked about again. Servers an editor passes in its own session configuration are the
//! user's and need no approval; they never come here.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use mcp::ServerSpec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The user's answer about starting one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Start it this time.
    AllowOnce,
    /// Start it, and this definition from now on without asking.
    AllowAlways,
    /// Do not start it this time.
    RejectOnce,
    /// Never start this definition, and do not ask again.
    RejectAlways,
}

/// Why a server was not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// No one could be asked (no terminal, no `--yes`).
    Unasked,
    /// The user said no this time.
    Rejected,
    /// The user said never, earlier.
    RememberedRejection,
}

/// A workspace server that was not started, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    /// The command line, as shown to the user.
    pub command_line: String,
    pub why: Skip,
}

/// The outcome of settling a workspace's servers.
#[derive(Debug, Clone, Default)]
pub struct Settled {
    /// The servers the user approved (now or earlier), to start.
    pub start: Vec<ServerSpec>,
    pub skipped: Vec<Skipped>,
    /// Answers that could not be remembered (the state folder is not writable), for the user.
    pub problems: Vec<String>,
}

/// Where the answers are kept: `approvals.json` in the user's state folder.
pub fn approvals_path() -> Result<PathBuf> {
    Ok(crate::state::state_dir()?.join("mcp-approvals.json"))
}

/// The remembered answers, as kept on disk.
#[derive(Debug, Default)]
pub struct Store {
    path: Option<PathBuf>,
    entries: Vec<Entry>,
    /// Why the file could not be read; nothing is written over it then.
    unreadable: Option<String>,
}

/// One remembered answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    /// The workspace folder, as resolved (links followed).
    folder: String,
    server: String,
    /// SHA-256 of the definition ([`definition_hash`]).
    definition: String,
    /// `allow` or `reject`.
    answer: String,
    /// The command line, for a person reading the file.
    command: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    servers: Vec<Entry>,
}

impl Store {
    /// The answers in the user's state folder; none when it cannot be found.
    pub fn open() -> Store {
        match approvals_path() {
            Ok(path) => Store::at(&path),
            Err(e) => Store {
                unreadable: Some(format!("{e:#}")),
                ..Store::default()
            },
        }
    }

    /// The answers kept in `path` (none yet when it does not exist). A file that cannot be read
    /// is kept as it is: nothing is remembered over it.
    pub fn at(path: &Path) -> Store {
        let mut store = Store {
            path: Some(path.to_owned()),
            ..Store::default()
        };
        match std::fs::read_to_string(path) {
            Ok(text) => match serde_json::from_str::<File>(&text) {
                Ok(file) => store.entries = file.servers,
                Err(e) => {
                    store.unreadable = Some(format!(
                        "{} is not a valid approvals file ({e}); fix or delete it",
                        path.display()
                    ));
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                store.unreadable = Some(format!("{} cannot be read: {e}", path.display()));
            }
        }
        store
    }

    /// The remembered answer for this definition in this folder: `Some(true)` allowed,
    /// `Some(false)` rejected, `None` never answered (or answered for another definition).
    pub fn recall(&self, folder: &Path, spec: &ServerSpec) -> Option<bool> {
        let hash = definition_hash(spec, folder);
        let folder = folder.to_string_lossy();
        self.entries
            .iter()
            .find(|e| e.folder == folder && e.server == spec.name && e.definition == hash)
            .map(|e| e.answer == "allow")
    }

    /// Remembers an answer for this definition, in place of any earlier one for the server.
    pub fn remember(&mut self, folder: &Path, spec: &ServerSpec, allow: bool) -> Result<()> {
        if let Some(why) = &self.unreadable {
            anyhow::bail!("the answer was not remembered: {why}");
        }
        let Some(path) = self.path.clone() else {
            anyhow::bail!("the answer was not remembered: there is no state folder");
        };
        let entry = Entry {
            folder: folder.to_string_lossy().into_owned(),
            server: spec.name.clone(),
            definition: definition_hash(spec, folder),
            answer: if allow { "allow" } else { "reject" }.to_owned(),
            command: command_line(spec),
        };
        self.entries
            .retain(|e| !(e.folder == entry.folder && e.server == entry.server));
        self.entries.push(entry);
        let file = File {
            servers: self.entries.clone(),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .with_context(|| format!("the state folder {} cannot be made", dir.display()))?;
        // Written beside and renamed, so a crash never leaves half a file.
        let partial = path.with_extension("json.partial");
        let text = serde_json::to_string_pretty(&file)?;
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, &path))
            .with_context(|| format!("{} cannot be written", path.display()))?;
        Ok(())
    }
}

/// SHA-256 of what a server runs: command, arguments, environment (sorted) and folder; for a
/// streamable HTTP server, its address and headers (sorted) and the folder.
pub fn definition_hash(spec: &ServerSpec, folder: &Path) -> String {
    let sorted = |pairs: &[(String, String)]| -> BTreeMap<String, String> {
        pairs.iter().cloned().collect()
    };
    let mut definition = serde_json::json!({
        "command": spec.command,
        "args": spec.args,
        "env": sorted(&spec.env),
        "cwd": folder.to_string_lossy(),
    });
    // Stdio definitions hash as they always did, so earlier answers still hold.
    if let Some(url) = &spec.url {
        definition["url"] = serde_json::json!(url);
        definition["headers"] = serde_json::json!(sorted(&spec.headers));
    }
    Sha256::digest(definition.to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A server's command line as a shell would read it, variables first: what the user approves.
/// For a streamable HTTP server, its address and the names of the headers sent (their values
/// may be keys).
pub fn command_line(spec: &ServerSpec) -> String {
    if let Some(url) = &spec.url {
        let names: Vec<&str> = spec.headers.iter().map(|(k, _)| k.as_str()).collect();
        return if names.is_empty() {
            format!("HTTP {url}")
        } else {
            format!("HTTP {url} (headers: {})", names.join(", "))
        };
    }
    let mut words: Vec<String> = spec
        .env
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(v)))
        .collect();
    words.push(quote(&spec.command));
    words.extend(spec.args.iter().map(|a| quote(a)));
    words.join(" ")
}

/// A word quoted for a POSIX shell when it needs it.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Settles which of a workspace's servers may start: a remembered answer for the exact
/// definition is used; otherwise `ask` is asked (with the command line), and `None` from it
/// means no one could be asked, so the server does not start. "Always" answers are remembered
/// in `store`.
pub fn settle(
    folder: &Path,
    specs: Vec<ServerSpec>,
    store: &mut Store,
    ask: &mut dyn FnMut(&ServerSpec, &str) -> Option<Answer>,
) -> Settled {
    let mut out = Settled::default();
    for spec in specs {
        let line = command_line(&spec);
        let skip = |why| Skipped {
            name: spec.name.clone(),
            command_line: line.clone(),
            why,
        };
        match store.recall(folder, &spec) {
            Some(true) => {
                out.start.push(spec);
                continue;
            }
            Some(false) => {
                out.skipped.push(skip(Skip::RememberedRejection));
                continue;
            }
            None => {}
        }
        let answer = ask(&spec, &line);
        let remember = match answer {
            Some(Answer::AllowAlways) => Some(true),
            Some(Answer::RejectAlways) => Some(false),
            _ => None,
        };
        if let Some(allow) = remember
            && let Err(e) = store.remember(folder, &spec, allow)
        {
            out.problems
                .push(format!("MCP server `{}`: {e:#}", spec.name));
        }
        match answer {
            Some(Answer::AllowOnce | Answer::AllowAlways) => out.start.push(spec),
            Some(Answer::RejectOnce | Answer::RejectAlways) => {
                out.skipped.push(skip(Skip::Rejected));
            }
            None => out.skipped.push(skip(Skip::Unasked)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerSpec {
        ServerSpec {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|a| (*a).into()).collect(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            ..ServerSpec::default()
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("pilotfish-approvals-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("mcp-approvals.json")
    }

    /// Every part of a definition changes its hash; the order of the environment does not.
    #[test]
    fn a_changed_definition_is_another_definition() {
        let ws = Path::new("/ws");
        let base = spec("s", "node", &["a.js"], &[("A", "1"), ("B", "2")]);
        let same = spec("s", "node", &["a.js"], &[("B", "2"), ("A", "1")]);
        assert_eq!(definition_hash(&base, ws), definition_hash(&same, ws));
        let changed = [
            spec("s", "nodejs", &["a.js"], &[("A", "1"), ("B", "2")]),
            spec("s", "node", &["b.js"], &[("A", "1"), ("B", "2")]),
            spec("s", "node", &["a.js", "x"], &[("A", "1"), ("B", "2")]),
            spec("s", "node", &["a.js"], &[("A", "1"), ("B", "3")]),
            spec("s", "node", &["a.js"], &[("A", "1")]),
        ];
        for other in &changed {
            assert_ne!(
                definition_hash(&base, ws),
                definition_hash(other, ws),
                "{other:?}"
            );
        }
        assert_ne!(
            definition_hash(&base, ws),
            definition_hash(&base, Path::new("/other"))
        );
        // Arguments joined differently are different definitions.
        assert_ne!(
            definition_hash(&spec("s", "sh", &["-c", "a b"], &[]), ws),
            definition_hash(&spec("s", "sh", &["-c", "a", "b"], &[]), ws)
        );
    }

    /// "Always" answers outlive the store (a new process reads them), apply to that folder,
    /// server and definition only, and the latest answer for a server replaces the earlier.
    #[test]
    fn always_answers_are_remembered_per_folder_server_and_definition() {
        let path = temp("remember");
        let ws = Path::new("/ws");
        let server = spec("s", "sh", &["-c", "touch PWNED"], &[]);
        let mut store = Store::at(&path);
        let mut asked = Vec::new();
        let settled = settle(ws, vec![server.clone()], &mut store, &mut |s, line| {
            asked.push((s.name.clone(), line.to_owned()));
            Some(Answer::AllowAlways)
        });
        assert_eq!(asked, [("s".to_owned(), "sh -c 'touch PWNED'".to_owned())]);
        assert_eq!(settled.start, std::slice::from_ref(&server));
        assert!(settled.problems.is_empty(), "{:?}", settled.problems);
        let again = Store::at(&path);
        assert_eq!(again.recall(ws, &server), Some(true));
        assert_eq!(again.recall(Path::new("/elsewhere"), &server), None);
        let changed = spec("s", "sh", &["-c", "touch OTHER"], &[]);
        assert_eq!(again.recall(ws, &changed), None);
        let renamed = spec("t", "sh", &["-c", "touch PWNED"], &[]);
        assert_eq!(again.recall(ws, &renamed), None);
        // A remembered answer is used without asking.
        let mut store = again;
        let settled = settle(ws, vec![server.clone()], &mut store, &mut |_, _| {
            panic!("asked about a remembered definition")
        });
        assert_eq!(settled.start, std::slice::from_ref(&server));
        // Never, for the changed definition, replaces the earlier answer for the server.
        let settled = settle(ws, vec![changed.clone()], &mut store, &mut |_, _| {
            Some(Answer::RejectAlways)
        });
        assert!(settled.start.is_empty());
        let store = Store::at(&path);
        assert_eq!(store.recall(ws, &changed), Some(false));
        assert_eq!(store.recall(ws, &server), None);
    }

    /// Once answers are not remembered; no one to ask starts nothing; a remembered rejection
    /// is not asked again.
    #[test]
    fn once_answers_and_no_answer() {
        let path = temp("once");
        let ws = Path::new("/ws");
        let a = spec("a", "a", &[], &[]);
        let b = spec("b", "b", &[], &[]);
        let c = spec("c", "c", &[], &[]);
        let mut store = Store::at(&path);
        let mut answers = vec![None, Some(Answer::RejectOnce), Some(Answer::AllowOnce)];
        let settled = settle(
            ws,
            vec![a.clone(), b.clone(), c.clone()],
            &mut store,
            &mut |_, _| answers.remove(0),
        );
        assert_eq!(settled.start, std::slice::from_ref(&c));
        let why: Vec<Skip> = settled.skipped.iter().map(|s| s.why).collect();
        assert_eq!(why, [Skip::Unasked, Skip::Rejected]);
        assert!(!path.exists(), "nothing was said always");
        store.remember(ws, &a, false).unwrap();
        let settled = settle(ws, vec![a], &mut Store::at(&path), &mut |_, _| {
            panic!("asked about a rejected definition")
        });
        assert_eq!(settled.skipped[0].why, Skip::RememberedRejection);
    }

    /// A file that is not an approvals file is neither trusted nor overwritten.
    #[test]
    fn an_unreadable_file_is_kept() {
        let path = temp("bad");
        std::fs::write(&path, "not json").unwrap();
        let ws = Path::new("/ws");
        let a = spec("a", "a", &[], &[]);
        let mut store = Store::at(&path);
        assert_eq!(store.recall(ws, &a), None);
        let settled = settle(ws, vec![a], &mut store, &mut |_, _| {
            Some(Answer::AllowAlways)
        });
        assert_eq!(settled.start.len(), 1, "allowed this time");
        assert!(
            settled.problems[0].contains("not a valid approvals file"),
            "{:?}",
            settled.problems
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json");
    }

    #[test]
    fn command_lines_are_quoted_as_a_shell_reads_them() {
        let cases: &[(ServerSpec, &str)] = &[
            (
                spec("s", "node", &["server.js", "stdio"], &[]),
                "node server.js stdio",
            ),
            (
                spec("s", "sh", &["-c", "touch PWNED"], &[]),
                "sh -c 'touch PWNED'",
            ),
            (
                spec("s", "x", &["it's"], &[("K", "a b")]),
                "K='a b' x 'it'\\''s'",
            ),
            (spec("s", "x", &[""], &[]), "x ''"),
        ];
        for (spec, want) in cases {
            assert_eq!(command_line(spec), *want);
        }
    }
}
