//! `pilotfish eval`'s pure parts: the cases picked from a repository's own code (`cases`),
//! the scores of an answer (`score`), bootstrap intervals and paired differences (`stats`),
//! the summary and the table (`report`) and the HTML page (`page`).
//!
//! The caller reads the repository (its tracked files and the order `git log` changed them in)
//! and asks the model; everything here is a function of what it is given, so the same
//! repository and seed give the same cases on every machine.

pub mod cases;
pub mod page;
pub mod report;
mod rng;
pub mod score;
pub mod stats;

pub use cases::{Case, CaseFiles, Kind, Options, Repository, SourceFile, pick};
pub use report::{CaseResult, Run, Sent, Summary, Timings, summarize};
pub use score::Scores;

/// The strategies a run may compare: `none` (the current file alone), and the context
/// strategies of the completion pipeline.
pub const STRATEGIES: &[&str] = &["none", "copilot", "outline"];

/// Why the inputs of a run cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// The repository has no tracked file of a language cases are picked in.
    NoSourceFiles,
    /// `--cases 0`.
    NoCases,
    /// A strategy that is not one of [`STRATEGIES`].
    UnknownStrategy(String),
    /// No strategy given.
    NoStrategies,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::NoSourceFiles => write!(
                f,
                "the repository tracks no Python, Rust, TypeScript, JavaScript, Go or Java file to pick cases in: run it in a repository with code committed"
            ),
            InputError::NoCases => write!(f, "--cases must be at least 1"),
            InputError::UnknownStrategy(s) => {
                write!(f, "unknown strategy `{s}`: use {}", STRATEGIES.join(", "))
            }
            InputError::NoStrategies => {
                write!(f, "give at least one strategy: {}", STRATEGIES.join(", "))
            }
        }
    }
}

impl std::error::Error for InputError {}

/// The strategies named in a comma-separated list, checked, each once, in the order given.
pub fn parse_strategies(list: &str) -> Result<Vec<String>, InputError> {
    let mut out: Vec<String> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !STRATEGIES.contains(&name) {
            return Err(InputError::UnknownStrategy(name.to_owned()));
        }
        if !out.iter().any(|s| s == name) {
            out.push(name.to_owned());
        }
    }
    if out.is_empty() {
        return Err(InputError::NoStrategies);
    }
    Ok(out)
}
