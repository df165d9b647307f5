//! Next edit suggestions end to end, shared by `pilotfish next-edit` and the language server:
//! the request replayed (`nes`), the strategy's prompt sent to the model it needs (a chat model
//! for Copilot's prompt, a completion endpoint for an open next-edit model), and the answer
//! made the smallest edit of the document as it is now, or no suggestion.

use backends::{Backend, BackendError, chat::ChatBackend, chat::ChatMessage};
use nes::{
    prompt::{Body, Prompt, Skip, Suggestion},
    request::{Request, RequestError},
    strategies::copilot::Wording,
};
use serde_json::{Value, json};

/// The model a strategy is sent to.
#[derive(Debug, Clone)]
pub enum Model {
    /// A chat endpoint (Copilot's prompt).
    Chat(ChatBackend),
    /// A completion endpoint taking a raw prompt (an open next-edit model on llama-server), and
    /// the longest answer to ask for.
    Completion(Backend, u32),
}

/// Why no suggestion could be asked for.
#[derive(Debug, thiserror::Error)]
pub enum NextEditError {
    #[error(transparent)]
    Request(#[from] RequestError),
    // The cause is in the message, so it is not also the error's source: a chain printed with
    // `{:#}` would say it twice.
    #[error("the model server failed: {0}")]
    Backend(BackendError),
    #[error("the {strategy} strategy needs a {needs} endpoint (the --backend kind {backend})")]
    WrongModel {
        strategy: String,
        needs: &'static str,
        backend: &'static str,
    },
}

impl From<BackendError> for NextEditError {
    fn from(e: BackendError) -> NextEditError {
        NextEditError::Backend(e)
    }
}

/// What a request gave: nothing sent, and why; or the prompt sent, the model's answer, and the
/// suggestion made of it.
#[derive(Debug, Clone)]
pub enum NextEdit {
    Skipped(Skip),
    Asked {
        prompt: Prompt,
        answer: String,
        suggestion: Option<Suggestion>,
    },
    /// The model was stopped at its token limit before it finished rewriting the lines: the
    /// rewrite is incomplete and would delete what it did not reach, so no suggestion is made
    /// of it (Copilot's library, too, gives up on an answer that ends at the limit).
    CutShort {
        prompt: Prompt,
        answer: String,
    },
}

impl NextEdit {
    /// The suggestion, if any.
    pub fn suggestion(&self) -> Option<&Suggestion> {
        match self {
            NextEdit::Asked { suggestion, .. } => suggestion.as_ref(),
            NextEdit::Skipped(_) | NextEdit::CutShort { .. } => None,
        }
    }
}

/// What to tell a user whose model was stopped at its token limit.
pub const CUT_SHORT: &str = "the model's answer reached its token limit before it finished \
     rewriting the lines, so no edit is suggested; raise `max_tokens` in `[chat]` (1024 when unset)";

/// The longest answer asked for when the configuration sets none: a window of a few dozen
/// lines.
pub const MAX_ANSWER_TOKENS: u32 = 1024;

/// What would be sent, without sending it: `{model, messages, prediction}` for a chat prompt,
/// `{prompt, stop}` for a completion prompt. `wording` is the `copilot` strategy's texts.
pub fn dry_run(
    request: &Request,
    model_name: Option<&str>,
    wording: &Wording,
) -> Result<Value, RequestError> {
    let replayed = request.replay()?;
    let prompt = match nes::strategies::build(&replayed, wording) {
        Ok(p) => p,
        Err(skip) => return Ok(json!({"model": model_name, "skipped": skip.to_string()})),
    };
    Ok(match &prompt.body {
        Body::Chat {
            messages,
            prediction,
        } => json!({"model": model_name, "messages": messages,
            "prediction": prediction.as_ref().map(|p| json!({"type": "content", "content": p}))}),
        Body::Completion { prompt, stop } => {
            json!({"model": model_name, "prompt": prompt, "stop": stop})
        }
    })
}

/// Reads a given answer as the request's strategy reads a model's: what `suggest` does after
/// the model has answered, for replaying an answer without a model.
pub fn read_answer(
    request: &Request,
    answer: &str,
    wording: &Wording,
) -> Result<NextEdit, NextEditError> {
    let replayed = request.replay()?;
    let prompt = match nes::strategies::build(&replayed, wording) {
        Ok(p) => p,
        Err(skip) => return Ok(NextEdit::Skipped(skip)),
    };
    let suggestion = nes::strategies::suggest(&replayed, &prompt, answer);
    Ok(NextEdit::Asked {
        prompt,
        answer: answer.to_owned(),
        suggestion,
    })
}

/// Asks the model for the next edit; `wording` is the `copilot` strategy's texts.
pub async fn suggest(
    request: &Request,
    model: &Model,
    wording: &Wording,
) -> Result<NextEdit, NextEditError> {
    let replayed = request.replay()?;
    let prompt = match nes::strategies::build(&replayed, wording) {
        Ok(p) => p,
        Err(skip) => return Ok(NextEdit::Skipped(skip)),
    };
    let (answer, at_limit) = match (&prompt.body, model) {
        (
            Body::Chat {
                messages,
                prediction,
            },
            Model::Chat(backend),
        ) => {
            let messages: Vec<ChatMessage> = messages
                .iter()
                .map(|m| ChatMessage::new(&m.role, &m.content))
                .collect();
            // Copilot asks for a deterministic answer; the configuration's own limit on the
            // answer's length, when it sets one, is already in the body.
            let mut extra = json!({"temperature": 0});
            if backend.max_tokens.is_none() {
                extra["max_tokens"] = json!(MAX_ANSWER_TOKENS);
            }
            if let Some(p) = prediction {
                extra["prediction"] = json!({"type": "content", "content": p});
            }
            let answer = backend.chat_with(&messages, &[], &extra, |_| {}).await?;
            (
                answer.content,
                answer.finish_reason.as_deref() == Some("length"),
            )
        }
        (Body::Completion { prompt, stop }, Model::Completion(backend, max_tokens)) => {
            let req = backends::Request {
                prompt: prompt.clone(),
                stop: stop.clone(),
                max_tokens: *max_tokens,
                fim: false,
                ..backends::Request::default()
            };
            let answer = backend.complete(&req).await?;
            let at_limit = answer.at_limit.first().copied().unwrap_or(false);
            (
                answer.choices.into_iter().next().unwrap_or_default(),
                at_limit,
            )
        }
        (Body::Chat { .. }, Model::Completion(..)) => {
            return Err(NextEditError::WrongModel {
                strategy: replayed.options.strategy.clone(),
                needs: "chat",
                backend: "openai-chat",
            });
        }
        (Body::Completion { .. }, Model::Chat(_)) => {
            return Err(NextEditError::WrongModel {
                strategy: replayed.options.strategy.clone(),
                needs: "completion",
                backend: "llama-completion",
            });
        }
    };
    if at_limit {
        return Ok(NextEdit::CutShort { prompt, answer });
    }
    let suggestion = nes::strategies::suggest(&replayed, &prompt, &answer);
    Ok(NextEdit::Asked {
        prompt,
        answer,
        suggestion,
    })
}
