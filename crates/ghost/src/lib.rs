//! The ghost-text pipeline: from an editor state to the suggestions an editor shows, with
//! what Copilot does around the model call (seeds 001 and 003): the completion cache that
//! typing through a suggestion reuses, reuse of a stream still arriving, the contextual filter
//! and debounce, the multi-line decision, stopping a stream at the end of its block, retries
//! where safe, post-processing, and several candidates for cycling.
//!
//! A [`Pipeline`] lives as long as the editor session: the cache, the per-document prompt
//! state, the filter's learning and the streams in flight are in it. It does no file I/O of
//! its own (the caller hands it the workspace's files) and speaks to the model only through
//! the `backends` crate.

mod clean;
mod fit;
pub mod inspect;
pub mod multiline;
pub mod next_edit;
mod outcome;
pub mod shape;
mod stream;
mod warm;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use backends::{Backend, BackendError, ExtraChunk, Request};
use engine::{
    cache::CompletionsCache,
    contextual_filter::{ContextualFilter, FilterInput},
    debounce::{Debounce, debounce_limit_ms, remaining_debounce_ms},
    params,
};
use prompt::request::RequestJson;
use tokio::sync::watch;

pub use multiline::{Decision, Multiline};
pub use outcome::{Ask, Outcome, PipelineError, Source, Stats, Suggestion, Trace};
pub use shape::{FimMode, Shape};
use stream::{InFlight, Job, OnDone, Progress, run_stream};
pub use warm::Warmed;

/// How the pipeline behaves; the defaults are Copilot's where it has one.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Tokens an answer may have.
    pub max_tokens: u32,
    /// The wait before asking; `None`: ask at once (a command line has no keystrokes).
    pub debounce: Option<Debounce>,
    /// Suppress requests the contextual filter scores below its threshold (off by default:
    /// its weights are learned in the session, not Copilot's).
    pub contextual_filter: bool,
    pub filter_threshold: f64,
    pub multiline: Multiline,
    /// Remember answers, so that typing through a suggestion costs no request.
    pub cache: bool,
    /// Attempts after the first when the server could not be reached or said it is busy,
    /// and no text had arrived.
    pub retries: u32,
    /// Do not ask where Copilot would not (a document of under ten characters, the middle of a
    /// line before anything but closing brackets).
    pub skip_like_copilot: bool,
    /// The prompt's budget, over the request's own; either way lowered to what the server's
    /// context holds.
    pub max_prompt_tokens: Option<usize>,
    /// The context strategy, over the request's own (`outline`, `copilot`, `copilot-legacy`).
    pub strategy: Option<String>,
    /// Fill-in-the-middle or prefix-only: `Auto` asks the server what the model can do.
    pub fim: FimMode,
    /// Warm the model server's prompt cache when a document is opened (the language server;
    /// see [`Pipeline::warm`]).
    pub warm: bool,
    /// Copilot's heading of the recent-edits block for the `copilot` strategy, read where the
    /// user fetched it (`host::copilot_texts`), over the request's own; `None`: pilotfish's.
    pub recent_edits_heading: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_tokens: 64,
            debounce: Some(Debounce::Fixed(engine::debounce::DEFAULT_DEBOUNCE_MS)),
            contextual_filter: false,
            filter_threshold: engine::contextual_filter::DEFAULT_THRESHOLD,
            multiline: Multiline::Copilot,
            cache: true,
            retries: 1,
            skip_like_copilot: true,
            max_prompt_tokens: None,
            strategy: None,
            fim: FimMode::Auto,
            warm: true,
            recent_edits_heading: None,
        }
    }
}

/// An answer to the prompt (which leaves out the cursor line's white space) as text at the
/// cursor: Copilot's `adjustLeadingWhitespace`. Returns the text and the white space before
/// the cursor it replaces.
fn at_cursor<'a>(answer: &'a str, ws: &str) -> (&'a str, usize) {
    if ws.is_empty() {
        return (answer, 0);
    }
    if let Some(rest) = answer.strip_prefix(ws) {
        return (rest, 0);
    }
    let body = answer.trim_start_matches(languages::is_js_whitespace);
    let leading = &answer[..answer.len() - body.len()];
    if ws.starts_with(leading) {
        (answer, ws.encode_utf16().count())
    } else {
        (answer, 0)
    }
}

