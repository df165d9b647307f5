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

mod ask;
mod clean;
mod cursor;
mod first_contact;
mod fit;
pub mod inspect;
pub mod multiline;
pub mod next_edit;
mod outcome;
pub mod shape;
mod speed;
mod stream;
mod team;
mod warm;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
    time::{Duration, Instant},
};

use backends::Backend;
use engine::{
    cache::CompletionsCache,
    contextual_filter::{ContextualFilter, FilterInput},
    debounce::{Debounce, debounce_limit_ms, remaining_debounce_ms},
};
use prompt::request::RequestJson;

use cursor::{At, Cursor, at_cursor};
pub use multiline::{Decision, Multiline};
pub use outcome::{Ask, Outcome, PipelineError, Source, Stats, Suggestion, Trace, each_once};
pub use shape::{FimMode, Shape};
pub use speed::cold_budget;
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
    /// The time to the first token a request should keep within: the prompt's budget is
    /// sized so that what the server has not cached reads within it at the server's measured
    /// speed, and, where the backend has no first-token limit of its own, the limit is sized
    /// from the same figures. `None`: budgets in tokens only (see `speed.rs`).
    pub first_token_target: Option<Duration>,
    /// A command run once per keystroke (`pilotfish complete`): it has no next keystroke for a
    /// lowered budget to grow back in, so its one request may read up to five first-token
    /// targets (within half the longest sized limit) to send the whole prompt.
    pub grow_in_request: bool,
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
            first_token_target: None,
            grow_in_request: false,
            recent_edits_heading: None,
        }
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
    in_flight: Vec<Arc<stream::InFlight>>,
    stats: Stats,
    next_id: u64,
    /// What the server last said of its load, and when (`team.rs`).
    contention: Option<(Instant, Option<String>)>,
    /// Whether the server is being asked how busy it is now (see [`Pipeline::contention`]).
    contention_asked: bool,
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
                contention: None,
                contention_asked: false,
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
        for f in self.state().in_flight.iter().filter(|f| f.path == path) {
            f.cancel.cancel();
        }
    }

    /// Suggestions for the cursor in `request`. Dropping the future releases the request's
    /// stream: the same document's next request may adopt it within 300 ms, else it is
    /// cancelled (`team.rs`).
    ///
    /// The stages, each its own function: an earlier answer typed through ([`Self::cached`],
    /// [`Self::in_flight`]), the contextual filter and debounce ([`Self::wait`]), what the
    /// server can take ([`Self::server`]), then the request loop ([`Self::request_loop`]:
    /// fitting the prompt, asking, asking again where a refusal says how) and the cleaning of
    /// the answers ([`Self::finish`]).
    pub async fn complete(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        ask: Ask,
    ) -> Result<Outcome, PipelineError> {
        let started = Instant::now();
        let cursor = Cursor::new(request)?;
        self.state().stats.requests += 1;
        // The decision parses the document; a cached one-line answer does not need it, and
        // typing through a suggestion is the most frequent request of all.
        let decided = OnceLock::new();
        let lines: Vec<&str> = cursor.text.split('\n').collect();
        let at = At {
            cursor: &cursor,
            around: cursor.surroundings(request, &lines),
            started,
            ask,
        };
        let mut trace = Trace::default();

        // Typing through an earlier answer: the cache, then a stream still arriving.
        if let Some(outcome) = self.cached(&at, &decided, &mut trace) {
            return Ok(outcome);
        }
        if let Some(outcome) = self.in_flight(&at, &decided, &mut trace).await {
            return outcome;
        }

        let decision = self.decision(&decided, &cursor);
        trace.multiline = decision.multiline;
        trace.multiline_reason = decision.reason.to_owned();
        if let Some(skipped) = self.wait(&at, &mut trace).await {
            return Ok(skipped);
        }
        let server = self.server(&mut trace).await;
        self.request_loop(request, files, &at, decision, server, trace)
            .await
    }

    /// The multi-line decision for the cursor, made once (it parses the document).
    fn decision<'d>(&self, decided: &'d OnceLock<Decision>, cursor: &Cursor) -> &'d Decision {
        decided.get_or_init(|| {
            multiline::decide(
                self.settings.multiline,
                &cursor.language,
                &cursor.text,
                cursor.offset,
            )
        })
    }

    /// The cached answers for this prefix and suffix, cleaned. Asking for several candidates
    /// (cycling) wants more than the one suggestion shown, so the cache serves it only when it
    /// holds as many.
    fn cached(
        &self,
        at: &At<'_>,
        decided: &OnceLock<Decision>,
        trace: &mut Trace,
    ) -> Option<Outcome> {
        if !self.settings.cache {
            return None;
        }
        let found = self
            .state()
            .cache
            .find_all(at.cursor.prefix(), at.cursor.suffix());
        let answers: Vec<String> = found.into_iter().map(|f| f.completion).collect();
        let needed = answers.iter().any(|a| a.trim_end().contains('\n'));
        if answers.len() < at.ask.candidates as usize {
            return None;
        }
        let one_line = Decision {
            multiline: false,
            reason: "one-line answer",
        };
        let decision = if needed {
            self.decision(decided, at.cursor)
        } else {
            &one_line
        };
        let outcome = self.finish(&answers, decision, Source::Cache, trace, at)?;
        self.state().stats.cache_hits += 1;
        Some(outcome)
    }

    /// The rest of a stream still arriving that the typing since it started agrees with,
    /// cleaned; the error of one adopted that sent no text within its first-token limit.
    async fn in_flight(
        &self,
        at: &At<'_>,
        decided: &OnceLock<Decision>,
        trace: &mut Trace,
    ) -> Option<Result<Outcome, PipelineError>> {
        let answer = match self.reuse_in_flight(at.cursor, at.ask.arrived).await {
            Ok(answer) => answer?,
            Err(e) => {
                let trace = std::mem::take(trace);
                return Some(Err(self.failed(Arc::new(e), trace, at)));
            }
        };
        let decision = self.decision(decided, at.cursor);
        let outcome = self.finish(&[answer], decision, Source::InFlight, trace, at)?;
        self.state().stats.in_flight_hits += 1;
        Some(Ok(outcome))
    }

    /// The contextual filter (when on) may suppress the request; the debounce then waits for
    /// the typing to pause. Returns the outcome of a suppressed request.
    async fn wait(&self, at: &At<'_>, trace: &mut Trace) -> Option<Outcome> {
        let score = {
            let state = self.state();
            let since = state
                .last_decision
                .map_or(0.0, |t| t.elapsed().as_secs_f64());
            state.filter.score(&FilterInput {
                prefix: at.cursor.prefix(),
                suffix: at.cursor.suffix(),
                seconds_since_last_decision: since,
            })
        };
        if self.settings.contextual_filter {
            trace.filter_score = Some(score);
            if !self.state().filter.allows(score) {
                self.state().stats.filtered += 1;
                return Some(self.skip(
                    format!("the contextual filter scores this {score:.2}, below its threshold"),
                    std::mem::take(trace),
                    at.started,
                ));
            }
        }
        if let Some(debounce) = self.settings.debounce {
            let score = self.settings.contextual_filter.then_some(score);
            let limit = debounce_limit_ms(debounce, score);
            let since = || at.ask.arrived.elapsed().as_secs_f64() * 1e3;
            let wait = remaining_debounce_ms(Some(limit), since());
            // The server is asked how busy it is while the debounce runs, and waited for no
            // longer than the debounce.
            let pause = Duration::from_secs_f64(wait.max(0.0) / 1e3);
            let (contended, ()) = tokio::join!(self.contention(pause), tokio::time::sleep(pause));
            trace.debounce_ms = wait.max(0.0);
            if let Some(said) = contended {
                let limit = limit.max(team::contended_debounce_ms(at.cursor.prefix()));
                let more = remaining_debounce_ms(Some(limit), since());
                trace.debounce_ms += more.max(0.0);
                trace.notes.push(format!(
                    "the server is contended ({said}): the debounce waited {limit:.0} ms and a one-line answer asks for at most {} tokens",
                    team::CONTENDED_LINE_TOKENS
                ));
                trace.contended = Some(said);
                if more > 0.0 {
                    tokio::time::sleep(Duration::from_secs_f64(more / 1e3)).await;
                }
            }
        }
        None
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

    fn skip(&self, reason: String, mut trace: Trace, started: Instant) -> Outcome {
        trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
        each_once(&mut trace.notes);
        Outcome {
            suggestions: Vec::new(),
            source: None,
            skipped: Some(reason),
            trace,
        }
    }

    /// Cleans answers into suggestions; `None` when none survives.
    fn finish(
        &self,
        answers: &[String],
        decision: &Decision,
        source: Source,
        trace: &mut Trace,
        at: &At<'_>,
    ) -> Option<Outcome> {
        let cursor = at.cursor;
        each_once(&mut trace.notes);
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
            match clean::clean(answer, &at.around) {
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
        trace.total_ms = at.started.elapsed().as_secs_f64() * 1e3;
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
}

/// What happens when `openai-completions` is pointed at llama.cpp: its `/v1/completions`
/// ignores `suffix`, so fill-in-the-middle is silently lost.
pub const LLAMA_SUFFIX_IGNORED: &str = "warning: this server is llama.cpp, whose /v1/completions ignores `suffix`: the model does not see the code after the cursor; use the llama-infill backend (its /infill does fill-in-the-middle)";
