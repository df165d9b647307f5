//! The edit history next edit suggestions are made from: every edit the editor reports, in
//! order across documents, in UTF-16 offsets, with each document's text before its first kept
//! edit. It is the request contract's `documents` and `edits` kept up to date, and bounded: the
//! oldest edits fold into their document's text, and only recently edited, not-too-large
//! documents are kept.

use std::collections::VecDeque;

use nes::request::{DocumentJson, EditJson};

/// Edits kept, over all documents.
const MAX_EDITS: usize = 200;
/// Documents whose history is kept (the most recently edited).
const MAX_DOCUMENTS: usize = 20;
/// Larger documents keep no history (their text would be copied on every request).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// See the module's documentation.
#[derive(Debug, Default, Clone)]
pub struct EditLog {
    /// Each kept document's text before its first kept edit, most recently edited last.
    bases: Vec<DocumentJson>,
    edits: VecDeque<EditJson>,
}

impl EditLog {
    /// Whether the log holds `uri`'s text.
    pub fn has(&self, uri: &str) -> bool {
        self.bases.iter().any(|d| d.uri == uri)
    }

    /// Starts `uri`'s history at `text` (before its first edit).
    pub fn start(&mut self, uri: &str, language_id: &str, text: &str) {
        if text.len() > MAX_DOCUMENT_BYTES || self.has(uri) {
            return;
        }
        self.bases.push(DocumentJson {
            uri: uri.to_owned(),
            language_id: language_id.to_owned(),
            text: text.to_owned(),
        });
    }

    /// Records an edit of `uri`, in UTF-16 units of its text just before it; `size` is the
    /// document's size after it. A document whose history was not started, or that grew too
    /// large, keeps none.
    pub fn record(&mut self, uri: &str, edit: EditJson, size: usize) {
        let Some(at) = self.bases.iter().position(|d| d.uri == uri) else {
            return;
        };
        if size > MAX_DOCUMENT_BYTES {
            self.forget(uri);
            return;
        }
        let doc = self.bases.remove(at);
        self.bases.push(doc);
        self.edits.push_back(edit);
        while self.bases.len() > MAX_DOCUMENTS {
            let oldest = self.bases[0].uri.clone();
            self.forget(&oldest);
        }
        while self.edits.len() > MAX_EDITS {
            self.fold_oldest();
        }
    }

    /// Drops a document's history (closed, or too large).
    pub fn forget(&mut self, uri: &str) {
        self.bases.retain(|d| d.uri != uri);
        self.edits.retain(|e| e.uri != uri);
    }

    /// The oldest edit becomes part of its document's base text.
    fn fold_oldest(&mut self) {
        let Some(e) = self.edits.pop_front() else {
            return;
        };
        if let Some(doc) = self.bases.iter_mut().find(|d| d.uri == e.uri) {
            let mut h = nes::history::History::new(&doc.uri, &doc.language_id, &doc.text);
            if h.apply(nes::history::Edit {
                start: e.start,
                end: e.end,
                text: e.text,
            })
            .is_ok()
            {
                doc.text = h.text;
            }
        }
    }

    /// The documents as they were before the kept edits, and the edits in order.
    pub fn snapshot(&self) -> (Vec<DocumentJson>, Vec<EditJson>) {
        (self.bases.clone(), self.edits.iter().cloned().collect())
    }

    /// The number of edits kept.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

/// One edit that turns `old` into `new`: their common start and end kept, in UTF-16 units of
/// `old` (for a change the editor sent as the whole text).
pub fn whole_text_edit(uri: &str, old: &str, new: &str) -> Option<EditJson> {
    if old == new {
        return None;
    }
    let (prefix, suffix) = nes::ends::common_ends(old, new);
    let units = tokenizer::utf16::utf16_len;
    Some(EditJson {
        uri: uri.to_owned(),
        start: units(&old[..prefix]),
        end: units(&old[..old.len() - suffix]),
        text: new[prefix..new.len() - suffix].to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(uri: &str, start: usize, end: usize, text: &str) -> EditJson {
        EditJson {
            uri: uri.into(),
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn the_snapshot_replays_to_the_texts_now() {
        let mut log = EditLog::default();
        log.start("a", "python", "x = 1\n");
        log.record("a", edit("a", 4, 5, "2"), 6);
        log.start("b", "python", "y\n");
        log.record("b", edit("b", 0, 0, "é"), 4);
        log.start("a", "python", "ignored: a has its text");
        log.record("a", edit("a", 0, 1, "z"), 6);
        let (docs, edits) = log.snapshot();
        let request = nes::request::Request {
            documents: docs,
            edits,
            cursor: nes::request::CursorJson {
                uri: "a".into(),
                offset: 0,
            },
            ..Default::default()
        };
        let replayed = request.replay().unwrap();
        let texts: Vec<&str> = replayed.documents.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["éy\n", "z = 2\n"]);
    }

    #[test]
    fn old_edits_fold_into_the_base_and_documents_are_bounded() {
        let mut log = EditLog::default();
        let mut text = String::new();
        log.start("a", "rust", "");
        for i in 0..(MAX_EDITS + 50) {
            let e = edit("a", text.len(), text.len(), "x");
            text.push('x');
            log.record("a", e, text.len());
            assert!(log.len() <= MAX_EDITS, "{i}");
        }
        let (docs, edits) = log.snapshot();
        assert_eq!(docs[0].text.len() + edits.len(), text.len());
        for i in 0..(MAX_DOCUMENTS + 5) {
            let uri = format!("d{i}");
            log.start(&uri, "rust", "");
            log.record(&uri, edit(&uri, 0, 0, "y"), 1);
        }
        let (docs, _) = log.snapshot();
        assert_eq!(docs.len(), MAX_DOCUMENTS);
        assert!(docs.iter().all(|d| d.uri != "a"), "the oldest went first");
    }

    #[test]
    fn a_whole_text_change_is_one_minimal_edit() {
        let e = whole_text_edit("u", "let a = 1;\n", "let ab = 1;\n").unwrap();
        assert_eq!((e.start, e.end, e.text.as_str()), (5, 5, "b"));
        let e = whole_text_edit("u", "😀x", "😀y").unwrap();
        assert_eq!((e.start, e.end, e.text.as_str()), (2, 3, "y"));
        assert!(whole_text_edit("u", "same", "same").is_none());
    }
}
