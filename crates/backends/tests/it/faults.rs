//! Faults a healthy server never shows, from `FaultyServer`: a fake by design, a raw TCP server
//! on loopback that answers one request with exactly the bytes under test.

use std::{ops::ControlFlow, time::Duration};

use backends::{Backend, BackendError, Kind, Request};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// FAKE: answers each connection with `response` (written in `parts`, `pause` apart), then
/// closes. Nothing else about it resembles a model server. It keeps the last request it read.
pub(crate) struct FaultyServer {
    pub(crate) url: String,
    pub(crate) last_request: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl FaultyServer {
    pub(crate) async fn start(parts: Vec<Vec<u8>>, pause: Duration) -> FaultyServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let last_request = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = last_request.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let parts = parts.clone();
                let keep = keep.clone();
                tokio::spawn(async move {
                    let Some(body) = read_request(&mut socket).await else {
                        return;
                    };
                    *keep.lock().unwrap() = body;
                    for part in parts {
                        if socket.write_all(&part).await.is_err() {
                            return;
                        }
                        let _ = socket.flush().await;
                        tokio::time::sleep(pause).await;
                    }
                });
            }
        });
        FaultyServer { url, last_request }
    }
}

/// Reads one request, its head and then its body by its content-length, so the client is done
/// writing; gives back the body, or `None` when the client closed first.
pub(crate) async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let head_end = request.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
    let length = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
        })
        .unwrap_or(0);
    while request.len() < head_end + length {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    Some(request[head_end..].to_vec())
}

