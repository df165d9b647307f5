//! The chat model: the `[chat]` configuration and the flags over it, the rendered prompt in the
//! wire format, and the model the agent loop drives, streamed and stopped at once when the user
//! cancels.

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent::{
    conversation::{Answer, Message},
    run::ModelError,
};
use anyhow::{Context, Result, bail};
use backends::chat::{ChatBackend, ChatKind, ChatMessage, ToolCall, ToolSpec};
use chat::Role;

pub use crate::config::ChatConfig;

/// The chat model flags of the contract; they win over `[chat]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChatModelArgs {
    /// openai-chat (default) or ollama-chat.
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
    /// The server's base URL (`http://host:port`, `http://host:port/v1` or the full endpoint).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The name of an environment variable holding the API key (never the key itself).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// The configuration file (default: as for `pilotfish complete`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The most tokens the model's answer may have (`[chat] max_answer_tokens`; default 1,024
    /// for `chat`, 4,096 for `agent` and `acp`, whose answers carry whole files in tool calls).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_answer_tokens: Option<u32>,
}

/// The answer limit of `pilotfish chat` when neither the flag nor `[chat]` gives one: room
/// for a long explanation with code, and an end to a model that rambles on.
pub const CHAT_ANSWER_TOKENS: u32 = 1024;

/// The answer limit of `agent` and `acp` by default: a tool call that writes a file carries
/// the whole file in its answer, so more room than a chat answer.
pub const AGENT_ANSWER_TOKENS: u32 = 4096;

/// Gives `backend` an answer limit where neither the flag nor the configuration gave one, so
/// that every request tells the server when to stop (`max_tokens`, Ollama's `num_predict`):
/// without one, some servers generate until the context is full.
pub fn limit_answer(backend: &mut ChatBackend, default: u32) {
    backend.max_tokens.get_or_insert(default);
}

impl ChatModelArgs {
    /// The configuration file in force.
    pub fn load(&self) -> Result<crate::config::Loaded> {
        let overrides = crate::config::Overrides {
            config: self.config.clone(),
            ..Default::default()
        };
        Ok(crate::config::load(&overrides)?.0)
    }

    /// The chat backend: `[chat]` from the configuration file, then these flags.
    pub fn backend(&self) -> Result<ChatBackend> {
        self.backend_from(&self.load()?)
    }

    pub fn backend_from(&self, loaded: &crate::config::Loaded) -> Result<ChatBackend> {
        let mut c = loaded.chat.clone();
        if let Some(v) = &self.backend {
            c.kind = v.clone();
        }
        if let Some(v) = &self.endpoint {
            c.endpoint = Some(v.clone());
        }
        if let Some(v) = &self.model {
            c.model = Some(v.clone());
        }
        if let Some(v) = &self.api_key_env {
            c.api_key_env = Some(v.clone());
        }
        if let Some(n) = self.max_answer_tokens {
            c.max_tokens = Some(n);
        }
        if c.max_tokens == Some(0) {
            bail!(
                "max_answer_tokens in [chat] must be 1 or more: an answer of no tokens says nothing"
            );
        }
        let Some(kind) = ChatKind::parse(&c.kind) else {
            bail!(
                "unknown chat backend `{}`: use openai-chat or ollama-chat",
                c.kind
            );
        };
        let endpoint = c
            .endpoint
            .clone()
            .unwrap_or_else(|| crate::config::default_endpoint(kind.default_endpoint()));
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            bail!("endpoint `{endpoint}` is not an http:// or https:// URL");
        }
        for (what, v) in [
            ("connect_timeout_seconds", c.connect_timeout_seconds),
            ("timeout_seconds", c.timeout_seconds),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                bail!("{what} in [chat] must be a positive number of seconds, not {v}");
            }
        }
        if kind == ChatKind::Ollama && c.model.is_none() {
            bail!(
                "the ollama-chat backend needs a model name: give --model (one `ollama list` shows)"
            );
        }
        let mut backend = ChatBackend::new(
            kind,
            &endpoint,
            Duration::from_secs_f64(c.connect_timeout_seconds),
            Duration::from_secs_f64(c.timeout_seconds),
        )?;
        backend.model = c.model.clone();
        backend.temperature = c.temperature;
        backend.max_tokens = c.max_tokens;
        // Ollama is told a context that holds a chat prompt, not its 2,048 default.
        backend.context_size = c
            .context_size
            .or((kind == ChatKind::Ollama).then_some(16_384));
        backend.api_key = chat_key(&c, loaded, &backend.endpoint)?;
        backend.identity = loaded.backend.identity()?;
        Ok(backend)
    }
}

/// The chat server's key: `[chat]`'s own settings (as `[backend]`'s, see [`crate::api_key`]);
/// without any, `[backend]`'s key when the chat server is the completions' server, else
/// `$PILOTFISH_API_KEY`.
fn chat_key(
    c: &ChatConfig,
    loaded: &crate::config::Loaded,
    endpoint: &str,
) -> Result<Option<backends::Secret>> {
    let own = crate::api_key::KeySettings {
        env: c.api_key_env.as_deref(),
        file: c.api_key_file.as_deref(),
        command: c.api_key_command.as_deref(),
        inline: c.api_key.as_ref(),
    };
    let same_server = loaded
        .backend
        .endpoint()
        .is_ok_and(|e| backends::base_url(&e) == endpoint);
    let settings = if !own.any() && same_server {
        loaded.backend.key_settings()
    } else {
        own
    };
    let key = crate::api_key::resolve(settings, &crate::api_key::current_workspace())
        .map_err(|e| anyhow::anyhow!("[chat]: {e:#}"))?;
    Ok(key.map(|k| k.secret))
}

