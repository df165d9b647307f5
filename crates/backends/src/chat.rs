//! Chat models: OpenAI-compatible `/v1/chat/completions` (llama.cpp's server, vLLM, Ollama's
//! `/v1`, hosted APIs) and Ollama's own `/api/chat`, streamed or whole, with tool calls.
//!
//! A streamed answer arrives in pieces: text in `delta.content`, and tool calls in
//! `delta.tool_calls`, each piece naming the call it belongs to by `index` (the id and name come
//! first, the arguments in fragments after). [`ToolCallBuilder`] joins them. Servers that ignore
//! `stream` and send one JSON body are read the same way.

use std::time::Duration;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{BackendError, MAX_RESPONSE_BYTES, read_limited, sse};

/// The chat wire formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatKind {
    /// `POST /v1/chat/completions`, server-sent events.
    OpenAi,
    /// Ollama's `POST /api/chat`, one JSON object per line.
    Ollama,
}

impl ChatKind {
    pub fn parse(name: &str) -> Option<ChatKind> {
        match name {
            "openai-chat" | "openai" => Some(ChatKind::OpenAi),
            "ollama-chat" | "ollama" => Some(ChatKind::Ollama),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ChatKind::OpenAi => "openai-chat",
            ChatKind::Ollama => "ollama-chat",
        }
    }

    fn path(self) -> &'static str {
        match self {
            ChatKind::OpenAi => "/v1/chat/completions",
            ChatKind::Ollama => "/api/chat",
        }
    }

    pub fn default_endpoint(self) -> &'static str {
        match self {
            ChatKind::OpenAi => "http://127.0.0.1:8080",
            ChatKind::Ollama => "http://127.0.0.1:11434",
        }
    }
}

/// One message of a conversation, in OpenAI's shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    #[serde(default)]
    pub content: String,
    /// The calls an assistant message makes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn new(role: &str, content: &str) -> ChatMessage {
        ChatMessage {
            role: role.to_owned(),
            content: content.to_owned(),
            ..ChatMessage::default()
        }
    }
}

/// A tool the model may call: a name, what it does, and its parameters as a JSON schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A call the model made: its id, the tool's name, and the arguments as the JSON text the
/// model wrote (which may not parse: the caller tells the model so).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A whole answer: its words and its tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatAnswer {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`), when the server says.
    pub finish_reason: Option<String>,
}

/// Joins the fragments of streamed tool calls by their `index`.
#[derive(Debug, Default, Clone)]
pub struct ToolCallBuilder {
    calls: Vec<ToolCall>,
}

impl ToolCallBuilder {
    /// Adds one `delta.tool_calls` entry.
    pub fn push(&mut self, delta: &Value) {
        let index = delta["index"]
            .as_u64()
            .map_or(self.calls.len().saturating_sub(1), |i| i as usize)
            .min(1024);
        while self.calls.len() <= index {
            self.calls.push(ToolCall::default());
        }
        let call = &mut self.calls[index];
        if let Some(id) = delta["id"].as_str() {
            call.id.push_str(id);
        }
        if let Some(name) = delta["function"]["name"].as_str() {
            call.name.push_str(name);
        }
        match &delta["function"]["arguments"] {
            Value::String(s) => call.arguments.push_str(s),
            // Ollama sends the arguments as an object, whole.
            Value::Null => {}
            other => call.arguments.push_str(&other.to_string()),
        }
    }

    /// The calls, each with an id (servers that give none get `call_N`).
    pub fn finish(self) -> Vec<ToolCall> {
        self.calls
            .into_iter()
            .enumerate()
            .filter(|(_, c)| !c.name.is_empty())
            .map(|(i, mut c)| {
                if c.id.is_empty() {
                    c.id = format!("call_{i}");
                }
                c
            })
            .collect()
    }
}

/// One chat endpoint.
#[derive(Debug, Clone)]
pub struct ChatBackend {
    pub kind: ChatKind,
    /// The server's root URL.
    pub endpoint: String,
    pub model: Option<String>,
    /// Sent as a bearer token on every request, never shown.
    pub api_key: Option<crate::Secret>,
    /// The session header and `user` field every request carries (see [`crate::identity`]).
    pub identity: crate::Identity,
    pub total_timeout: Duration,
    /// Ollama's `num_ctx`: its default of 2,048 tokens silently cuts agent prompts.
    pub context_size: Option<u32>,
    pub temperature: Option<f32>,
    /// Tokens the answer may have.
    pub max_tokens: Option<u32>,
    client: reqwest::Client,
}

