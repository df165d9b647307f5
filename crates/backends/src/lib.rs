//! Talking to model servers: the only crate that speaks HTTP.
//!
//! A [`Backend`] is one endpoint of one kind of server. It turns a completion request (prefix,
//! suffix, extra context, sampling parameters) into that server's wire format, sends it, and
//! gives back the text, whole or as it streams. Every way a server can fail has its own
//! [`BackendError`]: unreachable, too slow, an HTTP error with its body, JSON that does not
//! parse, a stream cut in the middle, an answer too large. Nothing here panics on what a server
//! sends.
//!
//! Kinds: llama.cpp's `/infill` (native fill-in-the-middle with extra context chunks) and
//! `/completion`, OpenAI-compatible `/v1/completions` (prompt with `suffix`) and
//! `/v1/chat/completions` (chat models, asked in words), Ollama's `/api/generate` (with
//! `suffix`, or raw), and Mistral's Codestral `/v1/fim/completions`.

pub mod chat;
pub mod http;
pub mod identity;
mod kind;
pub mod memory;
mod post;
pub mod server;
pub mod silence;
pub mod sse;
mod timings;

pub(crate) use identity::status_error;
pub use identity::{Identity, Secret};
pub use kind::{Fim, Kind};
pub use timings::{MIN_TOKENS_TIMED, Timings};

use std::{ops::ControlFlow, time::Duration};

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::{Value, json};

/// A file given to the model as extra context (llama.cpp's `input_extra`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtraChunk {
    pub filename: String,
    pub text: String,
}

/// What to ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// For template kinds: the whole prompt (FIM template already applied).
    pub prompt: String,
    /// For native-FIM kinds: text before and after the cursor.
    pub prefix: String,
    pub suffix: String,
    pub extra: Vec<ExtraChunk>,
    pub max_tokens: u32,
    pub temperature: f32,
    pub top_p: f32,
    /// Candidates wanted (OpenAI-compatible servers only; llama.cpp gives one).
    pub n: u32,
    pub stop: Vec<String>,
    /// llama.cpp's limit on generation time, in milliseconds (0: none).
    pub max_predict_ms: u64,
    /// Fill-in-the-middle (the default); `false` for a prefix-only continuation, where
    /// `/v1/completions` gets no `suffix` at all (servers refuse one for models without FIM).
    pub fim: bool,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            prompt: String::new(),
            prefix: String::new(),
            suffix: String::new(),
            extra: Vec::new(),
            max_tokens: 64,
            temperature: 0.0,
            top_p: 1.0,
            n: 1,
            stop: Vec::new(),
            max_predict_ms: 0,
            fim: true,
        }
    }
}

/// One endpoint of one server.
#[derive(Debug, Clone)]
pub struct Backend {
    pub kind: Kind,
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    pub endpoint: String,
    pub model: Option<String>,
    /// Sent as a bearer token on every request, never shown.
    pub api_key: Option<Secret>,
    /// The session header and `user` field every request carries (see [`identity`]).
    pub identity: Identity,
    /// For the whole exchange, stream included.
    pub total_timeout: Duration,
    /// For a streamed answer: the longest wait from sending until the first text arrives.
    /// Ghost text is worthless late, so an editor gets a short one; a hung server then costs
    /// one short wait, not the whole total limit.
    pub first_token_timeout: Option<Duration>,
    /// Whether the first-token limit is one pilotfish sized itself (from the server's speed
    /// and the prompt), not the user's: past it, the request waits on in steps of
    /// [`PATIENCE_STEP`] while the server says it is still working (a vLLM that answers `/health`),
    /// so that a slow server reading a long prompt cold is not cut and called hung. A limit
    /// the user configured always cuts.
    pub first_token_patience: bool,
    /// Whether [`Self::first_token_timeout`] is a default the editor's language server chose,
    /// not one the user set: like a limit pilotfish sized, it gives way to a vLLM whose
    /// `/metrics` shows it still working, and also to a llama.cpp whose `/slots` shows a slot
    /// processing (a shared server's queue); the user's own limit always cuts.
    pub first_token_timeout_is_default: bool,
    /// The context size to ask the server for, where the server takes it per request
    /// (Ollama's `num_ctx`, whose default silently truncates long prompts).
    pub context_size: Option<u32>,
    /// Let llama.cpp keep the prompt's evaluated tokens for the next request (on by default:
    /// consecutive keystrokes then read only what changed). Off only to measure without it.
    pub cache_prompt: bool,
    /// Where what was learned of the server is kept across processes; `None`: nowhere.
    pub memory: Option<memory::Memory>,
    client: reqwest::Client,
}

