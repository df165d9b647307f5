//! Typing against a real model server: how much of each keystroke's prompt llama-server reads
//! again, and what that costs in time to the first token.
//!
//! A real source file of this repository (`crates/ghost/src/fit.rs`) is open with two
//! neighbours it uses; one of its lines is typed again, one character at a time, and every
//! keystroke asks the model through the ghost-text pipeline (no debounce, no completion cache:
//! every keystroke reaches the server). Per keystroke, the prompt tokens the server evaluated
//! are read off its own counter (`llamacpp:prompt_tokens_total` on `/metrics`), with the time
//! to the first token and the total.
//!
//! Two real models on the project's llama-server: SmolLM2-135M-Instruct (no fill-in-the-middle:
//! pilotfish sends it a prefix-only prompt) and the tiny random-weight DeepSeek-Coder model
//! (fill-in-the-middle through `/infill`). Three ways, in the same run and on the same server:
//! the `stable` layout (the default), the `plain` layout (every part rebuilt per keystroke, as
//! before), and `stable` without the server's prompt cache (`cache_prompt: false`).
//!
//! The machine is reported with the figures: its processor and cores, and how many prompt
//! tokens a second the server reads cold with each model, so that results from different
//! machines compare (a keystroke's time is its tokens read divided by that speed).
//!
//! Run with `cargo bench -p ghost --bench typing_real` (`PILOTFISH_TYPING_MODELS=smollm2` or
//! `tiny` for one model; each request may take three times the budget's cold read at the
//! measured speed, at least two minutes). `PILOTFISH_TYPING_CHARS` limits the
//! characters typed (default: the whole line); without the cache every keystroke reads the
//! whole prompt, so that row types only `PILOTFISH_TYPING_NOCACHE_CHARS` (default 4).

