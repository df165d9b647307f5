//! What servers answer when they cannot or will not do what was asked, as a new user meets
//! it: vLLM's refusal of `suffix`, a server that describes itself and then never answers, and
//! a chat server told how long an answer may be. The servers here are FAKES on loopback that
//! answer as the real ones do, so that each case can be played on demand.

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpListener,
    time::{Duration, Instant},
};

use crate::servers::{CURSOR, assert_usage_error, stderr, stdout};
use crate::{pilotfish, temp_file};

/// vLLM's answer to a `suffix` for a model without fill-in-the-middle, word for word.
const VLLM_NO_FIM: &str = r#"{"object":"error","message":"suffix is only supported for models with FIM completion rendering","type":"BadRequestError","param":null,"code":400}"#;

/// With the default `fim = auto`, vLLM's 400 about `suffix` leads to the prefix-only request
/// at once, as llama.cpp's 501 does. The model is a FAKE on loopback that answers as vLLM
/// does: 400 with vLLM's body to any request carrying `suffix`, an answer to one without.
#[test]
fn vllms_refusal_of_a_suffix_leads_to_the_prefix_only_request() {
    use test_utils::scripted::{Reply, ScriptedModel};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedModel::answering(
        |body| {
            if body.get("suffix").is_some() {
                Reply::StatusBody(400, VLLM_NO_FIM.to_owned())
            } else {
                Reply::text("order.total", 3)
            }
        },
        Duration::ZERO,
    ));
    // Code after the cursor: the first request carries it as `suffix`, and vLLM refuses.
    let file = temp_file(
        "calc.py",
        b"def add(a, b):\n    return \n\n\ndef mul(a, b):\n    return a * b\n",
    );
    let at = format!("{}:2:12", file.display());
    let complete = |at: &str| {
        pilotfish(
            &[
                "complete",
                at,
                "--backend",
                "openai-completions",
                "--endpoint",
                &model.url,
                "--max-tokens",
                "8",
            ],
            b"",
        )
    };
    let started = Instant::now();
    let out = complete(&at);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("order.total"), "{}", stdout(&out));
    let bodies = model.bodies.lock().unwrap().clone();
    assert!(
        stderr(&out).contains("refused fill-in-the-middle")
            && stderr(&out).contains("asked again prefix-only"),
        "{}\n{bodies:?}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let asked: Vec<_> = bodies
        .iter()
        .filter(|b| b.get("prompt").is_some())
        .collect();
    assert_eq!(asked.len(), 2, "{bodies:?}");
    assert!(
        asked[0]["suffix"]
            .as_str()
            .is_some_and(|s| s.contains("def mul"))
    );
    assert!(asked[1].get("suffix").is_none(), "{}", asked[1]);
    // A cursor with nothing after it: no `suffix` at all, so vLLM has nothing to refuse.
    let out = complete(CURSOR);
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = model.bodies.lock().unwrap().clone();
    let last = bodies.last().unwrap();
    assert_eq!(bodies.len(), asked.len() + 1, "{bodies:?}");
    assert!(
        last.get("prompt").is_some() && last.get("suffix").is_none(),
        "{last}"
    );
}

/// `chat` tells the server when to stop even when no one set a limit (a server without one
/// generates until its context is full), the flag and `[chat] max_answer_tokens` set it, and
/// the prompt's limit keeps both its clear name and its older one. The model is a FAKE chat
/// server on loopback that keeps every request body.
#[test]
fn chat_sends_an_answer_limit_and_each_option_says_which_limit_it_is() {
    use test_utils::scripted_chat::{ScriptedChat, Turn};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(
        (0..3).map(|_| Turn::Text("Hello.".to_owned())).collect(),
    ));
    let config = temp_file("answer-limit.toml", b"[chat]\nmax_answer_tokens = 77\n");
    let config = config.display().to_string();
    let url = model.url.as_str();
    let cases: [(Vec<&str>, u64); 3] = [
        (vec!["--endpoint", url], 1024),
        (
            vec![
                "--endpoint",
                url,
                "--max-answer-tokens",
                "50",
                "--max-prompt-tokens",
                "8000",
            ],
            50,
        ),
        (
            vec![
                "--endpoint",
                url,
                "--config",
                &config,
                "--max-tokens",
                "8000",
            ],
            77,
        ),
    ];
    for (i, (extra, limit)) in cases.into_iter().enumerate() {
        let mut args = vec!["chat", "Say hello", "--folder", "examples/shop"];
        args.extend(&extra);
        let out = pilotfish(&args, b"");
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("Hello."), "{}", stdout(&out));
        let body = model.bodies.lock().unwrap()[i].clone();
        assert_eq!(body["max_tokens"], limit, "{extra:?}: {body}");
    }
    let help = stdout(&pilotfish(&["chat", "--help"], b""));
    assert!(
        help.contains("--max-prompt-tokens <N>")
            && help.contains("[alias: --max-tokens]")
            && help.contains("--max-answer-tokens <N>"),
        "{help}"
    );
    assert_usage_error(
        &pilotfish(&["chat", "hi", "--max-answer-tokens", "0"], b""),
        "--max-answer-tokens",
    );
}