/// How much longer a request with [`Backend::first_token_patience`] waits each time the server
/// says it is still working.
pub const PATIENCE_STEP: Duration = Duration::from_secs(2);

/// What a chat model is told when asked to fill a hole: answer with the missing code only.
pub const CHAT_INSTRUCTION: &str = "You complete code. The user's message is a source file with one hole marked <|HOLE|>. Reply with exactly the code that belongs in the hole: no explanations, no repetition of the surrounding code, no Markdown fences.";
const HOLE: &str = "<|HOLE|>";

/// Answers larger than this are refused: no completion is this long, and a server that sends
/// more is broken.
pub const MAX_RESPONSE_BYTES: usize = 8 << 20;

/// Everything that can go wrong talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("could not connect to {url}: is the server running? ({detail})")]
    Connect { url: String, detail: String },
    #[error(
        "{url} did not answer within {after:?}: the server is hung, overloaded or still loading its model"
    )]
    Timeout { url: String, after: Duration },
    #[error(
        "{url} sent no text within {after:?} (the time-to-first-token limit): the server is busy, loading a model or hung"
    )]
    FirstTokenTimeout { url: String, after: Duration },
    #[error("{}", identity::refused(url, *status, body, *key_sent))]
    Unauthorized {
        url: String,
        status: u16,
        body: String,
        /// Whether a key was sent (and refused), or none.
        key_sent: bool,
    },
    #[error("{url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url} sent an answer that is not the expected JSON: {detail}")]
    Json { url: String, detail: String },
    #[error("{url} sent a broken event stream: {source}")]
    Stream {
        url: String,
        #[source]
        source: sse::SseError,
    },
    #[error("{url} closed the stream before the completion ended")]
    StreamCut { url: String },
    #[error("{url} sent more than {limit} bytes; that is not a completion")]
    TooLarge { url: String, limit: usize },
    #[error(
        "{url} answered with a web page ({content_type}), not a completion: is the endpoint the model server's address?"
    )]
    NotAModelServer { url: String, content_type: String },
    #[error("the HTTP client could not be set up: {0}")]
    Setup(String),
    #[error("request to {url} failed: {detail}")]
    Other { url: String, detail: String },
}

impl BackendError {
    /// Whether asking again may help and cannot do harm: the server was not reached, or said
    /// it is busy or briefly unavailable (429, 502, 503, 504). A request that failed after
    /// text arrived is never retried by the pipeline, whatever the error.
    pub fn is_retryable(&self) -> bool {
        match self {
            BackendError::Connect { .. } => true,
            BackendError::Status { status, .. } => matches!(status, 429 | 502 | 503 | 504),
            _ => false,
        }
    }

    /// Whether the server refused the prompt as longer than its context (llama.cpp: "exceeds
    /// the available context size"; vLLM and OpenAI: "maximum context length"): asking again
    /// with a smaller prompt may succeed.
    pub fn is_context_overflow(&self) -> bool {
        let BackendError::Status { status, body, .. } = self else {
            return false;
        };
        let body = body.to_ascii_lowercase();
        *status == 413
            || (matches!(status, 400 | 500)
                && body.contains("context")
                && ["exceed", "too long", "length", "maximum"]
                    .iter()
                    .any(|w| body.contains(w)))
    }

