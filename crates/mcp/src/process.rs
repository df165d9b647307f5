//! A server's process: started in its own process group, the tail of its standard error kept
//! for error messages, and stopped (gently, then by force) together with everything it started.

use std::{
    collections::VecDeque,
    io::{self, BufRead, BufReader, Read},
    os::unix::process::{CommandExt, ExitStatusExt},
    path::Path,
    process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio},
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    thread,
    time::{Duration, Instant},
};

use crate::{McpError, ServerSpec};

/// How many lines of standard error are kept, and how long each may be: enough to show why a
/// server failed, bounded so that a chatty server costs nothing.
const STDERR_KEEP: usize = 50;
const STDERR_LINE: usize = 500;

/// A running (or exited, not yet stopped) server process.
pub(crate) struct Process {
    child: Mutex<Child>,
    pid: u32,
    stderr: Arc<Tail>,
}

impl Process {
    /// Starts `spec` in `cwd` with piped standard streams, in a process group of its own so
    /// that [`Process::stop`] can end whatever it starts (`npx` starts node, shells start
    /// their commands). Standard error is read by a thread into a bounded tail.
    pub(crate) fn spawn(
        spec: &ServerSpec,
        cwd: &Path,
    ) -> Result<(Process, ChildStdin, ChildStdout), McpError> {
        // A missing folder makes the spawn fail with "not found" too, which would blame the
        // command; say what is really missing.
        if !cwd.is_dir() {
            return Err(McpError::Cwd {
                server: spec.name.clone(),
                cwd: cwd.to_owned(),
            });
        }
        let spawn_error = |source: io::Error| {
            if source.kind() == io::ErrorKind::NotFound {
                McpError::CommandNotFound {
                    server: spec.name.clone(),
                    command: spec.command.clone(),
                }
            } else {
                McpError::Spawn {
                    server: spec.name.clone(),
                    command: spec.command.clone(),
                    source,
                }
            }
        };
        let mut child = Command::new(&spec.command)
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(spawn_error)?;
        let pid = child.id();
        let streams = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let tail = Arc::new(Tail::default());
        let process = Process {
            child: Mutex::new(child),
            pid,
            stderr: Arc::clone(&tail),
        };
        let (Some(stdin), Some(stdout), Some(stderr)) = streams else {
            process.stop(Duration::ZERO);
            return Err(spawn_error(io::Error::other(
                "its standard streams were not piped",
            )));
        };
        let reader = thread::Builder::new()
            .name(format!("mcp-stderr-{}", spec.name))
            .spawn(move || tail.read_from(stderr));
        if let Err(e) = reader {
            process.stop(Duration::ZERO);
            return Err(spawn_error(e));
        }
        Ok((process, stdin, stdout))
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the process has ended (it is reaped then; the status is kept by `Child`).
    pub(crate) fn exited(&self) -> Option<ExitStatus> {
        lock(&self.child).try_wait().ok().flatten()
    }

    /// Waits at most `within` for the process to end.
    pub(crate) fn wait_exit(&self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.exited() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// The last `count` lines of standard error, waiting at most `within` for the stream to
    /// end first (a server that just exited may still have lines in the pipe).
    pub(crate) fn stderr_tail(&self, count: usize, within: Duration) -> Vec<String> {
        self.stderr.last(count, within)
    }

    /// Gives the process `grace` to exit by itself (its standard input should be closed
    /// before), then kills its process group and reaps it, so that no zombie and nothing it
    /// started is left behind.
    pub(crate) fn stop(&self, grace: Duration) {
        self.wait_exit(grace);
        // The group goes even when its leader exited by itself: its children may not have.
        kill_group(self.pid);
        let mut child = lock(&self.child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Sends SIGKILL to the process group `pgid` (the server was made its group's leader).
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a negative pid names
    // a process group. The group exists while any process in it lives, so its id cannot have
    // been given to another process yet.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// How a process ended, as a phrase to follow the server's name.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => format!("ended ({status})"),
    }
}

/// The last lines of a stream, and whether it has ended.
#[derive(Default)]
struct Tail {
    state: Mutex<TailState>,
    ended: Condvar,
}

#[derive(Default)]
struct TailState {
    lines: VecDeque<String>,
    done: bool,
}

impl Tail {
    fn read_from(&self, stream: impl Read) {
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        while let Ok(true) = read_line(&mut reader, STDERR_LINE, &mut line) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end();
            if text.is_empty() {
                continue;
            }
            let mut state = lock(&self.state);
            if state.lines.len() == STDERR_KEEP {
                state.lines.pop_front();
            }
            state.lines.push_back(text.to_owned());
        }
        lock(&self.state).done = true;
        self.ended.notify_all();
    }

    fn last(&self, count: usize, within: Duration) -> Vec<String> {
        let state = lock(&self.state);
        let (state, _) = self
            .ended
            .wait_timeout_while(state, within, |s| !s.done)
            .unwrap_or_else(PoisonError::into_inner);
        let skip = state.lines.len().saturating_sub(count);
        state.lines.iter().skip(skip).cloned().collect()
    }
}

/// Reads one line (without its `\n`) into `line`, keeping at most `max` bytes of it and
/// skipping the rest, so that a server that never writes a newline cannot exhaust memory.
/// Returns false at the end of the stream.
pub(crate) fn read_line(
    reader: &mut impl BufRead,
    max: usize,
    line: &mut Vec<u8>,
) -> io::Result<bool> {
    line.clear();
    let mut read_any = false;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            return Ok(read_any);
        }
        read_any = true;
        let (part, used, ended) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], at + 1, true),
            None => (buffer, buffer.len(), false),
        };
        let room = max.saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        reader.consume(used);
        if ended {
            return Ok(true);
        }
    }
}

/// Locks a mutex whatever another thread did while holding it: the data here (maps, lists,
/// flags) stay consistent at every step, and a panic elsewhere must not spread.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded() {
        let cases: &[(&[u8], usize, &[&str])] = &[
            (b"a\nbb\n", 10, &["a", "bb"]),
            (
                b"a\nno newline at the end",
                100,
                &["a", "no newline at the end"],
            ),
            (b"0123456789\nx\n", 4, &["0123", "x"]),
            (b"\n\n", 4, &["", ""]),
            (b"", 4, &[]),
        ];
        for (input, max, want) in cases {
            // A tiny buffer makes lines span several reads.
            let mut reader = BufReader::with_capacity(3, *input);
            let mut line = Vec::new();
            let mut got = Vec::new();
            while read_line(&mut reader, *max, &mut line).unwrap() {
                got.push(String::from_utf8(line.clone()).unwrap());
            }
            assert_eq!(got, *want, "{input:?}");
        }
    }
}
