//! A managed local model (`--gguf`, `gguf` in `[backend]`): pilotfish starts llama-server for
//! a GGUF file, uses it, and leaves no server behind, whether it ends cleanly, the editor
//! changes the model, or it is killed. The model is the tiny random-weight one from
//! `tools/llama-server.sh`, so the tests check that the commands ran through, not the words.
//! Each test gives the model its own path (a symbolic link), so that the servers it started
//! are told apart from those of tests running beside it.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::assert_clean_failure;

const CURSOR: &str = "examples/shop/orders.py:31:13";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A folder of this test's own, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("pilotfish-managed-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The tiny model under a path of its own.
fn model_at(dir: &Path, name: &str) -> PathBuf {
    let link = dir.join(name);
    std::os::unix::fs::symlink(&test_utils::llama_paths().1, &link).unwrap();
    link
}

/// pilotfish with the test's cache folder (for the servers' logs) and the llama-server that
/// `tools/llama-server.sh` built.
fn pilotfish(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .current_dir(repo())
        .env("PILOTFISH_CACHE", cache)
        .env("PILOTFISH_LLAMA_SERVER", &test_utils::llama_paths().0)
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND");
    command
}

fn run(command: &mut Command) -> Output {
    command
        .stdin(Stdio::null())
        .output()
        .expect("pilotfish runs")
}

