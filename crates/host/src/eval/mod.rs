//! `pilotfish eval`'s host side: the repository read through git (`git.rs`: its tracked
//! files, and the order `git log` changed them in) and the cases sent through the ghost-text
//! pipeline, one fresh pipeline per strategy and case, as completion sends them (`run.rs`).

mod git;
mod run;

pub use git::read_repository;
pub use run::{Learned, Progress, Setup, learn_fim, run};

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(
        "{0} is not inside a git repository: give the folder of a repository (eval picks cases in the files git tracks)"
    )]
    NotARepository(String),
    #[error("the repository at {0} tracks no text file: commit some code first")]
    NoTrackedFiles(String),
    #[error("could not run git ({0}): install git, or check that it is on the PATH")]
    NoGit(String),
    #[error("git {command} failed in {folder}: {message}")]
    Git {
        command: String,
        folder: String,
        message: String,
    },
    #[error(transparent)]
    Input(#[from] eval::InputError),
}