/// FAKE: a llama.cpp-like server that describes itself (`/props`, `/tokenize`) and answers
/// `/health` and `/slots` as given, but never answers a completion (`/infill`, `/completion`):
/// a server whose slots are all busy, one still loading, or one hung.
fn silent_describing_server(health: (u16, &str), slots: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (health, slots) = ((health.0, health.1.to_owned()), slots.to_owned());
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let (health, slots) = (health.clone(), slots.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(socket.try_clone().unwrap());
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
                let props =
                    r#"{"default_generation_settings":{"n_ctx":4096},"model_path":"/m/fake.gguf"}"#;
                let (status, body) = match path.as_str() {
                    "/props" => (200, props.to_owned()),
                    "/tokenize" => (200, r#"{"tokens":[1,2,3]}"#.to_owned()),
                    "/health" => (health.0, health.1.clone()),
                    "/slots" => (200, slots.clone()),
                    // A completion: taken, never answered, held until the client gives up.
                    _ => {
                        std::thread::sleep(Duration::from_secs(30));
                        return;
                    }
                };
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status} Fake\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    url
}

/// `complete` against a server that describes itself and never answers a completion ends
/// within ten seconds, with a message that says why: every slot busy, the model still
/// loading, or the server hung.
#[test]
fn a_configured_first_token_limit_holds_for_a_server_that_describes_itself_and_never_answers() {
    let ok = (200, r#"{"status":"ok"}"#);
    let loading = (
        503,
        r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
    );
    let cases = [
        (
            ok,
            r#"[{"id":0,"is_processing":true}]"#,
            "The server is busy: 1 of its 1 slot(s) are processing",
        ),
        (
            loading,
            "[]",
            "The server is still loading its model (/health answered 503: Loading model)",
        ),
        (
            ok,
            r#"[{"id":0,"is_processing":false},{"id":1,"is_processing":true}]"#,
            "The server looks hung: /slots shows 1 of 2 slot(s) idle",
        ),
    ];
    // Written once, before the runs start: runs writing one file at once could read it half made.
    let config = temp_file(
        "first-token.toml",
        b"[backend]\nfirst_token_timeout_seconds = 6\n",
    )
    .display()
    .to_string();
    let runs: Vec<_> = cases
        .into_iter()
        .map(|(health, slots, expected)| {
            let url = silent_describing_server(health, slots);
            let config = config.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let out = pilotfish(
                    &["complete", CURSOR, "--endpoint", &url, "--config", &config],
                    b"",
                );
                (out, started.elapsed(), expected)
            })
        })
        .collect();
    for run in runs {
        let (out, took, expected) = run.join().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            took < Duration::from_secs(10),
            "took {took:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("(the time-to-first-token limit)")
                && stderr(&out).contains(expected),
            "{expected}: {}",
            stderr(&out)
        );
    }
}

