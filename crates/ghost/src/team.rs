//! One person among many on a shared model server: cancellation that reaches the server, and
//! one request in flight per person.
//!
//! - A cancelled stream drops its HTTP request at once ([`Cancel`]), not at its next piece of
//!   text. vLLM then stops the request between engine steps. This llama-server notices a
//!   closed connection only when it writes, so a llama.cpp stream cancelled before its first
//!   text is kept open until that text (at most [`KEEP_UNTIL_TEXT`]): the slot reads the prompt
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

use tokio::sync::watch;

use crate::stream::InFlight;
use crate::{Pipeline, lock};

/// How long a released stream waits for the same document's next request to adopt it.
pub(crate) const ADOPT_WINDOW: Duration = Duration::from_millis(300);

/// How long a llama.cpp stream cancelled before its first text is kept open for that text.
pub(crate) const KEEP_UNTIL_TEXT: Duration = Duration::from_secs(15);

/// A stream's cancellation: set once, awaited by the stream, which then drops its request.
#[derive(Debug)]
pub(crate) struct Cancel(watch::Sender<bool>);

impl Cancel {
    pub(crate) fn new() -> Arc<Cancel> {
        Arc::new(Cancel(watch::channel(false).0))
    }

    pub(crate) fn cancel(&self) {
        self.0.send_replace(true);
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// Returns once cancelled.
    pub(crate) async fn cancelled(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }
}

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
            let _ =
                tokio::time::timeout(KEEP_UNTIL_TEXT, rx.wait_for(|p| p.done.is_some())).await;
        }
    }
}
