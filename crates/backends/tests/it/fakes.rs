//! Servers that cannot run here (Ollama, Mistral's hosted Codestral), imitated by FAKES that
//! replay their documented wire formats on loopback: the request pilotfish sends is checked
//! field by field, and the answers, whole and streamed, are theirs.

use std::{ops::ControlFlow, time::Duration};

use backends::{Backend, Kind, Request};
use serde_json::Value;

use crate::faults::{FaultyServer, head};

fn request() -> Request {
    Request {
        prompt: "<PRE> def f(): <SUF> <MID>".into(),
        prefix: "def f():\n    ".into(),
        suffix: "\n".into(),
        max_tokens: 7,
        stop: vec!["\n\n".into()],
        ..Request::default()
    }
}

async fn serve(body: &str, content_type: &str) -> FaultyServer {
    FaultyServer::start(
        vec![[head("200 OK", content_type, None), body.as_bytes().to_vec()].concat()],
        Duration::ZERO,
    )
    .await
}

fn sent(server: &FaultyServer) -> Value {
    serde_json::from_slice(&server.last_request.lock().unwrap()).expect("the request body is JSON")
}

#[tokio::test]
async fn ollama_generate_with_suffix_and_raw() {
    // FAKE Ollama: a whole answer, then a newline-delimited JSON stream.
    let server = serve(
        "{\"model\":\"qwen2.5-coder\",\"response\":\"return 1\",\"done\":true}",
        "application/json",
    )
    .await;
    let mut b = Backend::new(
        Kind::Ollama,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    b.model = Some("qwen2.5-coder".into());
    assert_eq!(b.complete(&request()).await.unwrap().choices, ["return 1"]);
    let body = sent(&server);
    assert_eq!(body["model"], "qwen2.5-coder");
    assert_eq!(body["prompt"], "def f():\n    ");
    assert_eq!(body["suffix"], "\n");
    assert_eq!(body["raw"], false);
    assert_eq!(body["options"]["num_predict"], 7);
    assert_eq!(body["options"]["stop"][0], "\n\n");

    let stream = "{\"response\":\"ret\",\"done\":false}\n{\"response\":\"urn 1\",\"done\":false}\n{\"response\":\"\",\"done\":true}\n";
    let server = serve(stream, "application/x-ndjson").await;
    let b = Backend::new(
        Kind::OllamaRaw,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    let mut pieces = Vec::new();
    let text = b
        .stream(&request(), |p| {
            pieces.push(p.to_owned());
            ControlFlow::Continue(())
        })
        .await
        .unwrap();
    assert_eq!((text.as_str(), pieces.len()), ("return 1", 2));
    let body = sent(&server);
    assert_eq!(
        (body["raw"].as_bool(), body["prompt"].as_str()),
        (Some(true), Some("<PRE> def f(): <SUF> <MID>"))
    );
    assert!(
        body.get("suffix").is_none(),
        "raw mode sends the template, not a suffix"
    );

    // Cut before `done`.
    let server = serve(
        "{\"response\":\"ret\",\"done\":false}\n{\"respo",
        "application/x-ndjson",
    )
    .await;
    let b = Backend::new(
        Kind::Ollama,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    assert!(matches!(
        b.stream(&request(), |_| ControlFlow::Continue(())).await,
        Err(backends::BackendError::StreamCut { .. })
    ));
}

#[tokio::test]
async fn codestral_fim_with_a_key() {
    // FAKE Codestral: a chat-shaped whole answer, then a streamed one.
    let server = serve("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"return 1\"},\"finish_reason\":\"stop\"}]}", "application/json").await;
    let mut b = Backend::new(
        Kind::Codestral,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    b.model = Some("codestral-latest".into());
    b.api_key = backends::Secret::new("secret");
    assert_eq!(b.complete(&request()).await.unwrap().choices, ["return 1"]);
    let body = sent(&server);
    assert_eq!(
        (
            body["prompt"].as_str(),
            body["suffix"].as_str(),
            body["model"].as_str()
        ),
        (Some("def f():\n    "), Some("\n"), Some("codestral-latest"))
    );
    let stream = "data: {\"choices\":[{\"delta\":{\"content\":\"return\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\" 1\"}}]}\n\ndata: [DONE]\n\n";
    let server = serve(stream, "text/event-stream").await;
    let b = Backend::new(
        Kind::Codestral,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap();
    assert_eq!(
        b.stream(&request(), |_| ControlFlow::Continue(()))
            .await
            .unwrap(),
        "return 1"
    );
}

/// Whether a server works on anyone's request now, as llama-server's `/slots` and vLLM's
/// `/metrics` say it: FAKES, as a real server cannot be held mid-request at a chosen moment
/// here. A server that does not say is `None` (the caller goes on as before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whether_a_server_works_on_any_request_now() {
    let limit = Duration::from_secs(10);
    let cases = [
        (
            Kind::LlamaCppInfill,
            r#"[{"id":0,"is_processing":false},{"id":1,"is_processing":true}]"#,
            Some(true),
        ),
        (
            Kind::LlamaCppCompletion,
            r#"[{"id":0,"is_processing":false},{"id":1,"is_processing":false}]"#,
            Some(false),
        ),
        (Kind::LlamaCppInfill, "slots are disabled", None),
        (
            Kind::OpenAiCompletions,
            "# HELP vllm:num_requests_running x\nvllm:num_requests_running{model_name=\"m\"} 0.0\nvllm:num_requests_waiting{model_name=\"m\"} 2.0\n",
            Some(true),
        ),
        (
            Kind::OpenAiCompletions,
            "vllm:num_requests_running{model_name=\"m\"} 0.0\nvllm:num_requests_waiting{model_name=\"m\"} 0.0\n",
            Some(false),
        ),
        (Kind::OpenAiCompletions, "no metrics here", None),
    ];
    for (kind, body, working) in cases {
        let server = serve(body, "application/json").await;
        let b = Backend::new(kind, &server.url, limit, limit).unwrap();
        assert_eq!(b.working_now(limit).await, working, "{kind:?}: {body}");
    }
}
