//! Fitting the prompt to the model: a budget the server's context can hold, counted as the
//! model counts.
//!
//! Copilot counts its budget in o200k tokens, and pilotfish keeps that for the faithful
//! prompt; but a local model has its own vocabulary and often a small context, and a prompt
//! of 792 o200k tokens can be 1,028 of the model's (deepseek-coder), which the server
//! refuses. So the pipeline asks the server once what it is (`/props`, `/api/show`,
//! `/v1/models`), lowers the budget to what its context leaves after the answer, and converts
//! between the two vocabularies with a ratio: measured on the prompt itself where the server
//! counts tokens (llama.cpp's `/tokenize`), otherwise a margin that a refusal for length
//! raises.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use backends::{
    Backend, BackendError, Kind, Timings,
    memory::{Learned, Sent, Speed},
    server::ServerInfo,
};

/// Tokens kept free for what the server adds around the prompt (FIM tokens, file separators).
pub(crate) const RESERVE: u32 = 16;

/// Model tokens per prompt token assumed where nothing was measured yet: deepseek-coder's
/// vocabulary needs 1.30 per o200k token on source code, the worst seen here.
pub(crate) const DEFAULT_RATIO: f64 = 1.3;

/// The prefix llama.cpp's `/infill` keeps at most with its default batch of 2,048 tokens
/// (three quarters of it), in the model's tokens.
pub(crate) const INFILL_PREFIX_TOKENS: usize = 1536;

/// The longest the first request of a session waits for the server to describe itself.
const DESCRIBE_LIMIT: Duration = Duration::from_secs(2);

/// How long after a server would not describe itself it is asked again.
const ASK_AGAIN: Duration = Duration::from_secs(30);

/// What the pipeline knows about the model's context, learned once and refined per answer.
#[derive(Debug, Default)]
pub(crate) struct Fit {
    /// The server's description once it gave one; else when it was last asked.
    info: tokio::sync::Mutex<(Option<ServerInfo>, Option<Instant>)>,
    /// Model tokens per prompt token, measured; `None` until something was measured.
    ratio: Mutex<Option<f64>>,
    /// The server's refusal of fill-in-the-middle for this model, once it gave one.
    refused_fim: Mutex<Option<String>>,
    /// What was learned of the server's speed and of what it holds, in this process or an
    /// earlier one (the backend's memory), once the server described itself.
    learned: Mutex<Learned>,
    /// Whether this pipeline measured the server on first contact (or tried to and could not
    /// tell): it is done once.
    met: AtomicBool,
}

/// The budget for one request, and why it is what it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Budget {
    /// Prompt tokens (in the prompt's tokenizer) for prefix, context and suffix.
    pub(crate) tokens: usize,
    /// The server's context in the model's tokens, when known.
    pub(crate) context_size: Option<u32>,
    pub(crate) note: Option<String>,
}

impl Fit {
    /// The server's description, asked once per pipeline; `None` when it would not say. A
    /// server that was down is asked again, but not more than every [`ASK_AGAIN`], so a
    /// keystroke does not wait on it each time. The error, when the server took the connection
    /// and then said nothing within the limit (it is hung or stuck), is returned beside it so
    /// that the request does not wait the whole total limit for a completion.
    pub(crate) async fn info(
        &self,
        backend: &Backend,
    ) -> (Option<ServerInfo>, Option<BackendError>) {
        let mut cached = self.info.lock().await;
        let mut silent = None;
        if cached.0.is_none() && cached.1.is_none_or(|at| at.elapsed() >= ASK_AGAIN) {
            // Only an answer or a failure counts as asked: a request dropped while it waits
            // here (a keystroke superseded, a warming stopped) leaves the next one to ask.
            match backend.server_info(DESCRIBE_LIMIT).await {
                Ok(info) => cached.0 = Some(self.recall(backend, info)),
                Err(e) => {
                    cached.1 = Some(Instant::now());
                    if matches!(e, BackendError::Timeout { .. }) {
                        silent = Some(e);
                    }
                }
            }
        }
        (cached.0.clone(), silent)
    }

    /// The server's description completed with what an earlier process learned of it, and
    /// that remembered for this one.
    fn recall(&self, backend: &Backend, mut info: ServerInfo) -> ServerInfo {
        let remembered = backend
            .memory
            .as_ref()
            .and_then(|m| m.recall(&backend.endpoint, &info.fingerprint));
        let learned = remembered.unwrap_or_else(|| Learned {
            fingerprint: info.fingerprint.clone(),
            ..Learned::default()
        });
        if info.fim.is_none()
            && let Some(fim) = learned.fim
        {
            info.fim = Some(fim);
            info.fim_evidence = learned
                .fim_evidence
                .as_ref()
                .map(|e| format!("remembered: {e}"));
        }
        *self.learned.lock().unwrap_or_else(|e| e.into_inner()) = learned;
        info
    }

