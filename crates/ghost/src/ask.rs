//! The request to the model: what the server can take (the request shape), then the request
//! loop: the prompt fitted to the server's context, sent once per candidate, and asked again
//! where the server's refusal says how (prefix-only for a model without fill-in-the-middle, a
//! smaller prompt for one too long).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use backends::{Backend, BackendError, ExtraChunk, Request, server::ServerInfo};
use engine::params;
use prompt::request::RequestJson;
use tokio::sync::watch;

use crate::cursor::At;
use crate::stream::{Cancel, InFlight, Job, OnDone, Progress, run_stream};
use crate::team::Waiting;
use crate::{
    Decision, FimMode, LLAMA_SUFFIX_IGNORED, Outcome, Pipeline, PipelineError, Shape, Source,
    Trace, fit, multiline, shape, speed,
};
use fit::model_text;

/// What the server said of itself, and the backend as this request uses it.
pub(crate) struct Server {
    info: Option<ServerInfo>,
    backend: Backend,
    /// The server's context in the model's tokens, when known.
    context_size: Option<u32>,
    /// Whether the server counts tokens in the model's own vocabulary.
    tokenizes: bool,
}

impl Pipeline {
    /// What the server can take: its description (asked once), its context, and the limits
    /// this request waits under.
    pub(crate) async fn server(&self, trace: &mut Trace) -> Server {
        let (info, silent) = self.fit.info(&self.backend).await;
        let mut backend = self.backend.clone();
        // A server that took the connection and would not even describe itself is hung or
        // stuck: without a first-token limit of its own, the request waits a short one rather
        // than the whole total limit.
        if let Some(e) = silent {
            let wait = *backend
                .first_token_timeout
                .get_or_insert(SILENT_SERVER_FIRST_TOKEN);
            trace.notes.push(format!(
                "{e}; the completion waits {wait:?} for its first text"
            ));
        }
        if self.backend.kind == backends::Kind::OpenAiCompletions
            && info.as_ref().is_some_and(|i| i.is_llama_cpp())
        {
            trace.notes.push(LLAMA_SUFFIX_IGNORED.to_owned());
        }
        backend.context_size = fit::ollama_context(&self.backend, info.as_ref());
        // vLLM says in `/metrics` whether it works on requests: a first-token limit sized here
        // (see `limited`) or the editor's default waits on while it does; the user's cuts.
        // llama.cpp's `/slots` says so too, and on a server a team shares a keystroke's request
        // may queue behind others' for longer than the editor's 4 s: the editor's default
        // waits on while a slot works (a newer keystroke still supersedes it). A command's
        // limit sized here still cuts, so that a command against a server stuck "processing"
        // ends within ten seconds.
        let sized_or_default =
            backend.first_token_timeout.is_none() || backend.first_token_timeout_is_default;
        backend.first_token_patience = match info.as_ref() {
            Some(i) if i.server == "vLLM" => sized_or_default,
            Some(i) if i.is_llama_cpp() => backend.first_token_timeout_is_default,
            _ => false,
        };
        let context_size = fit::context_size(&self.backend, info.as_ref());
        let tokenizes = info.as_ref().is_some_and(|i| i.tokenizes);
        Server {
            info,
            backend,
            context_size,
            tokenizes,
        }
    }

