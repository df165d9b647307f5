//! The agent's terminal: one shell per run whose folder and variables survive between
//! commands, and background commands whose output is kept for `get_terminal_output`. Both run
//! through the workspace's [`Runner`] (the sandbox), and what they print reaches the model with
//! the workspace's `.env` values replaced.

use std::os::unix::process::CommandExt;

use crate::{confinement::Runner, secrets::Secrets};
use std::{
    io::{BufRead, BufReader, Read, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
    time::Duration,
};

/// Output kept per command, in bytes; more is cut in the middle.
pub const OUTPUT_LIMIT: usize = 16 * 1024;

/// The run's persistent shell.
pub struct Shell {
    root: PathBuf,
    runner: Runner,
    secrets: Secrets,
    live: Option<Live>,
    next: u64,
    background: Vec<Background>,
}

struct Live {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

struct Background {
    id: String,
    child: Child,
    output: Arc<Mutex<Vec<u8>>>,
}

/// What a command did.
#[derive(Debug)]
pub struct Ran {
    pub output: String,
    /// `None`: it did not finish in time (the shell was restarted).
    pub status: Option<i32>,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("root", &self.root)
            .field("background", &self.background.len())
            .finish_non_exhaustive()
    }
}

impl Shell {
    pub fn new(root: &Path, runner: Runner, secrets: Secrets) -> Shell {
        Shell {
            root: root.to_path_buf(),
            runner,
            secrets,
            live: None,
            next: 0,
            background: Vec::new(),
        }
    }

    /// `argv` as the runner runs it; refused commands are an error that says why.
    fn command(&self, argv: &[&str]) -> std::io::Result<Command> {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        self.runner.command(&argv).map_err(std::io::Error::other)
    }

    fn start(&self) -> std::io::Result<Live> {
        // Its own process group, so a command it started is stopped with it.
        let mut child = self
            .command(&["bash", "--noprofile", "--norc"])?
            .process_group(0)
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while reader.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
                if tx.send(String::from_utf8_lossy(&buf).into_owned()).is_err() {
                    return;
                }
                buf.clear();
            }
        });
        Ok(Live {
            child,
            stdin,
            lines,
        })
    }

    /// Runs `command` in the shell and waits for it, at most `limit`, or until `cancel` is
    /// set; either way the shell and what it started are stopped.
    pub fn run(
        &mut self,
        command: &str,
        limit: Duration,
        cancel: &AtomicBool,
    ) -> std::io::Result<Ran> {
        if self.live.is_none() {
            self.live = Some(self.start()?);
        }
        self.next += 1;
        let marker = format!("__pilotfish_done_{}_{}__", std::process::id(), self.next);
        let live = self.live.as_mut().expect("started above");
        // The command's standard error joins its output; standard input is empty, so a
        // command that asks for input gets end-of-file instead of hanging.
        let script =
            format!("{{\n{command}\n}} </dev/null 2>&1\nprintf '\\n%s %s\\n' {marker} \"$?\"\n");
        live.stdin.write_all(script.as_bytes())?;
        live.stdin.flush()?;
        let deadline = std::time::Instant::now() + limit;
        let mut output = String::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            // Short waits, so a cancel is seen at once.
            let wait = left.min(Duration::from_millis(50));
            let stop = left.is_zero() || cancel.load(Ordering::SeqCst);
            match if stop {
                Err(mpsc::RecvTimeoutError::Timeout)
            } else {
                live.lines.recv_timeout(wait)
            } {
                Ok(line) => {
                    if let Some(status) = line.trim_end().strip_prefix(&format!("{marker} ")) {
                        let output = output.strip_suffix('\n').unwrap_or(&output).to_owned();
                        return Ok(Ran {
                            output: cap(&self.secrets.redactor().redact(&output)),
                            status: status.trim().parse().ok(),
                        });
                    }
                    if output.len() < 4 * OUTPUT_LIMIT {
                        output.push_str(&line);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) if !stop => {}
                Err(_) => {
                    // Too slow, cancelled, or the shell exited: a fresh one for the next command.
                    if let Some(mut dead) = self.live.take() {
                        kill_group(&mut dead.child);
                    }
                    return Ok(Ran {
                        output: cap(&self.secrets.redactor().redact(&output)),
                        status: None,
                    });
                }
            }
        }
    }

    /// Starts `command` in the background, in the shell's current folder; returns its id.
    pub fn spawn(&mut self, command: &str) -> std::io::Result<String> {
        let folder = match self.run("pwd", Duration::from_secs(5), &AtomicBool::new(false)) {
            Ok(Ran {
                output,
                status: Some(0),
            }) => PathBuf::from(output.trim()),
            _ => self.root.clone(),
        };
        let mut child = self
            .command(&["bash", "--noprofile", "--norc", "-c", command])?
            .process_group(0)
            .current_dir(folder)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let output = Arc::new(Mutex::new(Vec::new()));
        for mut pipe in [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let output = output.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut o = output.lock().unwrap_or_else(|e| e.into_inner());
                    // Keep the newest output when a server talks a lot.
                    o.extend_from_slice(&buf[..n]);
                    if o.len() > 4 * OUTPUT_LIMIT {
                        let cut = o.len() - 2 * OUTPUT_LIMIT;
                        o.drain(..cut);
                    }
                }
            });
        }
        let id = format!("bg-{}", self.background.len() + 1);
        self.background.push(Background {
            id: id.clone(),
            child,
            output,
        });
        Ok(id)
    }

    /// What a background command printed so far, and whether it still runs.
    pub fn output(&mut self, id: &str) -> Option<(String, Option<i32>, bool)> {
        let b = self.background.iter_mut().find(|b| b.id == id)?;
        let text = String::from_utf8_lossy(&b.output.lock().unwrap_or_else(|e| e.into_inner()))
            .into_owned();
        let (running, code) = match b.child.try_wait() {
            Ok(Some(s)) => (false, s.code()),
            _ => (true, None),
        };
        Some((cap(&self.secrets.redactor().redact(&text)), code, running))
    }

    pub fn ids(&self) -> Vec<String> {
        self.background.iter().map(|b| b.id.clone()).collect()
    }
}

impl Drop for Shell {
    /// Background commands end with the run.
    fn drop(&mut self) {
        for b in &mut self.background {
            kill_group(&mut b.child);
        }
        if let Some(live) = &mut self.live {
            kill_group(&mut live.child);
        }
    }
}

/// Stops a child started in its own process group, with everything it started.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: signals the process group this module created for the child.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn cap(text: &str) -> String {
    if text.len() > OUTPUT_LIMIT {
        agent::budget::cut_middle(text, OUTPUT_LIMIT)
    } else {
        text.to_owned()
    }
}
