//! Test helpers: whole-process measurements for benchmarks ([`measure`]), a real `llama-server` (built by `tools/llama-server.sh`, with a tiny
//! random-weight code model, or SmolLM2-135M-Instruct from `tools/smollm2.sh` for a model
//! that answers in words) started on a free loopback port, and a scripted model server
//! ([`scripted`], a named fake) for answers a test must know in advance; [`fake_next_edit`] is
//! the same for next edit suggestions. [`vllm`] starts a real vLLM server (vLLM for CPU, from
//! `tools/vllm.sh`) shared by a test binary's tests.

pub mod corpus;
pub mod fake_next_edit;
pub mod measure;
pub mod scripted;
pub mod scripted_chat;
pub mod team;
pub mod vllm;

pub use vllm::VllmServer;

use std::{
    path::PathBuf,
    sync::OnceLock,
    time::{Duration, Instant},
};

/// The lines a tools script prints (its progress goes to standard error, shown as it comes).
pub fn run_tool(script: &str, why: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools")
        .join(script);
    let out = std::process::Command::new("bash")
        .arg(&path)
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("tools/{script} could not run: {e}"));
    assert!(out.status.success(), "tools/{script} failed: {why}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The llama-server binary and the test model, built or taken from the cache once per run.
pub fn llama_paths() -> &'static (PathBuf, PathBuf) {
    static PATHS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    PATHS.get_or_init(|| {
        let lines = run_tool("llama-server.sh", "the backend tests need llama-server");
        let [.., server, model] = lines.as_slice() else {
            panic!("tools/llama-server.sh printed {lines:?}")
        };
        (PathBuf::from(server), PathBuf::from(model))
    })
}

/// SmolLM2-135M-Instruct as a GGUF file, downloaded or taken from the cache once per run.
pub fn smollm2_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let lines = run_tool("smollm2.sh", "the real-model tests need SmolLM2");
        let Some(model) = lines.last() else {
            panic!("tools/smollm2.sh printed nothing")
        };
        PathBuf::from(model)
    })
}

/// What the VS Code browser test runs: node 24, code-server with puppeteer-core, and the
/// extension's `.vsix`, each installed or built once per machine by its tools script.
#[derive(Debug)]
pub struct VsCodeTools {
    /// node 24's folder (`bin/node`).
    pub node: PathBuf,
    /// The folder holding code-server and puppeteer-core under `node_modules`.
    pub code_server: PathBuf,
    pub vsix: PathBuf,
}

pub fn vscode_tools() -> &'static VsCodeTools {
    static TOOLS: OnceLock<VsCodeTools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let last = |script: &str, why: &str| {
            let lines = run_tool(script, why);
            PathBuf::from(
                lines
                    .last()
                    .unwrap_or_else(|| panic!("tools/{script} printed nothing")),
            )
        };
        VsCodeTools {
            node: last("node24.sh", "the VS Code tests need node 24"),
            code_server: last("code-server.sh", "the VS Code tests need code-server"),
            vsix: last(
                "vscode-extension.sh",
                "the VS Code tests need the extension",
            ),
        }
    })
}

/// A running llama-server on a free loopback port, killed on drop.
#[derive(Debug)]
pub struct LlamaServer {
    child: std::process::Child,
    pub url: String,
}

impl LlamaServer {
    pub fn start() -> LlamaServer {
        LlamaServer::with_context(1024)
    }

    /// A server whose context holds `tokens` tokens of the model's vocabulary, prompt and
    /// answer together.
    pub fn with_context(tokens: u32) -> LlamaServer {
        LlamaServer::spawn(tokens, &[])
    }

    /// A server for the tiny fill-in-the-middle test model with a context of `tokens` and
    /// `extra` arguments after the usual ones.
    pub fn tiny(tokens: u32, extra: &[&str]) -> LlamaServer {
        LlamaServer::spawn(tokens, extra)
    }

    /// A server that applies the model's chat template with Jinja (`--jinja`), as it must to
    /// accept tools on `/v1/chat/completions`.
    pub fn with_jinja() -> LlamaServer {
        LlamaServer::spawn(1024, &["--jinja"])
    }

    /// A server for SmolLM2-135M-Instruct, a real chat model (no fill-in-the-middle), with a
    /// context of `tokens` and `extra` arguments after the usual ones. It always applies the
    /// model's chat template with Jinja, which `/v1/chat/completions` needs to accept tools.
    pub fn smollm2(tokens: u32, extra: &[&str]) -> LlamaServer {
        let args: Vec<&str> = ["--jinja"].iter().chain(extra).copied().collect();
        LlamaServer::spawn_model(smollm2_path(), tokens, &args)
    }

    fn spawn(tokens: u32, extra: &[&str]) -> LlamaServer {
        LlamaServer::spawn_model(&llama_paths().1, tokens, extra)
    }

    fn spawn_model(model: &std::path::Path, tokens: u32, extra: &[&str]) -> LlamaServer {
        let server = &llama_paths().0;
        let port = free_port();
        let child = std::process::Command::new(server)
            .args([
                "-m",
                &model.to_string_lossy(),
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .args([
                "-c",
                &tokens.to_string(),
                "-np",
                "1",
                "-t",
                "1",
                "--log-disable",
            ])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("llama-server starts");
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                use std::io::{Read, Write};
                let _ = s.write_all(b"GET /health HTTP/1.0\r\n\r\n");
                let mut response = String::new();
                let _ = s.read_to_string(&mut response);
                if response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.0 200") {
                    break;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "llama-server did not become healthy"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        LlamaServer { child, url }
    }

    /// The server's process id, for a test that stops it from another process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.kill();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A port on 127.0.0.1 bound and not listening, held while this lives: a connection there is
/// refused, and nothing else can listen there meanwhile (the socket is bound without
/// `SO_REUSEADDR`, so even a server that sets it cannot bind the port). The address of "no
/// server", for tests that must not meet one by chance.
#[derive(Debug)]
pub struct HeldPort {
    pub port: u16,
    _socket: tokio::net::TcpSocket,
}

impl HeldPort {
    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

pub fn held_port() -> HeldPort {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind(([127, 0, 0, 1], 0).into())
        .expect("a port on loopback");
    let port = socket.local_addr().expect("the bound address").port();
    HeldPort {
        port,
        _socket: socket,
    }
}

/// vLLM for CPU and SmolLM2-135M-Instruct converted to safetensors, installed or taken from
/// the cache once per run (`tools/vllm.sh`): the virtualenv's python and the model folder.
pub fn vllm_paths() -> &'static (PathBuf, PathBuf) {
    static PATHS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    PATHS.get_or_init(|| {
        let lines = run_tool(
            "vllm.sh",
            "the vLLM tests need vLLM and SmolLM2 as safetensors",
        );
        let [.., python, model] = lines.as_slice() else {
            panic!("tools/vllm.sh printed {lines:?}")
        };
        (PathBuf::from(python), PathBuf::from(model))
    })
}