    /// The request loop: each round chooses the request's shape, fits the prompt, and asks;
    /// a refusal that says how to ask better starts another round.
    pub(crate) async fn request_loop(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        at: &At<'_>,
        decision: &Decision,
        mut server: Server,
        mut trace: Trace,
    ) -> Result<Outcome, PipelineError> {
        let mut asked = self
            .settings
            .max_prompt_tokens
            .unwrap_or(request.options.max_prompt_tokens);
        let mut refused = false;
        let mut resampled = false;
        // A round asked again starts from the document's session as it was: the prompt of a
        // refused round must not move the stable layout's anchor, or the next request (in
        // this process or the next) would not start as this one's.
        let session = self.state().sessions.get(&request.document.path).cloned();
        loop {
            let shape = self.shape(request, server.info.as_ref());
            server.backend.kind = shape.kind;
            trace.shape = Some(shape.clone());
            let fitted = self
                .fit_prompt(request, files, asked, &server, &shape, &mut trace)
                .await;
            // The measuring request of a first contact, refused for fill-in-the-middle: asked
            // again prefix-only, as a refused prompt is.
            let prompt = match fitted {
                Err(PipelineError::Backend { error, .. }) => {
                    let again = Again {
                        shape: &shape,
                        context_size: server.context_size,
                        refused: &mut refused,
                        asked: &mut asked,
                    };
                    if self.ask_again(&error, again, &mut trace) {
                        self.restore_session(&request.document.path, session.as_ref());
                        continue;
                    }
                    return Err(self.failed(error, trace, at));
                }
                other => other?,
            };
            if self.settings.skip_like_copilot
                && let Some(reason) = &prompt.copilot_skip_reason
            {
                self.state().stats.skipped += 1;
                let reason = format!("Copilot would not ask here: {reason}");
                trace.prompt = Some(prompt);
                return Ok(self.skip(reason, trace, at.started));
            }
            let path = &request.document.path;
            let backend = self.limited(&server.backend, path, &prompt, &shape, &mut trace);
            let llama_cpp = server.info.as_ref().is_some_and(ServerInfo::is_llama_cpp);
            let (answers, first_error) = self
                .ask_model(
                    &backend,
                    prompt,
                    (&shape, llama_cpp, resampled),
                    decision,
                    at,
                    &mut trace,
                )
                .await?;
            self.learn(&backend, &shape, server.info.as_ref(), &answers, &trace);
            if answers.is_empty()
                && let Some(error) = first_error
            {
                let again = Again {
                    shape: &shape,
                    context_size: server.context_size,
                    refused: &mut refused,
                    asked: &mut asked,
                };
                if self.ask_again(&error, again, &mut trace) {
                    self.restore_session(&request.document.path, session.as_ref());
                    continue;
                }
                self.unanswered(&backend, &error, &trace);
                return Err(self.failed(error, trace, at));
            }
            if let Some(outcome) = self.finish(&answers, decision, Source::Network, &mut trace, at)
            {
                return Ok(outcome);
            }
            if resampled || !only_repeated(&trace.cuts) {
                return Ok(nothing_shown(trace, at));
            }
            // A small model at temperature 0 may loop on a prompt (`heavy * heavy.quantity *
            // heavy.quantity …`), and asked the same way it loops again: asked once more,
            // sampled, it mostly does not (the last line typed by a team on SmolLM2 went
            // without a suggestion for this).
            resampled = true;
            trace.notes.push(RESAMPLED.to_owned());
            self.restore_session(&request.document.path, session.as_ref());
        }
    }

    /// The error of a request that failed, with its trace, counted.
    pub(crate) fn failed(
        &self,
        error: Arc<BackendError>,
        mut trace: Trace,
        at: &At<'_>,
    ) -> PipelineError {
        self.state().stats.failures += 1;
        trace.total_ms = at.started.elapsed().as_secs_f64() * 1e3;
        crate::each_once(&mut trace.notes);
        PipelineError::Backend {
            error,
            trace: Box::new(trace),
        }
    }

    /// Puts the document's prompt session back as it was before a round asked again.
    fn restore_session(&self, path: &str, session: Option<&prompt::Session>) {
        let mut state = self.state();
        match session {
            Some(s) => state.sessions.insert(path.to_owned(), s.clone()),
            None => state.sessions.remove(path),
        };
    }

