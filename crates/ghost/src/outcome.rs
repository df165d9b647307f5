//! What the pipeline gives back: the suggestions, where they came from, the trace of what was
//! done for a request, the pipeline's counts, and why a request failed.

use std::{sync::Arc, time::Instant};

use backends::{BackendError, Request};
use serde::Serialize;

use crate::shape::Shape;

/// Where the suggestions came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// An earlier answer the user has been typing through.
    Cache,
    /// A stream that was still arriving for an earlier keystroke.
    InFlight,
    /// A new request to the model.
    Network,
}

/// One suggestion: text to insert at the cursor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub text: String,
    /// How many UTF-16 units of the rest of the cursor's line the suggestion replaces.
    pub replaces: usize,
    /// How many UTF-16 units of white space before the cursor it replaces: when the model
    /// indents less than the blank line the cursor is on, its indentation wins.
    #[serde(skip_serializing_if = "is_zero")]
    pub replaces_before: usize,
    /// What post-processing changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What happened for one request, for `--explain` and for logs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Trace {
    pub multiline: bool,
    pub multiline_reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_score: Option<f64>,
    pub debounce_ms: f64,
    /// What a server several people share said of its load when it was contended (every slot
    /// working, or vLLM queueing): the debounce then waited longer and a one-line answer asked
    /// for fewer tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contended: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assembly_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_token_ms: Option<f64>,
    pub total_ms: f64,
    /// Requests made to the server, retries included.
    pub attempts: u32,
    /// How each answer was cut or dropped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cuts: Vec<String>,
    /// The budget the prompt was built with, and how it was fitted to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_prompt_tokens: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How the budget followed the server's measured speed, in words, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<String>,
    /// What measuring the server on first contact read, when it was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_contact: Option<String>,
    /// The budget the server's context allows, when the prompt's was lowered below it to
    /// keep the first token near its target (the prompt grows back over the next keystrokes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_prompt_tokens: Option<usize>,
    /// The first-token limit the request waited under, in milliseconds, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_token_limit_ms: Option<f64>,
    /// The model tokens of the prompt the server was expected not to hold, estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncached_tokens: Option<usize>,
    /// What the server said of the time the answer took (prompt tokens read, cached).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<backends::Timings>,
    /// Fill-in-the-middle or prefix-only, to which endpoint, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    #[serde(skip)]
    pub prompt: Option<prompt::Prompt>,
    #[serde(skip)]
    pub backend_request: Option<Request>,
}

/// The notes of a request, each said once: a note repeated by a round asked again (the budget
/// note of each assembly, a refusal seen by each round) is kept where it first appeared, and of
/// the notes that say the budget was lowered only the last, which sized the prompt sent.
pub fn each_once(notes: &mut Vec<String>) {
    const LOWERED: &str = "prompt budget lowered";
    let last_lowered = notes.iter().rposition(|n| n.starts_with(LOWERED));
    let mut seen = std::collections::HashSet::new();
    let mut i = 0;
    notes.retain(|n| {
        let keep = (!n.starts_with(LOWERED) || Some(i) == last_lowered) && seen.insert(n.clone());
        i += 1;
        keep
    });
}

/// The result of one request.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub suggestions: Vec<Suggestion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Why nothing was asked, when nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub trace: Trace,
}

/// Counts over the pipeline's life, for the benchmark and for status reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub requests: u64,
    pub cache_hits: u64,
    pub in_flight_hits: u64,
    pub network: u64,
    pub filtered: u64,
    pub skipped: u64,
    pub failures: u64,
}

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Request(#[from] prompt::request::RequestError),
    #[error(transparent)]
    Assemble(#[from] prompt::AssembleError),
    /// Shared: one failed stream may be waited on by several requests. The trace holds the
    /// prompt and the request that failed, which is when a person needs to see them.
    #[error("{error}")]
    Backend {
        error: Arc<BackendError>,
        trace: Box<Trace>,
    },
    #[error("the async runtime lost the request's task: {0}")]
    Task(String),
}

/// One call's wishes beyond the editor state.
#[derive(Debug, Clone, Copy)]
pub struct Ask {
    /// Suggestions wanted: 1 for ghost text, more for cycling.
    pub candidates: u32,
    /// When the keystroke happened (debounce counts from it).
    pub arrived: Instant,
}

impl Default for Ask {
    fn default() -> Ask {
        Ask {
            candidates: 1,
            arrived: Instant::now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_note_is_said_once_and_the_last_lowered_budget_is_the_one_kept() {
        let mut notes = vec![
            "prompt budget lowered from 7692 to 1500 tokens: the context".to_owned(),
            "the server refused fill-in-the-middle (501); asked again prefix-only".to_owned(),
            "prompt budget lowered from 7692 to 1400 tokens: the context".to_owned(),
            "the server refused fill-in-the-middle (501); asked again prefix-only".to_owned(),
        ];
        each_once(&mut notes);
        assert_eq!(
            notes,
            [
                "the server refused fill-in-the-middle (501); asked again prefix-only",
                "prompt budget lowered from 7692 to 1400 tokens: the context",
            ]
        );
    }
}
