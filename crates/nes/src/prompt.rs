//! What a strategy gives: the request to send (chat messages with a predicted output, or one
//! completion prompt) and the window of the document the model rewrites, so that its answer can
//! be made an edit of the document as it is now.

use serde::Serialize;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// What is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Body {
    /// A chat request: the messages, and the output the model is expected to mostly repeat
    /// (OpenAI's predicted outputs: a server that knows it drafts from it).
    Chat {
        messages: Vec<Message>,
        prediction: Option<String>,
    },
    /// A completion request on a raw prompt, for a model trained on one format.
    Completion { prompt: String, stop: Vec<String> },
}

/// The part of the document the model rewrites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub uri: String,
    /// Byte range of the window in the document's text now.
    pub start: usize,
    pub end: usize,
    /// The window's text now.
    pub text: String,
}

/// How the model answers, so the answer can be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The new text of the window, with no wrapping (trailing line breaks as the window had).
    Window,
    /// The new window inside a code fence (the model may also say there is nothing to change).
    Fenced,
    /// The new lines of the window, read as Copilot reads them: compared line by line with the
    /// window, and only the first change that passes its filters kept.
    Lines,
}

/// Why a strategy sends nothing for a request (Copilot's library gives up in these cases too).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Skip {
    #[error("the user has made no edit yet, so there is nothing to go on")]
    NoEdits,
    #[error("the cursor is at the start of a document with no edits")]
    NoCursor,
    #[error("the lines around the cursor are too long for the prompt ({0} tokens)")]
    WindowTooLarge(usize),
    #[error("the lines around the cursor leave no room for the current file")]
    AreaTooLarge,
    #[error("the prompt would be {0} characters, over the limit")]
    PromptTooLarge(usize),
}

/// A strategy's whole output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub body: Body,
    pub window: Window,
    pub answer: Answer,
}

/// A suggested edit: `[start, end)` of the document now, in UTF-16 units, replaced by `text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub uri: String,
    pub start: usize,
    pub end: usize,
    pub text: String,
}
