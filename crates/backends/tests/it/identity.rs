//! Who asks, on every endpoint: a FAKE server (a shared model server behind a key cannot be
//! every kind at once here) answers each path pilotfish asks of llama.cpp, OpenAI-compatible
//! servers and vLLM, Ollama and Codestral with a minimal answer of the documented shape, and
//! records each request's headers and body. Every request must carry the bearer key and the
//! session header; OpenAI-compatible bodies the `user` field; no body pins a slot.

use std::{
    ops::ControlFlow,
    path::Path,
    sync::{Arc, Mutex},
    time::Duration,
};

use backends::{
    Backend, BackendError, Identity, Kind, Request, Secret,
    chat::{ChatBackend, ChatKind, ChatMessage},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

const KEY: &str = "sk-team-7f3a9c51e2";

/// One request as the FAKE read it: method and path, headers (names lowercased), JSON body.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// FAKE model server: answers by path, `status` for every request when given.
struct Fake {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    async fn start(status: Option<u16>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let keep = keep.clone();
                tokio::spawn(async move {
                    let Some(request) = read(&mut socket).await else {
                        return;
                    };
                    let reply = match status {
                        Some(s) => reply(
                            s,
                            "application/json",
                            r#"{"error":{"code":401,"message":"Invalid API Key"}}"#,
                        ),
                        None => answer(&request),
                    };
                    keep.lock().unwrap().push(request);
                    let _ = socket.write_all(reply.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Fake { url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn read(socket: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.lines();
    let line = lines.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let body = serde_json::from_slice(&data[head_end..]).unwrap_or(Value::Null);
    Some(Seen {
        line,
        headers,
        body,
    })
}

fn reply(status: u16, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The documented shape of each path's answer, streamed where the body asks for a stream.
fn answer(r: &Seen) -> String {
    let path = r.line.split_whitespace().nth(1).unwrap_or_default();
    let stream = r.body["stream"] == true;
    let sse = |events: &[&str]| {
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        reply(200, "text/event-stream", &body)
    };
    let json = |body: Value| reply(200, "application/json", &body.to_string());
    match path {
        "/props" => json(json!({"default_generation_settings": {"n_ctx": 1024},
            "total_slots": 4, "model_path": "/m/tiny.gguf"})),
        "/tokenize" => json(json!({"tokens": [1, 2, 3]})),
        "/health" => json(json!({"status": "ok"})),
        "/slots" => json(json!([{"id": 0, "is_processing": false}])),
        "/metrics" => reply(200, "text/plain", "vllm:num_requests_running 0\n"),
        "/v1/models" => json(json!({"data": [{"id": "m", "max_model_len": 2048}]})),
        "/api/tags" => json(json!({"models": [{"name": "m"}]})),
        "/api/show" => json(json!({"model_info": {}, "capabilities": ["insert"]})),
        "/infill" | "/completion" if stream => sse(&[r#"{"content":"x","stop":true}"#]),
        "/infill" | "/completion" => json(json!({"content": "x", "stop": true})),
        "/api/generate" if stream => reply(
            200,
            "application/x-ndjson",
            "{\"response\":\"x\",\"done\":true}\n",
        ),
        "/api/generate" => json(json!({"response": "x", "done": true})),
        "/api/chat" => reply(
            200,
            "application/x-ndjson",
            "{\"message\":{\"role\":\"assistant\",\"content\":\"x\"},\"done\":true}\n",
        ),
        "/v1/chat/completions" if stream => {
            sse(&[r#"{"choices":[{"delta":{"content":"x"}}]}"#, "[DONE]"])
        }
        "/v1/chat/completions" => json(json!({"choices": [{"message": {"content": "x"}}]})),
        _ if stream => sse(&[r#"{"choices":[{"text":"x"}]}"#, "[DONE]"]),
        _ => json(json!({"choices": [{"text": "x"}]})),
    }
}

fn keyed(kind: Kind, url: &str, identity: &Identity) -> Backend {
    let mut b = Backend::new(kind, url, Duration::from_secs(5), Duration::from_secs(10)).unwrap();
    b.api_key = Secret::new(KEY);
    b.identity = identity.clone();
    b.model = Some("m".into());
    b
}

/// Every path each kind of backend asks, once.
async fn ask_everything(b: &Backend) {
    let req = Request {
        prefix: "def f(".into(),
        suffix: "\n".into(),
        prompt: "def f(".into(),
        ..Request::default()
    };
    b.complete(&req).await.unwrap();
    b.stream(&req, |_| ControlFlow::Continue(())).await.unwrap();
    let info = b.server_info(Duration::from_secs(5)).await.unwrap();
    if info.is_llama_cpp() {
        b.count_tokens("abc", Duration::from_secs(5)).await.unwrap();
        b.probe_fim(&info, Duration::from_secs(5)).await;
        b.why_silent(Duration::from_secs(5)).await;
    }
    b.working(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn every_request_to_every_endpoint_carries_the_key_and_the_session_header() {
    let fake = Fake::start(None).await;
    let identity = Identity::of("ana", "box1", Path::new("/src/shop"));
    for kind in [
        Kind::LlamaCppInfill,
        Kind::LlamaCppCompletion,
        Kind::OpenAiCompletions,
        Kind::OpenAiChat,
        Kind::Ollama,
        Kind::OllamaRaw,
        Kind::Codestral,
    ] {
        ask_everything(&keyed(kind, &fake.url, &identity)).await;
    }
    for kind in [ChatKind::OpenAi, ChatKind::Ollama] {
        let mut chat = ChatBackend::new(
            kind,
            &fake.url,
            Duration::from_secs(5),
            Duration::from_secs(10),
        )
        .unwrap();
        chat.api_key = Secret::new(KEY);
        chat.identity = identity.clone();
        chat.model = Some("m".into());
        chat.list_models(Duration::from_secs(5)).await.unwrap();
        chat.chat(&[ChatMessage::new("user", "hi")], &[], |_| {})
            .await
            .unwrap();
    }
    let seen = fake.seen();
    let paths: std::collections::BTreeSet<&str> = seen
        .iter()
        .filter_map(|s| s.line.split_whitespace().nth(1))
        .collect();
    for path in [
        "/props",
        "/tokenize",
        "/slots",
        "/metrics",
        "/health",
        "/v1/models",
        "/infill",
        "/completion",
        "/v1/completions",
        "/v1/chat/completions",
        "/v1/fim/completions",
        "/api/generate",
        "/api/tags",
        "/api/show",
        "/api/chat",
    ] {
        assert!(paths.contains(path), "{path} was asked: {paths:?}");
    }
    for s in &seen {
        assert_eq!(
            s.header("authorization"),
            Some(format!("Bearer {KEY}").as_str()),
            "{}",
            s.line
        );
        assert_eq!(
            s.header("x-session-id"),
            Some(identity.session.as_str()),
            "{}",
            s.line
        );
        assert!(s.body.get("id_slot").is_none(), "a slot pinned: {s:?}");
        // OpenAI-compatible requests (vLLM's among them) say whose they are; Mistral's hosted
        // API and the servers that do not take the field are not sent one.
        let path = s.line.split_whitespace().nth(1).unwrap_or_default();
        let openai = matches!(path, "/v1/completions" | "/v1/chat/completions");
        assert_eq!(
            s.body.get("user").and_then(Value::as_str),
            openai.then_some(identity.user.as_str()),
            "{}: {}",
            s.line,
            s.body
        );
    }
}

/// The header's name is the configuration's, and an empty name sends none.
#[tokio::test]
async fn the_session_header_is_named_as_configured() {
    let fake = Fake::start(None).await;
    let mut identity = Identity::of("ana", "box1", Path::new("/src/shop"));
    identity.header = "X-Affinity".into();
    identity.user = "ana@shop".into();
    let b = keyed(Kind::OpenAiCompletions, &fake.url, &identity);
    b.complete(&Request::default()).await.unwrap();
    identity.header = String::new();
    let quiet = keyed(Kind::OpenAiCompletions, &fake.url, &identity);
    quiet.complete(&Request::default()).await.unwrap();
    let seen = fake.seen();
    assert_eq!(
        seen[0].header("x-affinity"),
        Some(identity.session.as_str())
    );
    assert_eq!(seen[0].header("x-session-id"), None);
    assert_eq!(seen[0].body["user"], "ana@shop");
    assert_eq!(seen[1].header("x-affinity"), None);
}

/// A server that refuses says how to give a key, and never shows the key sent.
#[tokio::test]
async fn a_refusal_names_the_settings_that_give_a_key() {
    let fake = Fake::start(Some(401)).await;
    let identity = Identity::of("ana", "box1", Path::new("/src/shop"));
    let mut b = keyed(Kind::OpenAiCompletions, &fake.url, &identity);
    b.api_key = None;
    let error = b.complete(&Request::default()).await.unwrap_err();
    assert!(matches!(
        error,
        BackendError::Unauthorized { status: 401, .. }
    ));
    let said = error.to_string();
    for needle in ["401", "api_key_file", "api_key_env", "$PILOTFISH_API_KEY"] {
        assert!(said.contains(needle), "{needle}: {said}");
    }
    let b = keyed(Kind::LlamaCppInfill, &fake.url, &identity);
    let error = b
        .server_info(Duration::from_secs(5))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("refused the API key sent") && !error.contains(KEY),
        "{error}"
    );
    assert!(!format!("{b:?}").contains(KEY), "{b:?}");
}