    /// The prompt within the budget the server's context leaves for `asked` tokens. Where the
    /// server counts tokens and the prompt may not fit, it is counted as the model counts, and
    /// assembled again within less if it must.
    async fn fit_prompt(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        asked: usize,
        server: &Server,
        shape: &Shape,
        trace: &mut Trace,
    ) -> Result<prompt::Prompt, PipelineError> {
        let path = &request.document.path;
        let max_tokens = self.settings.max_tokens;
        let assembly_started = Instant::now();
        let session = self.session(path);
        let budget = self.fit.budget(asked, server.context_size, max_tokens);
        trace.notes.extend(budget.note.clone());
        let mut prompt = self.assemble(request, files, path, budget.tokens, shape)?;
        trace.max_prompt_tokens = Some(budget.tokens);
        // Counted as the model counts, where the server can and the prompt may not fit.
        if server.tokenizes
            && let Some(ctx) = server.context_size
            && let sent = prompt.prompt_tokens + prompt.suffix_tokens
            && (sent as f64 * 1.5) as u64 + u64::from(max_tokens + fit::RESERVE) > u64::from(ctx)
            && let Ok(Some(counted)) = server
                .backend
                .count_tokens(&model_text(&prompt, server.backend.kind), COUNT_LIMIT)
                .await
        {
            self.fit.measured(counted, sent);
            if counted as u64 + u64::from(max_tokens + fit::RESERVE) > u64::from(ctx) {
                let again = self.fit.budget(asked, server.context_size, max_tokens);
                trace.notes.push(format!(
                    "the model counts {counted} tokens where the prompt counted {sent}: assembled again within {} tokens",
                    again.tokens
                ));
                prompt = self.assemble(request, files, path, again.tokens, shape)?;
                trace.max_prompt_tokens = Some(again.tokens);
            }
        }
        // On a contended server the first text waits for others' requests whatever the
        // prompt's size, and a prompt lowered to the speed would move its start with each
        // keystroke and lose the cache that keeps it fast: it keeps its budget.
        if let Some(target) = self.settings.first_token_target
            && speed::reports_timings(shape.kind)
            && trace.contended.is_none()
        {
            let full = trace.max_prompt_tokens.unwrap_or(budget.tokens);
            let llama_cpp = server.info.as_ref().is_some_and(ServerInfo::is_llama_cpp);
            let unmet = self.fit.speed().is_none();
            self.first_contact(&server.backend, llama_cpp, shape, &prompt, full, trace)
                .await?;
            let sizing = speed::Sizing {
                request,
                files,
                shape,
                session,
                full,
                first_contact: unmet && self.fit.speed().is_some(),
                target,
                limit: Some(
                    server
                        .backend
                        .first_token_timeout
                        .unwrap_or(speed::LONGEST_LIMIT),
                ),
            };
            prompt = self.size_to_speed(sizing, prompt, trace)?;
        }
        trace.assembly_ms = Some(assembly_started.elapsed().as_secs_f64() * 1e3);
        Ok(prompt)
    }

    /// The backend this request is sent with: where it has no first-token limit of its own
    /// and budgets follow the server's speed, one sized from the speed and the model tokens
    /// the server does not hold of this prompt. The prompt is remembered as sent.
    fn limited(
        &self,
        backend: &Backend,
        path: &str,
        prompt: &prompt::Prompt,
        shape: &Shape,
        trace: &mut Trace,
    ) -> Backend {
        let mut backend = backend.clone();
        let text = model_text(prompt, shape.kind);
        if self.settings.first_token_target.is_some() {
            let uncached = self.fit.uncached(&text).tokens;
            trace.uncached_tokens = Some(uncached);
            let speed = self.fit.speed().map(|s| s.prompt_per_second);
            // A limit sized here waits on while the server says it is working (a slow vLLM
            // reading a long prompt cold); one the user configured cuts.
            backend.first_token_patience &=
                backend.first_token_timeout.is_none() || backend.first_token_timeout_is_default;
            let limit = *backend
                .first_token_timeout
                .get_or_insert_with(|| speed::first_token_limit(speed, uncached));
            trace.first_token_limit_ms = Some(limit.as_secs_f64() * 1e3);
        }
        let budget = trace.max_prompt_tokens.unwrap_or_default();
        let anchor = self
            .state()
            .sessions
            .get(path)
            .and_then(prompt::Session::anchor);
        self.fit
            .sent(&backend, &text, budget, anchor.map(|a| (path, a)));
        backend
    }

