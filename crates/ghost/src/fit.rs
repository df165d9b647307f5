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
    sync::Mutex,
    time::{Duration, Instant},
};

use backends::{Backend, BackendError, Kind, server::ServerInfo};

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
                Ok(info) => cached.0 = Some(info),
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

    /// The server's refusal of fill-in-the-middle, once it gave one.
    pub(crate) fn refused_fim(&self) -> Option<String> {
        self.refused_fim
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Remembers that the server refused fill-in-the-middle: later requests are prefix-only.
    pub(crate) fn refuse_fim(&self, why: String) {
        *self.refused_fim.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
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
