//! What the agent loop and a model exchange: messages in OpenAI's shape (the shape every chat
//! server takes), the tools offered, the calls the model makes and what a tool gives back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Message {
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

impl Message {
    pub fn new(role: &str, content: &str) -> Message {
        Message {
            role: role.to_owned(),
            content: content.to_owned(),
            ..Message::default()
        }
    }
}

/// A call the model made: its id, the tool's name, and the arguments as the JSON text the
/// model wrote (which may not parse: the tool tells the model so).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A tool the model may call: a name, what it does, and its parameters as a JSON schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl From<&crate::tools::Spec> for ToolSpec {
    fn from(s: &crate::tools::Spec) -> ToolSpec {
        ToolSpec {
            name: s.name.to_owned(),
            description: s.description.to_owned(),
            parameters: s.parameters.clone(),
        }
    }
}

/// A model's whole answer: its words and its tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`), when the server says.
    pub finish_reason: Option<String>,
}

/// A tool's answer: whether it did what was asked, and what the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub ok: bool,
    pub content: String,
    /// For an edit: each file changed, with its text before and after, so an editor can show
    /// the change.
    pub diffs: Vec<Diff>,
}

/// A file's text before and after a tool changed it (`old` is `None` for a new file); `path`
/// is absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    pub path: String,
    pub old: Option<String>,
    pub new: String,
}

impl Outcome {
    pub fn done(content: impl Into<String>) -> Outcome {
        Outcome {
            ok: true,
            content: content.into(),
            diffs: Vec::new(),
        }
    }

    pub fn failed(content: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            content: content.into(),
            diffs: Vec::new(),
        }
    }
}