    /// What an answer showed of the server: its speed (from the timings it sent) and, for a
    /// fill-in-the-middle request it answered where the server had not said, that the model
    /// does fill-in-the-middle. Both are remembered across processes.
    fn learn(
        &self,
        backend: &Backend,
        shape: &Shape,
        info: Option<&ServerInfo>,
        answers: &[String],
        trace: &Trace,
    ) {
        match &trace.timings {
            Some(t) if trace.contended.is_some() => self.fit.observe_shared(backend, t),
            Some(t) => self.fit.observe(backend, t),
            None => {}
        }
        let answered_fim = match shape.kind {
            backends::Kind::LlamaCppInfill => true,
            // llama.cpp's /v1/completions ignores `suffix`, and an empty one is not sent.
            backends::Kind::OpenAiCompletions => {
                !info.is_some_and(ServerInfo::is_llama_cpp)
                    && trace
                        .backend_request
                        .as_ref()
                        .is_some_and(|r| !r.suffix.is_empty())
            }
            _ => false,
        };
        if shape.fim
            && answered_fim
            && !answers.is_empty()
            && info.is_none_or(|i| i.fim.is_none())
            && !self.fit.fim_known()
        {
            let what = format!("{} answered a fill-in-the-middle request", backend.endpoint);
            self.fit.learn_fim(backend, true, what);
        }
    }

    /// The document's prompt session as it stands; a new one resumes where an earlier
    /// process's prompt for it started its prefix (a command run per keystroke).
    fn session(&self, path: &str) -> Option<prompt::Session> {
        let mut state = self.state();
        if !state.sessions.contains_key(path)
            && let Some(anchor) = self.fit.anchor(path)
        {
            let mut session = prompt::Session::default();
            session.resume(anchor);
            state.sessions.insert(path.to_owned(), session);
        }
        state.sessions.get(path).cloned()
    }

    /// What a request that got no answer leaves behind: a first one cut by its first-token
    /// limit says how slow the server is; a prompt that was not answered may not be held
    /// either, but one cut by the first-token limit in an editor's session is still being
    /// read (its stream goes on for the next keystroke to adopt). A command's stream ends with
    /// the command.
    fn unanswered(&self, backend: &Backend, error: &BackendError, trace: &Trace) {
        self.too_slow(backend, error, trace);
        let goes_on = matches!(error, BackendError::FirstTokenTimeout { .. })
            && !self.settings.grow_in_request;
        if !goes_on {
            self.fit.unsent(backend);
        }
    }

    /// A first request cut by its first-token limit before the server's speed was known
    /// says the server reads slower than the prompt's uncached tokens over the limit: that is
    /// remembered as its speed, so the next request's limit leaves the reading its time.
    fn too_slow(&self, backend: &Backend, error: &BackendError, trace: &Trace) {
        if let BackendError::FirstTokenTimeout { after, .. } = error
            && self.fit.speed().is_none()
            && trace.contended.is_none()
            && let Some(uncached) = trace.uncached_tokens
            && uncached as u64 >= backends::MIN_TOKENS_TIMED
        {
            let timings = backends::Timings {
                prompt_n: uncached as u64,
                prompt_ms: after.as_secs_f64() * 1e3,
                ..backends::Timings::default()
            };
            self.fit.observe(backend, &timings);
        }
    }

    /// Whether a round whose every request failed is asked again, and how: prefix-only when a
    /// model without fill-in-the-middle refused it, with a smaller prompt (once) when the
    /// prompt was too long for the server's context.
    fn ask_again(&self, error: &BackendError, again: Again<'_>, trace: &mut Trace) -> bool {
        // A model without fill-in-the-middle that the server did not own up to in advance:
        // remembered, and asked again prefix-only.
        if again.shape.fim
            && self.settings.fim == FimMode::Auto
            && let Some(why) = shape::refuses_fim(error)
            && self.backend.kind.prefix_only().is_some()
        {
            trace.notes.push(format!(
                "the server refused fill-in-the-middle ({why}); asked again prefix-only"
            ));
            self.fit.learn_fim(
                &self.backend,
                false,
                format!("the server refused it: {why}"),
            );
            return true;
        }
        // A prompt the server refused for length is built smaller and sent once more.
        if error.is_context_overflow() && !*again.refused {
            *again.refused = true;
            if again.context_size.is_some() {
                self.fit.refused();
            } else {
                *again.asked = *again.asked * 2 / 3;
            }
            trace.notes.push(format!(
                "the server refused the prompt as too long for its context ({error}); asked again with a smaller prompt"
            ));
            return true;
        }
        false
    }

