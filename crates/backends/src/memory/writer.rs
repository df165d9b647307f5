//! The memory's writing, behind the requests: what this process changed is kept in memory and
//! written by a thread of its own, soon when it matters to the next process (fill-in-the-middle
//! learnt, a new model, a speed moved by more than a quarter), else within a few seconds, or at
//! once by a flush. A write takes a lock file beside the memory, reads what is there now (other
//! processes write it too), merges over it only the parts this process changed, and renames a
//! temporary file over the old one, so that two processes writing at once lose nothing.

use std::{
    collections::BTreeMap,
    fs::File,
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use super::Learned;

/// Entries kept at most: servers come and go (tests start them on random ports).
const MAX_ENTRIES: usize = 32;

/// A speed that moved by more than this share is written soon: the next process sizes its
/// prompts from it.
const SPEED_MOVED: f64 = 0.25;

/// The parts of an entry one process changes, merged over another's apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Parts {
    /// The whole entry (a new model: the fingerprint changed).
    whole: bool,
    fim: bool,
    speed: bool,
    /// The last prompt sent, its budget and its anchor.
    sent: bool,
}

impl Parts {
    /// The parts `after` changed of `before`, and whether the change matters to the next
    /// process at once.
    fn changed(before: &Learned, after: &Learned) -> (Parts, bool) {
        let parts = Parts {
            whole: before.fingerprint != after.fingerprint,
            fim: (&before.fim, &before.fim_evidence) != (&after.fim, &after.fim_evidence),
            speed: before.speed != after.speed,
            sent: (&before.last_sent, before.budget, &before.anchor)
                != (&after.last_sent, after.budget, &after.anchor),
        };
        let moved = match (before.speed, after.speed) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => {
                (b.prompt_per_second - a.prompt_per_second).abs()
                    > SPEED_MOVED * a.prompt_per_second.abs()
            }
            _ => false,
        };
        let urgent = parts.whole || before.fim != after.fim || moved;
        (parts, urgent)
    }

    fn any(self) -> bool {
        self.whole || self.fim || self.speed || self.sent
    }

    fn or(self, other: Parts) -> Parts {
        Parts {
            whole: self.whole || other.whole,
            fim: self.fim || other.fim,
            speed: self.speed || other.speed,
            sent: self.sent || other.sent,
        }
    }
}

/// The memory one backend (and its clones) share.
#[derive(Debug)]
pub(super) struct Shared {
    path: PathBuf,
    /// What does not matter at once is written within this.
    delay: Duration,
    state: Mutex<State>,
    /// Wakes the writer (a change due sooner) and a flush (a write ended).
    wake: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// The file as read when the memory was made, with this process's changes over it.
    all: BTreeMap<String, Learned>,
    /// What this process changed and has not written, by endpoint.
    changed: BTreeMap<String, Parts>,
    /// When the changes not yet written are due.
    due: Option<Instant>,
    /// Whether the writer thread runs.
    writer: bool,
    /// Writes under way (the writer's, a flush's).
    writing: u32,
}