use std::{
    io::{Read, Write},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use backends::{Backend, Kind};
use ghost::{Ask, FimMode, Multiline, Pipeline, Settings};
use prompt::request::{Layout, RequestJson};

/// The prompt budget, in the prompt's tokens, as in the issue's measurements.
const BUDGET: usize = 2048;
/// The line typed again: the first line of the file that contains this.
const NEEDLE: &str = "backend.server_info(DESCRIBE_LIMIT)";

struct Server {
    child: Child,
    url: String,
    port: u16,
    /// Prompt tokens a second read cold, once measured: the requests' time limit follows it.
    speed: Option<f64>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn smollm2() -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join("tools/smollm2.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("tools/smollm2.sh runs");
    assert!(out.status.success(), "tools/smollm2.sh failed");
    let stdout = String::from_utf8(out.stdout).unwrap();
    PathBuf::from(stdout.lines().last().expect("a path").trim())
}

fn http(port: u16, request: &str) -> String {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = s.write_all(request.as_bytes());
    let mut response = String::new();
    let _ = s.read_to_string(&mut response);
    response
}

fn start(server: &Path, model: &Path) -> Server {
    let port = test_utils::free_port();
    let child = Command::new(server)
        .args(["-m", &model.to_string_lossy(), "--host", "127.0.0.1"])
        .args(["--port", &port.to_string(), "-c", "4096", "-np", "1"])
        .args([
            "-t",
            "2",
            "--metrics",
            "--cache-reuse",
            "256",
            "--log-disable",
        ])
        // The server's RAM prompt cache would bring back an earlier variant's prompt and blur
        // what each way reads cold.
        .args(["--cache-ram", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("llama-server starts");
    let started = Instant::now();
    while !http(port, "GET /health HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200") {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "llama-server did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
        port,
        speed: None,
    }
}

/// The server's count of prompt tokens evaluated so far (cached ones excluded).
fn evaluated(port: u16) -> f64 {
    let metrics = http(port, "GET /metrics HTTP/1.0\r\n\r\n");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("llamacpp:prompt_tokens_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("llama-server --metrics reports llamacpp:prompt_tokens_total")
}

/// The machine in words: its processor and the cores this process may use.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "an unknown processor".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} core(s)")
}

/// How fast the server reads a prompt it has not cached, in tokens a second: the text of a
/// real source file (about `tokens` of them) read cold three times (`cache_prompt: false`),
/// the median of llama-server's own `timings.prompt_per_second`. This is the figure that
/// makes the per-keystroke times of two machines comparable.
fn prompt_speed(port: u16, tokens: usize) -> (f64, u64) {
    let text = std::fs::read_to_string(repo().join("crates/ghost/src/fit.rs")).unwrap();
    // About four characters a token for code; the server's count is the one reported.
    let prompt: String = text.chars().take(tokens * 4).collect();
    let body = serde_json::json!({
        "prompt": prompt, "n_predict": 1, "cache_prompt": false, "temperature": 0,
    })
    .to_string();
    let request = format!(
        "POST /completion HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut speeds = Vec::new();
    let mut read = 0;
    for _ in 0..3 {
        let response = http(port, &request);
        let json = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| {
            panic!("llama-server's /completion answer is JSON ({e}): {response}")
        });
        read = v["timings"]["prompt_n"].as_u64().unwrap_or(0);
        speeds.push(
            v["timings"]["prompt_per_second"]
                .as_f64()
                .expect("llama-server reports timings"),
        );
    }
    speeds.sort_by(f64::total_cmp);
    (speeds[1], read)
}

fn request(doc: &str, cursor_line: usize, character: usize, layout: Layout) -> RequestJson {
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
    let mut r: RequestJson = serde_json::from_value(serde_json::json!({
        "workspace_root": repo().canonicalize().unwrap().to_string_lossy(),
        "document": {"path": repo().canonicalize().unwrap().join("crates/ghost/src/fit.rs").to_string_lossy(), "text": doc},
        "position": {"line": cursor_line, "character": character},
        "open_documents": [
            {"path": repo().canonicalize().unwrap().join("crates/backends/src/server.rs").to_string_lossy(), "text": read("crates/backends/src/server.rs")},
            {"path": repo().canonicalize().unwrap().join("crates/backends/src/lib.rs").to_string_lossy(), "text": read("crates/backends/src/lib.rs")},
        ],
    }))
    .unwrap();
    r.options.max_prompt_tokens = BUDGET;
    r.options.layout = layout;
    r
}

#[derive(Default)]
struct Row {
    cold: f64,
    per_key: Vec<f64>,
    first_token: Vec<f64>,
    total: Vec<f64>,
    prompt_tokens: usize,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// The pipeline as the language server runs it, but asking at every keystroke.
fn pipeline(server: &Server, cache_prompt: bool) -> Arc<Pipeline> {
    // Time for the whole budget to be read cold three times over at the measured speed, and
    // never less than two minutes: a slow or busy machine gives slower figures, not a failure.
    let limit = server.speed.map_or(120.0, |speed| {
        (3.0 * BUDGET as f64 / speed.max(0.1)).max(120.0)
    });
    let mut backend = Backend::new(
        Kind::LlamaCppInfill,
        &server.url,
        Duration::from_secs(3),
        Duration::from_secs_f64(limit),
    )
    .unwrap();
    backend.cache_prompt = cache_prompt;
    Arc::new(Pipeline::new(
        backend,
        Settings {
            max_tokens: 8,
            debounce: None,
            cache: false,
            skip_like_copilot: false,
            multiline: Multiline::Never,
            max_prompt_tokens: Some(BUDGET),
            strategy: Some("outline".into()),
            fim: FimMode::Auto,
            ..Settings::default()
        },
    ))
}

/// The document at the first keystroke: the typed line holds its indentation and one more
/// character; its line number and the character's end.
fn first_keystroke_doc() -> (String, String, usize, usize) {
    let text = std::fs::read_to_string(repo().join("crates/ghost/src/fit.rs")).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    let line_no = lines.iter().position(|l| l.contains(NEEDLE)).unwrap();
    let line = lines[line_no];
    let indent = line.len() - line.trim_start().len();
    let mut opened = lines.clone();
    opened[line_no] = &line[..indent];
    let mut typed = lines.clone();
    typed[line_no] = &line[..indent + 1];
    (opened.join("\n"), typed.join("\n"), line_no, indent + 1)
}

/// The first keystroke in a file just opened: cold, or after the pipeline warmed the server's
/// cache when the file was opened. Returns (warming ms, tokens read, first token ms, total ms).
fn first_keystroke(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    warm: bool,
) -> (Option<f64>, f64, f64, f64) {
    clear_cache(server.port);
    let pipeline = pipeline(server, true);
    let (opened, typed, line_no, character) = first_keystroke_doc();
    let warming = warm.then(|| {
        let at_top = request(&opened, 0, 0, Layout::Stable);
        let warmed = rt
            .block_on(pipeline.warm(&at_top, None))
            .expect("the warming request is served");
        assert!(warmed.sent, "{warmed:?}");
        warmed.ms
    });
    let req = request(&typed, line_no, character, Layout::Stable);
    let before = evaluated(server.port);
    let outcome = rt
        .block_on(pipeline.complete(&req, None, Ask::default()))
        .expect("the model answers");
    let read = evaluated(server.port) - before;
    let t = &outcome.trace;
    (
        warming,
        read,
        t.first_token_ms.unwrap_or(t.total_ms),
        t.total_ms,
    )
}

/// Replaces what the server's only slot holds with an unrelated prompt, so that the next
/// request starts cold. (A request with `cache_prompt: false` leaves the slot's cache as it
/// was, so this one caches its own prompt.)
fn clear_cache(port: u16) {
    let body = r#"{"prompt": "Once upon a time", "n_predict": 1, "cache_prompt": true}"#;
    let request = format!(
        "POST /completion HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    assert!(
        http(port, &request).starts_with("HTTP/1.1 200"),
        "the server answers"
    );
}

fn type_line(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    layout: Layout,
    cache_prompt: bool,
    limit: usize,
) -> Row {
    let text = std::fs::read_to_string(repo().join("crates/ghost/src/fit.rs")).unwrap();
    let line_no = text
        .lines()
        .position(|l| l.contains(NEEDLE))
        .unwrap_or_else(|| panic!("no line of fit.rs contains {NEEDLE:?}: update the benchmark"));
    let lines: Vec<&str> = text.split('\n').collect();
    let line = lines[line_no];
    let indent = line.len() - line.trim_start().len();
    clear_cache(server.port);
    let pipeline = pipeline(server, cache_prompt);
    let mut row = Row::default();
    let ends: Vec<usize> = (indent..=line.len())
        .filter(|&k| line.is_char_boundary(k))
        .take(limit.saturating_add(1))
        .collect();
    for (i, &k) in ends.iter().enumerate() {
        let mut doc_lines = lines.clone();
        doc_lines[line_no] = &line[..k];
        let doc = doc_lines.join("\n");
        let req = request(&doc, line_no, line[..k].encode_utf16().count(), layout);
        let before = evaluated(server.port);
        let outcome = rt
            .block_on(pipeline.complete(&req, None, Ask::default()))
            .expect("the model answers");
        let read = evaluated(server.port) - before;
        if let Some(p) = &outcome.trace.prompt {
            row.prompt_tokens = p.prompt_tokens + p.suffix_tokens;
        }
        if i == 0 {
            row.cold = read;
            continue;
        }
        row.per_key.push(read);
        row.first_token.push(
            outcome
                .trace
                .first_token_ms
                .unwrap_or(outcome.trace.total_ms),
        );
        row.total.push(outcome.trace.total_ms);
    }
    row
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` would pass nothing useful here.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let setting = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let chars = setting("PILOTFISH_TYPING_CHARS", usize::MAX);
    let nocache_chars = setting("PILOTFISH_TYPING_NOCACHE_CHARS", 4);
    let (server_bin, tiny) = test_utils::llama_paths().clone();
    // `PILOTFISH_TYPING_MODELS=smollm2` or `=tiny` runs one of the two (default: both).
    let only = std::env::var("PILOTFISH_TYPING_MODELS").unwrap_or_default();
    let models: Vec<(&str, PathBuf)> = [
        ("smollm2", "SmolLM2-135M (prefix-only)"),
        ("tiny", "tiny FIM model (/infill)"),
    ]
    .into_iter()
    .filter(|(key, _)| only.is_empty() || only.split(',').any(|o| o.trim() == *key))
    .map(|(key, name)| {
        let path = if key == "tiny" {
            tiny.clone()
        } else {
            smollm2()
        };
        (name, path)
    })
    .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("machine: {}", machine());
    println!(
        "typing one line of crates/ghost/src/fit.rs again, neighbours open, budget {BUDGET}; prompt tokens the server evaluated per keystroke (after the first)"
    );
    println!(
        "{:<28} {:<22} {:>10} {:>12} {:>8} {:>14} {:>10}",
        "model", "layout", "cold read", "per keystroke", "% cold", "first token ms", "total ms"
    );
    for (name, model) in &models {
        let mut server = start(&server_bin, model);
        let (speed, read) = prompt_speed(server.port, 512);
        server.speed = Some(speed);
        println!(
            "{name}: the server reads {speed:.0} prompt tokens a second cold ({read} tokens, median of 3, threads 2)"
        );
        let mut plain_ttft = None;
        for (label, layout, cache) in [
            ("plain (before)", Layout::Plain, true),
            ("stable (default)", Layout::Stable, true),
            ("stable, no cache", Layout::Stable, false),
        ] {
            let limit = if cache { chars } else { nocache_chars };
            let row = type_line(&rt, &server, layout, cache, limit);
            let per_key = mean(&row.per_key);
            let ttft = mean(&row.first_token);
            if layout == Layout::Plain {
                plain_ttft = Some(ttft);
            }
            println!(
                "{:<28} {:<22} {:>10.0} {:>12.1} {:>7.1}% {:>14.1} {:>10.1}   ({} keystrokes, prompt {} tokens, first token {:.2}x plain)",
                name,
                label,
                row.cold,
                per_key,
                100.0 * per_key / row.cold.max(1.0),
                ttft,
                mean(&row.total),
                row.per_key.len(),
                row.prompt_tokens,
                ttft / plain_ttft.unwrap_or(ttft).max(1e-9),
            );
        }
        for warm in [false, true] {
            let (warming, read, ttft, total) = first_keystroke(&rt, &server, warm);
            println!(
                "{:<28} {:<22} first keystroke in a file just opened: read {read:.0} tokens, first token {ttft:.1} ms, total {total:.1} ms{}",
                name,
                if warm {
                    "warmed on open"
                } else {
                    "cold (no warming)"
                },
                warming.map_or(String::new(), |ms| format!(
                    " (the warming took {ms:.0} ms before typing)"
                )),
            );
        }
    }
}