    /// Sends the prompt with Copilot's sampling, one request per candidate, and waits for
    /// every answer; the first error is kept for when no answer came. The person's earlier
    /// streams are cancelled first, and what of them is still at the server is waited for
    /// (one request in flight per person). `llama_cpp`: the server is llama.cpp's.
    async fn ask_model(
        &self,
        backend: &Backend,
        prompt: prompt::Prompt,
        (shape, llama_cpp, resampled): (&Shape, bool, bool),
        decision: &Decision,
        at: &At<'_>,
        trace: &mut Trace,
    ) -> Result<(Vec<String>, Option<Arc<BackendError>>), PipelineError> {
        let (cursor, ask) = (at.cursor, at.ask);
        // On a contended server a one-line answer asks for little more than a line: a slot
        // freed sooner serves another person's keystroke, and a loop ends sooner.
        let max_tokens = match &trace.contended {
            Some(_) if !decision.multiline => self
                .settings
                .max_tokens
                .min(crate::team::CONTENDED_LINE_TOKENS),
            _ => self.settings.max_tokens,
        };
        let mut backend_request = sampled_request(
            &prompt,
            shape.fim,
            &cursor.language,
            max_tokens,
            ask.candidates,
        );
        if resampled {
            backend_request.temperature = RESAMPLE_TEMPERATURE;
        }
        trace.prompt = Some(prompt);
        trace.backend_request = Some(backend_request.clone());
        // The stream continues the prompt, so its block is judged from where the prompt ends.
        let finisher = multiline::Finisher::new(
            decision,
            &cursor.language,
            &cursor.text,
            cursor.model_prefix().len(),
        );
        self.cancel_earlier(ask.arrived);
        self.drained().await;
        self.state().stats.network += 1;
        let stops = backend_request.stop.clone();
        // The stream itself waits longer for its first text than the editor does: cut by the
        // editor's limit, it goes on for the next keystroke to adopt (or is cancelled).
        let mut streaming = backend.clone();
        streaming.first_token_timeout = backend
            .first_token_timeout
            .map(|limit| limit.max(crate::stream::KEEP_UNTIL_TEXT));
        let mut receivers = Vec::new();
        for i in 0..ask.candidates.max(1) {
            let (tx, rx) = watch::channel(Progress::default());
            let cancel = Cancel::new();
            let flight = {
                let mut state = self.state();
                state.next_id += 1;
                let flight = Arc::new(InFlight {
                    id: state.next_id,
                    path: cursor.path.clone(),
                    prefix: cursor.model_prefix().to_owned(),
                    suffix: cursor.suffix().to_owned(),
                    progress: rx.clone(),
                    cancel: cancel.clone(),
                    arrived: ask.arrived,
                    // The first candidate is the one later keystrokes may adopt.
                    adoptable: i == 0,
                    waiters: Default::default(),
                    limits: backend.clone(),
                });
                state.in_flight.push(flight.clone());
                flight
            };
            let id = flight.id;
            let on_done = OnDone {
                state: self.state.clone(),
                id,
                prefix: cursor.model_prefix().to_owned(),
                suffix: cursor.suffix().to_owned(),
                cache: self.settings.cache,
            };
            let job = Job {
                backend: streaming.clone(),
                request: backend_request.clone(),
                finisher: finisher.clone(),
                stops: stops.clone(),
                retries: self.settings.retries,
                keep_until_text: llama_cpp,
                on_done,
            };
            // Counted as waited for before the stream starts: the editor may drop this
            // request at any time, which releases it.
            let waiting = Waiting::new(flight);
            tokio::spawn(run_stream(job, tx, cancel));
            receivers.push((waiting, rx));
        }
        wait_for_answers(backend, receivers, trace).await
    }
}