    /// Remembers what a request showed of the model's fill-in-the-middle, here and in the
    /// backend's memory; a refusal also makes later requests prefix-only.
    pub(crate) fn learn_fim(&self, backend: &Backend, fim: bool, evidence: String) {
        if !fim {
            *self.refused_fim.lock().unwrap_or_else(|e| e.into_inner()) = Some(evidence.clone());
        }
        self.remember(backend, |l| {
            l.fim = Some(fim);
            l.fim_evidence = Some(evidence.clone());
        });
    }

    /// Whether the model's fill-in-the-middle is known, from the server or remembered.
    pub(crate) fn fim_known(&self) -> bool {
        self.learned
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .fim
            .is_some()
    }

    /// Remembers the prompt text just sent (as the model reads it): the next request's
    /// shared start with it is what the server holds.
    pub(crate) fn sent(
        &self,
        backend: &Backend,
        text: &str,
        budget: usize,
        anchor: Option<(&str, prompt::Anchor)>,
    ) {
        let sent = Sent::of(text);
        let anchor =
            anchor.and_then(|(path, a)| Some((path.to_owned(), serde_json::to_value(a).ok()?)));
        self.remember(backend, |l| {
            l.last_sent = Some(sent.clone());
            l.budget = Some(budget);
            l.anchor.clone_from(&anchor);
        });
    }

    /// Forgets the last prompt sent: the server may not hold it (its request failed).
    pub(crate) fn unsent(&self, backend: &Backend) {
        self.remember(backend, |l| l.last_sent = None);
    }

    /// Where the last prompt for the document at `path` started its prefix, when remembered.
    pub(crate) fn anchor(&self, path: &str) -> Option<prompt::Anchor> {
        let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
        let (at, anchor) = learned.anchor.as_ref()?;
        (at == path)
            .then(|| serde_json::from_value(anchor.clone()).ok())
            .flatten()
    }

    /// The budget the last prompt sent was built with.
    pub(crate) fn last_budget(&self) -> Option<usize> {
        self.learned
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .budget
    }

    /// Learns from the timings of an answer: the server's speed (where enough was read to
    /// tell) and the last prompt's length in the model's tokens.
    /// What an answer's timings say of the prompt the server holds, but not of its speed:
    /// timed while others' requests shared its batches (a contended server), they say how busy
    /// it was, not how fast it reads, and a speed learned from them would lower every prompt
    /// (whose start then moves with each keystroke, and the server's cache with it).
    pub(crate) fn observe_shared(&self, backend: &Backend, timings: &Timings) {
        self.remember(backend, |l| {
            if let Some(sent) = &mut l.last_sent {
                sent.tokens = Some(timings.prompt_n + timings.cache_n.unwrap_or(0));
            }
        });
    }

    pub(crate) fn observe(&self, backend: &Backend, timings: &Timings) {
        self.remember(backend, |l| {
            if let Some(per_second) = timings.prompt_per_second() {
                l.speed = Some(Speed::with(
                    l.speed,
                    per_second,
                    timings.predicted_per_second,
                ));
            }
            if let Some(sent) = &mut l.last_sent {
                sent.tokens = Some(timings.prompt_n + timings.cache_n.unwrap_or(0));
            }
        });
    }

    /// Whether the server's speed was measured on first contact already (or could not be).
    pub(crate) fn met(&self) -> bool {
        self.met.load(Ordering::Relaxed)
    }

    pub(crate) fn meet(&self) {
        self.met.store(true, Ordering::Relaxed);
    }

    /// The server's measured speed, when it was measured.
    pub(crate) fn speed(&self) -> Option<Speed> {
        self.learned.lock().unwrap_or_else(|e| e.into_inner()).speed
    }

    /// The model's tokens in `text` that the server does not hold from the last prompt sent,
    /// estimated from the shared start and the last prompt's tokens per byte.
    pub(crate) fn uncached(&self, text: &str) -> Uncached {
        let per_byte = self.tokens_per_byte();
        let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
        let shared = learned
            .last_sent
            .as_ref()
            .map_or(0, |s| s.shared_with(text));
        Uncached {
            tokens: ((text.len() - shared) as f64 * per_byte).ceil() as usize,
            cached: (shared as f64 * per_byte) as usize,
        }
    }

    /// The model's tokens per byte of prompt, measured on the last prompt sent where the
    /// server said how many tokens it had.
    pub(crate) fn tokens_per_byte(&self) -> f64 {
        let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
        learned
            .last_sent
            .as_ref()
            .and_then(|s| Some(s.tokens? as f64 / s.bytes.max(1) as f64))
            .filter(|r| *r > 0.0)
            .unwrap_or(MODEL_TOKENS_PER_BYTE)
    }

    /// Changes what is learned, here and in the backend's memory when it has one.
    fn remember(&self, backend: &Backend, change: impl Fn(&mut Learned)) {
        let fingerprint = {
            let mut learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
            change(&mut learned);
            learned.fingerprint.clone()
        };
        if let Some(memory) = &backend.memory
            && !fingerprint.is_empty()
        {
            memory.update(&backend.endpoint, &fingerprint, change);
        }
    }

