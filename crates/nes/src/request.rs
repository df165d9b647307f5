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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(json: &str) -> Result<Replayed, String> {
        let r: Request = serde_json::from_str(json).map_err(|e| e.to_string())?;
        r.replay().map_err(|e| e.to_string())
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let doc = r#""documents": [{"uri": "u", "text": "a😀b"}]"#;
        let cases = [
            (
                format!(r#"{{{doc}, "edits": [{{"uri": "v", "start": 0, "end": 0, "text": ""}}], "cursor": {{"uri": "u", "offset": 0}}}}"#),
                "edit 0 names v, which is not among the documents",
            ),
            (
                format!(r#"{{{doc}, "edits": [{{"uri": "u", "start": 3, "end": 9, "text": ""}}], "cursor": {{"uri": "u", "offset": 0}}}}"#),
                "edit 0 of u replaces [3, 9), outside the document's 4 UTF-16 units at that moment",
            ),
            (
                format!(r#"{{{doc}, "edits": [{{"uri": "u", "start": 2, "end": 2, "text": "x"}}], "cursor": {{"uri": "u", "offset": 0}}}}"#),
                "edit 0 of u splits a character (a surrogate pair) at 2",
            ),
            (
                format!(r#"{{{doc}, "cursor": {{"uri": "u", "offset": 5}}}}"#),
                "the cursor's offset 5 is past the end of u (4 UTF-16 units)",
            ),
            (
                format!(r#"{{{doc}, "cursor": {{"uri": "w", "offset": 0}}}}"#),
                "the cursor names w, which is not among the documents",
            ),
            (
                format!(r#"{{{doc}, "cursor": {{"uri": "u", "offset": 0}}, "options": {{"strategy": "zeta"}}}}"#),
                "unknown strategy `zeta`: use copilot or sweep",
            ),
            (
                r#"{"documents": [{"uri": "u", "text": ""}, {"uri": "u", "text": ""}], "cursor": {"uri": "u", "offset": 0}}"#.to_owned(),
                "the document u is given twice",
            ),
        ];
        for (json, want) in cases {
            assert_eq!(parse(&json).err().as_deref(), Some(want), "{json}");
        }
        assert!(
            parse(r#"{"documents": [], "cursor": {"uri": "u", "offset": 0}, "extra": 1}"#)
                .unwrap_err()
                .contains("unknown field `extra`")
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Any offsets, in range or not, inside a surrogate pair or not: the request is refused
        /// with an error or replayed, and both strategies then build and read answers without
        /// a panic.
        #[test]
        fn any_offsets_are_refused_or_replayed(
            text in "(a|😀|\n|\r\n|é| )*",
            edits in proptest::collection::vec((0usize..30, 0usize..30, "(x|😀|\n)*"), 0..8),
            cursor in 0usize..30,
            strategy in prop_oneof![Just("copilot"), Just("sweep")],
            answer in "(a|x|😀|\n| )*",
        ) {
            let request = Request {
                documents: vec![DocumentJson { uri: "file:///w/a.rs".into(), language_id: "rust".into(), text }],
                edits: edits
                    .into_iter()
                    .map(|(start, end, text)| EditJson { uri: "file:///w/a.rs".into(), start, end, text })
                    .collect(),
                cursor: CursorJson { uri: "file:///w/a.rs".into(), offset: cursor },
                options: Options { strategy: strategy.into(), max_prompt_tokens: None },
                ..Request::default()
            };
            if let Ok(replayed) = request.replay()
                && let Ok(prompt) = crate::strategies::build(&replayed, &crate::strategies::copilot::Wording::pilotfish())
            {
                let _ = crate::strategies::suggest(&replayed, &prompt, &answer);
            }
        }
    }
}
