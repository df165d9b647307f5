//! One `pilotfish lsp` process as an editor holds it: framed JSON-RPC written to its standard
//! input, its messages read by a thread of their own and handed over in order.

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

use serde_json::{Value, json};

/// A language server process and the messages it sent.
#[derive(Debug)]
pub struct LspClient {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    next_id: i64,
}

impl LspClient {
    /// Starts `bin lsp args…` with `home` as its whole user environment, and initializes it.
    pub fn start(bin: &Path, args: &[&str], home: &Path) -> LspClient {
        let mut child = Command::new(bin)
            .arg("lsp")
            .args(args)
            .current_dir(home)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("pilotfish lsp starts");
        let stdin = child.stdin.take().expect("a pipe");
        let stdout = child.stdout.take().expect("a pipe");
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(m) = read_message(&mut reader) {
                if tx.send(m).is_err() {
                    return;
                }
            }
        });
        let mut lsp = LspClient {
            child,
            stdin,
            messages,
            next_id: 0,
        };
        let id = lsp.request("initialize", json!({"capabilities": {}}));
        lsp.wait_answer(id, Duration::from_secs(120))
            .expect("the language server answers initialize");
        lsp.notify("initialized", json!({}));
        lsp
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; its id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message, if one comes within `limit`.
    pub fn next(&mut self, limit: Duration) -> Option<Value> {
        self.messages.recv_timeout(limit).ok()
    }

    /// Reads messages until the answer to `id` (others are dropped), within `limit`.
    pub fn wait_answer(&mut self, id: i64, limit: Duration) -> Option<Value> {
        self.wait_answer_logged(id, limit).0
    }

    /// [`LspClient::wait_answer`], with the log messages (`window/logMessage`) that came
    /// meanwhile: the language server says there why an answer is empty.
    pub fn wait_answer_logged(&mut self, id: i64, limit: Duration) -> (Option<Value>, Vec<String>) {
        let until = Instant::now() + limit;
        let mut logged = Vec::new();
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let Some(m) = self.next(left) else { break };
            if m["id"] == id && m.get("method").is_none() {
                return (Some(m), logged);
            }
            if m["method"] == "window/logMessage" {
                logged.extend(m["params"]["message"].as_str().map(str::to_owned));
            }
        }
        (None, logged)
    }

    fn write(&mut self, message: &Value) {
        let body = message.to_string();
        // A server that died shows as answers that never come.
        let _ = write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = self.stdin.flush();
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(n) = line.strip_prefix("Content-Length:") {
            length = n.trim().parse().ok()?;
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
