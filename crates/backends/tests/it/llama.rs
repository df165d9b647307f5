//! The real llama-server: every endpoint, whole and streamed, cancelled, and killed.

use std::{ops::ControlFlow, time::Duration};

use backends::{Backend, BackendError, ExtraChunk, Kind, Request};

use test_utils::{LlamaServer, free_port};

fn request() -> Request {
    Request {
        prompt: "<｜fim▁begin｜>def add(a, b):\n    <｜fim▁hole｜>\n<｜fim▁end｜>".into(),
        prefix: "def add(a, b):\n    ".into(),
        suffix: "\n\nprint(add(1, 2))\n".into(),
        extra: vec![ExtraChunk {
            filename: "util.py".into(),
            text: "def sub(a, b):\n    return a - b\n".into(),
        }],
        max_tokens: 12,
        ..Request::default()
    }
}

fn backend(kind: Kind, url: &str) -> Backend {
    Backend::new(kind, url, Duration::from_secs(2), Duration::from_secs(60)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_answers_whole_and_streamed() {
    let server = LlamaServer::start();
    for kind in [
        Kind::LlamaCppInfill,
        Kind::LlamaCppCompletion,
        Kind::OpenAiCompletions,
    ] {
        let b = backend(kind, &server.url);
        let whole = b
            .complete(&request())
            .await
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!(whole.choices.len(), 1, "{kind:?}");
        assert!(
            !whole.choices[0].is_empty(),
            "{kind:?}: a random model still produces tokens"
        );
        let mut pieces = Vec::new();
        let streamed = b
            .stream(&request(), |p| {
                pieces.push(p.to_owned());
                ControlFlow::Continue(())
            })
            .await
            .unwrap_or_else(|e| panic!("{kind:?} stream: {e}"));
        assert!(pieces.len() > 1, "{kind:?}: streamed in pieces");
        assert_eq!(pieces.concat(), streamed);
        // Greedy decoding of the same prompt gives the same text either way.
        assert_eq!(streamed, whole.choices[0], "{kind:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_stream_stops_at_once() {
    let server = LlamaServer::start();
    let b = backend(Kind::LlamaCppInfill, &server.url);
    let long = Request {
        max_tokens: 400,
        ..request()
    };
    let started = std::time::Instant::now();
    let mut seen = 0;
    let text = b
        .stream(&long, |_| {
            seen += 1;
            if seen == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .await
        .unwrap();
    assert_eq!(seen, 2);
    assert!(!text.is_empty());
    // The server is free again at once: the next request is answered normally.
    let after = b.complete(&request()).await.unwrap();
    assert_eq!(after.choices.len(), 1);
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_named() {
    let server = LlamaServer::start();
    // Nothing listens on this port.
    let nobody = backend(
        Kind::LlamaCppInfill,
        &format!("http://127.0.0.1:{}", free_port()),
    );
    assert!(matches!(
        nobody.complete(&request()).await,
        Err(BackendError::Connect { .. })
    ));
    // A path the server does not serve.
    let wrong = backend(Kind::LlamaCppInfill, &format!("{}/nowhere", server.url));
    match wrong.complete(&request()).await {
        Err(BackendError::Status { status: 404, .. }) => {}
        other => panic!("expected HTTP 404, got {other:?}"),
    }
    // A total timeout shorter than the generation.
    let hasty = Backend::new(
        Kind::LlamaCppInfill,
        &server.url,
        Duration::from_secs(2),
        Duration::from_millis(1),
    )
    .unwrap();
    let long = Request {
        max_tokens: 400,
        ..request()
    };
    assert!(matches!(
        hasty.complete(&long).await,
        Err(BackendError::Timeout { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_stream_is_an_error_not_a_hang() {
    let mut server = LlamaServer::start();
    let b = backend(Kind::LlamaCppCompletion, &server.url);
    let long = Request {
        max_tokens: 2000,
        ..request()
    };
    let mut killed = false;
    let result = tokio::time::timeout(
        Duration::from_secs(30),
        b.stream(&long, |_| {
            if !killed {
                server.kill();
                killed = true;
            }
            ControlFlow::Continue(())
        }),
    )
    .await
    .expect("the stream ends soon after the server dies");
    match result {
        Err(BackendError::StreamCut { .. } | BackendError::Other { .. }) => {}
        other => panic!("expected a cut stream, got {other:?}"),
    }
}
