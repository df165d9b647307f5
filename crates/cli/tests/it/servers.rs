//! The servers and editors people run, as a new user meets them: base URLs with `/v1`, small
//! contexts, hung and wrong servers, advice that names the right fix, and output into a pipe
//! that closes. Each test here reproduces something a user hit.

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpListener,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::{assert_clean_failure, pilotfish, temp_file};

pub(crate) const CURSOR: &str = "examples/shop/orders.py:31:13";

pub(crate) fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub(crate) fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command line the argument parser refuses: exit code 2, the flag named, no panic.
pub(crate) fn assert_usage_error(out: &std::process::Output, flag: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid value") && err.contains(flag), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// FAKE: a server that accepts connections and never answers, as a hung model server does.
fn hung_server() -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut held = Vec::new();
        listener.set_nonblocking(true).unwrap();
        let started = Instant::now();
        // Holds every connection open, unanswered, for a while, then lets go.
        while started.elapsed() < Duration::from_secs(20) {
            if let Ok((socket, _)) = listener.accept() {
                held.push(socket);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    (url, handle)
}

#[test]
fn base_urls_with_v1_work_for_every_local_backend() {
    let server = test_utils::LlamaServer::start();
    let v1 = format!("{}/v1", server.url);
    for backend in ["llama-infill", "openai-completions", "openai-chat"] {
        let out = pilotfish(
            &[
                "complete",
                CURSOR,
                "--backend",
                backend,
                "--endpoint",
                &v1,
                "--max-tokens",
                "4",
            ],
            b"",
        );
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
    }
    // FIM through /v1/completions is lost on llama.cpp: said loudly.
    let out = pilotfish(
        &[
            "complete",
            CURSOR,
            "--backend",
            "openai-completions",
            "--endpoint",
            &v1,
            "--max-tokens",
            "4",
        ],
        b"",
    );
    assert!(
        stderr(&out).contains(
            "pilotfish: warning: this server is llama.cpp, whose /v1/completions ignores `suffix`"
        ),
        "{}",
        stderr(&out)
    );
    // config check asks the root's paths, not /v1/v1/...
    let out = pilotfish(
        &[
            "config",
            "check",
            "--backend",
            "openai-completions",
            "--endpoint",
            &v1,
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("answered as                  llama.cpp"));
    assert!(
        stdout(&out).contains("warning: this server is llama.cpp"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_small_context_is_fitted_in_the_models_own_tokens() {
    // 512 tokens of deepseek-coder's vocabulary: Copilot's 7,692 o200k tokens cannot be sent,
    // and even 512 o200k tokens of this file are more than 512 of the model's.
    let server = test_utils::LlamaServer::with_context(512);
    let out = pilotfish(
        &[
            "complete",
            CURSOR,
            "--open",
            "examples/shop/cart.py",
            "--open",
            "examples/shop/inventory.py",
            "--endpoint",
            &server.url,
            "--max-tokens",
            "16",
            "--explain",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("prompt budget lowered from 7692 to"),
        "{}",
        stderr(&out)
    );
    // An explicit budget over what the context holds is lowered too, and said.
    let out = pilotfish(
        &[
            "complete",
            CURSOR,
            "--endpoint",
            &server.url,
            "--max-tokens",
            "16",
            "--max-prompt-tokens",
            "2000",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("prompt budget lowered from 2000 to"));
    // Too small a budget is refused at once.
    assert_usage_error(
        &pilotfish(&["complete", CURSOR, "--max-prompt-tokens", "10"], b""),
        "--max-prompt-tokens",
    );
    // The configuration file's budget is used, and checked.
    let config = temp_file("budget.toml", b"[completion]\nmax_prompt_tokens = 12\n");
    assert_clean_failure(
        &pilotfish(
            &[
                "complete",
                CURSOR,
                "--config",
                &config.display().to_string(),
            ],
            b"",
        ),
        "max_prompt_tokens must be 64 or more",
    );
}

#[test]
fn a_hung_server_costs_the_first_token_limit_not_the_total() {
    let (url, _hold) = hung_server();
    let config = temp_file(
        "hung.toml",
        format!("[backend]\nendpoint = \"{url}\"\nfirst_token_timeout_seconds = 0.5\n").as_bytes(),
    );
    let started = Instant::now();
    let out = pilotfish(
        &[
            "complete",
            CURSOR,
            "--config",
            &config.display().to_string(),
            "--explain",
        ],
        b"",
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sent no text within 500ms (the time-to-first-token limit)"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // --explain on failure: the prompt and the request are shown, then the error.
    assert!(stdout(&out).contains("BeforeCursor"), "{}", stdout(&out));
    assert!(stdout(&out).contains("─── request to"), "{}", stdout(&out));
    // config check waits a few seconds, not thirty.
    let started = Instant::now();
    let out = pilotfish(&["config", "check", "--endpoint", &url], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("did not answer within 3s"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// With no limit configured, a server that takes the connection and says nothing still ends
/// `complete` within seconds: it would not describe itself, so the completion gets a short
/// first-token limit instead of the 30 s total.
#[test]
fn a_hung_server_ends_complete_within_ten_seconds_by_default() {
    let (url, _hold) = hung_server();
    let started = Instant::now();
    let out = pilotfish(&["complete", CURSOR, "--endpoint", &url], b"");
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(
        stderr(&out).contains("/props did not answer within 2s")
            && stderr(&out).contains("sent no text within 6s (the time-to-first-token limit)"),
        "{}",
        stderr(&out)
    );
}

/// The prompt's page is written for a request that failed too (when it is most needed): the
/// parts as sent, every element, the request and the error, and nothing that loads anything.
#[test]
fn complete_writes_the_prompts_page_even_when_the_server_fails() {
    let (url, _hold) = hung_server();
    let config = temp_file(
        "hung-html.toml",
        format!("[backend]\nendpoint = \"{url}\"\nfirst_token_timeout_seconds = 0.5\n").as_bytes(),
    );
    let page = std::env::temp_dir().join(format!("pilotfish-page-{}.html", std::process::id()));
    let out = pilotfish(
        &[
            "complete",
            CURSOR,
            "--config",
            &config.display().to_string(),
            "--html",
            &page.display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).expect("the page is written");
    for part in [
        "data-part=\"prefix\"",
        "data-part=\"suffix\"",
        "Every element considered",
        "BeforeCursor",
        "The request",
        "time-to-first-token",
        "default-src 'none'",
    ] {
        assert!(html.contains(part), "{part} missing from the page");
    }
    assert!(!html.contains("src=") && !html.contains("href="));
    let _ = std::fs::remove_file(&page);
}

#[test]
fn advice_names_the_fix_for_the_backend_and_where_the_setting_came_from() {
    let run = |args: &[&str]| pilotfish(&[&["complete", CURSOR][..], args].concat(), b"");
    assert_clean_failure(
        &run(&[
            "--backend",
            "ollama",
            "--model",
            "m",
            "--fim-template",
            "qwen2.5-coder",
        ]),
        "use --backend ollama-raw",
    );
    assert_clean_failure(
        &run(&[
            "--backend",
            "openai-chat",
            "--fim-template",
            "qwen2.5-coder",
        ]),
        "a chat model is asked in words and has no FIM format",
    );
    let config = temp_file(
        "template.toml",
        b"[backend]\nfim_template = \"deepseek-coder\"\n",
    );
    let out = run(&["--config", &config.display().to_string()]);
    assert_clean_failure(&out, "(from fim_template in ");
    assert!(!stderr(&out).contains("--fim-template"), "{}", stderr(&out));
    assert_clean_failure(
        &run(&["--backend", "ollama"]),
        "the ollama backend needs a model name",
    );
    assert_usage_error(&run(&["--max-tokens", "0"]), "--max-tokens");
}

#[test]
fn default_endpoints_follow_the_backend() {
    // Ollama's port; the probe fails (nothing listens here) after the table is printed.
    let out = pilotfish(
        &["config", "check", "--backend", "ollama", "--model", "m"],
        b"",
    );
    assert!(
        stdout(&out).contains("\"http://127.0.0.1:11434\""),
        "{}",
        stdout(&out)
    );
    // Codestral: Mistral's address, and no request without a key.
    let out = pilotfish(&["config", "check", "--backend", "codestral"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"https://codestral.mistral.ai\""));
    assert!(
        stdout(&out).contains("warning: Codestral needs an API key"),
        "{}",
        stdout(&out)
    );
    // Every setting is shown with where it came from.
    let out = pilotfish(
        &[
            "config",
            "check",
            "--backend",
            "codestral",
            "--model",
            "codestral-latest",
        ],
        b"",
    );
    let text = stdout(&out);
    let line = |key: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("kind").ends_with("--backend"), "{text}");
    assert!(line("model").ends_with("--model"), "{text}");
    assert!(line("max_tokens").contains("64"), "{text}");
    assert!(line("timeout_seconds").contains("30"), "{text}");
    assert!(line("retries").ends_with("default"), "{text}");
}

#[test]
fn html_from_the_endpoint_is_named_as_a_web_page() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // FAKE: a web page on the port where a model server was expected.
    std::thread::spawn(move || {
        for socket in listener.incoming().take(4) {
            let Ok(mut socket) = socket else { return };
            let mut reader = BufReader::new(socket.try_clone().unwrap());
            let mut line = String::new();
            let mut length = 0;
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body);
            let page = "<html><body>Sign in</body></html>";
            let _ = write!(
                socket,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    let out = pilotfish(&["complete", CURSOR, "--endpoint", &url], b"");
    assert_clean_failure(&out, "answered with a web page (text/html");
}

#[test]
fn output_into_a_closed_pipe_stops_quietly() {
    let text = "fn main() { println!(\"hello\"); }\n".repeat(4000);
    for args in [
        &["tokens", "--ids", "--text"][..],
        &["customizations", "--folder", "crates/chat/test_data/shop"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .args(args)
            .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = text.clone();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        // Read one line, then close the pipe, as `head -1` does.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
        assert!(!first.is_empty());
    }
}

#[test]
fn small_mistakes_get_clear_errors() {
    // A misspelt option in a request is refused, not ignored.
    let request = r#"{"document": {"path": "a.py", "text": "x = 1\n"}, "position": {"line": 0, "character": 5}, "options": {"max_prompt_token": 500}}"#;
    assert_clean_failure(
        &pilotfish(&["prompt", "--request", "-"], request.as_bytes()),
        "unknown field `max_prompt_token`",
    );
    // Lines past the end of an attached file.
    let file = temp_file("short.py", "a = 1\n".repeat(13).as_bytes());
    assert_clean_failure(
        &pilotfish(
            &[
                "chat",
                "--dry-run",
                "explain",
                "--file",
                &format!("{}:50-60", file.display()),
            ],
            b"",
        ),
        "has 13 line(s)",
    );
    // The help says what the program is for.
    let out = pilotfish(&["--help"], b"");
    let help = stdout(&out);
    assert!(!help.contains("glue"), "{help}");
    assert!(help.contains("local-first engine"), "{help}");
}

/// A minimal LSP client over `pilotfish lsp`'s standard input and output: writes framed
/// messages, reads framed answers.
pub(crate) struct Lsp {
    pub(crate) child: std::process::Child,
    reader: BufReader<std::process::ChildStdout>,
}

impl Lsp {
    pub(crate) fn start(args: &[&str]) -> Lsp {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
        command.arg("lsp").args(args);
        Lsp::spawn(command)
    }

    /// A language server from a command the caller prepared (its environment, its flags).
    pub(crate) fn spawn(mut command: Command) -> Lsp {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let reader = BufReader::new(child.stdout.take().unwrap());
        Lsp { child, reader }
    }

    /// Stops the language server after `after`, so that a test waiting for a message that
    /// never comes fails instead of hanging.
    pub(crate) fn watchdog(&self, after: std::time::Duration) {
        let pid = self.child.id();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        });
    }

    pub(crate) fn send(&mut self, message: serde_json::Value) {
        let body = message.to_string();
        let stdin = self.child.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn read(&mut self) -> serde_json::Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            let read = self.reader.read_line(&mut line).unwrap();
            assert!(read > 0, "the language server closed its output");
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        std::io::Read::read_exact(&mut self.reader, &mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// The answer to request `id`, and the notifications that came before it.
    pub(crate) fn answer(&mut self, id: i64) -> (serde_json::Value, Vec<serde_json::Value>) {
        let mut seen = Vec::new();
        loop {
            let m = self.read();
            if m["id"] == id && m.get("method").is_none() {
                return (m, seen);
            }
            seen.push(m);
        }
    }

    /// Initializes, opens `text` as a Python file and asks for an inline completion at the end
    /// of its line `line`.
    pub(crate) fn complete_once(
        &mut self,
        text: &str,
        line: usize,
    ) -> (serde_json::Value, Vec<serde_json::Value>) {
        use serde_json::json;
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
        self.answer(1);
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        let uri = "file:///tmp/pilotfish-lsp-test/orders.py";
        self.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}));
        let character = text.lines().nth(line).unwrap().len();
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlineCompletion", "params": {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "context": {"triggerKind": 1}}}));
        self.answer(2)
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_language_server_fits_a_small_context_behind_v1() {
    let server = test_utils::LlamaServer::with_context(512);
    // About 2,000 tokens of document: Copilot's budget would send all of it, the server
    // would refuse it.
    let mut text = String::new();
    for i in 0..150 {
        text.push_str(&format!(
            "def helper_{i}(items):\n    return sum(items) + {i}\n\n"
        ));
    }
    text.push_str("def order_total(items):\n    amount = t\n    return amount\n");
    let line = text.lines().count() - 2;
    let endpoint = format!("{}/v1", server.url);
    let mut lsp = Lsp::start(&["--endpoint", &endpoint, "--model", "tiny"]);
    let (answer, seen) = lsp.complete_once(&text, line);
    assert!(answer["error"].is_null(), "{answer}");
    assert!(
        !seen.iter().any(|m| m["method"] == "window/showMessage"),
        "no failure shown: {seen:?}"
    );
    lsp.send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "pilotfish/stats", "params": {}}),
    );
    let (stats, _) = lsp.answer(3);
    let pipeline = &stats["result"]["pipeline"];
    assert_eq!(pipeline["failures"], 0, "{stats}");
    assert!(pipeline["network"].as_u64().unwrap() >= 1, "{stats}");
}

#[test]
fn the_language_server_answers_empty_within_the_first_token_limit_when_the_server_hangs() {
    let (url, _hold) = hung_server();
    let mut lsp = Lsp::start(&["--endpoint", &url]);
    let started = Instant::now();
    let (answer, seen) = lsp.complete_once("def f(items):\n    return \n", 1);
    // At most the server's description (2 s, asked once) and the first-token limit (4 s).
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(answer["result"]["items"], serde_json::json!([]), "{answer}");
    assert!(
        seen.iter().any(|m| m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("time-to-first-token")),
        "{seen:?}"
    );
}

/// The language server follows a document's imports to files that are not open, reading them
/// from the workspace folder on disk, and never reads a file a `.copilotignore` excludes. The
/// model is a scripted fake on loopback, so that the prompt it received can be read back.
#[test]
fn the_language_server_outlines_imported_files_from_disk_and_skips_excluded_ones() {
    use serde_json::json;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(test_utils::scripted::ScriptedModel::start(
        vec![test_utils::scripted::Reply::text("area_of(s)", 2)],
        Duration::ZERO,
    ));
    let ws = std::env::temp_dir().join(format!("pilotfish-lsp-imports-{}", std::process::id()));
    std::fs::create_dir_all(ws.join("lib")).unwrap();
    std::fs::create_dir_all(ws.join("secret")).unwrap();
    std::fs::write(ws.join(".copilotignore"), "secret/\n").unwrap();
    std::fs::write(ws.join("lib/__init__.py"), "").unwrap();
    std::fs::write(
        ws.join("lib/shapes.py"),
        "def area_of(shape) -> float:\n    return shape.area()\n",
    )
    .unwrap();
    std::fs::write(ws.join("secret/__init__.py"), "").unwrap();
    std::fs::write(
        ws.join("secret/keys.py"),
        "def hunter2_key() -> str:\n    return 'x'\n",
    )
    .unwrap();
    let text = "from lib.shapes import area_of\nfrom secret.keys import hunter2_key\n\n\ndef total(shapes):\n    return \n";
    let root = format!("file://{}", ws.display());
    let uri = format!("{root}/app.py");
    let mut lsp = Lsp::start(&["--backend", "openai-completions", "--endpoint", &model.url]);
    lsp.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": root}}));
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}));
    lsp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlineCompletion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 5, "character": 11}, "context": {"triggerKind": 1}}}));
    let (answer, _) = lsp.answer(2);
    assert_eq!(
        answer["result"]["items"][0]["insertText"], "area_of(s)",
        "{answer}"
    );
    let bodies = model.bodies.lock().unwrap().clone();
    let sent = bodies.last().expect("the model was asked").to_string();
    assert!(sent.contains("def area_of(shape) -> float:"), "{sent}");
    assert!(
        !sent.contains("def hunter2_key"),
        "an excluded file was read: {sent}"
    );
}
