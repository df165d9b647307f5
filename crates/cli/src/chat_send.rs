//! Sending a chat: the `[chat]` configuration, named sessions kept under the user's state
//! folder, and the rendered prompt turned into the OpenAI wire format and streamed.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::{Context, Result, bail};
use backends::chat::{ChatBackend, ChatKind, ChatMessage, ToolCall};
use chat::{Role, Turn};
use serde::{Deserialize, Serialize};

/// `[chat]`: the chat model.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ChatConfig {
    /// `openai-chat` (`/v1/chat/completions`) or `ollama-chat` (`/api/chat`).
    pub(crate) kind: String,
    /// Base URL, with or without `/v1`, or the full endpoint URL; default: where the kind's
    /// server listens.
    pub(crate) endpoint: Option<String>,
    pub(crate) model: Option<String>,
    /// The name of an environment variable that holds the API key.
    pub(crate) api_key_env: Option<String>,
    pub(crate) connect_timeout_seconds: f64,
    pub(crate) timeout_seconds: f64,
    /// Ollama's `num_ctx` (its default, 2,048, cuts long prompts silently).
    pub(crate) context_size: Option<u32>,
    pub(crate) temperature: Option<f32>,
    /// Tokens the answer may have.
    pub(crate) max_tokens: Option<u32>,
}

impl Default for ChatConfig {
    fn default() -> ChatConfig {
        ChatConfig {
            kind: "openai-chat".into(),
            endpoint: None,
            model: None,
            api_key_env: None,
            connect_timeout_seconds: 3.0,
            timeout_seconds: 300.0,
            context_size: None,
            temperature: None,
            max_tokens: None,
        }
    }
}

/// The chat model flags of the contract; they win over `[chat]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ChatModelArgs {
    /// openai-chat (default) or ollama-chat.
    #[arg(long, value_name = "NAME")]
    pub(crate) backend: Option<String>,
    /// The server's base URL (`http://host:port`, `http://host:port/v1` or the full endpoint).
    #[arg(long, value_name = "URL")]
    pub(crate) endpoint: Option<String>,
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// The name of an environment variable holding the API key (never the key itself).
    #[arg(long, value_name = "VAR")]
    pub(crate) api_key_env: Option<String>,
    /// The configuration file (default: as for `pilotfish complete`).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
}

impl ChatModelArgs {
    /// The configuration file in force.
    pub(crate) fn load(&self) -> Result<crate::config::Loaded> {
        let overrides = crate::config::Overrides {
            config: self.config.clone(),
            ..Default::default()
        };
        Ok(crate::config::load(&overrides)?.0)
    }

    /// The chat backend: `[chat]` from the configuration file, then these flags.
    pub(crate) fn backend(&self) -> Result<ChatBackend> {
        self.backend_from(&self.load()?)
    }

    pub(crate) fn backend_from(&self, loaded: &crate::config::Loaded) -> Result<ChatBackend> {
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
        let Some(kind) = ChatKind::parse(&c.kind) else {
            bail!(
                "unknown chat backend `{}`: use openai-chat or ollama-chat",
                c.kind
            );
        };
        let endpoint = c
            .endpoint
            .clone()
            .unwrap_or_else(|| kind.default_endpoint().to_owned());
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
        if let Some(var) = &c.api_key_env {
            match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => backend.api_key = Some(v.trim().to_owned()),
                _ => bail!("the API key's variable {var} is not set in the environment"),
            }
        }
        Ok(backend)
    }
}

/// A named conversation, stored as a JSON list of turns under the user's state folder
/// (`$XDG_STATE_HOME/pilotfish/sessions`, else `~/.local/state/pilotfish/sessions`).
#[derive(Debug)]
pub(crate) struct Session {
    path: PathBuf,
    pub(crate) turns: Vec<Turn>,
}

impl Session {
    pub(crate) fn open(name: &str) -> Result<Session> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            || name.starts_with('.')
        {
            bail!(
                "session name `{name}` may use letters, digits, `-`, `_` and `.` only (it names a file)"
            );
        }
        let base = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state"))
            })
            .context("neither XDG_STATE_HOME nor HOME is set: nowhere to keep the session")?;
        let path = base
            .join("pilotfish")
            .join("sessions")
            .join(format!("{name}.json"));
        let turns = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "the session file {} is not a list of turns; move it away to start the session anew",
                    path.display()
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("could not read {}", path.display())),
        };
        Ok(Session { path, turns })
    }

    /// Adds a turn and writes the file whole (a new file renamed over the old, so a crash
    /// never leaves half a session).
    pub(crate) fn append(&mut self, turn: Turn) -> Result<()> {
        self.turns.push(turn);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&self.turns)?)
            .with_context(|| format!("could not write {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("could not write {}", self.path.display()))?;
        Ok(())
    }
}

/// The rendered messages in the wire format. An earlier tool call (rendered as
/// `name(arguments)` in an assistant message, its result in the tool message after it) becomes
/// an assistant tool call and the tool message that answers it.
pub(crate) fn wire_messages(prompt: &chat::ChatPrompt) -> Vec<ChatMessage> {
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

/// Sends the prompt and streams the answer to standard output; returns the answer.
pub(crate) fn send(backend: &ChatBackend, prompt: &chat::ChatPrompt) -> Result<String> {
    let messages = wire_messages(prompt);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let mut stdout = std::io::stdout().lock();
    let mut write_error = None;
    let answer = runtime.block_on(backend.chat(&messages, &[], |piece| {
        if write_error.is_none()
            && let Err(e) = stdout
                .write_all(piece.as_bytes())
                .and_then(|_| stdout.flush())
        {
            write_error = Some(e);
        }
    }))?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if !answer.content.ends_with('\n') {
        writeln!(stdout)?;
    }
    if answer.finish_reason.as_deref() == Some("length") {
        eprintln!("note: the answer was cut at the model's length limit (max_tokens in [chat])");
    }
    Ok(answer.content)
}
