//! The server's shared state behind mutexes, locked so that a panic in one request does not
//! poison the state for every later one.

use std::sync::{Mutex, MutexGuard};

/// The guard of `m`, also when a thread panicked while holding it: the state stays usable.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
