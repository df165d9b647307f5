//! What a document went through: its text when the history starts, the user's edits since, in
//! order, and its text now. Offsets count UTF-16 code units, as editors and Copilot count them.
//! The history is bounded: past a number of edits the oldest are folded into the start.

use tokenizer::utf16::{Utf16Pos, utf16_pos};

/// One edit: `[start, end)` of the text at that moment replaced by `text` (UTF-16 offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A document and its edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History {
    pub uri: String,
    pub language_id: String,
    /// The text before the first edit kept.
    pub base: String,
    /// The edits since `base`, oldest first.
    pub edits: Vec<Edit>,
    /// The text now.
    pub text: String,
}

/// The byte offset of a UTF-16 offset, or `Err(offset)` when it falls inside a surrogate pair.
pub fn byte_offset(text: &str, units: usize) -> Result<usize, usize> {
    match utf16_pos(text, units) {
        Utf16Pos::Boundary(b) => Ok(b),
        Utf16Pos::InsidePair(_) => Err(units),
    }
}

impl History {
    pub fn new(uri: &str, language_id: &str, text: &str) -> History {
        History {
            uri: uri.to_owned(),
            language_id: language_id.to_owned(),
            base: text.to_owned(),
            edits: Vec::new(),
            text: text.to_owned(),
        }
    }

    /// Applies an edit to the text now; `Err(offset)` when an end splits a character. The
    /// caller has checked that the range lies within the text.
    pub fn apply(&mut self, edit: Edit) -> Result<(), usize> {
        let start = byte_offset(&self.text, edit.start)?;
        let end = byte_offset(&self.text, edit.end)?;
        self.text.replace_range(start..end, &edit.text);
        self.edits.push(edit);
        Ok(())
    }

    /// Keeps at most `max` edits: older ones are folded into `base`.
    pub fn bound(&mut self, max: usize) {
        if self.edits.len() <= max {
            return;
        }
        let fold = self.edits.len() - max;
        for e in self.edits.drain(..fold) {
            // These offsets were checked when the edit was applied to the same text.
            if let (Ok(s), Ok(t)) = (
                byte_offset(&self.base, e.start),
                byte_offset(&self.base, e.end),
            ) {
                self.base.replace_range(s..t, &e.text);
            }
        }
    }

    /// The text after the first `n` edits.
    pub fn text_after(&self, n: usize) -> String {
        let mut text = self.base.clone();
        for e in &self.edits[..n.min(self.edits.len())] {
            if let (Ok(s), Ok(t)) = (byte_offset(&text, e.start), byte_offset(&text, e.end)) {
                text.replace_range(s..t, &e.text);
            }
        }
        text
    }
}