impl Shared {
    /// The memory in the file at `path`, read now.
    pub(super) fn open(path: PathBuf, delay: Duration) -> Arc<Shared> {
        let all = read(&path);
        Arc::new(Shared {
            path,
            delay,
            state: Mutex::new(State {
                all,
                ..State::default()
            }),
            wake: Condvar::new(),
        })
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn entry(&self, endpoint: &str) -> Option<Learned> {
        self.lock().all.get(endpoint).cloned()
    }

    pub(super) fn update(
        self: &Arc<Self>,
        endpoint: &str,
        fingerprint: &str,
        change: impl FnOnce(&mut Learned),
    ) {
        let mut state = self.lock();
        let entry = state.all.entry(endpoint.to_owned()).or_default();
        let before = entry.clone();
        if entry.fingerprint != fingerprint {
            *entry = Learned {
                fingerprint: fingerprint.to_owned(),
                ..Learned::default()
            };
        }
        change(entry);
        let (parts, urgent) = Parts::changed(&before, entry);
        if !parts.any() {
            return;
        }
        entry.updated = now_seconds();
        let marked = state.changed.entry(endpoint.to_owned()).or_default();
        *marked = marked.or(parts);
        let due = Instant::now() + if urgent { Duration::ZERO } else { self.delay };
        state.due = Some(state.due.map_or(due, |d| d.min(due)));
        if state.writer {
            self.wake.notify_all();
        } else {
            state.writer = true;
            let shared = Arc::clone(self);
            let started = std::thread::Builder::new()
                .name("pilotfish-memory".to_owned())
                .spawn(move || shared.write_behind());
            if started.is_err() {
                // No thread: the changes wait for the flush.
                state.writer = false;
            }
        }
    }

    /// The writer thread: waits until the changes are due, writes them, and ends when
    /// nothing is left to write (the next change starts another).
    fn write_behind(&self) {
        let mut state = self.lock();
        loop {
            if state.changed.is_empty() {
                state.writer = false;
                return;
            }
            let due = state.due.unwrap_or_else(Instant::now);
            let now = Instant::now();
            if now < due {
                state = self
                    .wake
                    .wait_timeout(state, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            state = self.write_changes(state);
        }
    }

    /// Writes what is changed now, and waits for a write under way to end.
    pub(super) fn flush(&self) {
        let mut state = self.lock();
        if !state.changed.is_empty() {
            state = self.write_changes(state);
        }
        while state.writing > 0 {
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Takes the changes, writes them with the state unlocked, and gives the state back.
    fn write_changes<'s>(&'s self, mut state: MutexGuard<'s, State>) -> MutexGuard<'s, State> {
        let changed = std::mem::take(&mut state.changed);
        state.due = None;
        let batch: Vec<(String, Parts, Learned)> = changed
            .into_iter()
            .filter_map(|(endpoint, parts)| {
                let entry = state.all.get(&endpoint)?.clone();
                Some((endpoint, parts, entry))
            })
            .collect();
        state.writing += 1;
        drop(state);
        if let Err(e) = self.merge_and_write(batch) {
            eprintln!(
                "pilotfish: could not remember the server in {}: {e}",
                self.path.display()
            );
        }
        let mut state = self.lock();
        state.writing -= 1;
        self.wake.notify_all();
        state
    }

    /// Under the lock file: the file as it is now, this process's changed parts over it, and
    /// the result renamed over it.
    fn merge_and_write(&self, batch: Vec<(String, Parts, Learned)>) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        lock.lock()?;
        let mut all = read(&self.path);
        for (endpoint, parts, ours) in batch {
            merge(all.entry(endpoint).or_default(), parts, ours);
        }
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
        write(&self.path, &all)
        // The lock is released when `lock` is dropped.
    }
}

/// This process's changed `parts` of an entry over what the file holds: the whole entry for a
/// new model (or one the file does not know), else only the parts changed, so that what
/// another process learned of the other parts stays.
fn merge(theirs: &mut Learned, parts: Parts, ours: Learned) {
    if parts.whole || theirs.fingerprint != ours.fingerprint {
        if ours.updated >= theirs.updated || theirs.fingerprint == ours.fingerprint {
            *theirs = ours;
        }
        return;
    }
    if parts.fim {
        theirs.fim = ours.fim;
        theirs.fim_evidence = ours.fim_evidence;
    }
    if parts.speed {
        theirs.speed = ours.speed;
    }
    if parts.sent {
        theirs.last_sent = ours.last_sent;
        theirs.budget = ours.budget;
        theirs.anchor = ours.anchor;
    }
    theirs.updated = theirs.updated.max(ours.updated);
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What the file holds; nothing when it is missing or broken (said once in the log).
fn read(path: &Path) -> BTreeMap<String, Learned> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeMap::new(),
        Err(e) => {
            eprintln!("pilotfish: ignoring {}: {e}", path.display());
            return BTreeMap::new();
        }
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!(
            "pilotfish: ignoring {} (it is not what pilotfish writes: {e}); it will be written afresh",
            path.display()
        );
        BTreeMap::new()
    })
}

/// Writes the whole file through a temporary file renamed over it, so that a reader in another
/// process sees the old file or the new one, never half of one.
fn write(path: &Path, all: &BTreeMap<String, Learned>) -> std::io::Result<()> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let text = serde_json::to_string_pretty(all).map_err(std::io::Error::other)?;
    let mut temporary = path.to_path_buf().into_os_string();
    temporary.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}