    /// A short name for the kind of failure, the same for every failure of that kind (so an
    /// editor is told once per kind, not once per keystroke).
    pub fn kind_name(&self) -> String {
        match self {
            BackendError::Connect { .. } => "connect".into(),
            BackendError::Timeout { .. } => "timeout".into(),
            BackendError::FirstTokenTimeout { .. } => "first-token-timeout".into(),
            BackendError::Status { status, .. } | BackendError::Unauthorized { status, .. } => {
                format!("http-{status}")
            }
            BackendError::Json { .. } => "json".into(),
            BackendError::Stream { .. } | BackendError::StreamCut { .. } => "stream".into(),
            BackendError::TooLarge { .. } => "too-large".into(),
            BackendError::NotAModelServer { .. } => "not-a-model-server".into(),
            BackendError::Setup(_) => "setup".into(),
            BackendError::Other { .. } => "other".into(),
        }
    }
}

/// The completion and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// One text per candidate.
    pub choices: Vec<String>,
    /// Per candidate, whether the server stopped it at the token limit rather than where the
    /// model ended it (llama.cpp's `stop_type: "limit"`, OpenAI's `finish_reason: "length"`,
    /// Ollama's `done_reason: "length"`); false when the server does not say.
    pub at_limit: Vec<bool>,
}

impl Backend {
    /// A backend with a connect timeout for reaching the server and a total timeout for the
    /// whole answer.
    pub fn new(
        kind: Kind,
        endpoint: &str,
        connect_timeout: Duration,
        total_timeout: Duration,
    ) -> Result<Backend, BackendError> {
        // Rustls needs a crypto provider once per process; installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| BackendError::Setup(e.to_string()))?;
        // The full endpoint URL works too: its path is taken off.
        let trimmed = endpoint.trim().trim_end_matches('/');
        let root = trimmed.strip_suffix(kind.path()).unwrap_or(trimmed);
        Ok(Backend {
            kind,
            endpoint: base_url(root),
            model: None,
            api_key: None,
            identity: Identity::here(),
            total_timeout,
            first_token_timeout: None,
            first_token_patience: false,
            first_token_timeout_is_default: false,
            context_size: None,
            cache_prompt: true,
            memory: None,
            client,
        })
    }

    fn url(&self) -> String {
        format!("{}{}", self.endpoint, self.kind.path())
    }

