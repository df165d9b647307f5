//! Where next edit suggestions are asked for and with which texts: the one configuration the
//! language server (`pilotfish lsp`'s `copilotInlineEdit`) and the ACP agent (`nes/suggest`)
//! share, so the same edits make the same request to the same model.

use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::config::{BackendConfig, Loaded};

/// The model next edits ask and the texts of the `copilot` strategy.
#[derive(Debug, Clone)]
pub struct NextEdits {
    pub model: ghost::next_edit::Model,
    /// `copilot` or `sweep`.
    pub strategy: String,
    /// The `copilot` strategy's fixed texts: Copilot's own where the user fetched them, else
    /// pilotfish's.
    pub wording: Arc<nes::strategies::copilot::Wording>,
    /// Why the wording is not Copilot's and what to run for it.
    pub notice: Option<String>,
}

/// Where next edits are asked: `[next_edit] endpoint`, else the `[chat]` model's server (an
/// editor's `chat` settings laid over the file's), else the completions' server, through its
/// chat endpoint (Copilot's prompt) or llama.cpp's completion endpoint (`[next_edit] strategy
/// = "sweep"`).
pub fn configure(
    base: &Loaded,
    editor_chat: Option<&Value>,
    completions: &BackendConfig,
) -> Result<NextEdits> {
    let mut loaded = base.clone();
    if let Some(over) = editor_chat.and_then(Value::as_object) {
        let mut chat = serde_json::to_value(&loaded.chat)?;
        for (k, v) in over {
            chat[k] = v.clone();
        }
        loaded.chat = serde_json::from_value(chat).context("the `chat` settings are not valid")?;
        // A key is never serialized (it shows as "(hidden)"): the configuration's own is kept.
        loaded.chat.api_key.clone_from(&base.chat.api_key);
    }
    let mut loaded = loaded.next_edit.apply_to(&loaded);
    // The completions' server as the editor's settings left it: its key and identity are the
    // ones a chat model on the same server shares.
    loaded.backend = completions.clone();
    // Without a chat endpoint of its own, the completions' server is asked (a llama-server,
    // the managed one too, serves both).
    if loaded.chat.endpoint.is_none() {
        loaded.chat.endpoint = Some(completions.endpoint()?);
    }
    let chat = crate::chat_model::ChatModelArgs::default().backend_from(&loaded)?;
    let strategy = loaded.next_edit.strategy.clone();
    let model = if strategy == "sweep" {
        ghost::next_edit::Model::Completion(
            {
                let mut b = backends::Backend::new(
                    backends::Kind::LlamaCppCompletion,
                    &chat.endpoint,
                    std::time::Duration::from_secs(3),
                    chat.total_timeout,
                )
                .map_err(|e| anyhow::anyhow!("{e}"))?;
                // The same server as the chat model's: the same key and identity.
                b.api_key.clone_from(&chat.api_key);
                b.identity.clone_from(&chat.identity);
                b
            },
            chat.max_tokens
                .unwrap_or(ghost::next_edit::MAX_ANSWER_TOKENS),
        )
    } else {
        ghost::next_edit::Model::Chat(chat)
    };
    let texts = crate::copilot_texts::load(loaded.next_edit.copilot_texts.as_deref());
    Ok(NextEdits {
        model,
        strategy,
        wording: Arc::new(texts.wording),
        notice: texts.notice,
    })
}
