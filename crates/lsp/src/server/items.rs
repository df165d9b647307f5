//! Suggestions in the shapes the client asked for: LSP inline completion items, Copilot's
//! plugins' completions and panel solutions, with ranges in the client's position encoding.

use ghost::{Outcome, Suggestion};
use serde_json::{Value, json};

use super::Flavor;
use crate::position::{Encoding, to_position};

pub(super) fn empty_result(flavor: Flavor) -> Value {
    match flavor {
        Flavor::Inline => json!({"items": []}),
        Flavor::Copilot => json!({"completions": []}),
        Flavor::Panel => json!({"solutionCountTarget": 0}),
    }
}

/// Where suggestions go in the document as the client sees it.
pub(super) struct Placement<'a> {
    pub(super) text: &'a str,
    pub(super) offset: usize,
    pub(super) encoding: Encoding,
    pub(super) version: i64,
    pub(super) uuid_base: u64,
}

impl Placement<'_> {
    /// The byte range a suggestion replaces: white space before the cursor, and part of the
    /// rest of the line after it (both counted in UTF-16 units by the pipeline).
    fn replaced(&self, s: &Suggestion) -> (usize, usize) {
        let before = &self.text[..self.offset];
        let mut start = self.offset;
        let mut units = 0;
        for c in before.chars().rev() {
            if units >= s.replaces_before {
                break;
            }
            units += c.len_utf16();
            start -= c.len_utf8();
        }
        let rest = &self.text[self.offset..];
        let line = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
        let mut end = self.offset;
        let mut units = 0;
        for c in line.chars() {
            if units >= s.replaces {
                break;
            }
            units += c.len_utf16();
            end += c.len_utf8();
        }
        (start, end)
    }

    fn position(&self, offset: usize) -> Value {
        let (line, character) = to_position(self.text, offset, self.encoding);
        json!({"line": line, "character": character})
    }
}

pub(super) fn inline_items(outcome: &Outcome, place: &Placement<'_>) -> Value {
    let items: Vec<Value> = outcome
        .suggestions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (start, end) = place.replaced(s);
            json!({
                "insertText": s.text,
                "range": {"start": place.position(start), "end": place.position(end)},
                "command": {"title": "Accept", "command": "github.copilot.didAcceptCompletionItem",
                            "arguments": [format!("pilotfish-{}", place.uuid_base + i as u64)]},
            })
        })
        .collect();
    json!({ "items": items })
}

/// One suggestion as Copilot's plugins take it: the whole line from character 0, the range it
/// replaces, and the part to show after the cursor.
pub(super) fn copilot_item(s: &Suggestion, place: &Placement<'_>, i: usize) -> Value {
    let (start, end) = place.replaced(s);
    let line_start = place.text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let whole = format!("{}{}", &place.text[line_start..start], s.text);
    let (line, _) = to_position(place.text, place.offset, place.encoding);
    json!({
        "uuid": format!("pilotfish-{}", place.uuid_base + i as u64),
        "text": whole,
        "range": {"start": {"line": line, "character": 0}, "end": place.position(end)},
        "displayText": s.text,
        "position": place.position(place.offset),
        "docVersion": place.version,
    })
}

pub(super) fn copilot_items(outcome: &Outcome, place: &Placement<'_>) -> Value {
    let items: Vec<Value> = outcome
        .suggestions
        .iter()
        .enumerate()
        .map(|(i, s)| copilot_item(s, place, i))
        .collect();
    json!({ "completions": items })
}