impl ChatBackend {
    pub fn new(
        kind: ChatKind,
        endpoint: &str,
        connect_timeout: Duration,
        total_timeout: Duration,
    ) -> Result<ChatBackend, BackendError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| BackendError::Setup(e.to_string()))?;
        // The full endpoint URL works too: its path is taken off.
        let trimmed = endpoint.trim().trim_end_matches('/');
        let root = trimmed.strip_suffix(kind.path()).unwrap_or(trimmed);
        Ok(ChatBackend {
            kind,
            endpoint: crate::base_url(root),
            model: None,
            api_key: None,
            identity: crate::Identity::here(),
            total_timeout,
            context_size: None,
            temperature: None,
            max_tokens: None,
            client,
        })
    }

    pub fn url(&self) -> String {
        format!("{}{}", self.endpoint, self.kind.path())
    }

    /// A request with the key and the session header.
    fn signed(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        self.identity.sign(builder, self.api_key.as_ref())
    }

    /// The models the server lists (`/v1/models`, Ollama's `/api/tags`), within `limit`: an
    /// editor's model picker offers them.
    pub async fn list_models(&self, limit: Duration) -> Result<Vec<String>, BackendError> {
        let (path, list, key) = match self.kind {
            ChatKind::OpenAi => ("/v1/models", "data", "id"),
            ChatKind::Ollama => ("/api/tags", "models", "name"),
        };
        let url = format!("{}{path}", self.endpoint);
        let request = self.signed(self.client.get(&url).timeout(limit));
        let failed = |e: String| BackendError::Setup(format!("{url}: {e}"));
        let response = request.send().await.map_err(|e| failed(e.to_string()))?;
        let status = response.status().as_u16();
        if matches!(status, 401 | 403) {
            let body = response.text().await.unwrap_or_default();
            return Err(crate::status_error(
                url.clone(),
                status,
                body.trim().to_owned(),
                self.api_key.is_some(),
            ));
        }
        if !response.status().is_success() {
            return Err(failed(format!("HTTP {}", response.status())));
        }
        let value: Value = response.json().await.map_err(|e| failed(e.to_string()))?;
        Ok(value[list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m[key].as_str().map(str::to_owned))
            .collect())
    }

    /// The request body.
    pub fn body(&self, messages: &[ChatMessage], tools: &[ToolSpec], stream: bool) -> Value {
        let messages: Vec<Value> = messages.iter().map(|m| self.wire_message(m)).collect();
        let mut body = json!({"messages": messages, "stream": stream});
        if let Some(model) = &self.model {
            body["model"] = json!(model);
        }
        if !tools.is_empty() {
            body["tools"] = tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters}})
                })
                .collect();
        }
        match self.kind {
            ChatKind::OpenAi => {
                self.identity.stamp(&mut body);
                if let Some(t) = self.temperature {
                    body["temperature"] = json!(t);
                }
                if let Some(n) = self.max_tokens {
                    body["max_tokens"] = json!(n);
                }
            }
            ChatKind::Ollama => {
                let mut options = json!({});
                if let Some(t) = self.temperature {
                    options["temperature"] = json!(t);
                }
                if let Some(n) = self.max_tokens {
                    options["num_predict"] = json!(n);
                }
                if let Some(n) = self.context_size {
                    options["num_ctx"] = json!(n);
                }
                body["options"] = options;
            }
        }
        body
    }

    fn wire_message(&self, m: &ChatMessage) -> Value {
        let mut v = json!({"role": m.role, "content": m.content});
        if !m.tool_calls.is_empty() {
            v["tool_calls"] = m
                .tool_calls
                .iter()
                .map(|c| match self.kind {
                    ChatKind::OpenAi => json!({"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}}),
                    // Ollama takes the arguments as an object.
                    ChatKind::Ollama => json!({"function": {"name": c.name,
                        "arguments": serde_json::from_str::<Value>(&c.arguments).unwrap_or(json!({}))}}),
                })
                .collect();
        }
        if let Some(id) = &m.tool_call_id {
            v["tool_call_id"] = json!(id);
        }
        v
    }

    /// Sends the conversation and streams the answer: `on_text` gets each piece of its words as
    /// it arrives; the whole answer, tool calls joined, is returned.
    pub async fn chat(
        &self,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
        on_text: impl FnMut(&str),
    ) -> Result<ChatAnswer, BackendError> {
        self.chat_with(messages, tools, &Value::Null, on_text).await
    }

    /// [`ChatBackend::chat`] with more fields in the request body (`extra`'s, when it is an
    /// object), such as a `prediction` of the output.
    pub async fn chat_with(
        &self,
        messages: &[ChatMessage],
        tools: &[ToolSpec],
        extra: &Value,
        mut on_text: impl FnMut(&str),
    ) -> Result<ChatAnswer, BackendError> {
        let url = self.url();
        let mut body = self.body(messages, tools, true);
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                body.insert(k.clone(), v.clone());
            }
        }
        let who = (&self.identity, self.api_key.as_ref());
        let (response, content_type) =
            crate::post::post(&self.client, &url, &body, self.total_timeout, who).await?;
        // A server that ignored `stream` answers with one JSON body.
        if content_type.starts_with("application/json") && self.kind == ChatKind::OpenAi {
            return read_whole(response, url, &mut on_text).await;
        }
        self.read_stream(response, url, &mut on_text).await
    }

    /// Reads a streamed answer: server-sent events (OpenAI) or JSON lines (Ollama), each event
    /// added to the answer as it comes; an answer whose stream ends before its end is refused.
    async fn read_stream(
        &self,
        response: reqwest::Response,
        url: String,
        on_text: &mut impl FnMut(&str),
    ) -> Result<ChatAnswer, BackendError> {
        let mut sse = sse::SseParser::default();
        let mut lines = sse::LineParser::default();
        let mut answer = Streamed::default();
        let mut bytes = response.bytes_stream();
        while let Some(chunk) = bytes.next().await {
            let chunk = chunk.map_err(|e| crate::transport_error(&url, self.total_timeout, e))?;
            let events = match self.kind {
                ChatKind::OpenAi => sse.push(&chunk),
                ChatKind::Ollama => lines.push(&chunk),
            }
            .map_err(|source| BackendError::Stream {
                url: url.clone(),
                source,
            })?;
            for event in events {
                answer.add(self.kind, &event, &url, on_text)?;
            }
        }
        let Streamed {
            mut answer,
            calls,
            ended,
        } = answer;
        if !ended && answer.finish_reason.is_none() {
            return Err(BackendError::StreamCut { url });
        }
        answer.tool_calls = calls.finish();
        Ok(answer)
    }
}