/// Without any first-token limit configured, `complete` against a server that describes itself
/// and never answers ends within ten seconds, with a message that says the server is busy: the
/// limit is sized from the server's speed, and before the speed is known the short request that
/// measures it on first contact is cut by one that a slow server reads it within. The cache
/// folder is new, so nothing is known of the server.
#[test]
fn complete_ends_within_ten_seconds_by_default_against_a_server_that_describes_itself_and_never_answers()
 {
    let url = silent_describing_server(
        (200, r#"{"status":"ok"}"#),
        r#"[{"id":0,"is_processing":true}]"#,
    );
    let cache = crate::temp_dir("silent-default-cache");
    // Twice: the second run knows from the first how slow the server is at most, and its
    // limit, sized from that, still ends it within ten seconds.
    for run in 0..2 {
        let started = Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .args(["complete", CURSOR, "--endpoint", &url, "--explain"])
            .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .env("XDG_CACHE_HOME", &cache)
            .env_remove("PILOTFISH_CONFIG")
            .env("XDG_CONFIG_HOME", &cache)
            .output()
            .unwrap();
        let took = started.elapsed();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            took < Duration::from_secs(10),
            "run {run} took {took:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("(the time-to-first-token limit)")
                && stderr(&out).contains("The server is busy"),
            "{}",
            stderr(&out)
        );
        // The first run measured the server on first contact with a short request, which
        // the limit cut: no prompt was sent that the server could not read in time.
        assert!(
            run == 1 || stdout(&out).contains("first contact: the server read nothing of a"),
            "{}",
            stdout(&out)
        );
    }
}

