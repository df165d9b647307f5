//! Saved agent conversations: each one a file under the user's state folder
//! (`agent-sessions/ID.json`, never in the workspace) with its messages exactly as they were sent,
//! the calls' outcomes and the files it touched, plus one small listing file (`index.json`) so
//! that listing the conversations of a workspace reads one file, not all of them. Old
//! conversations are pruned by age and count (`[sessions]`).

use std::{
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use agent::conversation::Message;
use serde::{Deserialize, Serialize};

/// The listing file's name in the store's folder.
const INDEX: &str = "index.json";
/// A title is the start of the first prompt, cut to this many characters.
const TITLE_CHARS: usize = 80;

/// `[sessions]`: how long saved conversations are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Conversations not continued for this many days are removed.
    pub max_age_days: u64,
    /// At most this many conversations are kept; the least recently continued go first.
    pub max_count: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_age_days: 30,
            max_count: 200,
        }
    }
}

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NoFolder(String),
    #[error("`{0}` is not a session id (ids use letters, digits, `-` and `_`)")]
    BadId(String),
    #[error("could not {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the saved session {} is damaged ({why}); remove it to be rid of it", path.display())]
    Damaged { path: PathBuf, why: String },
}

/// One conversation as the listing file has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub id: String,
    /// The workspace (absolute).
    pub cwd: String,
    pub title: String,
    /// Seconds since the Unix epoch.
    pub created: u64,
    pub updated: u64,
}

impl Summary {
    /// `updated` as ISO 8601 (UTC), as ACP's `updatedAt` wants it.
    pub fn updated_iso(&self) -> String {
        iso8601(self.updated)
    }
}

/// Where a user's prompt starts in the messages, with the text the user typed (the message
/// itself may carry the workspace's context around it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub at: usize,
    pub text: String,
}

/// A whole conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub id: String,
    pub cwd: String,
    pub title: String,
    pub created: u64,
    pub updated: u64,
    /// The messages exactly as the model was last sent them (and its last answer).
    pub messages: Vec<Message>,
    /// The user's prompts, in order.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// The ids of the tool calls that failed (the others completed).
    #[serde(default)]
    pub failed_calls: Vec<String>,
    /// The files the conversation's edits touched (absolute).
    #[serde(default)]
    pub touched: Vec<String>,
    /// The session's choices when it was saved: `mode`, `model`, `tools`.
    #[serde(default)]
    pub choices: std::collections::BTreeMap<String, String>,
}

impl Saved {
    /// A new conversation in `cwd`, started now.
    pub fn new(id: &str, cwd: &Path) -> Saved {
        let now = now();
        Saved {
            id: id.to_owned(),
            cwd: cwd.to_string_lossy().into_owned(),
            created: now,
            updated: now,
            ..Saved::default()
        }
    }

    /// Notes a prompt the user typed, which starts at message `at`; the first names the
    /// conversation.
    pub fn prompted(&mut self, at: usize, text: &str) {
        if self.title.is_empty() {
            let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            self.title = if line.chars().count() > TITLE_CHARS {
                format!("{}…", line.chars().take(TITLE_CHARS).collect::<String>())
            } else {
                line
            };
        }
        self.prompts.push(Prompt {
            at,
            text: text.to_owned(),
        });
    }

    fn summary(&self) -> Summary {
        Summary {
            id: self.id.clone(),
            cwd: self.cwd.clone(),
            title: self.title.clone(),
            created: self.created,
            updated: self.updated,
        }
    }
}

/// The folder of saved conversations.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    limits: Limits,
}

impl Store {
    /// The user's store: `agent-sessions` in pilotfish's state folder.
    pub fn open(limits: Limits) -> Result<Store, StoreError> {
        let state =
            crate::state::state_dir().map_err(|e| StoreError::NoFolder(format!("{e:#}")))?;
        Ok(Store::at(state.join("agent-sessions"), limits))
    }

    /// A store in `dir` (tests and benchmarks).
    pub fn at(dir: PathBuf, limits: Limits) -> Store {
        Store { dir, limits }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, id: &str) -> Result<PathBuf, StoreError> {
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(StoreError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// Saves a conversation (its `updated` set to now), updates the listing and prunes.
    pub fn save(&self, saved: &mut Saved) -> Result<(), StoreError> {
        saved.updated = now().max(saved.created);
        let path = self.file(&saved.id)?;
        let text = serde_json::to_string(saved).map_err(|e| StoreError::Damaged {
            path: path.clone(),
            why: e.to_string(),
        })?;
        write_whole(&path, &text)?;
        let _lock = self.lock_index();
        let mut index = self.read_index()?;
        index.retain(|s| s.id != saved.id);
        index.push(saved.summary());
        self.prune(&mut index);
        self.write_index(&index)
    }

    /// Holds the listing for one read-change-write, against this process's other threads and
    /// other processes (an advisory lock on `index.lock`, released when dropped).
    fn lock_index(&self) -> Option<(std::sync::MutexGuard<'static, ()>, std::fs::File)> {
        static IN_PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let guard = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::fs::create_dir_all(&self.dir);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("index.lock"))
            .ok()?;
        // SAFETY: flock on a file descriptor this function owns; the lock ends with the file.
        unsafe {
            libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX);
        }
        Some((guard, file))
    }

