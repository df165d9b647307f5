//! The streams of the model's answers: one per candidate, published as the text arrives,
//! stopped where its block ends or when cancelled (the request dropped at once; see `team.rs`),
//! retried only before any text came, and cached when done; and the record of a stream that
//! later keystrokes may adopt.

use std::{
    ops::ControlFlow,
    sync::{Arc, Mutex, atomic::AtomicUsize},
    time::{Duration, Instant},
};

use backends::{Backend, BackendError, Request, Timings};
use engine::params;
use tokio::sync::watch;

use crate::{State, lock, multiline};

#[derive(Debug, Clone, Default)]
pub(crate) struct Progress {
    pub(crate) text: String,
    pub(crate) first_token: Option<Duration>,
    /// Requests made, retries included.
    pub(crate) attempts: u32,
    /// What the server said of the time the answer took, when it said.
    pub(crate) timings: Option<Timings>,
    /// The stream was cancelled: its answer is what had arrived, and is not cached.
    pub(crate) cancelled: bool,
    /// The finished answer (cut where its block ended), or the error.
    pub(crate) done: Option<Result<String, Arc<BackendError>>>,
}

/// A stream still at the server: one a later keystroke in the same document may adopt (the
/// first candidate), or one cancelled and not yet ended (see [`Pipeline::drained`]).
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) id: u64,
    pub(crate) path: String,
    pub(crate) prefix: String,
    pub(crate) suffix: String,
    pub(crate) progress: watch::Receiver<Progress>,
    pub(crate) cancel: Arc<Cancel>,
    /// When the keystroke that started it happened: only a later keystroke may cancel it.
    pub(crate) arrived: Instant,
    /// Whether a later keystroke may adopt it (the first candidate only).
    pub(crate) adoptable: bool,
    /// The requests waiting for it (see [`Waiting`]).
    pub(crate) waiters: AtomicUsize,
    /// The backend as the request that started it waits: a request that adopts it before its
    /// first text waits for that text as long as this one's first-token limit allows (a vLLM
    /// still working is waited for).
    pub(crate) limits: Backend,
}

/// One candidate's request and what to do with its stream.
pub(crate) struct Job {
    pub(crate) backend: Backend,
    pub(crate) request: Request,
    pub(crate) finisher: multiline::Finisher,
    pub(crate) stops: Vec<String>,
    pub(crate) retries: u32,
    /// A llama.cpp server: cancelled before its first text, the request is kept open until
    /// that text (see `team.rs`).
    pub(crate) keep_until_text: bool,
    pub(crate) on_done: OnDone,
}

/// What a stream does when it ends: cache its answer and leave the list of streams in flight,
/// whether or not anyone still waits for it.
pub(crate) struct OnDone {
    pub(crate) state: Arc<Mutex<State>>,
    pub(crate) id: u64,
    pub(crate) prefix: String,
    pub(crate) suffix: String,
    pub(crate) cache: bool,
}

/// How one attempt of a stream ended.
enum Attempt {
    Ended(Result<(String, Option<Timings>), BackendError>),
    Cancelled,
}

/// One candidate's stream: text published as it arrives, stopped when the block is finished
/// or the request is cancelled, retried when nothing arrived and the error allows it.
pub(crate) async fn run_stream(job: Job, tx: watch::Sender<Progress>, cancel: Arc<Cancel>) {
    let Job {
        backend,
        request,
        finisher,
        stops,
        retries,
        keep_until_text,
        on_done,
    } = job;
    let sent = Instant::now();
    let mut attempt = 0;
    let result = loop {
        tx.send_modify(|p| p.attempts = attempt + 1);
        let mut text = String::new();
        let mut cut = None;
        let ended = {
            let streaming = backend.stream_timed(&request, |piece| {
                text.push_str(piece);
                tx.send_modify(|p| {
                    p.text.push_str(piece);
                    p.first_token.get_or_insert_with(|| sent.elapsed());
                });
                if cancel.is_cancelled() {
                    return ControlFlow::Break(());
                }
                // Blocks end at line ends: parse only when a line is complete.
                if piece.contains('\n')
                    && let Some(end) = finisher.finished(&text)
                {
                    cut = Some(end);
                    return ControlFlow::Break(());
                }
                // An answer that has begun to loop is dropped whatever follows: it ends here,
                // so that the request can be asked again at once rather than run to its limit.
                if crate::clean::repeats(&text) {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            });
            tokio::pin!(streaming);
            tokio::select! {
                biased;
                ended = &mut streaming => Attempt::Ended(ended),
                () = cancel.cancelled() => {
                    // This llama-server stops a request only when it writes to the closed
                    // connection: its first text is waited for, and the stream closes there.
                    if keep_until_text && tx.borrow().text.is_empty() {
                        let _ = tokio::time::timeout(KEEP_UNTIL_TEXT, &mut streaming).await;
                    }
                    Attempt::Cancelled
                }
            }
        };
        match ended {
            Attempt::Cancelled => break Ok(tx.borrow().text.clone()),
            Attempt::Ended(Err(e))
                if text.is_empty()
                    && attempt < retries
                    && e.is_retryable()
                    && !cancel.is_cancelled() =>
            {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100 << attempt.min(5))).await;
            }
            Attempt::Ended(Err(e)) => break Err(Arc::new(e)),
            Attempt::Ended(Ok((full, timings))) => {
                tx.send_modify(|p| p.timings = timings);
                let end = cut.or_else(|| finisher.finished(&full));
                let answer = end.map_or(full.as_str(), |e| &full[..e]);
                let stops: Vec<&str> = stops.iter().map(String::as_str).collect();
                // Servers apply stops themselves; a stream cut short may not have.
                break Ok(params::cut_at_stop(answer, &stops).0);
            }
        }
    };
    // A stream cut by its cancellation holds part of an answer: it is not cached.
    let cancelled = cancel.is_cancelled();
    {
        let mut state = lock(&on_done.state);
        state.in_flight.retain(|f| f.id != on_done.id);
        if on_done.cache
            && !cancelled
            && let Ok(answer) = &result
            && !answer.is_empty()
        {
            state.cache.append(&on_done.prefix, &on_done.suffix, answer);
        }
    }
    tx.send_modify(|p| {
        p.cancelled = cancelled;
        p.done = Some(result);
    });
}

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