/// Waits for every candidate's stream to end: the answers, and the first error. The
/// first-token limit is the request's, not the stream's: a stream it cuts goes on, released.
async fn wait_for_answers(
    backend: &Backend,
    receivers: Vec<(Waiting, watch::Receiver<Progress>)>,
    trace: &mut Trace,
) -> Result<(Vec<String>, Option<Arc<BackendError>>), PipelineError> {
    let mut answers = Vec::new();
    let mut first_error = None;
    let mut deadline = backend
        .first_token_timeout
        .map(|after| (tokio::time::Instant::now() + after, after));
    for (_waiting, mut rx) in receivers {
        let first = async {
            rx.wait_for(|p| p.first_token.is_some() || p.done.is_some())
                .await
                .is_ok()
        };
        if let Err(e) = backend.first_wait(first, &mut deadline).await {
            trace.attempts += rx.borrow().attempts;
            first_error.get_or_insert(Arc::new(e));
            continue;
        }
        let done = rx
            .wait_for(|p| p.done.is_some())
            .await
            .map_err(|e| PipelineError::Task(e.to_string()))?
            .clone();
        trace.attempts += done.attempts;
        trace.timings = done.timings.or(trace.timings);
        if let Some(t) = done.first_token {
            let t = t.as_secs_f64() * 1e3;
            trace.first_token_ms = Some(trace.first_token_ms.map_or(t, |f: f64| f.min(t)));
        }
        match done.done {
            Some(Ok(answer)) => answers.push(answer),
            Some(Err(e)) => {
                first_error.get_or_insert(e);
            }
            None => {}
        }
    }
    Ok((answers, first_error))
}

/// The temperature an answer is asked again at when every answer repeated a pattern:
/// Copilot's for twenty samples or more, far enough from 0 to leave a loop.
const RESAMPLE_TEMPERATURE: f32 = 0.8;

/// The note of a request asked again because its answers only repeated a pattern.
const RESAMPLED: &str =
    "every answer repeated a pattern: asked once more, sampled at temperature 0.8";

/// Whether every answer was dropped, and each for repeating a pattern.
fn only_repeated(cuts: &[String]) -> bool {
    !cuts.is_empty() && cuts.iter().all(|c| c.contains(crate::clean::REPEATS))
}

/// The outcome of a request the server answered, none of whose answers survived cleaning.
fn nothing_shown(mut trace: Trace, at: &At<'_>) -> Outcome {
    trace.total_ms = at.started.elapsed().as_secs_f64() * 1e3;
    crate::each_once(&mut trace.notes);
    Outcome {
        suggestions: Vec::new(),
        source: Some(Source::Network),
        skipped: None,
        trace,
    }
}

/// How a failed round may be asked again: its shape, the server's context, whether a prompt
/// was refused for length already, and the budget asked for.
struct Again<'a> {
    shape: &'a Shape,
    context_size: Option<u32>,
    refused: &'a mut bool,
    asked: &'a mut usize,
}

/// The first-token limit for a server that would not describe itself, where none is set.
const SILENT_SERVER_FIRST_TOKEN: Duration = Duration::from_secs(6);

/// How long counting a prompt with the server's tokenizer may take before it is skipped.
const COUNT_LIMIT: Duration = Duration::from_millis(500);

/// The request for `prompt` with Copilot's sampling: the language's stops and the temperature
/// for the number of candidates asked.
pub(crate) fn sampled_request(
    prompt: &prompt::Prompt,
    fim: bool,
    language: &str,
    max_tokens: u32,
    candidates: u32,
) -> Request {
    Request {
        max_tokens,
        stop: params::stops_for_language(language)
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        temperature: params::temperature_for_samples(candidates.max(1)) as f32,
        top_p: params::TOP_P as f32,
        ..model_request(prompt, fim)
    }
}

/// The prompt as the backend takes it: prefix, suffix and context chunks for fill-in-the-middle
/// (or the FIM template's one string), the whole prompt for a prefix-only continuation.
pub(crate) fn model_request(prompt: &prompt::Prompt, fim: bool) -> Request {
    if !fim {
        return Request {
            prompt: prompt.prefix.clone(),
            prefix: prompt.prefix.clone(),
            fim: false,
            ..Request::default()
        };
    }
    Request {
        prompt: prompt.fim_prompt.clone().unwrap_or_default(),
        prefix: prompt.prefix.clone(),
        suffix: prompt.suffix.clone(),
        extra: prompt
            .context
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
            .map(|(i, c)| ExtraChunk {
                filename: format!("context-{}", i + 1),
                text: c.clone(),
            })
            .collect(),
        ..Request::default()
    }
}
