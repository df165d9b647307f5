//! The editor's terminals: when the client offers `terminal` in `initialize`, the agent's
//! commands run through `terminal/create`, `terminal/wait_for_exit`, `terminal/output`,
//! `terminal/kill` and `terminal/release`, so the editor shows their output as it comes (the tool
//! call carries the terminal) and the user can stop them. A cancelled turn kills the command.
//! The model is told the output (cut in the middle past the shell's limit) and the exit status,
//! as when pilotfish runs the command itself.
//!
//! The command line the editor is asked to run comes from [`command_line`] alone.

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use host::shell::{OUTPUT_LIMIT, Ran};
use serde_json::{Value, json};

use crate::rpc::{Connection, Failure};

/// How long the editor may take to answer a terminal request other than the wait for the
/// command's end.
const REQUEST_LIMIT: Duration = Duration::from_secs(30);

/// The program and arguments the editor runs for the command line `argv`, which the workspace
/// made (`host::tools::Workspace::terminal_argv`: confined by the sandbox, as pilotfish's own
/// commands are, unless the user turned it off).
pub fn command_line(argv: &[String]) -> std::io::Result<(String, Vec<String>)> {
    match argv.split_first() {
        Some((program, args)) => Ok((program.clone(), args.to_vec())),
        None => Err(std::io::Error::other("no command line to run")),
    }
}

/// A session's commands run in the editor's terminals.
pub(crate) struct ClientTerminals {
    pub(crate) conn: Arc<Connection>,
    pub(crate) session: String,
    pub(crate) root: PathBuf,
    /// Background commands: (the id the model uses, the editor's terminal id).
    pub(crate) background: Vec<(String, String)>,
}

impl ClientTerminals {
    pub(crate) fn new(conn: Arc<Connection>, session: String, root: PathBuf) -> ClientTerminals {
        ClientTerminals {
            conn,
            session,
            root,
            background: Vec::new(),
        }
    }

    fn ask(&self, method: &str, mut params: Value, limit: Duration) -> Result<Value, Failure> {
        params["sessionId"] = json!(self.session);
        self.conn.request(method, params, limit, None)
    }

    /// Creates a terminal running `command` and shows it in the tool call `call_id`.
    fn create(&self, call_id: &str, argv: &[String]) -> std::io::Result<String> {
        let (program, args) = command_line(argv)?;
        let answer = self
            .ask(
                "terminal/create",
                json!({"command": program, "args": args, "env": [],
                    "cwd": self.root.to_string_lossy(), "outputByteLimit": 4 * OUTPUT_LIMIT}),
                REQUEST_LIMIT,
            )
            .map_err(|e| std::io::Error::other(format!("the editor's terminal: {e}")))?;
        let Some(id) = answer["terminalId"].as_str() else {
            return Err(std::io::Error::other(
                "the editor's answer to terminal/create has no `terminalId`",
            ));
        };
        if !call_id.is_empty() {
            self.conn.notify(
                "session/update",
                json!({"sessionId": self.session, "update": {"sessionUpdate": "tool_call_update",
                    "toolCallId": call_id, "content": [{"type": "terminal", "terminalId": id}]}}),
            );
        }
        Ok(id.to_owned())
    }

    /// The terminal's output so far (cut in the middle past the limit) and its exit status,
    /// if it has ended.
    fn output_of(&self, terminal: &str) -> (String, Option<Value>) {
        match self.ask(
            "terminal/output",
            json!({"terminalId": terminal}),
            REQUEST_LIMIT,
        ) {
            Ok(v) => {
                let text = v["output"].as_str().unwrap_or_default();
                let text = text.strip_suffix('\n').unwrap_or(text);
                let text = if text.len() > OUTPUT_LIMIT {
                    agent::budget::cut_middle(text, OUTPUT_LIMIT)
                } else {
                    text.to_owned()
                };
                let status = v.get("exitStatus").filter(|s| !s.is_null()).cloned();
                (text, status)
            }
            Err(e) => (
                format!("[the editor's terminal output could not be read: {e}]"),
                None,
            ),
        }
    }