/// The llama-server processes running `model` (by the path given to `-m`).
fn servers_of(model: &Path) -> Vec<u32> {
    let model = model.as_os_str().as_encoded_bytes();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // A process that ended meanwhile, or a zombie, has no command line.
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let is_server = args
            .first()
            .is_some_and(|a| String::from_utf8_lossy(a).contains("llama-server"));
        if is_server && args.windows(2).any(|w| w[0] == b"-m" && w[1] == model) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for `model`'s servers to be `n`; their pids.
fn wait_for_servers(model: &Path, n: usize, limit: Duration) -> Vec<u32> {
    let started = Instant::now();
    loop {
        let pids = servers_of(model);
        if pids.len() == n || started.elapsed() > limit {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn complete_starts_a_server_for_the_model_and_stops_it() {
    let dir = scratch("complete");
    let model = model_at(&dir, "coder.gguf");
    let cache = dir.join("cache");
    let out = run(pilotfish(&cache)
        .args(["complete", CURSOR, "--gguf"])
        .arg(&model));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("pilotfish: starting llama-server for coder.gguf (context 2048) ..."),
        "{stderr}"
    );
    // The server read the model given, and its output went to the cache's log folder.
    let logs: Vec<PathBuf> = std::fs::read_dir(cache.join("logs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = std::fs::read_to_string(&logs[0]).unwrap();
    assert!(log.contains("coder.gguf"), "{log}");
    assert_eq!(servers_of(&model), Vec::<u32>::new(), "no server is left");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_check_starts_and_describes_the_managed_server() {
    let dir = scratch("check");
    let model = model_at(&dir, "checked.gguf");
    let out = run(pilotfish(&dir.join("cache"))
        .args(["config", "check", "--gguf"])
        .arg(&model));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "  gguf ",
        "--gguf",
        "managed server",
        "  trained context              2048 tokens",
        "  context                      2048 tokens",
        "  address                      http://127.0.0.1:",
        "  answered as                  llama.cpp",
        "fill-in-the-middle",
    ] {
        assert!(stdout.contains(line), "{line:?} in {stdout}");
    }
    assert_eq!(servers_of(&model), Vec::<u32>::new(), "no server is left");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_managed_server_is_refused_with_the_fix() {
    let dir = scratch("refused");
    let cache = dir.join("cache");
    let model = model_at(&dir, "fine.gguf");
    let text = dir.join("notes.gguf");
    std::fs::write(&text, "# my notes\n").unwrap();
    let complete = |extra: &[&str]| {
        let mut c = pilotfish(&cache);
        c.args(["complete", CURSOR]).args(extra);
        c
    };
    let cases: Vec<(Command, &str)> = vec![
        (
            complete(&["--gguf", &text.to_string_lossy()]),
            r##"notes.gguf is not a GGUF file (it starts with "# my notes\n")"##,
        ),
        (
            complete(&["--gguf", "/no/such/model.gguf"]),
            "the model file /no/such/model.gguf does not exist",
        ),
        (
            {
                let mut c = complete(&["--gguf", &model.to_string_lossy()]);
                c.env("PILOTFISH_LLAMA_SERVER", "/nonexistent")
                    .env("PATH", "");
                c
            },
            "PILOTFISH_LLAMA_SERVER names /nonexistent, which is not an executable file: point it at llama.cpp's llama-server (build one with `bash tools/llama-server.sh`",
        ),
        (
            {
                let mut c = complete(&["--gguf", &model.to_string_lossy()]);
                c.env_remove("PILOTFISH_LLAMA_SERVER").env("PATH", "");
                c
            },
            "no llama-server found (not on PATH nor in ",
        ),
        (
            complete(&[
                "--gguf",
                &model.to_string_lossy(),
                "--endpoint",
                "http://127.0.0.1:8080",
            ]),
            "gguf (from --gguf) starts a llama-server of pilotfish's own, and endpoint (from --endpoint) names another server: give one of them",
        ),
        (
            complete(&["--gguf", &model.to_string_lossy(), "--backend", "ollama"]),
            "the ollama backend (from --backend) cannot talk to the llama-server that gguf (from --gguf) starts",
        ),
    ];
    for (mut command, needle) in cases {
        let out = run(&mut command);
        assert_clean_failure(&out, needle);
        if needle.contains("llama-server found") || needle.contains("PILOTFISH_LLAMA_SERVER") {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("or start a server yourself and give --endpoint"),
                "a server started by hand works too: {stderr}"
            );
        }
    }
    assert_eq!(servers_of(&model), Vec::<u32>::new());
    // A server that stops while starting: its last words, and where the rest is.
    let fake = dir.join("llama-server");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho \"loading $2\"\necho 'error: out of memory' >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // A script just written can be "busy" for a moment while another test's child, forked
    // meanwhile, still holds it open.
    let mut stderr = String::new();
    let mut out = None;
    for _ in 0..5 {
        let o =
            run(complete(&["--gguf", &model.to_string_lossy()])
                .env("PILOTFISH_LLAMA_SERVER", &fake));
        stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        out = Some(o);
        if !stderr.contains("Text file busy") {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "llama-server exited (exit status: 3) before it was ready; the end of its log {}",
            cache.join("logs").display()
        )) && stderr.contains(&format!(
            "loading {}\nerror: out of memory",
            model.display()
        )),
        "{stderr}"
    );
    // A setting from a less specific place gives way: an endpoint in the file, --gguf for one
    // run. (The file's server is not there: the run fails if it is asked.)
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[backend]\nendpoint = \"http://127.0.0.1:9\"\nkind = \"ollama\"\n",
    )
    .unwrap();
    let out = run(pilotfish(&cache)
        .args(["config", "check", "--config"])
        .arg(&config)
        .arg("--gguf")
        .arg(&model));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("  answered as                  llama.cpp"),
        "{stdout}"
    );
    assert!(stdout.contains("\"llama-infill\""), "{stdout}");
    // A relative path in the file is relative to the file, not to where pilotfish runs.
    std::fs::write(&config, "[backend]\ngguf = \"fine.gguf\"\n").unwrap();
    let out = run(pilotfish(&cache)
        .args(["config", "check", "--config"])
        .arg(&config));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "  model                        {}",
            model.display()
        )),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Both in the file: refused, naming the file.
    std::fs::write(
        &config,
        format!(
            "[backend]\nendpoint = \"http://127.0.0.1:9\"\ngguf = \"{}\"\n",
            model.display()
        ),
    )
    .unwrap();
    let out = run(pilotfish(&cache)
        .args(["complete", CURSOR, "--config"])
        .arg(&config));
    assert_clean_failure(
        &out,
        &format!(
            "gguf (from {0}) starts a llama-server of pilotfish's own, and endpoint (from {0})",
            config.display()
        ),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shared LSP client, started with this test's cache, with requests numbered for it.
struct Lsp {
    inner: super::servers::Lsp,
    next_id: i64,
}

impl Lsp {
    fn start(cache: &Path, args: &[&str]) -> Lsp {
        let mut command = pilotfish(cache);
        command.arg("lsp").args(args);
        Lsp {
            inner: super::servers::Lsp::spawn(command),
            next_id: 0,
        }
    }

    /// Sends a request; its answer, and the messages that came before it.
    fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.next_id += 1;
        let id = self.next_id;
        self.inner
            .send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.inner.answer(id)
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.inner
            .send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// An inline completion at the end of the document's second line; its answer.
    fn complete(&mut self) -> Value {
        let uri = "file:///tmp/pilotfish-managed-test/orders.py";
        let text = "def order_total(items):\n    total = \n";
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}),
        );
        let (answer, _) = self.request(
            "textDocument/inlineCompletion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 12},
                   "context": {"triggerKind": 1}}),
        );
        answer
    }

    /// Settings from the editor, and a request after them, so that they are surely applied
    /// when this returns; the messages the server sent meanwhile.
    fn settings(&mut self, backend: Value) -> Vec<Value> {
        self.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"pilotfish": {"backend": backend}}}),
        );
        self.request("pilotfish/stats", json!({})).1
    }
}

