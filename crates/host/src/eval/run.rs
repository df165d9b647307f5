//! The cases sent to the model: each strategy's prompt through a fresh ghost-text pipeline, as
//! completion sends it (the same budget, fill-in-the-middle or prefix-only as learned once,
//! the same post-processing), `jobs` cases at a time, with the server's prompt cache off so
//! that no strategy reads what another left in it.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use backends::Backend;
use eval::{Case, CaseFiles, CaseResult, Repository, Run, Sent, Timings};
use ghost::{FimMode, Pipeline, Settings};

/// What every request of a run shares.
#[derive(Debug, Clone)]
pub struct Setup {
    pub backend: Backend,
    /// The completion pipeline's settings, as `complete` would use them.
    pub settings: Settings,
    /// The prompt's budget, the same for every strategy.
    pub budget: usize,
    pub strategies: Vec<String>,
    /// Cases in flight at a time (a server with several slots answers them together).
    pub jobs: usize,
    /// The repository's root, absolute: the requests' workspace root.
    pub root: String,
}

/// What the uncounted first request learned of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learned {
    /// Whether the model fills in the middle (the counted requests are then FIM requests).
    pub fim: bool,
    /// How requests are sent, in words without nested parentheses, for the report's first line.
    pub shape: String,
    /// The model the server says it serves (a file's name without its folders), when it says.
    pub model: Option<String>,
}

/// Called after each case with (cases done, cases in all).
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// A request's whole time at least: a slow server reading a long prompt cold is not cut.
const LEAST_TOTAL_TIMEOUT: Duration = Duration::from_secs(600);

/// How long the server may take to say what it serves.
const SERVER_INFO_LIMIT: Duration = Duration::from_secs(30);

/// The settings of one counted (or the learning) request.
fn settings_for(setup: &Setup, strategy: &str, fim: FimMode) -> Settings {
    let mut s = setup.settings.clone();
    // `none` is the current file alone: Copilot's prompt with no open file and no workspace.
    s.strategy = Some(
        if strategy == "none" {
            "copilot"
        } else {
            strategy
        }
        .to_owned(),
    );
    s.fim = fim;
    s.max_prompt_tokens = Some(setup.budget);
    s.debounce = None;
    s.cache = false;
    s.contextual_filter = false;
    s.skip_like_copilot = false;
    s.warm = false;
    // The same budget for every strategy: not lowered to keep a first token near a target.
    s.first_token_target = None;
    s.grow_in_request = false;
    s
}

fn backend_for(setup: &Setup) -> Backend {
    let mut b = setup.backend.clone();
    b.cache_prompt = false;
    b.total_timeout = b.total_timeout.max(LEAST_TOTAL_TIMEOUT);
    b
}

/// One uncounted request (the first case, the `none` strategy) that learns whether the model
/// fills in the middle, under the user's `fim` setting. A server that cannot be reached fails
/// here, before any case is counted.
pub async fn learn_fim(
    setup: &Setup,
    repo: &Repository,
    case: &Case,
) -> Result<Learned, ghost::PipelineError> {
    let pipeline = Pipeline::new(
        backend_for(setup),
        settings_for(setup, "none", setup.settings.fim),
    );
    let request = case.request(repo, &setup.root, false);
    let outcome = pipeline
        .complete(&request, None, ghost::Ask::default())
        .await?;
    let trace = &outcome.trace;
    let fim = trace.shape.as_ref().is_some_and(|s| s.fim);
    let reason = trace.shape.as_ref().map_or("", |s| s.reason.as_str());
    let shape = shape_words(fim, reason, &trace.notes);
    let model = setup
        .backend
        .server_info(SERVER_INFO_LIMIT)
        .await
        .ok()
        .and_then(|i| i.model)
        .map(|m| m.rsplit(['/', '\\']).next().unwrap_or(&m).to_owned());
    Ok(Learned { fim, shape, model })
}

/// How requests are sent, in words for the report's first line, from the learning request's
/// shape and notes: short, and without parentheses of its own, since what a reason says in
/// them (a server's evidence, its error's text) would nest in the line's.
fn shape_words(fim: bool, reason: &str, notes: &[String]) -> String {
    let refused = notes
        .iter()
        .map(String::as_str)
        .chain([reason])
        .any(|n| n.contains("refused") && n.contains("fill-in-the-middle"));
    if fim {
        "fill-in-the-middle".to_owned()
    } else if refused {
        "prefix-only, as the server refused fill-in-the-middle for this model".to_owned()
    } else {
        let why = reason.split(['(', ':']).next().unwrap_or_default().trim();
        format!("prefix-only: {why}")
    }
}

