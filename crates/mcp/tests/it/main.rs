//! The MCP client against real processes: the reference server `server-everything` (installed
//! by `tools/mcp-servers/setup.sh`) and fake servers (`tests/fakes/fake_server.py`) that
//! misbehave as real ones do. Every failure must be a clear error within a bounded time, and
//! no process may outlive its `Server`.

mod misbehaving;
mod real_server;

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `f` and measures it.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// Whether process `pid` is running: it exists and is not a zombie.
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may contain spaces.
    let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
    !state.is_some_and(|s| s.starts_with('Z'))
}

/// Waits up to `within` for `check` to hold.
fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

/// Whether process `pid` is gone and reaped: not even a zombie is left.
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}