    /// The server's refusal of fill-in-the-middle, once it gave one.
    pub(crate) fn refused_fim(&self) -> Option<String> {
        self.refused_fim
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Model tokens per prompt token: measured, else [`DEFAULT_RATIO`].
    pub(crate) fn ratio(&self) -> f64 {
        self.ratio
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or(DEFAULT_RATIO)
    }

    /// Remembers a measured ratio (model tokens over prompt tokens) for later requests.
    pub(crate) fn measured(&self, model_tokens: usize, prompt_tokens: usize) {
        if prompt_tokens > 0 {
            *self.ratio.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(model_tokens as f64 / prompt_tokens as f64);
        }
    }

    /// A refusal for length: assume the model needs more tokens than thought.
    pub(crate) fn refused(&self) {
        let next = self.ratio() * 1.5;
        *self.ratio.lock().unwrap_or_else(|e| e.into_inner()) = Some(next);
    }

    /// The budget: the one asked for, lowered to what the server's context holds after
    /// `max_tokens` of answer.
    pub(crate) fn budget(
        &self,
        asked: usize,
        context_size: Option<u32>,
        max_tokens: u32,
    ) -> Budget {
        let Some(ctx) = context_size else {
            return Budget {
                tokens: asked,
                context_size,
                note: None,
            };
        };
        let room = ctx.saturating_sub(max_tokens).saturating_sub(RESERVE);
        let ratio = self.ratio();
        let fits = (f64::from(room) / ratio).floor() as usize;
        if fits >= asked {
            return Budget {
                tokens: asked,
                context_size,
                note: None,
            };
        }
        Budget {
            tokens: fits,
            context_size,
            note: Some(format!(
                "prompt budget lowered from {asked} to {fits} tokens: the server's context is {ctx} tokens, {max_tokens} of them for the answer, at {ratio:.2} model tokens per prompt token"
            )),
        }
    }
}

/// A prompt's model tokens the server would read, and those it holds already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Uncached {
    pub(crate) tokens: usize,
    pub(crate) cached: usize,
}

/// Model tokens per byte of source assumed before a server said how many a prompt had (code
/// runs 3 to 4 bytes a token).
const MODEL_TOKENS_PER_BYTE: f64 = 0.3;

/// The context size the prompt is fitted to: what is asked of Ollama, else what the server
/// said.
pub(crate) fn context_size(backend: &Backend, info: Option<&ServerInfo>) -> Option<u32> {
    ollama_context(backend, info).or_else(|| info.and_then(|i| i.context_size))
}

/// The context size to ask of a server that takes it per request: Ollama runs a model with
/// 2,048 tokens unless told, which silently cuts long prompts, so it is told the model's own
/// size, capped at Copilot's whole window to keep memory in check.
pub(crate) fn ollama_context(backend: &Backend, info: Option<&ServerInfo>) -> Option<u32> {
    if !matches!(backend.kind, Kind::Ollama | Kind::OllamaRaw) {
        return backend.context_size;
    }
    backend
        .context_size
        .or_else(|| info?.context_size.map(|n| n.min(8192)))
}

/// The text the model reads, to be counted in its own vocabulary: the FIM prompt where
/// pilotfish renders one, else the extra context chunks with their names, prefix and suffix.
pub(crate) fn model_text(prompt: &prompt::Prompt, kind: backends::Kind) -> String {
    if kind.fim() == backends::Fim::Template
        && let Some(p) = &prompt.fim_prompt
    {
        return p.clone();
    }
    let mut text = String::new();
    if kind.takes_separate_context() {
        // As the chunks are sent (`model_request`): empty ones left out, the others named by
        // their place.
        for (i, c) in prompt
            .context
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
        {
            text.push_str(&format!("context-{}\n{c}\n", i + 1));
        }
    }
    text.push_str(&prompt.prefix);
    text.push_str(&prompt.suffix);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer timed while others' requests shared the server's batches teaches no speed
    /// (it would lower every later prompt), though the prompt the server holds is still noted.
    #[test]
    fn timings_of_a_contended_server_teach_no_speed() {
        let backend = Backend::new(
            backends::Kind::LlamaCppInfill,
            "http://127.0.0.1:9",
            std::time::Duration::from_secs(1),
            std::time::Duration::from_secs(1),
        )
        .unwrap();
        let fit = Fit::default();
        let slow = Timings {
            prompt_n: 200,
            prompt_ms: 20_000.0,
            ..Timings::default()
        };
        fit.observe_shared(&backend, &slow);
        assert!(fit.speed().is_none(), "learned {:?}", fit.speed());
        fit.observe(&backend, &slow);
        assert!(fit.speed().is_some(), "an uncontended answer teaches it");
    }
}
