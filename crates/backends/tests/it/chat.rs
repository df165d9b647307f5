//! Chat models: tool calls streamed in fragments and joined by index, servers that ignore
//! `stream`, Ollama's `/api/chat` lines (all from `FaultyServer`, a fake replaying the wire
//! formats byte for byte), and a real chat exchange with llama-server.

use std::time::Duration;

use backends::chat::{ChatBackend, ChatKind, ChatMessage, ToolSpec};
use serde_json::json;

use crate::faults::{FaultyServer, head};

fn backend(kind: ChatKind, url: &str) -> ChatBackend {
    ChatBackend::new(kind, url, Duration::from_secs(2), Duration::from_secs(30)).unwrap()
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "read_file".into(),
        description: "Reads a file".into(),
        parameters: json!({"type": "object", "properties": {"filePath": {"type": "string"}}}),
    }]
}

#[tokio::test]
async fn streamed_tool_calls_are_joined_by_index() {
    let events = [
        json!({"choices": [{"delta": {"role": "assistant", "content": "Let me look."}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"filePath\": \"b"}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"filePath\": \"a.py\"}"}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": ".py\"}"}}]}}]}),
        json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
    ];
    let mut parts = vec![head("200 OK", "text/event-stream", None)];
    for e in events {
        parts.push(format!("data: {e}\n\n").into_bytes());
    }
    parts.push(b"data: [DONE]\n\n".to_vec());
    let server = FaultyServer::start(parts, Duration::from_millis(2)).await;
    let mut seen = String::new();
    let answer = backend(ChatKind::OpenAi, &format!("{}/v1", server.url))
        .chat(&[ChatMessage::new("user", "fix it")], &tools(), |t| {
            seen.push_str(t)
        })
        .await
        .unwrap();
    assert_eq!(seen, "Let me look.");
    assert_eq!(answer.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!(answer.tool_calls[0].id, "c1");
    assert_eq!(answer.tool_calls[0].arguments, "{\"filePath\": \"a.py\"}");
    assert_eq!(answer.tool_calls[1].arguments, "{\"filePath\": \"b.py\"}");
    // The request offered the tools in OpenAI's shape, and asked for a stream.
    let sent: serde_json::Value =
        serde_json::from_slice(&server.last_request.lock().unwrap()).unwrap();
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["tools"][0]["function"]["name"], "read_file");
}

#[tokio::test]
async fn a_server_that_ignores_stream_answers_in_one_body() {
    let body = json!({"choices": [{"message": {"role": "assistant", "content": "Done.",
        "tool_calls": [{"id": "x", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
        "finish_reason": "tool_calls"}]})
    .to_string();
    let server = FaultyServer::start(
        vec![
            [
                head("200 OK", "application/json", Some(body.len())),
                body.into_bytes(),
            ]
            .concat(),
        ],
        Duration::ZERO,
    )
    .await;
    let mut seen = String::new();
    let answer = backend(ChatKind::OpenAi, &server.url)
        .chat(&[ChatMessage::new("user", "hi")], &tools(), |t| {
            seen.push_str(t)
        })
        .await
        .unwrap();
    assert_eq!(seen, "Done.");
    assert_eq!(answer.tool_calls[0].name, "read_file");
}

#[tokio::test]
async fn ollama_chat_lines_and_its_context_size() {
    let lines = [
        json!({"message": {"role": "assistant", "content": "Hel"}, "done": false}),
        json!({"message": {"role": "assistant", "content": "lo", "tool_calls": [{"function": {"name": "read_file", "arguments": {"filePath": "a.py"}}}]}, "done": false}),
        json!({"message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}),
    ];
    let mut parts = vec![head("200 OK", "application/x-ndjson", None)];
    for l in lines {
        parts.push(format!("{l}\n").into_bytes());
    }
    let server = FaultyServer::start(parts, Duration::from_millis(2)).await;
    let mut b = backend(ChatKind::Ollama, &server.url);
    b.model = Some("qwen2.5-coder:7b".into());
    b.context_size = Some(16_384);
    let answer = b
        .chat(&[ChatMessage::new("user", "hi")], &tools(), |_| {})
        .await
        .unwrap();
    assert_eq!(answer.content, "Hello");
    assert_eq!(answer.tool_calls[0].arguments, "{\"filePath\":\"a.py\"}");
    let sent: serde_json::Value =
        serde_json::from_slice(&server.last_request.lock().unwrap()).unwrap();
    assert_eq!(sent["options"]["num_ctx"], 16_384);
    assert_eq!(sent["model"], "qwen2.5-coder:7b");
}

#[tokio::test]
async fn a_chat_stream_cut_short_is_an_error() {
    let parts = vec![
        head("200 OK", "text/event-stream", None),
        format!(
            "data: {}\n\n",
            json!({"choices": [{"delta": {"content": "Hal"}}]})
        )
        .into_bytes(),
    ];
    let server = FaultyServer::start(parts, Duration::ZERO).await;
    let err = backend(ChatKind::OpenAi, &server.url)
        .chat(&[ChatMessage::new("user", "hi")], &[], |_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(err, backends::BackendError::StreamCut { .. }),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_chat_exchange_with_llama_server() {
    let server = tokio::task::spawn_blocking(test_utils::LlamaServer::start)
        .await
        .unwrap();
    let mut b = backend(ChatKind::OpenAi, &format!("{}/v1", server.url));
    b.max_tokens = Some(8);
    b.temperature = Some(0.0);
    let mut pieces = 0;
    let answer = b
        .chat(
            &[
                ChatMessage::new("system", "You are terse."),
                ChatMessage::new("user", "Say hi"),
            ],
            &[],
            |_| pieces += 1,
        )
        .await
        .unwrap();
    assert!(pieces >= 1, "streamed");
    assert_eq!(answer.finish_reason.as_deref(), Some("length"));
}

/// llama.cpp's server with `--jinja` takes tools on `/v1/chat/completions`; the tiny random
/// model's answer is nonsense, but the exchange (tools offered, a streamed answer) is real.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_offered_to_llama_server_with_jinja() {
    let server = tokio::task::spawn_blocking(test_utils::LlamaServer::with_jinja)
        .await
        .unwrap();
    let mut b = backend(ChatKind::OpenAi, &server.url);
    b.max_tokens = Some(8);
    let answer = b
        .chat(&[ChatMessage::new("user", "Read a.py")], &tools(), |_| {})
        .await
        .unwrap();
    assert!(answer.finish_reason.is_some(), "{answer:?}");
}
