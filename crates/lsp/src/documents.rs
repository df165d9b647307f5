//! The documents an editor has open: their text as edits arrive, their recency (for neighbour
//! snippets), and their recent contents (for the recent-edits part of the prompt), within
//! bounds so that ten thousand open documents or a fifty-megabyte one do not exhaust memory.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::position::{Encoding, OutOfRange, to_offset};

/// Earlier contents are kept only for documents up to this size.
const MAX_SNAPSHOT_BYTES: usize = 256 << 10;
/// Earlier contents kept per document.
const SNAPSHOTS_PER_DOCUMENT: usize = 8;
/// Documents whose earlier contents are kept (the most recently edited).
const DOCUMENTS_WITH_SNAPSHOTS: usize = 20;
/// Earlier version numbers remembered per document, to know a request about one as stale.
const PAST_VERSIONS: usize = 64;

#[derive(Debug, Clone)]
pub struct Document {
    pub uri: String,
    /// The file path for `file:` URIs, else the URI itself.
    pub path: String,
    pub language_id: String,
    pub version: i64,
    pub text: String,
    /// Earlier contents, oldest first.
    pub snapshots: VecDeque<String>,
    /// The version numbers the document had before its current one, newest last (bounded).
    past_versions: VecDeque<i64>,
    last_used: u64,
}

impl Document {
    /// Whether a request naming `version` describes text this document has since moved past:
    /// the version is one it had before, not its current one. A number it never had (a
    /// plugin's own change counter, such as Neovim's `b:changedtick` that copilot.lua sends
    /// while `didOpen` said 0) says nothing about the text, so it is not stale.
    pub fn moved_past(&self, version: i64) -> bool {
        version != self.version && self.past_versions.contains(&version)
    }

    /// Takes `version` as the current one, remembering the one it replaces.
    fn advance_to(&mut self, version: i64) {
        if version == self.version {
            return;
        }
        let current = self.version;
        self.past_versions
            .retain(|v| *v != current && *v != version);
        self.past_versions.push_back(current);
        if self.past_versions.len() > PAST_VERSIONS {
            self.past_versions.pop_front();
        }
        self.version = version;
    }
}

/// Why an edit could not be applied. The document keeps its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    #[error("{0} is not open")]
    NotOpen(String),
    #[error("an edit of {uri} is out of range: {source}")]
    OutOfRange {
        uri: String,
        #[source]
        source: OutOfRange,
    },
    #[error("an edit of {0} is not a content change (no `text`)")]
    Malformed(String),
}

#[derive(Debug, Default)]
pub struct Documents {
    docs: HashMap<String, Document>,
    clock: u64,
    edited: VecDeque<String>,
    /// Every edit, in order, for next edit suggestions.
    pub edits: crate::edits::EditLog,
}