    /// A saved conversation, if there is one with this id.
    pub fn load(&self, id: &str) -> Result<Option<Saved>, StoreError> {
        let path = self.file(id)?;
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Io {
                    what: "read",
                    path,
                    source,
                });
            }
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Damaged {
                path,
                why: e.to_string(),
            })
    }

    /// Removes a conversation.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let path = self.file(id)?;
        let existed = std::fs::remove_file(&path).is_ok();
        let _lock = self.lock_index();
        let mut index = self.read_index()?;
        index.retain(|s| s.id != id);
        self.write_index(&index)?;
        Ok(existed)
    }

    /// The conversations (of the workspace `cwd`, or all), the most recently continued first,
    /// from the listing file alone.
    pub fn list(&self, cwd: Option<&Path>) -> Result<Vec<Summary>, StoreError> {
        let mut all = self.read_index()?;
        if let Some(cwd) = cwd {
            let cwd = cwd.to_string_lossy();
            all.retain(|s| s.cwd == cwd);
        }
        all.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        Ok(all)
    }

    /// The same list found by reading every saved conversation: what the listing file saves
    /// (kept for the benchmark, and to rebuild a lost listing).
    pub fn list_by_reading(&self, cwd: Option<&Path>) -> Result<Vec<Summary>, StoreError> {
        let mut all = Vec::new();
        for id in self.ids()? {
            if let Ok(Some(saved)) = self.load(&id) {
                all.push(saved.summary());
            }
        }
        if let Some(cwd) = cwd {
            let cwd = cwd.to_string_lossy();
            all.retain(|s| s.cwd == cwd);
        }
        all.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        Ok(all)
    }

    /// The ids of the conversation files in the folder.
    fn ids(&self) -> Result<Vec<String>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    what: "list",
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        Ok(entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".json")?;
                (name != INDEX && !id.contains('.')).then(|| id.to_owned())
            })
            .collect())
    }

    /// Drops (from `index` and the disk) what is too old, then the least recently continued
    /// beyond the count.
    fn prune(&self, index: &mut Vec<Summary>) {
        let oldest = now().saturating_sub(self.limits.max_age_days.saturating_mul(86_400));
        index.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        let mut kept = 0;
        index.retain(|s| {
            let keep = s.updated >= oldest && kept < self.limits.max_count;
            if keep {
                kept += 1;
            } else if let Ok(path) = self.file(&s.id) {
                let _ = std::fs::remove_file(path);
            }
            keep
        });
    }

    /// The listing; rebuilt from the files when it is missing or damaged.
    fn read_index(&self) -> Result<Vec<Summary>, StoreError> {
        match std::fs::read_to_string(self.dir.join(INDEX)) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(index) => Ok(index),
                Err(_) => self.list_by_reading(None),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => self.list_by_reading(None),
            Err(source) => Err(StoreError::Io {
                what: "read",
                path: self.dir.join(INDEX),
                source,
            }),
        }
    }

    fn write_index(&self, index: &[Summary]) -> Result<(), StoreError> {
        let text = serde_json::to_string(index).unwrap_or_else(|_| "[]".into());
        write_whole(&self.dir.join(INDEX), &text)
    }
}

/// Writes a file whole: a new file renamed over the old, so a crash never leaves half of one.
fn write_whole(path: &Path, text: &str) -> Result<(), StoreError> {
    let io = |what, source| StoreError::Io {
        what,
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io("create the folder of", e))?;
    }
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| io("write", e))?;
    std::fs::rename(&tmp, path).map_err(|e| io("write", e))
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn iso8601(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str, limits: Limits) -> Store {
        let dir =
            std::env::temp_dir().join(format!("pilotfish-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Store::at(dir, limits)
    }

    #[test]
    fn a_saved_conversation_is_listed_and_loaded_as_it_was() {
        let s = store("roundtrip", Limits::default());
        let mut saved = Saved::new("a-1", Path::new("/w"));
        saved.messages = vec![Message::new("system", "s"), Message::new("user", "hi")];
        saved.prompted(1, "hi there");
        s.save(&mut saved).unwrap();
        let listed = s.list(Some(Path::new("/w"))).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].title, "hi there");
        assert!(s.list(Some(Path::new("/other"))).unwrap().is_empty());
        assert_eq!(s.load("a-1").unwrap().unwrap(), saved);
        assert_eq!(s.list(None).unwrap(), s.list_by_reading(None).unwrap());
        assert!(matches!(s.load("../x"), Err(StoreError::BadId(_))));
        assert!(s.delete("a-1").unwrap());
        assert!(s.list(None).unwrap().is_empty());
    }

    #[test]
    fn the_least_recently_continued_go_beyond_the_count() {
        let s = store(
            "count",
            Limits {
                max_age_days: 30,
                max_count: 2,
            },
        );
        for (i, id) in ["old", "mid", "new"].iter().enumerate() {
            let mut saved = Saved::new(id, Path::new("/w"));
            saved.created = now() - 100 + i as u64;
            s.save(&mut saved).unwrap();
            // `updated` is the time of saving: make the order plain.
            saved.updated = saved.created;
            let mut index = s.read_index().unwrap();
            index.iter_mut().for_each(|x| {
                if x.id == *id {
                    x.updated = saved.created;
                }
            });
            s.write_index(&index).unwrap();
        }
        let ids: Vec<String> = s.list(None).unwrap().into_iter().map(|x| x.id).collect();
        assert_eq!(ids, ["new", "mid"]);
        assert!(s.load("old").unwrap().is_none());
    }

    #[test]
    fn times_are_written_as_iso_8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_798_675_200), "2026-12-31T00:00:00Z");
        assert_eq!(iso8601(951_782_400 + 3661), "2000-02-29T01:01:01Z");
    }
}