#[derive(Debug)]
struct State {
    cache: CompletionsCache,
    sessions: HashMap<String, prompt::Session>,
    filter: ContextualFilter,
    /// The context of the last suggestion shown, and when the user last decided.
    last_shown: Option<(String, String)>,
    last_decision: Option<Instant>,
    in_flight: Vec<Arc<InFlight>>,
    stats: Stats,
    next_id: u64,
}

/// The pipeline for one editor session.
#[derive(Debug)]
pub struct Pipeline {
    backend: Backend,
    settings: Settings,
    state: Arc<Mutex<State>>,
    fit: fit::Fit,
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    // A panic elsewhere while holding the lock leaves plain data behind; go on with it.
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The document around the cursor, computed once per request.
struct Cursor {
    text: String,
    offset: usize,
    language: String,
    path: String,
}

impl Cursor {
    fn prefix(&self) -> &str {
        &self.text[..self.offset]
    }

    fn suffix(&self) -> &str {
        &self.text[self.offset..]
    }

    /// The white space of a cursor line that has nothing else before the cursor. Copilot's
    /// prompt leaves it out (the model writes the indentation itself), so model answers are
    /// relative to the prefix without it.
    fn trailing_ws(&self) -> &str {
        let line = self.prefix().rsplit('\n').next().unwrap_or_default();
        if line
            .trim_end_matches(languages::is_js_whitespace)
            .is_empty()
        {
            line
        } else {
            ""
        }
    }

    /// What the model continues: the prefix without [`Cursor::trailing_ws`].
    fn model_prefix(&self) -> &str {
        &self.prefix()[..self.prefix().len() - self.trailing_ws().len()]
    }

    fn surroundings<'a>(
        &'a self,
        request: &RequestJson,
        lines: &'a [&'a str],
    ) -> clean::Surroundings<'a> {
        let line_start = self.prefix().rfind('\n').map_or(0, |i| i + 1);
        let rest = self.suffix().split('\n').next().unwrap_or_default();
        clean::Surroundings {
            lines: lines.to_vec(),
            line: self.prefix().matches('\n').count(),
            language: &self.language,
            rest_of_line: rest,
            line_is_blank: self.text[line_start..self.offset + rest.len()]
                .trim()
                .is_empty(),
            tab_size: request.options.tab_size,
            insert_spaces: request.options.insert_spaces,
        }
    }
}

