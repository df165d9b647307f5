//! A real vLLM server (vLLM for CPU, from `tools/vllm.sh`) serving SmolLM2-135M-Instruct with
//! prefix caching on a free loopback port. It takes about a minute to start, so one server is
//! shared by every test of a test binary ([`VllmServer::shared`]; the team benchmark's in
//! 32-token blocks, [`VllmServer::shared_in_blocks`]) and stopped, with the engine processes it
//! forks, when the binary exits.

use std::{
    io::{Read, Write},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{Mutex, OnceLock},
    time::{Duration, Instant},
};

/// How long vLLM may take to start: loading torch and the model, and profiling memory, take
/// about 50 s on two cores with `--enforce-eager`; a busy machine needs more.
const START_LIMIT: Duration = Duration::from_secs(420);

/// The context vLLM gives the model: SmolLM2's trained 8,192 would cost memory for nothing.
pub const MAX_MODEL_LEN: u32 = 2048;

/// The prefix cache's block the team benchmark asks for, in tokens: vLLM for CPU's smallest
/// ("No common block size for 16 (CPU_ATTN: [MultipleOf(32)])"), as `docs/team.md` recommends
/// for a team's server. The tests keep vLLM's default (128 on the CPU): `docs/team.md` says why.
pub const TEAM_BLOCK_SIZE: u32 = 32;

/// A running vLLM server. Its process group (the API server and the engine core it forks) is
/// killed when the test binary exits.
#[derive(Debug)]
pub struct VllmServer {
    pub url: String,
    pub port: u16,
    /// The server's output, for a test that fails to read.
    pub log: PathBuf,
    /// The model's name as vLLM serves it (the folder it was loaded from).
    pub model: String,
}

/// The process group to kill at exit.
static GROUP: Mutex<Option<Child>> = Mutex::new(None);

extern "C" fn stop_group() {
    if let Ok(mut guard) = GROUP.lock()
        && let Some(mut child) = guard.take()
    {
        // The API server forks the engine core into its group: the whole group goes.
        let pgid = child.id() as libc::pid_t;
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = child.wait();
    }
}

impl VllmServer {
    /// The server every test of this binary shares, started on first use.
    pub fn shared() -> &'static VllmServer {
        static SERVER: OnceLock<VllmServer> = OnceLock::new();
        SERVER.get_or_init(|| VllmServer::start(None))
    }

    /// The server this binary shares, its prefix cache in blocks of `block` tokens, started on
    /// first use (a binary uses this or [`Self::shared`], not both: one vLLM at a time is
    /// stopped at exit).
    pub fn shared_in_blocks(block: u32) -> &'static VllmServer {
        static SERVER: OnceLock<VllmServer> = OnceLock::new();
        SERVER.get_or_init(|| VllmServer::start(Some(block)))
    }

    fn start(block: Option<u32>) -> VllmServer {
        let (python, model) = crate::vllm_paths();
        let port = crate::free_port();
        let log = std::env::temp_dir().join(format!("pilotfish-vllm-{port}.log"));
        let out = std::fs::File::create(&log).expect("the vLLM log can be written");
        let err = out.try_clone().expect("the vLLM log can be shared");
        let child = {
            use std::os::unix::process::CommandExt;
            Command::new(python)
                .args(["-m", "vllm.entrypoints.openai.api_server", "--model"])
                .arg(model)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--enforce-eager", "--enable-prefix-caching"])
                .args(["--max-model-len", &MAX_MODEL_LEN.to_string()])
                // The prefix cache keeps whole blocks, 128 tokens by default on the CPU: every
                // request reads its prompt's last, unfinished block again.
                .args(block.map(|b| format!("--block-size={b}")))
                // The agent sends tools with `tool_choice: auto`, which vLLM refuses (400)
                // unless it was told how to read tool calls from the model's text.
                .args(["--enable-auto-tool-choice", "--tool-call-parser", "hermes"])
                // The KV cache, in GiB: 1 holds far more than a test's prompts.
                .env("VLLM_CPU_KVCACHE_SPACE", "1")
                .env("VLLM_NO_USAGE_STATS", "1")
                .env("DO_NOT_TRACK", "1")
                .env("HF_HUB_OFFLINE", "1")
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .process_group(0)
                .spawn()
                .expect("vLLM starts")
        };
        *GROUP.lock().unwrap() = Some(child);
        unsafe {
            libc::atexit(stop_group);
        }
        let started = Instant::now();
        loop {
            if get(port, "/health").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
                break;
            }
            let exited = GROUP
                .lock()
                .unwrap()
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                panic!(
                    "vLLM exited ({status}) before it answered; its log {}:\n{}",
                    log.display(),
                    tail(&log)
                );
            }
            if started.elapsed() > START_LIMIT {
                stop_group();
                panic!(
                    "vLLM did not answer within {START_LIMIT:?}; its log {}:\n{}",
                    log.display(),
                    tail(&log)
                );
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        eprintln!(
            "vLLM answered after {:.1} s on port {port}",
            started.elapsed().as_secs_f64()
        );
        VllmServer {
            url: format!("http://127.0.0.1:{port}"),
            port,
            log,
            model: model.to_string_lossy().into_owned(),
        }
    }

    /// The value of a counter on `/metrics` (summed over its labels), or 0 when absent.
    pub fn counter(&self, name: &str) -> f64 {
        let metrics = get(self.port, "/metrics").unwrap_or_default();
        metrics
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }
}

/// The end of the server's log, for a failure message.
fn tail(log: &std::path::Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// A plain HTTP GET on loopback: the whole response, or `None` when nothing answers.
pub(crate) fn get(port: u16, path: &str) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .ok()?;
    let mut response = String::new();
    s.read_to_string(&mut response).ok()?;
    Some(response)
}