/// FAKE: a vLLM as pilotfish sees it (no `/props`; `/v1/models` with `max_model_len`; `/health`
/// answers; `/metrics` counts one request running) whose completion streams `answer` after
/// `delay`, or never (`None`): a vLLM for CPU reading a long prompt cold on a loaded machine.
fn slow_vllm(delay: Duration, answer: Option<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            std::thread::spawn(move || {
                let path = read_request(&socket);
                let models = r#"{"object":"list","data":[{"id":"smol","object":"model","max_model_len":2048}]}"#;
                let metrics = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"smol\"} 1.0\nvllm:num_requests_waiting{model_name=\"smol\"} 0.0\n";
                let (status, kind, body) = match path.as_str() {
                    "/v1/models" => (200, "application/json", models.to_owned()),
                    "/health" => (200, "text/plain", String::new()),
                    "/metrics" => (200, "text/plain", metrics.to_owned()),
                    "/v1/completions" => {
                        std::thread::sleep(delay);
                        let Some(text) = answer else {
                            std::thread::sleep(Duration::from_secs(60));
                            return;
                        };
                        let event = serde_json::json!({"choices": [{"text": text, "index": 0, "finish_reason": "stop"}]});
                        (
                            200,
                            "text/event-stream",
                            format!("data: {event}\n\ndata: [DONE]\n\n"),
                        )
                    }
                    _ => (
                        404,
                        "application/json",
                        r#"{"detail":"Not Found"}"#.to_owned(),
                    ),
                };
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status} Fake\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    url
}

/// A vLLM whose first token comes after the first-token limit pilotfish sized itself (at
/// most 8 s), while its `/metrics` says it is working on a request: the request waits on, in
/// steps, and the answer is shown; nothing calls the server hung.
#[test]
fn a_slow_vllm_is_waited_on_while_its_metrics_say_it_is_working() {
    let url = slow_vllm(Duration::from_secs(11), Some("order.total"));
    let home = crate::fresh_home("answers", "slow-vllm");
    let out = crate::pilotfish_as_user(
        &home,
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        &["complete", CURSOR, "--endpoint", &url, "--max-tokens", "8"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("order.total"), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&home);
}

/// A first-token limit the user configured still cuts a vLLM that says it is working, and the
/// message says it is still working, with its counts, rather than hung.
#[test]
fn a_configured_limit_cuts_a_working_vllm_and_says_it_is_still_working() {
    let url = slow_vllm(Duration::ZERO, None);
    let config = temp_file(
        "vllm-first-token.toml",
        b"[backend]\nfirst_token_timeout_seconds = 2\n",
    )
    .display()
    .to_string();
    let started = Instant::now();
    let out = pilotfish(
        &["complete", CURSOR, "--endpoint", &url, "--config", &config],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        stderr(&out).contains("The server is still working: vLLM reports 1 request(s) running")
            && !stderr(&out).contains("looks hung"),
        "{}",
        stderr(&out)
    );
}

/// The language server's own first-token limit (4 s, the editor's default) gives way to a
/// vLLM whose `/metrics` says it is working, as a limit pilotfish sized does: the suggestion
/// that comes after 6 s is shown. A `first_token_timeout_seconds` the user set still cuts.
/// FAKE vLLM (above), answering after 6 s.
#[test]
fn the_language_servers_default_limit_waits_for_a_vllm_still_working_and_a_set_one_holds() {
    let url = slow_vllm(Duration::from_secs(6), Some("a + b"));
    let text = "def add(a, b):\n    return \n\n\ndef mul(a, b):\n    return a * b\n";
    for (name, set) in [
        ("lsp-default-limit", ""),
        ("lsp-set-limit", "first_token_timeout_seconds = 2\n"),
    ] {
        let config = format!("[backend]\n{set}\n[completion]\nwarm = false\n");
        let (answer, took) = lsp_completion(name, "openai-completions", &url, &config, text);
        let items = answer["result"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if set.is_empty() {
            assert!(
                items.iter().any(|i| i["insertText"]
                    .as_str()
                    .is_some_and(|t| t.contains("a + b"))),
                "the default limit gave way to the working vLLM, yet after {took:?}: {answer}"
            );
            assert!(took >= Duration::from_secs(6), "{took:?}");
        } else {
            // The answer comes at 6 s: had the set limit been stretched, it would be shown.
            assert!(
                items.is_empty(),
                "a limit the user set cuts, yet after {took:?}: {answer}"
            );
        }
    }
}

/// One inline completion from `pilotfish lsp --backend BACKEND --endpoint URL` with `config`,
/// at the end of `text`'s second line, in a home of its own: the answer, and how long it took.
fn lsp_completion(
    name: &str,
    backend: &str,
    url: &str,
    config: &str,
    text: &str,
) -> (serde_json::Value, Duration) {
    let home = crate::fresh_home("answers", name);
    let file = home.join("lsp.toml");
    std::fs::write(&file, config).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args(["lsp", "--backend", backend, "--endpoint", url, "--config"])
        .arg(&file)
        .current_dir(&home)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let mut lsp = crate::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(120));
    let started = Instant::now();
    let (answer, _) = lsp.complete_once(text, 1);
    let took = started.elapsed();
    drop(lsp);
    let _ = std::fs::remove_dir_all(&home);
    (answer, took)
}

/// FAKE: one llama-server a team shares, as pilotfish sees it: `/props` (4 slots), `/health`
/// ready, `/slots` with every slot processing (others' requests), `/infill` refused (the model
/// has no fill-in-the-middle), and `/completion` streaming `answer` after `delay`: a keystroke's
/// request queued behind others' for longer than the editor's first-token limit.
fn busy_shared_llama(delay: Duration, answer: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            std::thread::spawn(move || {
                let path = read_request(&socket);
                let props = r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":4,"model_path":"/m/fake.gguf"}"#;
                let busy = r#"[{"id":0,"is_processing":true},{"id":1,"is_processing":true},{"id":2,"is_processing":true},{"id":3,"is_processing":true}]"#;
                let refused = r#"{"error":{"code":501,"message":"Infill is not supported by this model","type":"not_supported_error"}}"#;
                let (status, kind, body) = match path.as_str() {
                    "/props" => (200, "application/json", props.to_owned()),
                    "/tokenize" => (200, "application/json", r#"{"tokens":[1,2,3]}"#.to_owned()),
                    "/health" => (200, "application/json", r#"{"status":"ok"}"#.to_owned()),
                    "/slots" => (200, "application/json", busy.to_owned()),
                    "/infill" => (501, "application/json", refused.to_owned()),
                    "/completion" => {
                        std::thread::sleep(delay);
                        let piece = serde_json::json!({"content": answer, "stop": false});
                        let end = serde_json::json!({"content": "", "stop": true});
                        let events = format!("data: {piece}\n\ndata: {end}\n\n");
                        (200, "text/event-stream", events)
                    }
                    _ => (404, "application/json", "{}".to_owned()),
                };
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status} Fake\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    url
}

/// On a llama-server a team shares, a keystroke's request may queue behind others' for longer
/// than the language server's own first-token limit (4 s, the editor's default): while
/// `/slots` shows the server working, that limit gives way, and the suggestion that comes after
/// 6 s is shown (the eight-person team typing on four slots left lines without one). A
/// `first_token_timeout_seconds` the user set still cuts. FAKE llama-server (above).
#[test]
fn the_language_servers_default_limit_waits_for_a_shared_llama_server_whose_slots_work() {
    let url = busy_shared_llama(Duration::from_secs(6), "a + b");
    let text = "def add(a, b):\n    return \n\n\ndef mul(a, b):\n    return a * b\n";
    for (name, set) in [
        ("lsp-llama-default-limit", ""),
        ("lsp-llama-set-limit", "first_token_timeout_seconds = 2\n"),
    ] {
        // No warming on open and no sizing to the server's speed: the one request to the
        // server is the completion's.
        let config =
            format!("[backend]\n{set}\n[completion]\nwarm = false\nfirst_token_target_ms = 0\n");
        let (answer, took) = lsp_completion(name, "llama-infill", &url, &config, text);
        let items = answer["result"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if set.is_empty() {
            assert!(
                items.iter().any(|i| i["insertText"]
                    .as_str()
                    .is_some_and(|t| t.contains("a + b"))),
                "the default limit gave way to the working llama-server, yet after {took:?}: {answer}"
            );
            assert!(took >= Duration::from_secs(6), "{took:?}");
        } else {
            assert!(
                items.is_empty(),
                "a limit the user set cuts, yet after {took:?}: {answer}"
            );
        }
    }
}

/// FAKE: one llama-server a team shares, as pilotfish sees it (`/props` with 4 slots, `/health`
/// ready, `/infill` refused), whose `/slots` shows slots processing (others' requests)
/// (`busy` of them, the others idle); `/completion` answers `a + b` at once. Each
/// completion's `n_predict` is kept, in order.
fn shared_llama(busy: usize) -> (String, std::sync::Arc<std::sync::Mutex<Vec<u64>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                let (path, body) = read_request_body(&socket);
                let props = r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":4,"model_path":"/m/fake.gguf"}"#;
                let slots: Vec<_> = (0..4)
                    .map(|id| serde_json::json!({"id": id, "is_processing": id < busy}))
                    .collect();
                let refused = r#"{"error":{"code":501,"message":"Infill is not supported by this model","type":"not_supported_error"}}"#;
                let (status, kind, body) = match path.as_str() {
                    "/props" => (200, "application/json", props.to_owned()),
                    "/tokenize" => (200, "application/json", r#"{"tokens":[1,2,3]}"#.to_owned()),
                    "/health" => (200, "application/json", r#"{"status":"ok"}"#.to_owned()),
                    "/slots" => (
                        200,
                        "application/json",
                        serde_json::json!(slots).to_string(),
                    ),
                    "/infill" => (501, "application/json", refused.to_owned()),
                    "/completion" => {
                        let request: serde_json::Value =
                            serde_json::from_str(&body).unwrap_or_default();
                        seen.lock().unwrap().extend(request["n_predict"].as_u64());
                        let piece = serde_json::json!({"content": "a + b", "stop": false});
                        let end = serde_json::json!({"content": "", "stop": true});
                        let events = format!("data: {piece}\n\ndata: {end}\n\n");
                        (200, "text/event-stream", events)
                    }
                    _ => (404, "application/json", "{}".to_owned()),
                };
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status} Fake\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    (url, asked)
}

/// On a llama-server whose slots work on others' requests, half of them or more, a keystroke's
/// one-line answer asks for at most 8 tokens (a slot is freed sooner for another person's
/// line end, and a looping answer ends sooner); on one with idle slots, or one of four busy,
/// it asks for the configured 64. FAKE llama-server (above): a real one cannot be held with
/// its slots busy.
#[test]
fn a_contended_shared_llama_server_is_asked_for_a_short_one_line_answer() {
    let text = "def add(a, b):\n    return \n\n\ndef mul(a, b):\n    return a * b\n";
    let config = "[completion]\nwarm = false\nfirst_token_target_ms = 0\n";
    for (name, busy) in [
        ("lsp-llama-idle", 0),
        ("lsp-llama-one-busy", 1),
        ("lsp-llama-half-busy", 2),
        ("lsp-llama-contended", 4),
    ] {
        let contended = busy >= 2;
        let (url, asked) = shared_llama(busy);
        let (answer, _) = lsp_completion(name, "llama-infill", &url, config, text);
        let shown = answer["result"]["items"].as_array().is_some_and(|items| {
            items.iter().any(|i| {
                i["insertText"]
                    .as_str()
                    .is_some_and(|t| t.contains("a + b"))
            })
        });
        assert!(shown, "the answer is shown either way: {answer}");
        let asked = asked.lock().unwrap().clone();
        let most = if contended { 8 } else { 64 };
        assert!(
            !asked.is_empty() && asked.iter().all(|&n| n == most),
            "{busy} of 4 slots busy: asked for {asked:?} tokens, not {most}"
        );
    }
}

/// On a contended shared llama-server, a mid-word keystroke's request waits the long debounce
/// (300 ms: the next keystroke follows at once), one after a word (here a space, where a line
/// may end) 200 ms: a line's last keystroke is kept waiting less.
/// Checked in what the request's trace says it waited (`pilotfish/inspect`), not in time taken.
/// FAKE llama-server (above): a real one cannot be held with every slot busy.
#[test]
fn a_contended_server_keeps_the_long_debounce_for_mid_word_keystrokes_only() {
    use serde_json::json;
    let (url, _) = shared_llama(4);
    let home = crate::fresh_home("answers", "lsp-llama-contended-debounce");
    let file = home.join("lsp.toml");
    std::fs::write(
        &file,
        "[completion]\nwarm = false\nfirst_token_target_ms = 0\n",
    )
    .unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pilotfish"));
    command
        .args([
            "lsp",
            "--backend",
            "llama-infill",
            "--endpoint",
            &url,
            "--config",
        ])
        .arg(&file)
        .current_dir(&home)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let mut lsp = crate::servers::Lsp::spawn(command);
    lsp.watchdog(Duration::from_secs(180));
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    lsp.answer(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let uri = "file:///tmp/pilotfish-lsp-test/orders.py";
    let mut id = 1;
    // Types `line` as the function's body and asks at its end; gives what the trace noted.
    let mut ask = |lsp: &mut crate::servers::Lsp, line: &str| {
        id += 2;
        let text = format!("def add(a, b):\n{line}\n\n\ndef mul(a, b):\n    return a * b\n");
        let open = json!({"uri": uri, "languageId": "python", "version": id, "text": text});
        lsp.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": open}}));
        lsp.send(json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/inlineCompletion", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 1, "character": line.len()},
            "context": {"triggerKind": 2}}}));
        lsp.answer(id);
        lsp.send(
            json!({"jsonrpc": "2.0", "id": id + 1, "method": "pilotfish/inspect", "params": {}}),
        );
        let (page, _) = lsp.answer(id + 1);
        page["result"]["html"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // The first keystrokes may come before the server was asked how busy it is.
    let contended = "the server is contended";
    let mut mid_word = String::new();
    for k in 0..20 {
        mid_word = ask(&mut lsp, &format!("    return a{k}"));
        if mid_word.contains(contended) {
            break;
        }
    }
    assert!(
        mid_word.contains(contended) && mid_word.contains("the debounce waited 300 ms"),
        "a mid-word keystroke on a contended server waits 300 ms: {mid_word}"
    );
    let after_word = ask(&mut lsp, "    return a * ");
    assert!(
        after_word.contains(contended) && after_word.contains("the debounce waited 200 ms"),
        "a keystroke after a word waits 200 ms: {after_word}"
    );
    drop(lsp);
    let _ = std::fs::remove_dir_all(&home);
}

/// Reads one HTTP request from a FAKE server's socket, head and body, so that the client is
/// done writing before the answer; gives its path.
fn read_request(socket: &std::net::TcpStream) -> String {
    read_request_body(socket).0
}

/// [`read_request`], with the request's body.
fn read_request_body(socket: &std::net::TcpStream) -> (String, String) {
    let mut reader = BufReader::new(socket.try_clone().unwrap());
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = std::io::Read::read_exact(&mut reader, &mut body);
    (path, String::from_utf8_lossy(&body).into_owned())
}
