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

/// The suggestions as `textDocument/inlineCompletion` items. The text does not end with the
/// model's final line break, as for Copilot's methods: the item replaces up to the rest of the
/// cursor's line and the line break after it stays, so a trailing one would leave an empty
/// line behind.
pub(super) fn inline_items(outcome: &Outcome, place: &Placement<'_>) -> Value {
    let items: Vec<Value> = outcome
        .suggestions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (start, end) = place.replaced(s);
            json!({
                "insertText": without_final_line_break(&s.text),
                "range": {"start": place.position(start), "end": place.position(end)},
                "command": {"title": "Accept", "command": "github.copilot.didAcceptCompletionItem",
                            "arguments": [format!("pilotfish-{}", place.uuid_base + i as u64)]},
            })
        })
        .collect();
    json!({ "items": items })
}

/// One suggestion as Copilot's plugins take it: the whole line from character 0, the range it
/// replaces, and the part to show after the cursor. Neither text ends with a line break, as
/// Copilot's server sends them: the plugins insert the text and keep the line that followed
/// the cursor, so a trailing line break would leave an empty line behind.
pub(super) fn copilot_item(s: &Suggestion, place: &Placement<'_>, i: usize) -> Value {
    let (start, end) = place.replaced(s);
    let line_start = place.text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let shown = without_final_line_break(&s.text);
    let whole = format!("{}{shown}", &place.text[line_start..start]);
    let (line, _) = to_position(place.text, place.offset, place.encoding);
    json!({
        "uuid": format!("pilotfish-{}", place.uuid_base + i as u64),
        "text": whole,
        "range": {"start": {"line": line, "character": 0}, "end": place.position(end)},
        "displayText": shown,
        "position": place.position(place.offset),
        "docVersion": place.version,
    })
}

pub(super) fn copilot_items(suggestions: &[Suggestion], place: &Placement<'_>) -> Value {
    let items: Vec<Value> = suggestions
        .iter()
        .enumerate()
        .map(|(i, s)| copilot_item(s, place, i))
        .collect();
    json!({ "completions": items })
}

/// `text` without the white space at its end when that white space holds a line break (an
/// answer's final newline and the indentation of the line after it); other text as it is.
fn without_final_line_break(text: &str) -> &str {
    let trimmed = text.trim_end();
    if text[trimmed.len()..].contains(['\n', '\r']) {
        trimmed
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::without_final_line_break;

    #[test]
    fn only_a_final_line_break_and_what_follows_it_is_dropped() {
        for (text, shown) in [
            ("return a + b\n", "return a + b"),
            ("return a + b\r\n", "return a + b"),
            ("if x:\n    y\n    ", "if x:\n    y"),
            ("x + ", "x + "),
            ("x\n\n\n", "x"),
            ("\n", ""),
            ("", ""),
        ] {
            assert_eq!(without_final_line_break(text), shown, "{text:?}");
        }
    }
}