/// One server for the whole session, reused across requests and settings that name the same
/// model; a new one (and the old one gone) when the editor names another; none after exit.
#[test]
fn the_language_server_keeps_one_managed_server_and_replaces_it_when_the_model_changes() {
    let dir = scratch("lsp");
    let cache = dir.join("cache");
    let first = model_at(&dir, "first.gguf");
    let second = model_at(&dir, "second.gguf");
    let mut lsp = Lsp::start(&cache, &["--gguf", &first.to_string_lossy()]);
    let (init, _) = lsp.request("initialize", json!({"capabilities": {}}));
    assert!(init["error"].is_null(), "{init}");
    lsp.notify("initialized", json!({}));
    // Started before the first request, and only once.
    let pid = servers_of(&first);
    assert_eq!(pid.len(), 1, "{pid:?}");
    let answer = lsp.complete();
    assert!(answer["error"].is_null(), "{answer}");
    let answer = lsp.complete();
    assert!(answer["error"].is_null(), "{answer}");
    // The same model from the editor: the same server.
    let seen = lsp.settings(json!({"gguf": first, "max_tokens": 16}));
    // Nothing said about the settings (the warming of the document's cache, which ends on its
    // own time, may report in between).
    assert!(
        !seen.iter().any(|m| m["method"] == "window/logMessage"
            && !m["params"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("warm")),
        "{seen:?}"
    );
    assert_eq!(servers_of(&first), pid);
    // A file that is no model: refused, and the running server kept.
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "notes\n").unwrap();
    let seen = lsp.settings(json!({"gguf": notes}));
    assert!(
        seen.iter().any(|m| m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("is not a GGUF file")),
        "{seen:?}"
    );
    assert_eq!(servers_of(&first), pid);
    // Another model: the old server stops, a new one serves.
    lsp.settings(json!({"gguf": second}));
    assert_eq!(servers_of(&first), Vec::<u32>::new());
    assert_eq!(servers_of(&second).len(), 1);
    let answer = lsp.complete();
    assert!(answer["error"].is_null(), "{answer}");
    let (stats, _) = lsp.request("pilotfish/stats", json!({}));
    assert_eq!(stats["result"]["pipeline"]["failures"], 0, "{stats}");
    // The end of the session ends the server.
    lsp.request("shutdown", Value::Null);
    lsp.notify("exit", Value::Null);
    let status = lsp.inner.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(servers_of(&second), Vec::<u32>::new(), "no server is left");
    let _ = std::fs::remove_dir_all(&dir);
}

/// pilotfish killed outright runs no destructor: on Linux the server is told to end with it.
#[test]
fn a_killed_pilotfish_takes_its_server_with_it() {
    let dir = scratch("killed");
    let model = model_at(&dir, "orphan.gguf");
    let mut lsp = Lsp::start(&dir.join("cache"), &["--gguf", &model.to_string_lossy()]);
    let (init, _) = lsp.request("initialize", json!({"capabilities": {}}));
    assert!(init["error"].is_null(), "{init}");
    assert_eq!(servers_of(&model).len(), 1);
    lsp.inner.child.kill().unwrap();
    lsp.inner.child.wait().unwrap();
    let left = wait_for_servers(&model, 0, Duration::from_secs(10));
    assert_eq!(left, Vec::<u32>::new(), "the server outlived pilotfish");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Next edits with no chat server named anywhere ask the managed server, through its chat
/// endpoint, so the model is loaded once. The tiny model's answer runs to the token limit the
/// editor's `chat` settings give, which only a model that answered can do.
#[test]
fn next_edits_ask_the_managed_server_when_no_chat_server_is_named() {
    let dir = scratch("next-edit");
    let cache = dir.join("cache");
    let model = model_at(&dir, "shared.gguf");
    let mut lsp = Lsp::start(&cache, &["--gguf", &model.to_string_lossy()]);
    let (init, _) = lsp.request(
        "initialize",
        json!({"capabilities": {}, "initializationOptions": {"chat": {"max_tokens": 8}}}),
    );
    assert!(init["error"].is_null(), "{init}");
    let uri = "file:///tmp/pilotfish-managed-test/point.py";
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1,
               "text": "def norm(p):\n    return (p.x ** 2 + p.y ** 2) ** 0.5\n"}}),
    );
    let at = json!({"line": 0, "character": 10});
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": at, "end": at}, "text": "oint"}]}),
    );
    let (answer, seen) = lsp.request(
        "textDocument/copilotInlineEdit",
        json!({"textDocument": {"uri": uri, "version": 2},
               "position": {"line": 0, "character": 14}}),
    );
    assert_eq!(answer["result"]["edits"], json!([]), "{answer}");
    let logged: Vec<&str> = seen
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .filter_map(|m| m["params"]["message"].as_str())
        .collect();
    assert!(
        logged
            .iter()
            .any(|m| m.contains("next edit") && m.contains("reached its token limit")),
        "no model answered the next edit: {logged:?}"
    );
    assert_eq!(servers_of(&model).len(), 1, "one server for both");
    lsp.request("shutdown", Value::Null);
    lsp.notify("exit", Value::Null);
    lsp.inner.child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