pub(crate) fn head(status: &str, content_type: &str, length: Option<usize>) -> Vec<u8> {
    let length = length
        .map(|n| format!("content-length: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\n{length}connection: close\r\n\r\n"
    )
    .into_bytes()
}

fn backend(kind: Kind, url: &str, total: Duration) -> Backend {
    Backend::new(kind, url, Duration::from_secs(2), total).unwrap()
}

async fn whole(body: &[u8], status: &str) -> Result<backends::Completion, BackendError> {
    let server = FaultyServer::start(
        vec![
            [
                head(status, "application/json", Some(body.len())),
                body.to_vec(),
            ]
            .concat(),
        ],
        Duration::ZERO,
    )
    .await;
    backend(Kind::LlamaCppInfill, &server.url, Duration::from_secs(5))
        .complete(&Request::default())
        .await
}

async fn streamed(kind: Kind, parts: Vec<&[u8]>) -> Result<String, BackendError> {
    let mut all = vec![head("200 OK", "text/event-stream", None)];
    all.extend(parts.into_iter().map(<[u8]>::to_vec));
    let server = FaultyServer::start(all, Duration::from_millis(5)).await;
    backend(kind, &server.url, Duration::from_secs(5))
        .stream(&Request::default(), |_| ControlFlow::Continue(()))
        .await
}

#[tokio::test]
async fn http_errors_carry_their_body() {
    match whole(
        b"{\"error\": \"model not loaded\"}",
        "500 Internal Server Error",
    )
    .await
    {
        Err(BackendError::Status {
            status: 500, body, ..
        }) => assert!(body.contains("model not loaded")),
        other => panic!("{other:?}"),
    }
    let err = whole(b"busy", "503 Service Unavailable").await.unwrap_err();
    assert!(err.to_string().contains("HTTP 503: busy"), "{err}");
}

#[tokio::test]
async fn malformed_answers_are_named() {
    assert!(matches!(
        whole(b"<html>not json</html>", "200 OK").await,
        Err(BackendError::Json { .. })
    ));
    assert!(matches!(
        whole(b"{\"no_content\": 1}", "200 OK").await,
        Err(BackendError::Json { .. })
    ));
    assert_eq!(
        whole(b"{\"content\": \"ok\"}", "200 OK")
            .await
            .unwrap()
            .choices,
        ["ok"]
    );
}

#[tokio::test]
async fn an_answer_too_large_is_refused() {
    let huge = vec![b' '; backends::MAX_RESPONSE_BYTES + 10];
    assert!(matches!(
        whole(&huge, "200 OK").await,
        Err(BackendError::TooLarge { .. })
    ));
}

#[tokio::test]
async fn streams_cut_or_broken_are_errors() {
    let event = b"data: {\"content\": \"a\", \"stop\": false}\n\n" as &[u8];
    // Cut in the middle of an event.
    let cut = streamed(Kind::LlamaCppInfill, vec![event, b"data: {\"cont"]).await;
    assert!(
        matches!(cut, Err(BackendError::StreamCut { .. })),
        "{cut:?}"
    );
    // Closed cleanly between events but before the last one.
    let early = streamed(Kind::LlamaCppInfill, vec![event, event]).await;
    assert!(
        matches!(early, Err(BackendError::StreamCut { .. })),
        "{early:?}"
    );
    // A byte that is not UTF-8.
    let bad = streamed(Kind::LlamaCppInfill, vec![event, b"data: \xff\xfe\n\n"]).await;
    assert!(matches!(bad, Err(BackendError::Stream { .. })), "{bad:?}");
    // An event that is not JSON.
    let junk = streamed(Kind::LlamaCppInfill, vec![b"data: hello\n\n"]).await;
    assert!(matches!(junk, Err(BackendError::Json { .. })), "{junk:?}");
    // Complete streams, split at awkward places, read whole.
    let fine = streamed(
        Kind::LlamaCppInfill,
        vec![
            b"data: {\"content\": \"he",
            b"llo\", \"stop\": false}\n",
            b"\ndata: {\"content\": \"!\", \"stop\": true}\n\n",
        ],
    )
    .await;
    assert_eq!(fine.unwrap(), "hello!");
    let openai = streamed(
        Kind::OpenAiCompletions,
        vec![
            b"data: {\"choices\": [{\"text\": \"x\"}]}\n\n",
            b"data: [DONE]\n\n",
        ],
    )
    .await;
    assert_eq!(openai.unwrap(), "x");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    // Accepts, reads the request, then says nothing for longer than the timeout.
    let server = FaultyServer::start(
        vec![Vec::new(), head("200 OK", "application/json", Some(2))],
        Duration::from_secs(3),
    )
    .await;
    let started = std::time::Instant::now();
    let result = backend(
        Kind::LlamaCppInfill,
        &server.url,
        Duration::from_millis(300),
    )
    .complete(&Request::default())
    .await;
    assert!(
        matches!(result, Err(BackendError::Timeout { .. })),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_web_page_is_not_mistaken_for_a_cut_stream() {
    let page = b"<html>sign in</html>";
    let server = FaultyServer::start(
        vec![
            [
                head("200 OK", "text/html; charset=utf-8", Some(page.len())),
                page.to_vec(),
            ]
            .concat(),
        ],
        Duration::ZERO,
    )
    .await;
    let err = backend(Kind::OpenAiCompletions, &server.url, Duration::from_secs(5))
        .stream(&Request::default(), |_| ControlFlow::Continue(()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::NotAModelServer { .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn the_first_token_has_its_own_time_limit() {
    let event = b"data: {\"content\": \"a\", \"stop\": true}\n\n".to_vec();
    // Silent for a second after the headers, then an answer.
    let server = FaultyServer::start(
        vec![head("200 OK", "text/event-stream", None), event.clone()],
        Duration::from_secs(1),
    )
    .await;
    let mut b = backend(Kind::LlamaCppInfill, &server.url, Duration::from_secs(10));
    b.first_token_timeout = Some(Duration::from_millis(200));
    let started = std::time::Instant::now();
    let err = b
        .stream(&Request::default(), |_| ControlFlow::Continue(()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::FirstTokenTimeout { .. }),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_millis(900));
    // With room for it, the same server answers.
    b.first_token_timeout = Some(Duration::from_secs(5));
    assert_eq!(
        b.stream(&Request::default(), |_| ControlFlow::Continue(()))
            .await
            .unwrap(),
        "a"
    );
}

#[test]
fn base_urls_lose_a_trailing_v1_and_overflows_are_recognized() {
    for (given, root) in [
        ("http://h:8000/v1", "http://h:8000"),
        ("http://h:8000/v1/", "http://h:8000"),
        ("http://h:8000/", "http://h:8000"),
        (
            "https://codestral.mistral.ai/v1",
            "https://codestral.mistral.ai",
        ),
        ("http://h/proxy/v1", "http://h/proxy"),
    ] {
        assert_eq!(backends::base_url(given), root);
    }
    let status = |status, body: &str| BackendError::Status {
        url: "u".into(),
        status,
        body: body.into(),
    };
    assert!(
        status(
            400,
            "request (905 tokens) exceeds the available context size (512 tokens)"
        )
        .is_context_overflow()
    );
    assert!(
        status(400, "This model's maximum context length is 2048 tokens").is_context_overflow()
    );
    assert!(!status(400, "model not found").is_context_overflow());
    assert!(!status(503, "context exceeded").is_context_overflow());
}

/// Whether each kind's server says it stopped an answer at the token limit, from the field it
/// says it in.
#[tokio::test]
async fn an_answer_stopped_at_the_limit_is_known_for_every_kind() {
    let cases: [(Kind, &str, bool); 8] = [
        (
            Kind::LlamaCppCompletion,
            r#"{"content": "x", "stop_type": "limit"}"#,
            true,
        ),
        (
            Kind::LlamaCppCompletion,
            r#"{"content": "x", "stop_type": "eos"}"#,
            false,
        ),
        (
            Kind::LlamaCppInfill,
            r#"{"content": "x", "stopped_limit": true}"#,
            true,
        ),
        (
            Kind::OpenAiCompletions,
            r#"{"choices": [{"text": "x", "finish_reason": "length"}]}"#,
            true,
        ),
        (
            Kind::OpenAiCompletions,
            r#"{"choices": [{"text": "x", "finish_reason": "stop"}]}"#,
            false,
        ),
        (
            Kind::Codestral,
            r#"{"choices": [{"message": {"content": "x"}, "finish_reason": "length"}]}"#,
            true,
        ),
        (
            Kind::Ollama,
            r#"{"response": "x", "done_reason": "length"}"#,
            true,
        ),
        (Kind::OllamaRaw, r#"{"response": "x"}"#, false),
    ];
    for (kind, body, at_limit) in cases {
        let server = FaultyServer::start(
            vec![
                [
                    head("200 OK", "application/json", Some(body.len())),
                    body.as_bytes().to_vec(),
                ]
                .concat(),
            ],
            Duration::ZERO,
        )
        .await;
        let answer = backend(kind, &server.url, Duration::from_secs(5))
            .complete(&Request::default())
            .await
            .unwrap();
        assert_eq!(answer.choices, vec!["x".to_owned()], "{kind:?} {body}");
        assert_eq!(answer.at_limit, vec![at_limit], "{kind:?} {body}");
    }
}
