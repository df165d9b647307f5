//! What pilotfish learned about a model server, kept across processes in the user's cache
//! folder (`$XDG_CACHE_HOME/pilotfish/servers.json`, else `~/.cache/pilotfish/servers.json`):
//! whether its model does fill-in-the-middle, how fast it reads prompts, and the start of the
//! last prompt sent to it (as hashes, not text).
//!
//! Learning these anew in every process costs: an empty `/infill` sent to find out about
//! fill-in-the-middle replaces the cached prompt of a one-slot server, so a command run per
//! keystroke read its whole prompt again each time. An entry is keyed by the server's address
//! and a fingerprint of what it says of its model (`/props`: model file, build, context,
//! slots); a different fingerprint starts afresh.
//!
//! The file is read once, when the backend is made, and questions are answered from memory.
//! Changes are written behind, never on a request's path (see `writer.rs`): by a thread of the
//! memory's own, soon when they matter to the next process, else within [`WRITE_WITHIN`] or at
//! [`Memory::flush`]; under a lock file beside it, merging this process's changed parts over
//! what another process wrote meanwhile, whole to a temporary file renamed over the old one.
//! A broken file is ignored with a log line.

mod writer;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use serde::{Deserialize, Serialize};

/// Where the memory lives, and what was read of it and learned since; clones share it.
/// `None` of it anywhere means nothing is remembered.
#[derive(Debug, Clone)]
pub struct Memory {
    shared: Arc<writer::Shared>,
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

    /// The memory in the file at `path`, read now (once: later questions are answered from
    /// what was read and what this process learned since).
    pub fn at(path: impl Into<PathBuf>) -> Memory {
        Memory::with_delay(path, WRITE_WITHIN)
    }

    /// [`Self::at`], writing what does not matter to the next process within `delay` rather
    /// than [`WRITE_WITHIN`].
    pub fn with_delay(path: impl Into<PathBuf>, delay: Duration) -> Memory {
        Memory {
            shared: writer::Shared::open(path.into(), delay),
        }
    }

    pub fn path(&self) -> &Path {
        self.shared.path()
    }

    /// What is remembered of the server at `endpoint` while it says `fingerprint` of its
    /// model; `None` when nothing is, or the server now says something else.
    pub fn recall(&self, endpoint: &str, fingerprint: &str) -> Option<Learned> {
        self.shared
            .entry(endpoint)
            .filter(|l| l.fingerprint == fingerprint)
    }

    /// Changes what is remembered of the server at `endpoint` (starting afresh when its
    /// fingerprint changed). Nothing is written here: the memory's own thread writes the
    /// change soon when it matters to the next process (fill-in-the-middle learnt, a new
    /// model, a speed moved by more than a quarter), else within a few seconds or at
    /// [`Self::flush`].
    pub fn update(&self, endpoint: &str, fingerprint: &str, change: impl FnOnce(&mut Learned)) {
        self.shared.update(endpoint, fingerprint, change);
    }

    /// Writes what this process changed and has not written yet, and waits for a write under
    /// way: called where a process ends (`complete`, `config check`, the language server's
    /// end). A file that cannot be written is logged and left: the memory only saves work.
    pub fn flush(&self) {
        self.shared.flush();
    }
}

/// What does not matter to the next process at once is written within this.
pub const WRITE_WITHIN: Duration = Duration::from_secs(3);

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
mod tests;