/// The rendered messages in the wire format. An earlier tool call (rendered as
/// `name(arguments)` in an assistant message, its result in the tool message after it) becomes
/// an assistant tool call and the tool message that answers it.
pub fn wire_messages(prompt: &chat::ChatPrompt) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::new();
    let mut calls = 0;
    for m in &prompt.messages {
        let role = match m.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        let is_call = m.role == Role::Assistant
            && m.parts.len() == 1
            && m.parts[0].source == "earlier tool call";
        if is_call {
            let text = &m.parts[0].text;
            let (name, rest) = text.split_once('(').unwrap_or((text, ")"));
            calls += 1;
            out.push(ChatMessage {
                role: role.to_owned(),
                tool_calls: vec![ToolCall {
                    id: format!("call_{calls}"),
                    name: name.to_owned(),
                    arguments: rest.strip_suffix(')').unwrap_or(rest).to_owned(),
                }],
                ..ChatMessage::default()
            });
            continue;
        }
        let mut message = ChatMessage::new(role, &m.content);
        if m.role == Role::Tool {
            message.tool_call_id = Some(format!("call_{calls}"));
        }
        out.push(message);
    }
    out
}

/// The agent's messages in the backend's shape.
fn to_wire(messages: &[Message]) -> Vec<ChatMessage> {
    messages
        .iter()
        .map(|m| ChatMessage {
            role: m.role.clone(),
            content: m.content.clone(),
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| ToolCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
            tool_call_id: m.tool_call_id.clone(),
        })
        .collect()
}

/// A tool call as the backend read it, as the agent loop holds it.
fn from_wire(c: ToolCall) -> agent::conversation::ToolCall {
    agent::conversation::ToolCall {
        id: c.id,
        name: c.name,
        arguments: c.arguments,
    }
}

/// The rendered messages as the agent loop holds them.
pub fn agent_messages(prompt: &chat::ChatPrompt) -> Vec<Message> {
    wire_messages(prompt)
        .into_iter()
        .map(|m| Message {
            role: m.role,
            content: m.content,
            tool_calls: m.tool_calls.into_iter().map(from_wire).collect(),
            tool_call_id: m.tool_call_id,
        })
        .collect()
}

/// The models `backend`'s server lists, the configured one first; only the configured one when
/// the server does not answer within a few seconds (not every server lists its models).
pub fn offered_models(backend: &ChatBackend) -> Vec<String> {
    let mut out: Vec<String> = backend.model.iter().cloned().collect();
    let listed = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()
        .and_then(|rt| {
            rt.block_on(backend.list_models(std::time::Duration::from_secs(3)))
                .map_err(|e| eprintln!("pilotfish: the server's models are unknown: {e}"))
                .ok()
        });
    for m in listed.into_iter().flatten() {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// A chat backend as the agent loop's model: each request streamed on a runtime of its own and
/// dropped (its connection closed) within a few milliseconds of `cancel` being set.
pub struct ChatModel {
    backend: ChatBackend,
    runtime: tokio::runtime::Runtime,
    cancel: Arc<AtomicBool>,
}

impl std::fmt::Debug for ChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatModel")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl ChatModel {
    pub fn new(backend: ChatBackend, cancel: Arc<AtomicBool>) -> Result<ChatModel> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("could not start the async runtime")?;
        Ok(ChatModel {
            backend,
            runtime,
            cancel,
        })
    }
}

impl agent::run::Model for ChatModel {
    fn chat(
        &mut self,
        messages: &[Message],
        tools: &[agent::conversation::ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Answer, ModelError> {
        let wire = to_wire(messages);
        let tools: Vec<ToolSpec> = tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect();
        let cancel = self.cancel.clone();
        let backend = &self.backend;
        let answer = self.runtime.block_on(async {
            let request = backend.chat(&wire, &tools, |piece| on_text(piece));
            let watch = async {
                while !cancel.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            };
            tokio::select! {
                answer = request => Some(answer),
                () = watch => None,
            }
        });
        match answer {
            None => Err(ModelError::Cancelled),
            Some(Err(e)) => Err(ModelError::Failed(e.to_string())),
            Some(Ok(a)) => Ok(Answer {
                content: a.content,
                tool_calls: a.tool_calls.into_iter().map(from_wire).collect(),
                finish_reason: a.finish_reason,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn loaded(chat_endpoint: &str, chat_key: Option<&str>) -> crate::config::Loaded {
        let mut file = Config::default();
        file.backend.endpoint = Some("http://team.lan:8080".into());
        file.backend.api_key = backends::Secret::new("sk-completions");
        file.chat.endpoint = Some(chat_endpoint.into());
        file.chat.api_key = chat_key.and_then(backends::Secret::new);
        crate::config::Loaded {
            backend: file.backend,
            completion: file.completion,
            chat: file.chat,
            agent: file.agent,
            next_edit: file.next_edit,
            sessions: file.sessions,
            origins: Default::default(),
        }
    }

    /// The chat model on the completions' server shares their key; on another server it has
    /// its own; and it says who asks as completions do.
    #[test]
    fn the_chat_model_gets_the_key_of_its_own_server() {
        let args = ChatModelArgs::default();
        let same = args
            .backend_from(&loaded("http://team.lan:8080/v1", None))
            .unwrap();
        assert_eq!(
            same.api_key.as_ref().map(|k| k.expose()),
            Some("sk-completions")
        );
        let other = args
            .backend_from(&loaded("http://chat.lan:8000", Some("sk-chat")))
            .unwrap();
        assert_eq!(other.api_key.as_ref().map(|k| k.expose()), Some("sk-chat"));
        assert_eq!(other.identity.header, "X-Session-Id");
        assert!(!other.identity.session.is_empty());
    }
}