    fn body(&self, req: &Request, stream: bool) -> Value {
        match self.kind {
            Kind::LlamaCppInfill => json!({
                "input_prefix": req.prefix,
                "input_suffix": req.suffix,
                "input_extra": req.extra,
                "n_predict": req.max_tokens,
                "temperature": req.temperature,
                "top_p": req.top_p,
                "stop": req.stop,
                "t_max_predict_ms": req.max_predict_ms,
                "cache_prompt": self.cache_prompt,
                "stream": stream,
                // Every streamed event then says how long reading the prompt took, so the speed
                // is measured even when the stream is closed at the end of the line wanted.
                "timings_per_token": true,
            }),
            Kind::LlamaCppCompletion => json!({
                "prompt": req.prompt,
                "n_predict": req.max_tokens,
                "temperature": req.temperature,
                "top_p": req.top_p,
                "stop": req.stop,
                "t_max_predict_ms": req.max_predict_ms,
                "cache_prompt": self.cache_prompt,
                "stream": stream,
                // Every streamed event then says how long reading the prompt took, so the speed
                // is measured even when the stream is closed at the end of the line wanted.
                "timings_per_token": true,
            }),
            Kind::Ollama | Kind::OllamaRaw => {
                let raw = self.kind == Kind::OllamaRaw;
                let mut body = json!({
                    "model": self.model.clone().unwrap_or_default(),
                    "prompt": if raw { &req.prompt } else { &req.prefix },
                    "raw": raw,
                    "stream": stream,
                    "options": {
                        "num_predict": req.max_tokens,
                        "temperature": req.temperature,
                        "top_p": req.top_p,
                        "stop": req.stop,
                    },
                });
                if let Some(n) = self.context_size {
                    body["options"]["num_ctx"] = json!(n);
                }
                // An empty suffix is left out: some servers refuse `suffix` outright for a
                // model without fill-in-the-middle, and an empty one says nothing anyway.
                if !raw && !req.suffix.is_empty() {
                    body["suffix"] = json!(req.suffix);
                }
                body
            }
            Kind::OpenAiChat => {
                let mut body = json!({
                    "messages": [
                        {"role": "system", "content": CHAT_INSTRUCTION},
                        {"role": "user", "content": format!("{}{HOLE}{}", req.prefix, req.suffix)},
                    ],
                    "max_tokens": req.max_tokens,
                    "temperature": req.temperature,
                    "top_p": req.top_p,
                    "n": req.n,
                    "stream": stream,
                });
                if let Some(model) = &self.model {
                    body["model"] = json!(model);
                }
                self.identity.stamp(&mut body);
                body
            }
            Kind::OpenAiCompletions | Kind::Codestral => {
                let mut body = json!({
                    "prompt": req.prefix,
                    "max_tokens": req.max_tokens,
                    "temperature": req.temperature,
                    "top_p": req.top_p,
                    "n": req.n,
                    "stream": stream,
                });
                // vLLM answers 400 to any `suffix`, even an empty one, for a model without
                // fill-in-the-middle, so an empty suffix is never sent.
                if req.fim && !req.suffix.is_empty() {
                    body["suffix"] = json!(req.suffix);
                }
                if !req.stop.is_empty() {
                    body["stop"] = json!(req.stop);
                }
                if let Some(model) = &self.model {
                    body["model"] = json!(model);
                }
                // Mistral's hosted API is not a shared server of the team's: no `user` there.
                if self.kind == Kind::OpenAiCompletions {
                    self.identity.stamp(&mut body);
                }
                body
            }
        }
    }

    async fn send(&self, body: &Value) -> Result<reqwest::Response, BackendError> {
        let url = self.url();
        let who = (&self.identity, self.api_key.as_ref());
        Ok(
            post::post(&self.client, &url, body, self.total_timeout, who)
                .await?
                .0,
        )
    }

    fn transport_error(&self, e: reqwest::Error) -> BackendError {
        self.transport_error_at(&self.url(), e)
    }

    fn transport_error_at(&self, url: &str, e: reqwest::Error) -> BackendError {
        transport_error(url, self.total_timeout, e)
    }