    fn release(&self, terminal: &str) {
        if let Err(e) = self.ask(
            "terminal/release",
            json!({"terminalId": terminal}),
            REQUEST_LIMIT,
        ) {
            eprintln!("pilotfish acp: terminal/release failed: {e}");
        }
    }
}

/// An exit status as a number: the exit code, or 128 plus the signal's number as a shell says.
fn code_of(status: &Value) -> i32 {
    if let Some(code) = status["exitCode"].as_i64() {
        return i32::try_from(code).unwrap_or(-1);
    }
    let signal = match status["signal"].as_str().unwrap_or_default() {
        "SIGHUP" => 1,
        "SIGINT" => 2,
        "SIGKILL" => 9,
        "SIGTERM" => 15,
        _ => 0,
    };
    128 + signal
}

impl host::runner::Runner for ClientTerminals {
    fn run(
        &mut self,
        call_id: &str,
        argv: &[String],
        limit: Duration,
        cancel: &AtomicBool,
    ) -> std::io::Result<Ran> {
        let terminal = self.create(call_id, argv)?;
        let waited = self.conn.request(
            "terminal/wait_for_exit",
            json!({"sessionId": self.session, "terminalId": terminal}),
            limit,
            Some(cancel),
        );
        let status = match waited {
            Ok(status) => Some(code_of(&status)),
            Err(e) => {
                // Cancelled, too slow, or the editor failed: the command is stopped there.
                if !matches!(e, Failure::Cancelled) && !cancel.load(Ordering::SeqCst) {
                    eprintln!("pilotfish acp: waiting for the editor's terminal: {e}");
                }
                if let Err(e) = self.ask(
                    "terminal/kill",
                    json!({"terminalId": terminal}),
                    REQUEST_LIMIT,
                ) {
                    eprintln!("pilotfish acp: terminal/kill failed: {e}");
                }
                None
            }
        };
        let (output, _) = self.output_of(&terminal);
        self.release(&terminal);
        Ok(Ran { output, status })
    }

    fn spawn(&mut self, call_id: &str, argv: &[String]) -> std::io::Result<String> {
        let terminal = self.create(call_id, argv)?;
        let id = format!("bg-{}", self.background.len() + 1);
        self.background.push((id.clone(), terminal));
        Ok(id)
    }

    fn output(&mut self, id: &str) -> Option<(String, Option<i32>, bool)> {
        let (_, terminal) = self.background.iter().find(|(b, _)| b == id)?;
        let (text, status) = self.output_of(terminal);
        Some((text, status.as_ref().map(code_of), status.is_none()))
    }

    fn ids(&self) -> Vec<String> {
        self.background.iter().map(|(id, _)| id.clone()).collect()
    }
}

impl Drop for ClientTerminals {
    /// Background commands end with the session, as pilotfish's own do.
    fn drop(&mut self) {
        for (_, terminal) in std::mem::take(&mut self.background) {
            if self.conn.is_closed() {
                break;
            }
            let _ = self.ask(
                "terminal/kill",
                json!({"terminalId": terminal}),
                Duration::from_secs(2),
            );
            self.release(&terminal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_runs_the_command_line_it_is_given_and_an_empty_one_is_an_error() {
        let argv = [
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--",
            "bash",
            "-c",
            "echo hi",
        ]
        .map(String::from);
        let (program, args) = command_line(&argv).unwrap();
        assert_eq!(program, "bwrap");
        assert_eq!(args, argv[1..]);
        assert!(command_line(&[]).is_err());
    }

    #[test]
    fn exit_statuses_read_as_a_shell_reads_them() {
        assert_eq!(code_of(&json!({"exitCode": 3, "signal": null})), 3);
        assert_eq!(
            code_of(&json!({"exitCode": null, "signal": "SIGKILL"})),
            137
        );
    }
}
