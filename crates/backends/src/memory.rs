//! What pilotfish learned about a model server, kept across processes in the user's cache
//! folder (`$XDG_CACHE_HOME/pilotfish/servers.json`, else `~/.cache/pilotfish/servers.json`):
//! whether its model does fill-in-the-middle, how fast it reads prompts, and the start of the
//! last prompt sent to it (as hashes, not text).
//!
//! Learning these anew in every process costs: an empty `/infill` sent to find out about
//! fill-in-the-middle replaces the cached prompt of a one-slot server, so a command run per
//! keystroke read its whole prompt again each time. An entry is keyed by the server's address
//! and a fingerprint of what it says of its model (`/props`: model file, build, context,
//! slots); a different fingerprint starts afresh. The file is small, written whole to a
//! temporary file and renamed over the old one, and a broken file is ignored with a log line.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

/// Where the memory lives; `None` of it anywhere means nothing is remembered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    path: PathBuf,
}

/// What is remembered of one server and model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    /// What the server said of its model when this was learned.
    pub fingerprint: String,
    /// Whether the model does fill-in-the-middle, once a request showed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fim: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fim_evidence: Option<String>,
    /// How fast the server reads a prompt and writes an answer, smoothed over answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// The start of the last prompt sent, to know how much of the next one the server holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sent: Option<Sent>,
    /// The prompt budget (in the prompt's tokens) the last prompt was built with: a prompt
    /// built with it again starts as the one the server holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<usize>,
    /// The document of the last prompt and where its prompt layout started the prefix (kept
    /// opaque here: the prompt crate's `Anchor`), so that the next process's prefix starts
    /// there too rather than one line further down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<(String, serde_json::Value)>,
    /// Seconds since 1970 when this was last written; the oldest entries go first.
    #[serde(default)]
    pub updated: u64,
}

/// A server's measured speed, in the model's tokens per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Prompt tokens read per second (cold: what the server had cached is not counted).
    pub prompt_per_second: f64,
    /// Answer tokens written per second, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_per_second: Option<f64>,
    /// Answers the figures are smoothed over.
    pub samples: u32,
}

/// A prompt as remembered: hashes of its start in chunks of [`CHUNK`] bytes, each hash
/// covering everything before it, so that the shared start of two prompts is found without
/// keeping either text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub chunks: Vec<u64>,
    /// The prompt's length in bytes.
    pub bytes: usize,
    /// The prompt's length in the model's tokens, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// The bytes one hash of [`Sent`] covers: small enough to find a shared start to within a line
/// or two, large enough to keep the file small (a 16 kB prompt is 256 hashes).
pub const CHUNK: usize = 64;

/// Entries kept at most: servers come and go (tests start them on random ports).
const MAX_ENTRIES: usize = 32;

impl Sent {
    /// The hashes of `text`'s start.
    pub fn of(text: &str) -> Sent {
        let mut hash = FNV_OFFSET;
        let chunks = text
            .as_bytes()
            .chunks(CHUNK)
            .map(|chunk| {
                hash = fnv(hash, chunk);
                hash
            })
            .collect();
        Sent {
            chunks,
            bytes: text.len(),
            tokens: None,
        }
    }

    /// The bytes at the start of `text` that this prompt shared, to within a chunk: what a
    /// server that read this prompt holds of the next one.
    pub fn shared_with(&self, text: &str) -> usize {
        let other = Sent::of(text);
        let whole = self
            .chunks
            .iter()
            .zip(&other.chunks)
            .take_while(|(a, b)| a == b)
            .count();
        (whole * CHUNK).min(self.bytes).min(text.len())
    }
}

impl Speed {
    /// The speed after one more measurement: the first one as it is, later ones smoothed so
    /// that one slow answer (another client's request in between) does not halve the budget.
    pub fn with(previous: Option<Speed>, prompt_per_second: f64, predicted: Option<f64>) -> Speed {
        const WEIGHT: f64 = 0.3;
        match previous {
            None => Speed {
                prompt_per_second,
                predicted_per_second: predicted,
                samples: 1,
            },
            Some(p) => Speed {
                prompt_per_second: p.prompt_per_second * (1.0 - WEIGHT)
                    + prompt_per_second * WEIGHT,
                predicted_per_second: match (p.predicted_per_second, predicted) {
                    (Some(a), Some(b)) => Some(a * (1.0 - WEIGHT) + b * WEIGHT),
                    (a, b) => b.or(a),
                },
                samples: p.samples.saturating_add(1),
            },
        }
    }
}