    /// Asks for a completion and waits for all of it.
    pub async fn complete(&self, req: &Request) -> Result<Completion, BackendError> {
        let response = self.send(&self.body(req, false)).await?;
        let bytes = read_limited(response, MAX_RESPONSE_BYTES)
            .await
            .map_err(|e| match e {
                ReadError::TooLarge => BackendError::TooLarge {
                    url: self.url(),
                    limit: MAX_RESPONSE_BYTES,
                },
                ReadError::Transport(e) => self.transport_error(e),
            })?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| BackendError::Json {
            url: self.url(),
            detail: e.to_string(),
        })?;
        let (choices, at_limit) = match self.kind {
            Kind::LlamaCppInfill | Kind::LlamaCppCompletion => (
                vec![
                    string_field(&value, "content")
                        .ok_or_else(|| self.json_error("no `content` string"))?,
                ],
                vec![value["stop_type"] == "limit" || value["stopped_limit"] == true],
            ),
            Kind::OpenAiCompletions | Kind::OpenAiChat | Kind::Codestral => {
                let choices = value["choices"]
                    .as_array()
                    .ok_or_else(|| self.json_error("no `choices` array"))?;
                let texts = choices
                    .iter()
                    .map(|c| {
                        string_field(c, "text")
                            .or_else(|| string_field(&c["message"], "content"))
                            .ok_or_else(|| {
                                self.json_error("a choice without `text` or `message.content`")
                            })
                    })
                    .collect::<Result<_, _>>()?;
                let limits = choices.iter().map(|c| c["finish_reason"] == "length");
                (texts, limits.collect())
            }
            Kind::Ollama | Kind::OllamaRaw => (
                vec![
                    string_field(&value, "response")
                        .ok_or_else(|| self.json_error("no `response` string"))?,
                ],
                vec![value["done_reason"] == "length"],
            ),
        };
        Ok(Completion { choices, at_limit })
    }

    /// Asks for a completion and hands each piece of text to `on_text` as it arrives. When
    /// `on_text` breaks, the connection is closed at once and the text so far is returned.
    pub async fn stream(
        &self,
        req: &Request,
        on_text: impl FnMut(&str) -> ControlFlow<()>,
    ) -> Result<String, BackendError> {
        Ok(self.stream_timed(req, on_text).await?.0)
    }

    /// [`Self::stream`], with what the server said of the time it took, where it said (the
    /// last event of a stream that ran to its end).
    pub async fn stream_timed(
        &self,
        req: &Request,
        mut on_text: impl FnMut(&str) -> ControlFlow<()>,
    ) -> Result<(String, Option<Timings>), BackendError> {
        let mut deadline = self
            .first_token_timeout
            .map(|after| (tokio::time::Instant::now() + after, after));
        let body = self.body(req, true);
        let response = self.first_wait(self.send(&body), &mut deadline).await??;
        let mut parser = sse::SseParser::default();
        let mut lines = sse::LineParser::default();
        let mut text = String::new();
        let mut ended = false;
        let mut timings = None;
        let mut bytes = response.bytes_stream();
        loop {
            // Until the first text, the wait is bounded by the time-to-first-token limit.
            let next = if text.is_empty() {
                self.first_wait(bytes.next(), &mut deadline).await?
            } else {
                bytes.next().await
            };
            let Some(chunk) = next else { break };
            let chunk = chunk.map_err(|e| self.transport_error(e))?;
            let events = if self.kind.streams_sse() {
                parser.push(&chunk)
            } else {
                lines.push(&chunk)
            }
            .map_err(|source| BackendError::Stream {
                url: self.url(),
                source,
            })?;
            for event in events {
                let (piece, done, timed) = self.parse_event(&event)?;
                timings = timed.or(timings);
                if !piece.is_empty() {
                    text.push_str(&piece);
                    if text.len() > MAX_RESPONSE_BYTES {
                        return Err(BackendError::TooLarge {
                            url: self.url(),
                            limit: MAX_RESPONSE_BYTES,
                        });
                    }
                    if on_text(&piece).is_break() {
                        // Dropping the body stream closes the connection.
                        return Ok((text, timings));
                    }
                }
                if done {
                    ended = true;
                }
            }
            if ended {
                return Ok((text, timings));
            }
        }
        if parser.has_partial_event() || lines.has_partial_line() || !ended {
            return Err(BackendError::StreamCut { url: self.url() });
        }
        Ok((text, timings))
    }

    /// The text of one streamed event, whether it is the last, and the timings it carries.
    fn parse_event(&self, event: &str) -> Result<(String, bool, Option<Timings>), BackendError> {
        if event.trim() == "[DONE]" {
            return Ok((String::new(), true, None));
        }
        let value: Value = serde_json::from_str(event).map_err(|e| BackendError::Json {
            url: self.url(),
            detail: format!("{e} in event {event:?}"),
        })?;
        let timings = Timings::of(self.kind, &value);
        let (piece, done) = match self.kind {
            Kind::LlamaCppInfill | Kind::LlamaCppCompletion => (
                string_field(&value, "content").unwrap_or_default(),
                value["stop"].as_bool().unwrap_or(false),
            ),
            Kind::OpenAiCompletions | Kind::OpenAiChat | Kind::Codestral => {
                let choice = &value["choices"][0];
                let piece = string_field(choice, "text")
                    .or_else(|| string_field(&choice["delta"], "content"))
                    .unwrap_or_default();
                (piece, false)
            }
            Kind::Ollama | Kind::OllamaRaw => (
                string_field(&value, "response").unwrap_or_default(),
                value["done"].as_bool().unwrap_or(false),
            ),
        };
        Ok((piece, done, timings))
    }

    fn json_error(&self, detail: &str) -> BackendError {
        BackendError::Json {
            url: self.url(),
            detail: detail.to_owned(),
        }
    }
}

