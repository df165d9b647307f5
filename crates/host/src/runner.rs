//! Where the agent's terminal commands run when not in its own shell: an editor's terminals
//! (ACP's `terminal/*`), given to a workspace with `Workspace::with_runner`. The workspace's
//! rules, permissions and the report to the model stay the same whichever runs them.

use std::{sync::atomic::AtomicBool, time::Duration};

use crate::shell::Ran;

/// Runs `run_in_terminal`'s commands somewhere else than the run's own shell.
pub trait Runner: Send {
    /// Runs the command line `argv` (already confined as the workspace's commands are:
    /// `Workspace::terminal_argv`) for the tool call `call_id` and waits for it, at most
    /// `limit`, or until `cancel` is set; either way it is stopped. `status: None` when it did
    /// not finish.
    fn run(
        &mut self,
        call_id: &str,
        argv: &[String],
        limit: Duration,
        cancel: &AtomicBool,
    ) -> std::io::Result<Ran>;

    /// Starts the command line `argv` in the background; returns the id `get_terminal_output`
    /// takes.
    fn spawn(&mut self, call_id: &str, argv: &[String]) -> std::io::Result<String>;

    /// What a background command printed so far, its exit status, and whether it still runs.
    fn output(&mut self, id: &str) -> Option<(String, Option<i32>, bool)>;

    /// The ids of the background commands.
    fn ids(&self) -> Vec<String>;
}
