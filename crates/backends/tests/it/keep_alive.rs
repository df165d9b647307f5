//! A kept-alive connection the server closes under the next request, as llama-server does
//! after an answer that took longer than its keep-alive time: the request goes out again on a
//! fresh connection, once.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use backends::{
    Backend, BackendError, Kind, Request,
    chat::{ChatBackend, ChatKind, ChatMessage},
};
use tokio::{io::AsyncWriteExt, net::TcpListener};

use crate::faults::read_request;

/// FAKE: on each connection, answers the first `answered` requests with `body` and keeps the
/// connection open, then reads one more request whole and closes without a word. It counts the
/// requests it read.
struct ClosingServer {
    url: String,
    requests: Arc<AtomicUsize>,
}

impl ClosingServer {
    async fn start(answered: usize, body: &'static str) -> ClosingServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let count = requests.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let count = count.clone();
                tokio::spawn(async move {
                    for _ in 0..answered {
                        if read_request(&mut socket).await.is_none() {
                            return;
                        }
                        count.fetch_add(1, Ordering::SeqCst);
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                            body.len()
                        );
                        let _ = socket.write_all(head.as_bytes()).await;
                        let _ = socket.write_all(body.as_bytes()).await;
                    }
                    if read_request(&mut socket).await.is_some() {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        ClosingServer { url, requests }
    }
}

fn backend(url: &str) -> Backend {
    Backend::new(
        Kind::LlamaCppCompletion,
        url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap()
}

#[tokio::test]
async fn a_completion_on_a_connection_the_server_closed_is_sent_again() {
    let server = ClosingServer::start(1, r#"{"content": "x = 1"}"#).await;
    let backend = backend(&server.url);
    for _ in 0..3 {
        let answer = backend.complete(&Request::default()).await.unwrap();
        assert_eq!(answer.choices, vec!["x = 1".to_owned()]);
    }
    // Each request after the first was read once on the old connection and again on a new one.
    assert_eq!(server.requests.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn a_chat_on_a_connection_the_server_closed_is_sent_again() {
    let body = r#"{"choices": [{"message": {"role": "assistant", "content": "hello"}}]}"#;
    let server = ClosingServer::start(1, body).await;
    let chat = ChatBackend::new(
        ChatKind::OpenAi,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    for _ in 0..2 {
        let answer = chat
            .chat_with(
                &[ChatMessage::new("user", "hi")],
                &[],
                &serde_json::json!({}),
                |_| {},
            )
            .await
            .unwrap();
        assert_eq!(answer.content, "hello");
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_server_that_always_closes_is_asked_twice_then_reported() {
    let server = ClosingServer::start(0, "").await;
    match backend(&server.url).complete(&Request::default()).await {
        Err(BackendError::Other { detail, .. }) => {
            assert!(detail.contains("closed"), "{detail}")
        }
        other => panic!("expected the closed connection reported, got {other:?}"),
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}