impl Pipeline {
    pub fn new(backend: Backend, settings: Settings) -> Pipeline {
        let filter = ContextualFilter::new(settings.filter_threshold);
        Pipeline {
            backend,
            settings,
            state: Arc::new(Mutex::new(State {
                cache: CompletionsCache::new(100),
                sessions: HashMap::new(),
                filter,
                last_shown: None,
                last_decision: None,
                in_flight: Vec::new(),
                stats: Stats::default(),
                next_id: 0,
            })),
            fit: fit::Fit::default(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub fn stats(&self) -> Stats {
        self.state().stats
    }

    /// The user accepted (or rejected) the last suggestion shown: the contextual filter
    /// learns from it.
    pub fn record_decision(&self, accepted: bool) {
        let mut state = self.state();
        let now = Instant::now();
        let since = state
            .last_decision
            .map_or(0.0, |t| now.duration_since(t).as_secs_f64());
        if let Some((prefix, suffix)) = state.last_shown.take() {
            let input = FilterInput {
                prefix: &prefix,
                suffix: &suffix,
                seconds_since_last_decision: since,
            };
            state.filter.record(&input, accepted);
        }
        state.last_decision = Some(now);
    }

    /// Stops every stream for a document (it was closed, or the editor moved on).
    pub fn cancel_document(&self, path: &str) {
        let mut state = self.state();
        state.in_flight.retain(|f| {
            if f.path == path {
                f.cancel.store(true, Ordering::Relaxed);
                false
            } else {
                true
            }
        });
    }

    /// Suggestions for the cursor in `request`. Dropping the future abandons the request
    /// (its stream goes on while a later keystroke may still use it).
    pub async fn complete(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        ask: Ask,
    ) -> Result<Outcome, PipelineError> {
        let started = Instant::now();
        let text = request.document.text.replace("\r\n", "\n");
        let offset = prompt::request::byte_offset(&text, request.position)?;
        let cursor = Cursor {
            language: prompt::detected_language(
                &request.document.path,
                request.document.language_id.as_deref(),
            ),
            path: request.document.path.clone(),
            text,
            offset,
        };
        self.state().stats.requests += 1;
        // The decision parses the document; a cached one-line answer does not need it, and
        // typing through a suggestion is the most frequent request of all.
        let decided = std::sync::OnceLock::new();
        let decision = || {
            decided.get_or_init(|| {
                multiline::decide(
                    self.settings.multiline,
                    &cursor.language,
                    &cursor.text,
                    cursor.offset,
                )
            })
        };
        let one_line = Decision {
            multiline: false,
            reason: "one-line answer",
        };
        let mut trace = Trace::default();
        let lines: Vec<&str> = cursor.text.split('\n').collect();
        let around = cursor.surroundings(request, &lines);

        // Typing through an earlier answer: the cache, then a stream still arriving. Asking
        // for several candidates (cycling) wants more than the one suggestion shown, so the
        // cache serves it only when it holds as many.
        if self.settings.cache {
            let found = self
                .state()
                .cache
                .find_all(cursor.prefix(), cursor.suffix());
            let answers: Vec<String> = found.into_iter().map(|f| f.completion).collect();
            let needed = answers.iter().any(|a| a.trim_end().contains('\n'));
            if answers.len() >= ask.candidates as usize
                && let Some(outcome) = self.finish(
                    &answers,
                    if needed { decision() } else { &one_line },
                    &around,
                    Source::Cache,
                    &mut trace,
                    started,
                    &cursor,
                )
            {
                self.state().stats.cache_hits += 1;
                return Ok(outcome);
            }
        }
        if let Some(answer) = self.reuse_in_flight(&cursor, ask.arrived).await
            && let Some(outcome) = self.finish(
                &[answer],
                decision(),
                &around,
                Source::InFlight,
                &mut trace,
                started,
                &cursor,
            )
        {
            self.state().stats.in_flight_hits += 1;
            return Ok(outcome);
        }

        let decision = decision();
        trace.multiline = decision.multiline;
        trace.multiline_reason = decision.reason.to_owned();
        let score = {
            let state = self.state();
            let since = state
                .last_decision
                .map_or(0.0, |t| t.elapsed().as_secs_f64());
            state.filter.score(&FilterInput {
                prefix: cursor.prefix(),
                suffix: cursor.suffix(),
                seconds_since_last_decision: since,
            })
        };
        if self.settings.contextual_filter {
            trace.filter_score = Some(score);
            if !self.state().filter.allows(score) {
                self.state().stats.filtered += 1;
                return Ok(self.skip(
                    format!("the contextual filter scores this {score:.2}, below its threshold"),
                    trace,
                    started,
                ));
            }
        }
        if let Some(debounce) = self.settings.debounce {
            let score = self.settings.contextual_filter.then_some(score);
            let limit = debounce_limit_ms(debounce, score);
            let wait =
                remaining_debounce_ms(Some(limit), ask.arrived.elapsed().as_secs_f64() * 1e3);
            trace.debounce_ms = wait;
            if wait > 0.0 {
                tokio::time::sleep(Duration::from_secs_f64(wait / 1e3)).await;
            }
        }

        let (info, silent) = self.fit.info(&self.backend).await;
        let mut backend = self.backend.clone();
        // A server that took the connection and would not even describe itself is hung or
        // stuck: without a first-token limit of its own, the request waits a short one rather
        // than the whole total limit.
        if let Some(e) = silent
            && backend.first_token_timeout.is_none()
        {
            backend.first_token_timeout = Some(SILENT_SERVER_FIRST_TOKEN);
            trace.notes.push(format!(
                "{e}; the completion waits {SILENT_SERVER_FIRST_TOKEN:?} for its first text"
            ));
        }
        if self.backend.kind == backends::Kind::OpenAiCompletions
            && info.as_ref().is_some_and(|i| i.is_llama_cpp())
        {
            trace.notes.push(LLAMA_SUFFIX_IGNORED.to_owned());
        }
        backend.context_size = fit::ollama_context(&self.backend, info.as_ref());
        let context_size = fit::context_size(&self.backend, info.as_ref());
        let tokenizes = info.as_ref().is_some_and(|i| i.tokenizes);
        let max_tokens = self.settings.max_tokens;
        let mut asked = self
            .settings
            .max_prompt_tokens
            .unwrap_or(request.options.max_prompt_tokens);
        let mut refused = false;
        loop {
            let shape = self.shape(request, info.as_ref());
            backend.kind = shape.kind;
            trace.shape = Some(shape.clone());
            let assembly_started = Instant::now();
            let budget = self.fit.budget(asked, context_size, max_tokens);
            trace.notes.extend(budget.note.clone());
            let mut prompt = self.assemble(request, files, &cursor.path, budget.tokens, &shape)?;
            trace.max_prompt_tokens = Some(budget.tokens);
            // Counted as the model counts, where the server can and the prompt may not fit.
            if tokenizes
                && let Some(ctx) = context_size
                && let sent = prompt.prompt_tokens + prompt.suffix_tokens
                && (sent as f64 * 1.5) as u64 + u64::from(max_tokens + fit::RESERVE)
                    > u64::from(ctx)
                && let Ok(Some(counted)) = backend
                    .count_tokens(&model_text(&prompt, backend.kind), COUNT_LIMIT)
                    .await
            {
                self.fit.measured(counted, sent);
                if counted as u64 + u64::from(max_tokens + fit::RESERVE) > u64::from(ctx) {
                    let again = self.fit.budget(asked, context_size, max_tokens);
                    trace.notes.push(format!(
                        "the model counts {counted} tokens where the prompt counted {sent}: assembled again within {} tokens",
                        again.tokens
                    ));
                    prompt = self.assemble(request, files, &cursor.path, again.tokens, &shape)?;
                    trace.max_prompt_tokens = Some(again.tokens);
                }
            }
            trace.assembly_ms = Some(assembly_started.elapsed().as_secs_f64() * 1e3);
            if self.settings.skip_like_copilot
                && let Some(reason) = &prompt.copilot_skip_reason
            {
                self.state().stats.skipped += 1;
                let reason = format!("Copilot would not ask here: {reason}");
                trace.prompt = Some(prompt);
                return Ok(self.skip(reason, trace, started));
            }
            let backend_request = sampled_request(
                &prompt,
                shape.fim,
                &cursor.language,
                max_tokens,
                ask.candidates,
            );
            trace.prompt = Some(prompt);
            trace.backend_request = Some(backend_request.clone());
            // The stream continues the prompt, so its block is judged from where the prompt ends.
            let finisher = multiline::Finisher::new(
                decision,
                &cursor.language,
                &cursor.text,
                cursor.model_prefix().len(),
            );
            self.state().stats.network += 1;
            let stops = backend_request.stop.clone();
            let (answers, first_error) = self
                .ask_model(
                    &backend,
                    backend_request,
                    finisher,
                    stops,
                    &cursor,
                    ask,
                    &mut trace,
                )
                .await?;
            if answers.is_empty()
                && let Some(error) = first_error
            {
                // A model without fill-in-the-middle that the server did not own up to in
                // advance: remembered, and asked again prefix-only.
                if shape.fim
                    && self.settings.fim == FimMode::Auto
                    && let Some(why) = shape::refuses_fim(&error)
                    && self.backend.kind.prefix_only().is_some()
                {
                    trace.notes.push(format!(
                        "the server refused fill-in-the-middle ({why}); asked again prefix-only"
                    ));
                    self.fit.refuse_fim(why);
                    continue;
                }
                // A prompt the server refused for length is built smaller and sent once more.
                if error.is_context_overflow() && !refused {
                    refused = true;
                    if context_size.is_some() {
                        self.fit.refused();
                    } else {
                        asked = asked * 2 / 3;
                    }
                    trace.notes.push(format!(
                        "the server refused the prompt as too long for its context ({error}); asked again with a smaller prompt"
                    ));
                    continue;
                }
                self.state().stats.failures += 1;
                trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
                return Err(PipelineError::Backend {
                    error,
                    trace: Box::new(trace),
                });
            }
            return match self.finish(
                &answers,
                decision,
                &around,
                Source::Network,
                &mut trace,
                started,
                &cursor,
            ) {
                Some(outcome) => Ok(outcome),
                None => {
                    trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
                    Ok(Outcome {
                        suggestions: Vec::new(),
                        source: Some(Source::Network),
                        skipped: None,
                        trace,
                    })
                }
            };
        }
    }

    /// Fill-in-the-middle or prefix-only for `request`, from the settings, what the server
    /// said of the model (`info`) and a refusal it gave earlier.
    fn shape(&self, request: &RequestJson, info: Option<&backends::server::ServerInfo>) -> Shape {
        shape::choose(
            self.settings.fim,
            self.backend.kind,
            request.options.fim_template.as_deref(),
            info,
            self.fit.refused_fim().as_deref(),
        )
    }

    /// The prompt for `request` within `budget` tokens, with the document's session (suffix
    /// reuse) carried across keystrokes.
    fn assemble(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        path: &str,
        budget: usize,
        shape: &Shape,
    ) -> Result<prompt::Prompt, PipelineError> {
        // Only llama.cpp's `/infill` takes context apart from the prefix; for every other
        // endpoint the context is commented into the prefix (FIM templates choose their own
        // rendering), or the model would never see it. A prefix-only prompt is one string with
        // no template and no suffix, so the suffix's share goes to the prefix and context.
        let prefix_only = !shape.fim;
        let template = request.options.fim_template.is_some() && !prefix_only;
        let inline = !shape.kind.takes_separate_context()
            && !template
            && request.options.context != prompt::request::ContextRendering::Inline;
        // The request is copied only when something in it changes: it holds every open file.
        let changed;
        let strategy = self
            .settings
            .strategy
            .as_ref()
            .filter(|s| **s != request.options.strategy);
        // llama.cpp's `/infill` cuts a prefix longer than three quarters of its batch at its
        // start, at a point that moves with every keystroke and so defeats its prompt cache:
        // the prefix is kept under that, counted in the model's tokens.
        let infill_cap = (shape.kind == backends::Kind::LlamaCppInfill)
            .then(|| (fit::INFILL_PREFIX_TOKENS as f64 * 0.9 / self.fit.ratio()) as usize)
            .map(|cap| {
                request
                    .options
                    .max_prefix_tokens
                    .map_or(cap, |n| n.min(cap))
            });
        let heading = self
            .settings
            .recent_edits_heading
            .as_ref()
            .filter(|h| request.options.recent_edits_heading.as_ref() != Some(*h));
        let request = if inline
            || prefix_only
            || infill_cap.is_some()
            || budget != request.options.max_prompt_tokens
            || strategy.is_some()
            || heading.is_some()
        {
            let mut r = request.clone();
            if let Some(cap) = infill_cap {
                r.options.max_prefix_tokens = Some(cap);
            }
            if inline {
                r.options.context = prompt::request::ContextRendering::Inline;
            }
            if prefix_only {
                r.options.suffix_percent = 0;
                r.options.fim_template = None;
            }
            if let Some(s) = strategy {
                r.options.strategy.clone_from(s);
            }
            if let Some(h) = heading {
                r.options.recent_edits_heading = Some(h.clone());
            }
            r.options.max_prompt_tokens = budget;
            changed = r;
            &changed
        } else {
            request
        };
        let mut session = self.state().sessions.remove(path).unwrap_or_default();
        let assembled = prompt::assemble_with_files(
            request,
            &mut session,
            files.map(|f| f as &dyn syntax::WorkspaceFiles),
        );
        self.state().sessions.insert(path.to_owned(), session);
        Ok(assembled?)
    }

    /// Sends one request per candidate and waits for every answer; the first error is kept
    /// for when no answer came.
    #[allow(clippy::too_many_arguments)]
    async fn ask_model(
        &self,
        backend: &Backend,
        backend_request: Request,
        finisher: multiline::Finisher,
        stops: Vec<String>,
        cursor: &Cursor,
        ask: Ask,
        trace: &mut Trace,
    ) -> Result<(Vec<String>, Option<Arc<BackendError>>), PipelineError> {
        let mut receivers = Vec::new();
        for i in 0..ask.candidates.max(1) {
            let (tx, rx) = watch::channel(Progress::default());
            let cancel = Arc::new(AtomicBool::new(false));
            let id = {
                let mut state = self.state();
                state.next_id += 1;
                let id = state.next_id;
                // The first candidate is the one later keystrokes may reuse.
                if i == 0 {
                    state.in_flight.push(Arc::new(InFlight {
                        id,
                        path: cursor.path.clone(),
                        prefix: cursor.model_prefix().to_owned(),
                        suffix: cursor.suffix().to_owned(),
                        progress: rx.clone(),
                        cancel: cancel.clone(),
                        arrived: ask.arrived,
                    }));
                }
                id
            };
            let on_done = OnDone {
                state: self.state.clone(),
                id,
                prefix: cursor.model_prefix().to_owned(),
                suffix: cursor.suffix().to_owned(),
                cache: self.settings.cache,
            };
            let job = Job {
                backend: backend.clone(),
                request: backend_request.clone(),
                finisher: finisher.clone(),
                stops: stops.clone(),
                retries: self.settings.retries,
                on_done,
            };
            tokio::spawn(run_stream(job, tx, cancel));
            receivers.push(rx);
        }
        let mut answers = Vec::new();
        let mut first_error = None;
        for mut rx in receivers {
            let done = rx
                .wait_for(|p| p.done.is_some())
                .await
                .map_err(|e| PipelineError::Task(e.to_string()))?
                .clone();
            trace.attempts += done.attempts;
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

    fn skip(&self, reason: String, mut trace: Trace, started: Instant) -> Outcome {
        trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
        Outcome {
            suggestions: Vec::new(),
            source: None,
            skipped: Some(reason),
            trace,
        }
    }

    /// Cleans answers into suggestions; `None` when none survives.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        answers: &[String],
        decision: &Decision,
        around: &clean::Surroundings<'_>,
        source: Source,
        trace: &mut Trace,
        started: Instant,
        cursor: &Cursor,
    ) -> Option<Outcome> {
        trace.multiline = decision.multiline;
        trace.multiline_reason = decision.reason.to_owned();
        // Network answers continue the prompt, which lacks the cursor line's white space;
        // cached and in-flight ones are already relative to the cursor.
        let ws = if source == Source::Network {
            cursor.trailing_ws()
        } else {
            ""
        };
        let mut suggestions: Vec<Suggestion> = Vec::new();
        for answer in answers {
            let answer = if decision.multiline {
                answer.as_str()
            } else {
                multiline::force_single_line(answer)
            };
            let (answer, replaces_before) = at_cursor(answer, ws);
            match clean::clean(answer, around) {
                clean::Cleaned::Kept {
                    text,
                    replaces,
                    notes,
                } => {
                    if !suggestions.iter().any(|s| s.text == text) {
                        suggestions.push(Suggestion {
                            text,
                            replaces,
                            replaces_before,
                            notes,
                        });
                    }
                }
                clean::Cleaned::Dropped(why) => trace.cuts.push(format!("dropped: {why}")),
            }
        }
        if suggestions.is_empty() {
            return None;
        }
        trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
        // Remember what is shown, for the filter to learn from the user's decision.
        let line = cursor.prefix().rsplit('\n').next().unwrap_or_default();
        let rest = cursor.suffix().split('\n').next().unwrap_or_default();
        self.state().last_shown = Some((line.to_owned(), rest.to_owned()));
        Some(Outcome {
            suggestions,
            source: Some(source),
            skipped: None,
            trace: std::mem::take(trace),
        })
    }

    /// Waits for a stream of the same document that the text typed since it started agrees
    /// with, and returns the rest of its answer. Streams the typing has left behind are
    /// cancelled.
    async fn reuse_in_flight(&self, cursor: &Cursor, arrived: Instant) -> Option<String> {
        let candidates: Vec<Arc<InFlight>> = {
            let mut state = self.state();
            let mut keep = Vec::new();
            for f in state.in_flight.iter().filter(|f| f.path == cursor.path) {
                let leads_here =
                    f.suffix == cursor.suffix() && cursor.prefix().starts_with(&f.prefix);
                let agrees = leads_here && {
                    let typed = &cursor.prefix()[f.prefix.len()..];
                    let so_far = &f.progress.borrow().text;
                    so_far.starts_with(typed) || typed.starts_with(so_far.as_str())
                };
                if agrees {
                    keep.push(f.clone());
                } else if f.arrived <= arrived {
                    // A request handled late (tasks run in any order) must not cancel the
                    // stream of a keystroke that came after it.
                    f.cancel.store(true, Ordering::Relaxed);
                }
            }
            state
                .in_flight
                .retain(|f| !f.cancel.load(Ordering::Relaxed));
            keep
        };
        for f in candidates {
            let typed = &cursor.prefix()[f.prefix.len()..];
            let mut rx = f.progress.clone();
            let done = rx.wait_for(|p| p.done.is_some()).await.ok()?.clone();
            if let Some(Ok(answer)) = done.done
                && let Some(rest) = answer.strip_prefix(typed)
                && !rest.trim().is_empty()
            {
                return Some(rest.to_owned());
            }
        }
        None
    }
}

/// What happens when `openai-completions` is pointed at llama.cpp: its `/v1/completions`
/// ignores `suffix`, so fill-in-the-middle is silently lost.
pub const LLAMA_SUFFIX_IGNORED: &str = "warning: this server is llama.cpp, whose /v1/completions ignores `suffix`: the model does not see the code after the cursor; use the llama-infill backend (its /infill does fill-in-the-middle)";

/// The first-token limit for a server that would not describe itself, where none is set.
const SILENT_SERVER_FIRST_TOKEN: Duration = Duration::from_secs(6);

/// How long counting a prompt with the server's tokenizer may take before it is skipped.
const COUNT_LIMIT: Duration = Duration::from_millis(500);

/// The request for `prompt` with Copilot's sampling: the language's stops and the temperature
/// for the number of candidates asked.
fn sampled_request(
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
fn model_request(prompt: &prompt::Prompt, fim: bool) -> Request {
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

/// The text the model reads, to be counted in its own vocabulary: the FIM prompt where
/// pilotfish renders one, else the extra context chunks with their names, prefix and suffix.
fn model_text(prompt: &prompt::Prompt, kind: backends::Kind) -> String {
    if kind.fim() == backends::Fim::Template
        && let Some(p) = &prompt.fim_prompt
    {
        return p.clone();
    }
    let mut text = String::new();
    if kind.takes_separate_context() {
        for (i, c) in prompt.context.iter().enumerate() {
            text.push_str(&format!("context-{}\n{c}\n", i + 1));
        }
    }
    text.push_str(&prompt.prefix);
    text.push_str(&prompt.suffix);
    text
}