/// A `file://` URI for an absolute path, with the bytes a URI path may not hold escaped.
pub fn file_uri(path: &str) -> String {
    let mut out = String::from("file://");
    if !path.starts_with('/') {
        out.push('/');
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file:` URI, percent-decoded; other URIs as they are.
pub fn uri_to_path(uri: &str) -> String {
    match uri.strip_prefix("file://") {
        Some(rest) => languages::percent_decode(rest),
        None => uri.to_owned(),
    }
}

impl Documents {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn open(&mut self, uri: &str, language_id: &str, version: i64, text: String) {
        let last_used = self.tick();
        self.docs.insert(
            uri.to_owned(),
            Document {
                uri: uri.to_owned(),
                path: uri_to_path(uri),
                language_id: language_id.to_owned(),
                version,
                text,
                snapshots: VecDeque::new(),
                past_versions: VecDeque::new(),
                last_used,
            },
        );
    }

    pub fn close(&mut self, uri: &str) {
        self.docs.remove(uri);
        self.edits.forget(uri);
        self.edited.retain(|u| u != uri);
    }

    pub fn get(&self, uri: &str) -> Option<&Document> {
        self.docs.get(uri)
    }

    /// Marks a document as the one in use.
    pub fn focus(&mut self, uri: &str) {
        let now = self.tick();
        if let Some(d) = self.docs.get_mut(uri) {
            d.last_used = now;
        }
    }

    /// Applies `contentChanges` (incremental with a `range`, or the whole text) in order. On
    /// error nothing is applied.
    pub fn change(
        &mut self,
        uri: &str,
        version: i64,
        changes: &[Value],
        encoding: Encoding,
    ) -> Result<(), ChangeError> {
        let now = self.tick();
        let Some(doc) = self.docs.get_mut(uri) else {
            return Err(ChangeError::NotOpen(uri.to_owned()));
        };
        let mut text = doc.text.clone();
        // The edits, recorded once all changes applied; the text before the first, only when
        // the log has no text of this document yet (copying it on every keystroke would cost
        // the document's size each time).
        let mut log = Vec::new();
        let mut base = None;
        let need_base = !self.edits.has(uri);
        // A document too large for the history costs nothing more per keystroke.
        let logged = doc.text.len() <= crate::edits::MAX_DOCUMENT_BYTES;
        for change in changes {
            let Some(new) = change.get("text").and_then(Value::as_str) else {
                return Err(ChangeError::Malformed(uri.to_owned()));
            };
            match change.get("range") {
                Some(range) if !range.is_null() => {
                    let at = |key: &str| -> Result<usize, ChangeError> {
                        let p = &range[key];
                        let line = p["line"].as_u64().unwrap_or(0) as usize;
                        let character = p["character"].as_u64().unwrap_or(0) as usize;
                        to_offset(&text, line, character, encoding).map_err(|source| {
                            ChangeError::OutOfRange {
                                uri: uri.to_owned(),
                                source,
                            }
                        })
                    };
                    let (start, end) = (at("start")?, at("end")?);
                    let (start, end) = (start.min(end), start.max(end));
                    if logged {
                        let units = tokenizer::utf16::utf16_len;
                        if need_base && base.is_none() {
                            base = Some(text.clone());
                        }
                        log.push(nes::request::EditJson {
                            uri: uri.to_owned(),
                            start: units(&text[..start]),
                            end: units(&text[..end]),
                            text: new.to_owned(),
                        });
                    }
                    text.replace_range(start..end, new);
                }
                _ => {
                    if logged && let Some(edit) = crate::edits::whole_text_edit(uri, &text, new) {
                        if need_base && base.is_none() {
                            base = Some(text.clone());
                        }
                        log.push(edit);
                    }
                    text = new.to_owned();
                }
            }
        }
        if !logged {
            // Its kept history would miss these edits.
            self.edits.forget(uri);
        }
        if let Some(base) = &base {
            self.edits.start(uri, &doc.language_id, base);
        }
        for edit in log {
            self.edits.record(uri, edit, text.len());
        }
        let old = std::mem::replace(&mut doc.text, text);
        doc.advance_to(version);
        doc.last_used = now;
        if old.len() <= MAX_SNAPSHOT_BYTES && doc.text.len() <= MAX_SNAPSHOT_BYTES {
            doc.snapshots.push_back(old);
            while doc.snapshots.len() > SNAPSHOTS_PER_DOCUMENT {
                doc.snapshots.pop_front();
            }
        } else {
            doc.snapshots.clear();
        }
        self.edited.retain(|u| u != uri);
        self.edited.push_front(uri.to_owned());
        while self.edited.len() > DOCUMENTS_WITH_SNAPSHOTS {
            if let Some(old) = self.edited.pop_back()
                && let Some(d) = self.docs.get_mut(&old)
            {
                d.snapshots.clear();
            }
        }
        Ok(())
    }

    /// The next-edit request for the cursor at byte `offset` of `uri`: the edit log's documents
    /// and edits, the files `excluded` names left out (they never leave the machine, not even
    /// as another file's history), and the cursor's document whether it was edited or not.
    /// The one builder of this request: the language server's `copilotInlineEdit` and the ACP
    /// agent's `nes/suggest` both send what it gives. `None` when `uri` is not open.
    pub fn next_edit_request(
        &self,
        uri: &str,
        offset: usize,
        strategy: &str,
        excluded: &dyn Fn(&str) -> bool,
        workspace_root: Option<String>,
    ) -> Option<nes::request::Request> {
        let document = self.get(uri)?;
        let (mut documents, edits) = self.edits.snapshot();
        documents.retain(|d| !excluded(&uri_to_path(&d.uri)));
        let edits: Vec<_> = edits
            .into_iter()
            .filter(|e| documents.iter().any(|d| d.uri == e.uri))
            .collect();
        if !documents.iter().any(|d| d.uri == uri) {
            documents.push(nes::request::DocumentJson {
                uri: uri.to_owned(),
                language_id: document.language_id.clone(),
                text: document.text.clone(),
            });
        }
        let offset = offset.min(document.text.len());
        Some(nes::request::Request {
            documents,
            edits,
            cursor: nes::request::CursorJson {
                uri: uri.to_owned(),
                offset: tokenizer::utf16::utf16_len(&document.text[..offset]),
            },
            viewed: Vec::new(),
            options: nes::request::Options {
                strategy: strategy.to_owned(),
                max_prompt_tokens: None,
            },
            workspace_root,
        })
    }

    /// Other open documents, most recently used first.
    pub fn others(&self, uri: &str, limit: usize) -> Vec<&Document> {
        use std::cmp::Reverse;
        let mut docs: Vec<&Document> = self.docs.values().filter(|d| d.uri != uri).collect();
        // Thousands may be open: pick the few most recent without sorting them all.
        if docs.len() > limit {
            docs.select_nth_unstable_by_key(limit, |d| Reverse(d.last_used));
            docs.truncate(limit);
        }
        docs.sort_by_key(|d| Reverse(d.last_used));
        docs
    }

    /// Documents with earlier contents, most recently edited first.
    pub fn recently_edited(&self) -> impl Iterator<Item = &Document> {
        self.edited.iter().filter_map(|u| self.docs.get(u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn incremental_edits_apply_in_order() {
        let mut docs = Documents::default();
        docs.open("file:///w/a%20b.py", "python", 1, "héllo\nworld\n".into());
        assert_eq!(docs.get("file:///w/a%20b.py").unwrap().path, "/w/a b.py");
        let change = |sl, sc, el, ec, t: &str| json!({"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "text": t});
        docs.change(
            "file:///w/a%20b.py",
            2,
            &[change(0, 1, 0, 2, "e"), change(1, 0, 1, 5, "there")],
            Encoding::Utf16,
        )
        .unwrap();
        let d = docs.get("file:///w/a%20b.py").unwrap();
        assert_eq!(d.text, "hello\nthere\n");
        assert_eq!(d.version, 2);
        assert_eq!(d.snapshots, ["héllo\nworld\n"]);
        // Out of range: an error, and the text is untouched.
        let err = docs
            .change(
                "file:///w/a%20b.py",
                3,
                &[change(9, 0, 9, 1, "x")],
                Encoding::Utf16,
            )
            .unwrap_err();
        assert!(matches!(err, ChangeError::OutOfRange { .. }));
        assert_eq!(
            docs.get("file:///w/a%20b.py").unwrap().text,
            "hello\nthere\n"
        );
        // A whole-text change.
        docs.change(
            "file:///w/a%20b.py",
            4,
            &[json!({"text": "new"})],
            Encoding::Utf16,
        )
        .unwrap();
        assert_eq!(docs.get("file:///w/a%20b.py").unwrap().text, "new");
    }

    #[test]
    fn only_versions_the_document_had_are_stale() {
        let mut docs = Documents::default();
        docs.open("file:///w/a.py", "python", 0, "a".into());
        let d = docs.get("file:///w/a.py").unwrap();
        // Just opened: any number but the current one is unknown, so nothing is stale.
        assert!(!d.moved_past(0) && !d.moved_past(3) && !d.moved_past(-1));
        for v in [5, 6, 9] {
            docs.change(
                "file:///w/a.py",
                v,
                &[json!({"text": "b"})],
                Encoding::Utf16,
            )
            .unwrap();
        }
        let d = docs.get("file:///w/a.py").unwrap();
        for (version, stale) in [
            (0, true),
            (5, true),
            (6, true),
            (9, false),
            (7, false),
            (10, false),
        ] {
            assert_eq!(d.moved_past(version), stale, "version {version}");
        }
        // A client that goes back to a number it used before: the current one is never stale.
        docs.change(
            "file:///w/a.py",
            5,
            &[json!({"text": "c"})],
            Encoding::Utf16,
        )
        .unwrap();
        let d = docs.get("file:///w/a.py").unwrap();
        assert!(!d.moved_past(5) && d.moved_past(9));
        // The memory is bounded.
        for v in 100..1000 {
            docs.change(
                "file:///w/a.py",
                v,
                &[json!({"text": "d"})],
                Encoding::Utf16,
            )
            .unwrap();
        }
        let d = docs.get("file:///w/a.py").unwrap();
        assert_eq!(d.past_versions.len(), PAST_VERSIONS);
        assert!(d.moved_past(998) && !d.moved_past(0));
    }

    #[test]
    fn snapshots_stay_bounded() {
        let mut docs = Documents::default();
        for i in 0..50 {
            let uri = format!("file:///w/{i}.py");
            docs.open(&uri, "python", 0, String::new());
            for v in 0..20 {
                docs.change(&uri, v, &[json!({"text": format!("{v}")})], Encoding::Utf16)
                    .unwrap();
            }
        }
        let with: Vec<_> = docs.recently_edited().collect();
        assert_eq!(with.len(), DOCUMENTS_WITH_SNAPSHOTS);
        assert!(
            with.iter()
                .all(|d| d.snapshots.len() == SNAPSHOTS_PER_DOCUMENT)
        );
        let without = docs.get("file:///w/0.py").unwrap();
        assert!(without.snapshots.is_empty());
    }
}