/// The server's root from a base URL as users write it. OpenAI-compatible servers document
/// their address with `/v1` (`http://host:8000/v1`), and every path pilotfish sends already
/// starts below the root, so a trailing `/v1` is taken off rather than doubled.
pub fn base_url(endpoint: &str) -> String {
    let trimmed = endpoint.trim().trim_end_matches('/');
    trimmed
        .strip_suffix("/v1")
        .unwrap_or(trimmed)
        .trim_end_matches('/')
        .to_owned()
}

fn string_field(v: &Value, name: &str) -> Option<String> {
    v.get(name)?.as_str().map(str::to_owned)
}

/// A request that failed before an answer: timed out (after `total_timeout`), refused, or other.
pub(crate) fn transport_error(
    url: &str,
    total_timeout: Duration,
    e: reqwest::Error,
) -> BackendError {
    let url = url.to_owned();
    if e.is_timeout() {
        BackendError::Timeout {
            url,
            after: total_timeout,
        }
    } else if e.is_connect() {
        BackendError::Connect {
            url,
            detail: root_cause(&e),
        }
    } else {
        BackendError::Other {
            url,
            detail: root_cause(&e),
        }
    }
}

/// The response if it is a model server's answer, with its content type (lower case): an HTTP
/// error becomes `Status` with the start of its body, and a web page where a model server was
/// expected (a proxy's sign-in page, a web UI on that port) is named as such rather than
/// mistaken for a stream that ended early.
pub(crate) async fn accepted(
    url: String,
    response: reqwest::Response,
    key_sent: bool,
) -> Result<(reqwest::Response, String), BackendError> {
    let status = response.status();
    if !status.is_success() {
        let body = read_limited(response, 4096).await.unwrap_or_default();
        let body = String::from_utf8_lossy(&body).trim().to_owned();
        return Err(status_error(url, status.as_u16(), body, key_sent));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.starts_with("text/html") {
        return Err(BackendError::NotAModelServer { url, content_type });
    }
    Ok((response, content_type))
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

enum ReadError {
    TooLarge,
    Transport(reqwest::Error),
}

async fn read_limited(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(ReadError::Transport)?;
        if out.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty `suffix` is never sent (vLLM refuses any `suffix` for a model without
    /// fill-in-the-middle); a real one is, where the request is fill-in-the-middle.
    #[test]
    fn an_empty_suffix_is_left_out_of_every_body() {
        for kind in [Kind::OpenAiCompletions, Kind::Codestral, Kind::Ollama] {
            let backend = Backend::new(
                kind,
                "http://127.0.0.1:1",
                Duration::from_secs(1),
                Duration::from_secs(1),
            )
            .unwrap();
            for (suffix, fim, sent) in [
                ("", true, false),
                ("x\n", true, true),
                ("x\n", false, false),
            ] {
                let req = Request {
                    prefix: "def f(".to_owned(),
                    suffix: suffix.to_owned(),
                    fim,
                    ..Request::default()
                };
                let body = backend.body(&req, false);
                // Ollama's native FIM kind always carries a non-empty suffix, `fim` aside.
                let expected = sent || (kind == Kind::Ollama && !suffix.is_empty());
                assert_eq!(
                    body.get("suffix").is_some(),
                    expected,
                    "{kind:?} {suffix:?} {fim}: {body}"
                );
            }
        }
    }
}