impl Memory {
    /// The memory in the user's cache folder; `None` where there is no home to keep it in.
    pub fn in_cache_folder() -> Option<Memory> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache"))
            })?;
        Some(Memory::at(base.join("pilotfish").join("servers.json")))
    }

    /// The memory in the file at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Memory {
        Memory { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is remembered of the server at `endpoint` while it says `fingerprint` of its
    /// model; `None` when nothing is, or the server now says something else.
    pub fn recall(&self, endpoint: &str, fingerprint: &str) -> Option<Learned> {
        self.read()
            .remove(endpoint)
            .filter(|l| l.fingerprint == fingerprint)
    }

    /// Changes what is remembered of the server at `endpoint` (starting afresh when its
    /// fingerprint changed) and writes the file. A file that cannot be written is logged and
    /// left: the memory only saves work.
    pub fn update(&self, endpoint: &str, fingerprint: &str, change: impl FnOnce(&mut Learned)) {
        let mut all = self.read();
        let entry = all.entry(endpoint.to_owned()).or_default();
        if entry.fingerprint != fingerprint {
            *entry = Learned {
                fingerprint: fingerprint.to_owned(),
                ..Learned::default()
            };
        }
        change(entry);
        entry.updated = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        while all.len() > MAX_ENTRIES {
            let oldest = all
                .iter()
                .min_by_key(|(_, l)| l.updated)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => all.remove(&k),
                None => break,
            };
        }
        if let Err(e) = self.write(&all) {
            eprintln!(
                "pilotfish: could not remember the server in {}: {e}",
                self.path.display()
            );
        }
    }

    fn read(&self) -> BTreeMap<String, Learned> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeMap::new(),
            Err(e) => {
                eprintln!("pilotfish: ignoring {}: {e}", self.path.display());
                return BTreeMap::new();
            }
        };
        serde_json::from_str(&text).unwrap_or_else(|e| {
            eprintln!(
                "pilotfish: ignoring {} (it is not what pilotfish writes: {e}); it will be written afresh",
                self.path.display()
            );
            BTreeMap::new()
        })
    }

    /// Writes the whole file through a temporary file renamed over it, so that a reader in
    /// another process sees the old file or the new one, never half of one.
    fn write(&self, all: &BTreeMap<String, Learned>) -> std::io::Result<()> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(all).map_err(std::io::Error::other)?;
        let mut temporary = self.path.clone().into_os_string();
        temporary.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&temporary, text)?;
        std::fs::rename(&temporary, &self.path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a: stable across builds and platforms, unlike the standard library's hasher, which
/// matters for hashes written to a file.
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pilotfish-memory-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn the_shared_start_of_two_prompts_is_found_to_within_a_chunk() {
        let a = "x".repeat(1000) + "tail one";
        let b = "x".repeat(1000) + "other tail, longer";
        let shared = Sent::of(&a).shared_with(&b);
        assert!(shared <= 1000 && shared > 1000 - CHUNK, "{shared}");
        assert_eq!(Sent::of(&a).shared_with(&a), a.len());
        assert_eq!(Sent::of("abc").shared_with("xbc"), 0);
    }

    #[test]
    fn a_changed_fingerprint_starts_afresh_and_a_broken_file_is_ignored() {
        let memory = Memory::at(temp("servers.json"));
        memory.update("http://h:1", "model a", |l| l.fim = Some(false));
        assert_eq!(
            memory.recall("http://h:1", "model a").and_then(|l| l.fim),
            Some(false)
        );
        assert_eq!(memory.recall("http://h:1", "model b"), None);
        memory.update("http://h:1", "model b", |l| {
            l.speed = Some(Speed::with(None, 100.0, None));
        });
        let b = memory.recall("http://h:1", "model b").unwrap();
        assert_eq!((b.fim, b.speed.map(|s| s.samples)), (None, Some(1)));
        std::fs::write(memory.path(), "{ not json").unwrap();
        assert_eq!(memory.recall("http://h:1", "model b"), None);
        memory.update("http://h:1", "model b", |l| l.fim = Some(true));
        assert_eq!(
            memory.recall("http://h:1", "model b").and_then(|l| l.fim),
            Some(true)
        );
    }

    #[test]
    fn one_slow_answer_moves_the_speed_only_part_of_the_way() {
        let s = Speed::with(None, 300.0, Some(50.0));
        let s = Speed::with(Some(s), 100.0, None);
        assert!((s.prompt_per_second - 240.0).abs() < 1e-9);
        assert_eq!(s.predicted_per_second, Some(50.0));
        assert_eq!(s.samples, 2);
    }
}