/// Reads an answer sent as one JSON body (`choices[0].message`), and hands its text on.
async fn read_whole(
    response: reqwest::Response,
    url: String,
    on_text: &mut impl FnMut(&str),
) -> Result<ChatAnswer, BackendError> {
    let bytes = read_limited(response, MAX_RESPONSE_BYTES)
        .await
        .map_err(|_| BackendError::TooLarge {
            url: url.clone(),
            limit: MAX_RESPONSE_BYTES,
        })?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| BackendError::Json {
        url: url.clone(),
        detail: e.to_string(),
    })?;
    let answer = whole_answer(&value).ok_or_else(|| BackendError::Json {
        url: url.clone(),
        detail: "no `choices[0].message`".to_owned(),
    })?;
    if !answer.content.is_empty() {
        on_text(&answer.content);
    }
    Ok(answer)
}

/// A streamed answer as it arrives: the text and finish reason so far, the tool calls being
/// joined, and whether the stream said it ended.
#[derive(Default)]
struct Streamed {
    answer: ChatAnswer,
    calls: ToolCallBuilder,
    ended: bool,
}

impl Streamed {
    /// Adds one event: `[DONE]`, an error the server sent in the stream, or a piece of the
    /// answer (text handed on at once, tool-call fragments, the finish reason).
    fn add(
        &mut self,
        kind: ChatKind,
        event: &str,
        url: &str,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<(), BackendError> {
        if event.trim() == "[DONE]" {
            self.ended = true;
            return Ok(());
        }
        let value: Value = serde_json::from_str(event).map_err(|e| BackendError::Json {
            url: url.to_owned(),
            detail: format!("{e} in event {event:?}"),
        })?;
        if let Some(message) = value["error"]["message"]
            .as_str()
            .or(value["error"].as_str())
        {
            return Err(BackendError::Other {
                url: url.to_owned(),
                detail: message.to_owned(),
            });
        }
        let (delta, finish) = match kind {
            ChatKind::OpenAi => (
                &value["choices"][0]["delta"],
                value["choices"][0]["finish_reason"].as_str(),
            ),
            ChatKind::Ollama => (
                &value["message"],
                value["done"]
                    .as_bool()
                    .unwrap_or(false)
                    .then(|| value["done_reason"].as_str().unwrap_or("stop")),
            ),
        };
        if let Some(text) = delta["content"].as_str()
            && !text.is_empty()
        {
            self.answer.content.push_str(text);
            if self.answer.content.len() > MAX_RESPONSE_BYTES {
                return Err(BackendError::TooLarge {
                    url: url.to_owned(),
                    limit: MAX_RESPONSE_BYTES,
                });
            }
            on_text(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            self.calls.push(call);
        }
        if let Some(f) = finish {
            self.answer.finish_reason = Some(f.to_owned());
            if kind == ChatKind::Ollama {
                self.ended = true;
            }
        }
        Ok(())
    }
}

/// The answer in a non-streamed body (`choices[0].message`).
fn whole_answer(value: &Value) -> Option<ChatAnswer> {
    let choice = &value["choices"][0];
    let message = choice.get("message")?;
    let mut calls = ToolCallBuilder::default();
    for (i, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut call = call.clone();
        call["index"] = json!(i);
        calls.push(&call);
    }
    Some(ChatAnswer {
        content: message["content"].as_str().unwrap_or_default().to_owned(),
        tool_calls: calls.finish(),
        finish_reason: choice["finish_reason"].as_str().map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_fragments_join_by_index() {
        let mut b = ToolCallBuilder::default();
        for delta in [
            json!({"index": 0, "id": "a", "function": {"name": "read_file", "arguments": ""}}),
            json!({"index": 1, "id": "b", "function": {"name": "list_dir", "arguments": "{\"pa"}}),
            json!({"index": 0, "function": {"arguments": "{\"filePath\":"}}),
            json!({"index": 1, "function": {"arguments": "th\": \".\"}"}}),
            json!({"index": 0, "function": {"arguments": " \"x.py\"}"}}),
        ] {
            b.push(&delta);
        }
        let calls = b.finish();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].arguments, "{\"filePath\": \"x.py\"}");
        assert_eq!(calls[1].id, "b");
        assert_eq!(calls[1].arguments, "{\"path\": \".\"}");
        // Ollama: whole calls, arguments as objects, no ids.
        let mut b = ToolCallBuilder::default();
        b.push(&json!({"function": {"name": "list_dir", "arguments": {"path": "."}}}));
        let calls = b.finish();
        assert_eq!(calls[0].id, "call_0");
        assert_eq!(calls[0].arguments, "{\"path\":\".\"}");
    }

    #[test]
    fn full_endpoint_urls_and_v1_bases_reach_the_same_path() {
        for given in [
            "http://h:8080",
            "http://h:8080/v1",
            "http://h:8080/v1/chat/completions",
            "http://h:8080/",
        ] {
            let b = ChatBackend::new(
                ChatKind::OpenAi,
                given,
                Duration::from_secs(1),
                Duration::from_secs(1),
            )
            .unwrap();
            assert_eq!(b.url(), "http://h:8080/v1/chat/completions", "{given}");
        }
        let whole = whole_answer(&json!({"choices": [{"message": {"content": "hi",
            "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{}"}}]},
            "finish_reason": "tool_calls"}]}))
        .unwrap();
        assert_eq!(whole.content, "hi");
        assert_eq!(whole.tool_calls[0].name, "f");
    }
}
