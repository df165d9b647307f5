//! The request contract (`docs/next-edit.md`): the open documents as they were, the user's
//! edits since then in UTF-16 offsets, the cursor and the ranges the user looked at, checked
//! and replayed into each document's history.

use serde::{Deserialize, Serialize};

use crate::history::{Edit, History};

/// A request as it arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub documents: Vec<DocumentJson>,
    #[serde(default)]
    pub edits: Vec<EditJson>,
    pub cursor: CursorJson,
    #[serde(default)]
    pub viewed: Vec<RangeJson>,
    #[serde(default)]
    pub options: Options,
    /// The URI of the workspace folder that holds the cursor's document, if any: Copilot shows
    /// the current file's path relative to it, as VS Code does for a file in a folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentJson {
    pub uri: String,
    #[serde(default)]
    pub language_id: String,
    pub text: String,
}

/// One edit: `[start, end)` of the document's text at that moment, in UTF-16 code units,
/// replaced by `text`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditJson {
    pub uri: String,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CursorJson {
    pub uri: String,
    pub offset: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeJson {
    pub uri: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `copilot` (Copilot's own prompt, the default) or `sweep` (the format open next-edit
    /// models are trained on).
    pub strategy: String,
    pub max_prompt_tokens: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: "copilot".into(),
            max_prompt_tokens: None,
        }
    }
}

/// Why a request cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("edit {index} names {uri}, which is not among the documents")]
    UnknownDocument { index: usize, uri: String },
    #[error(
        "edit {index} of {uri} replaces [{start}, {end}), outside the document's {len} UTF-16 units at that moment"
    )]
    EditOutOfRange {
        index: usize,
        uri: String,
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("edit {index} of {uri} splits a character (a surrogate pair) at {at}")]
    SplitCharacter {
        index: usize,
        uri: String,
        at: usize,
    },
    #[error("the cursor names {0}, which is not among the documents")]
    UnknownCursorDocument(String),
    #[error("the cursor's offset {offset} is past the end of {uri} ({len} UTF-16 units)")]
    CursorOutOfRange {
        uri: String,
        offset: usize,
        len: usize,
    },
    #[error("the document {0} is given twice")]
    DuplicateDocument(String),
    #[error("unknown strategy `{0}`: use copilot or sweep")]
    UnknownStrategy(String),
}

/// The documents with their edits replayed: each one's history, in the order given.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub documents: Vec<History>,
    /// Index into `documents`.
    pub cursor_document: usize,
    /// The cursor in the current text, in UTF-16 units.
    pub cursor: usize,
    pub viewed: Vec<RangeJson>,
    pub options: Options,
    /// Which document each edit touched, in order (for the order of files in the history).
    pub edit_order: Vec<usize>,
    pub workspace_root: Option<String>,
}

impl Request {
    /// Checks the request and replays its edits.
    pub fn replay(&self) -> Result<Replayed, RequestError> {
        if !matches!(self.options.strategy.as_str(), "copilot" | "sweep") {
            return Err(RequestError::UnknownStrategy(self.options.strategy.clone()));
        }
        let mut documents: Vec<History> = Vec::new();
        for d in &self.documents {
            if documents.iter().any(|h| h.uri == d.uri) {
                return Err(RequestError::DuplicateDocument(d.uri.clone()));
            }
            documents.push(History::new(&d.uri, &d.language_id, &d.text));
        }
        let mut edit_order = Vec::new();
        for (index, e) in self.edits.iter().enumerate() {
            let Some(at) = documents.iter().position(|h| h.uri == e.uri) else {
                return Err(RequestError::UnknownDocument {
                    index,
                    uri: e.uri.clone(),
                });
            };
            let doc = &mut documents[at];
            let len = tokenizer::utf16::utf16_len(&doc.text);
            if e.start > e.end || e.end > len {
                return Err(RequestError::EditOutOfRange {
                    index,
                    uri: e.uri.clone(),
                    start: e.start,
                    end: e.end,
                    len,
                });
            }
            doc.apply(Edit {
                start: e.start,
                end: e.end,
                text: e.text.clone(),
            })
            .map_err(|at| RequestError::SplitCharacter {
                index,
                uri: e.uri.clone(),
                at,
            })?;
            edit_order.push(at);
        }
        let Some(cursor_document) = documents.iter().position(|h| h.uri == self.cursor.uri) else {
            return Err(RequestError::UnknownCursorDocument(self.cursor.uri.clone()));
        };
        let len = tokenizer::utf16::utf16_len(&documents[cursor_document].text);
        if self.cursor.offset > len {
            return Err(RequestError::CursorOutOfRange {
                uri: self.cursor.uri.clone(),
                offset: self.cursor.offset,
                len,
            });
        }
        Ok(Replayed {
            documents,
            cursor_document,
            cursor: self.cursor.offset,
            viewed: self.viewed.clone(),
            options: self.options.clone(),
            edit_order,
            workspace_root: self.workspace_root.clone(),
        })
    }
}
