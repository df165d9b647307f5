//! One person among many on a shared model server: cancellation that reaches the server, and
//! one request in flight per person.
//!
//! - A cancelled stream drops its HTTP request at once (`Cancel`), not at its next piece of
//!   text (`stream.rs`). vLLM then stops the request between engine steps. This llama-server notices a
//!   closed connection only when it writes, so a llama.cpp stream cancelled before its first
//!   text is kept open until that text (at most 15 s): the slot reads the prompt
//!   either way, and the person's next request, which waits for it ([`Pipeline::drained`]),
//!   then finds that prompt in the slot instead of taking another person's. The slot's erase
//!   action is not used: it acts on a slot, not a request, and would erase another person's
//!   cache.
//! - A request the editor gives up on releases its stream ([`Waiting`]): the same document's
//!   next request may adopt it within [`ADOPT_WINDOW`]; one nobody adopts is cancelled.
//! - Before a request is sent, the person's earlier streams are cancelled, in every document
//!   ([`Pipeline::cancel_earlier`]), and the request waits for what is still at the server.

use std::{
    sync::{Arc, atomic::Ordering},
    time::{Duration, Instant},
};

use backends::BackendError;

use crate::cursor::Cursor;
use crate::stream::{InFlight, Progress};
use crate::{Pipeline, lock};

/// How long a released stream waits for the same document's next request to adopt it.
pub(crate) const ADOPT_WINDOW: Duration = Duration::from_millis(300);

/// A request waiting for a stream. When the last one stops waiting before the stream ended
/// (the editor gave up on it), the stream is released: cancelled unless a request adopts it
/// within [`ADOPT_WINDOW`].
pub(crate) struct Waiting {
    flight: Arc<InFlight>,
}

impl Waiting {
    pub(crate) fn new(flight: Arc<InFlight>) -> Waiting {
        flight.waiters.fetch_add(1, Ordering::SeqCst);
        Waiting { flight }
    }

    pub(crate) fn flight(&self) -> &Arc<InFlight> {
        &self.flight
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let flight = self.flight.clone();
        if flight.waiters.fetch_sub(1, Ordering::SeqCst) != 1
            || flight.progress.borrow().done.is_some()
        {
            return;
        }
        let release = async move {
            tokio::time::sleep(ADOPT_WINDOW).await;
            if flight.waiters.load(Ordering::SeqCst) == 0 {
                flight.cancel.cancel();
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(release)),
            Err(_) => self.flight.cancel.cancel(),
        }
    }
}

impl Pipeline {
    /// Cancels every stream of this person (every document) started by a keystroke no later
    /// than `arrived`: one request in flight per person. A stream of a later keystroke (tasks
    /// run in any order) is left alone.
    pub(crate) fn cancel_earlier(&self, arrived: Instant) {
        for f in self.state().in_flight.iter() {
            if f.arrived <= arrived {
                f.cancel.cancel();
            }
        }
    }

    /// Waits until the cancelled streams still at the server have ended (a llama.cpp stream
    /// waits for its first text), so that this person's next request finds the slot free and
    /// holding their prompt.
    pub(crate) async fn drained(&self) {
        let leaving: Vec<_> = lock(&self.state)
            .in_flight
            .iter()
            .filter(|f| f.cancel.is_cancelled())
            .map(|f| f.progress.clone())
            .collect();
        for mut rx in leaving {
            let _ = tokio::time::timeout(
                crate::stream::KEEP_UNTIL_TEXT,
                rx.wait_for(|p| p.done.is_some()),
            )
            .await;
        }
    }
}

impl Pipeline {
    /// Waits for a stream of the same document that the text typed since it started agrees
    /// with (the editor may have released it: it is adopted), and returns the rest of its
    /// answer. Streams the typing has left behind are cancelled. A stream that sends no text
    /// within its first-token limit (counted from now) is the error.
    pub(crate) async fn reuse_in_flight(
        &self,
        cursor: &Cursor,
        arrived: Instant,
    ) -> Result<Option<String>, BackendError> {
        let candidates: Vec<Waiting> = {
            let state = self.state();
            let mut keep = Vec::new();
            let mine = state
                .in_flight
                .iter()
                .filter(|f| f.path == cursor.path && f.adoptable && !f.cancel.is_cancelled());
            for f in mine {
                let leads_here =
                    f.suffix == cursor.suffix() && cursor.prefix().starts_with(&f.prefix);
                let agrees = leads_here && {
                    let typed = &cursor.prefix()[f.prefix.len()..];
                    let so_far = &f.progress.borrow().text;
                    so_far.starts_with(typed) || typed.starts_with(so_far.as_str())
                };
                if agrees {
                    // Counted as waited for before the lock is let go: a released stream's
                    // window must not end it now.
                    keep.push(Waiting::new(f.clone()));
                } else if f.arrived <= arrived {
                    // A request handled late (tasks run in any order) must not cancel the
                    // stream of a keystroke that came after it.
                    f.cancel.cancel();
                }
            }
            keep
        };
        for waiting in candidates {
            let f = waiting.flight();
            let typed = &cursor.prefix()[f.prefix.len()..];
            let mut rx = f.progress.clone();
            let agrees = |p: &Progress| p.text.starts_with(typed) || typed.starts_with(&p.text);
            let mut deadline = f
                .limits
                .first_token_timeout
                .map(|after| (tokio::time::Instant::now() + after, after));
            let first = async {
                let _ = rx
                    .wait_for(|p| p.first_token.is_some() || p.done.is_some())
                    .await;
            };
            f.limits.first_wait(first, &mut deadline).await?;
            let done = rx
                .wait_for(|p| p.done.is_some() || !agrees(p))
                .await
                .map(|p| p.clone());
            let Ok(done) = done else {
                return Ok(None);
            };
            if done.done.is_none() {
                // The answer went elsewhere than the typing: nobody else wants it.
                if f.waiters.load(std::sync::atomic::Ordering::SeqCst) == 1 {
                    f.cancel.cancel();
                }
                continue;
            }
            if !done.cancelled
                && let Some(Ok(answer)) = done.done
                && let Some(rest) = answer.strip_prefix(typed)
                && !rest.trim().is_empty()
            {
                return Ok(Some(rest.to_owned()));
            }
        }
        Ok(None)
    }
}