/// Every case through every strategy, `setup.jobs` cases at a time; results in case order.
pub async fn run(
    setup: &Setup,
    learned: &Learned,
    repo: &Repository,
    cases: &[Case],
    progress: Progress<'_>,
) -> Vec<CaseResult> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<CaseResult>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    let worker = || async {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(case) = cases.get(i) else {
                break;
            };
            let mut runs = Vec::new();
            for strategy in &setup.strategies {
                runs.push(one(setup, learned.fim, repo, case, strategy).await);
            }
            *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(CaseResult {
                case: case.clone(),
                runs,
            });
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, cases.len());
        }
    };
    futures_util::future::join_all((0..setup.jobs.max(1)).map(|_| worker())).await;
    slots
        .into_iter()
        .filter_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// One strategy's request for one case through a fresh pipeline.
async fn one(setup: &Setup, fim: bool, repo: &Repository, case: &Case, strategy: &str) -> Run {
    let mode = if fim { FimMode::On } else { FimMode::Off };
    let pipeline = Pipeline::new(backend_for(setup), settings_for(setup, strategy, mode));
    let with_files = strategy != "none";
    let request = case.request(repo, &setup.root, with_files);
    let files = CaseFiles::new(repo, case);
    let reader = with_files.then_some(&files as &(dyn syntax::WorkspaceFiles + Sync));
    let result = pipeline
        .complete(&request, reader, ghost::Ask::default())
        .await;
    let (trace, answer, error, empty) = match result {
        Ok(outcome) => {
            let answer = outcome.suggestions.first().map(|s| s.text.clone());
            // Why nothing is shown, as `complete` says it.
            let empty = answer.is_none().then(|| {
                outcome
                    .skipped
                    .clone()
                    .or_else(|| outcome.trace.cuts.first().cloned())
                    .unwrap_or_else(|| "the model answered with nothing but white space".to_owned())
            });
            (outcome.trace, answer.unwrap_or_default(), None, empty)
        }
        Err(ghost::PipelineError::Backend { error, trace }) => {
            (*trace, String::new(), Some(error.to_string()), None)
        }
        Err(e) => (
            ghost::Trace::default(),
            String::new(),
            Some(e.to_string()),
            None,
        ),
    };
    let prompt = trace.prompt.clone();
    Run {
        strategy: strategy.to_owned(),
        budget: trace.max_prompt_tokens.unwrap_or(setup.budget),
        fim: trace.shape.as_ref().map_or(fim, |s| s.fim),
        prompt: prompt.as_ref().map_or_else(Sent::default, |p| Sent {
            context: p.context.clone(),
            prefix: p.prefix.clone(),
            suffix: p.suffix.clone(),
        }),
        prompt_tokens: prompt
            .as_ref()
            .map_or(0, |p| p.prompt_tokens + p.suffix_tokens),
        scores: eval::score::score(&answer, &case.expected, case.identifier.as_deref()),
        answer,
        timings: Timings {
            first_token_ms: trace.first_token_ms,
            total_ms: trace.total_ms,
            server_prompt_tokens: trace.timings.as_ref().map(|t| t.prompt_n),
            server_prompt_ms: trace.timings.as_ref().map(|t| t.prompt_ms),
            server_cached_tokens: trace.timings.as_ref().and_then(|t| t.cache_n),
        },
        error,
        empty,
        assembled: prompt,
    }
}

#[cfg(test)]
mod tests {
    use super::shape_words;

    #[test]
    fn the_shape_is_said_in_a_few_words_without_parentheses() {
        let remembered = "the model has no fill-in-the-middle (remembered: the server refused it: HTTP 501: {\"error\":{\"message\":\"Infill is not supported (no prefix token)\"}})";
        let refused = "prefix-only, as the server refused fill-in-the-middle for this model";
        assert_eq!(shape_words(false, remembered, &[]), refused);
        let note =
            "the server refused fill-in-the-middle (501); asked again prefix-only".to_owned();
        assert_eq!(shape_words(false, "fim = off", &[note]), refused);
        assert_eq!(
            shape_words(false, "fim = off", &[]),
            "prefix-only: fim = off"
        );
        assert_eq!(
            shape_words(
                false,
                "the model has no fill-in-the-middle (its vocabulary says so)",
                &[]
            ),
            "prefix-only: the model has no fill-in-the-middle"
        );
        assert_eq!(shape_words(true, "fim = on", &[]), "fill-in-the-middle");
    }
}
