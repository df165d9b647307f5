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
//! - While the debounce runs, the server is asked how busy it is ([`Pipeline::contention`]:
//!   llama.cpp's `/slots`, vLLM's `/metrics`, at most every [`CONTENTION_FRESH`]). When it is
//!   contended, a mid-word keystroke's request waits [`CONTENDED_DEBOUNCE_MS`] (the next
//!   keystroke supersedes it before it takes a slot from someone's line end), one after a word
//!   [`CONTENDED_WORD_END_DEBOUNCE_MS`] ([`contended_debounce_ms`]), and a one-line answer asks
//!   for at most [`CONTENDED_LINE_TOKENS`] tokens (a slot is freed sooner, and a looping answer
//!   ends sooner).

use std::{
    sync::{Arc, atomic::Ordering},
    time::{Duration, Instant},
};

use backends::BackendError;

use crate::cursor::Cursor;
use crate::stream::{InFlight, Progress};
use crate::{Pipeline, lock};

/// How long what the server said of its load is trusted: a person typing asks at most this
/// often.
pub(crate) const CONTENTION_FRESH: Duration = Duration::from_millis(250);

/// How long a contended server is taken to stay so: a slot that frees for a moment is taken by
/// whichever of the people sharing it asks first, and they would all ask at once.
const CONTENDED_HOLD: Duration = Duration::from_secs(2);

/// How long the server may take to say how busy it is (llama.cpp answers `/slots` between two
/// batches); one that says nothing in time counts as not contended.
const CONTENTION_PROBE: Duration = Duration::from_millis(300);

/// The debounce on a contended server: longer than the time between two keystrokes of someone
/// typing steadily (about 150 ms), so that only a pause in the typing sends a request.
pub(crate) const CONTENDED_DEBOUNCE_MS: f64 = 300.0;

/// The debounce on a contended server after a word (a space, a bracket, an operator): still
/// longer than the time between two keystrokes of someone typing steadily, so that no request
/// goes out mid-line, but shorter than [`CONTENDED_DEBOUNCE_MS`], since that is where a line
/// ends and people pause: a line's last keystroke waits 100 ms less for its answer.
pub(crate) const CONTENDED_WORD_END_DEBOUNCE_MS: f64 = 200.0;
const _: () = assert!(CONTENDED_WORD_END_DEBOUNCE_MS < CONTENDED_DEBOUNCE_MS);

/// The debounce on a contended server for a keystroke that leaves `prefix`:
/// [`CONTENDED_DEBOUNCE_MS`] mid-word (the character before the cursor is a letter, a digit or
/// `_`) and in a line's indentation, where the next keystroke almost always follows at once;
/// [`CONTENDED_WORD_END_DEBOUNCE_MS`] after a word.
pub(crate) fn contended_debounce_ms(prefix: &str) -> f64 {
    let line = prefix.rsplit('\n').next().unwrap_or(prefix);
    let mid_word = line
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    if mid_word || line.trim().is_empty() {
        CONTENDED_DEBOUNCE_MS
    } else {
        CONTENDED_WORD_END_DEBOUNCE_MS
    }
}

/// The tokens a one-line answer asks for at most on a contended server: a line of code's rest.
/// Eight (it was 16, and 24 before): the rest of a line is a few tokens (one to six in the team
/// benchmark), and eight people's slowest line ends were the answers that looped on one line
/// to the limit, each holding a slot, and slowing every answer sharing its batches, for about
/// a second at 16.
pub(crate) const CONTENDED_LINE_TOKENS: u32 = 8;

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
    /// What the server says of its load when it is contended, asked at most every
    /// [`CONTENTION_FRESH`] (the answer is shared by this person's keystrokes meanwhile), and
    /// not again for [`CONTENDED_HOLD`] after it said so; a
    /// server that did not describe itself as llama.cpp or vLLM is never asked.
    ///
    /// The answer is waited for at most `within`: a keystroke's debounce is never made longer
    /// by the question (llama.cpp answers `/slots` only between two batches, which take long
    /// on a loaded machine, even when the batch is this person's own request). The question
    /// runs on by itself and its answer serves the next keystrokes; until then the last answer
    /// stands.
    pub(crate) async fn contention(&self, within: Duration) -> Option<String> {
        let (mine, last) = {
            let state = self.state();
            if let Some((at, said)) = &state.contention
                && at.elapsed()
                    < if said.is_some() {
                        CONTENDED_HOLD
                    } else {
                        CONTENTION_FRESH
                    }
            {
                return said.clone();
            }
            let last = state.contention.as_ref().and_then(|(_, said)| said.clone());
            if state.contention_asked {
                return last;
            }
            (state.in_flight.len(), last)
        };
        // Only a server that said it is llama.cpp or vLLM is asked: others have no such
        // endpoints, and a hosted API is not asked for them on every keystroke.
        let (info, _) = self.fit.info(&self.backend).await;
        if !info.is_some_and(|i| i.is_llama_cpp() || i.server == "vLLM") {
            self.state().contention = Some((Instant::now(), None));
            return None;
        }
        self.state().contention_asked = true;
        let backend = self.backend.clone();
        let state = self.state.clone();
        let question = tokio::spawn(async move {
            let said = backend.contended(CONTENTION_PROBE, mine).await;
            let mut state = lock(&state);
            state.contention = Some((Instant::now(), said.clone()));
            state.contention_asked = false;
            said
        });
        match tokio::time::timeout(within, question).await {
            Ok(Ok(said)) => said,
            // Not answered within the debounce (it goes on and serves the next keystrokes),
            // or the task ended without an answer (the runtime shutting down).
            Ok(Err(_)) | Err(_) => last,
        }
    }

    /// Learns the server's speed from a warming's `timings` unless the server is contended
    /// now: several people opening documents at once share its batches, and their reading
    /// then says how busy it is, not how fast it reads (a speed learned so would lower every
    /// first prompt below what the warming read, and the cache would serve none of it).
    pub(crate) async fn observe_unless_contended(
        &self,
        backend: &backends::Backend,
        timings: &backends::Timings,
    ) {
        match self.contention(CONTENTION_PROBE).await {
            Some(_) => self.fit.observe_shared(backend, timings),
            None => self.fit.observe(backend, timings),
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keystroke_after_a_word_waits_less_than_one_mid_word() {
        for mid in [
            "def f():\n    ret",
            "    x = order_total_0",
            "    n = 1",
            "    ",
            "",
        ] {
            assert_eq!(contended_debounce_ms(mid), CONTENDED_DEBOUNCE_MS, "{mid:?}");
        }
        for after in [
            "    return ",
            "    total = f(",
            "    a = b * ",
            "x.",
            "    s = \"",
        ] {
            let ms = contended_debounce_ms(after);
            assert_eq!(ms, CONTENDED_WORD_END_DEBOUNCE_MS, "{after:?}");
        }
    }
}
