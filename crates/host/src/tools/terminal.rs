//! `run_in_terminal`: the user's rules judged first, then the command run in the run's one
//! shell (or the editor's terminals, when a runner is given), or in the background.

use std::{sync::atomic::Ordering, time::Duration};

use agent::conversation::Outcome;

use super::Workspace;

/// The longest a command may run.
pub(super) const COMMAND_LIMIT: Duration = Duration::from_secs(120);

impl Workspace {
    /// Runs a command whose permission is settled (the loop asked the user if the rules
    /// said to).
    pub(super) fn run_in_terminal(&mut self, command: &str, background: bool) -> Outcome {
        // An editor's terminal runs the command line the sandbox makes, as pilotfish's own shell
        // would: standard error joined to the output, no input.
        let argv = match &self.editor_terminals {
            Some(_) => match self.terminal_argv(&format!("{{\n{command}\n}} </dev/null 2>&1")) {
                Ok(argv) => argv,
                Err(e) => return Outcome::failed(e),
            },
            None => Vec::new(),
        };
        if background {
            let started = match &mut self.editor_terminals {
                Some(runner) => runner.spawn(&self.call_id, &argv),
                None => self.shell.spawn(command),
            };
            return match started {
                Ok(id) => Outcome::done(format!(
                    "started in the background; id: {id} (get_terminal_output shows its output)"
                )),
                Err(e) => Outcome::failed(format!("the command could not be started: {e}")),
            };
        }
        let ran = match &mut self.editor_terminals {
            Some(runner) => runner
                .run(&self.call_id, &argv, COMMAND_LIMIT, &self.cancel)
                .map(|mut ran| {
                    ran.output = self.redact(&ran.output);
                    ran
                }),
            None => self.shell.run(command, COMMAND_LIMIT, &self.cancel),
        };
        match ran {
            Ok(ran) => match ran.status {
                Some(code) => Outcome {
                    ok: code == 0,
                    content: format!("{}\n[exit status {code}]", ran.output),
                    diffs: Vec::new(),
                },
                None if self.cancel.load(Ordering::SeqCst) => Outcome::failed(format!(
                    "{}\n[stopped: the user cancelled the turn]",
                    ran.output
                )),
                None => Outcome::failed(format!(
                    "{}\n[did not finish within {} s, or ended the shell; the shell was started afresh: run long processes with isBackground=true]",
                    ran.output,
                    COMMAND_LIMIT.as_secs()
                )),
            },
            Err(e) => Outcome::failed(format!("the shell could not run the command: {e}")),
        }
    }

    /// What a background command printed, its status and whether it runs, wherever it runs.
    pub(super) fn background_output(&mut self, id: &str) -> Option<(String, Option<i32>, bool)> {
        match &mut self.editor_terminals {
            Some(runner) => runner
                .output(id)
                .map(|(text, status, running)| (self.redact(&text), status, running)),
            None => self.shell.output(id),
        }
    }

    /// The background commands' ids.
    pub(super) fn background_ids(&self) -> Vec<String> {
        match &self.editor_terminals {
            Some(runner) => runner.ids(),
            None => self.shell.ids(),
        }
    }
}
