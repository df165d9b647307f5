//! The edit history Copilot's library keeps for its prompt, rebuilt from the request: one
//! entry per edit, an edit merged into its document's latest entry when both start on the same
//! line, a "viewed" entry per looked-at document, at most 25 entries. Also where the library
//! puts the cursor when the editor reports none.

use super::edits::{Replacement, StringEdit, line_edit};
use super::text::{Positions, Units, units};
use crate::request::Replayed;

/// How many entries the library keeps (its `diffNEntries` setting, also the history's size).
pub(crate) const MAX_ENTRIES: usize = 25;

/// What an entry records.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// An edit (possibly several merged) of the text `base`.
    Edit { base: Units, edit: StringEdit },
    /// The user looked at the document.
    Viewed,
}

/// One entry of the history, oldest first in [`History::entries`].
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Index into the request's documents.
    pub doc: usize,
    pub kind: Kind,
    ordinal: u64,
}

/// The library's history of the request's edits.
#[derive(Debug, Clone, Default)]
pub(crate) struct History {
    pub entries: Vec<Entry>,
    /// The ordinal of each document's latest entry, while it is in the history.
    latest: Vec<Option<u64>>,
    next: u64,
}

impl History {
    /// Replays the request's viewed ranges, then its edits, as an editor would report them.
    pub(crate) fn replay(replayed: &Replayed) -> History {
        let mut h = History {
            latest: vec![None; replayed.documents.len()],
            ..History::default()
        };
        for v in &replayed.viewed {
            if let Some(doc) = replayed.documents.iter().position(|d| d.uri == v.uri) {
                h.view(doc);
            }
        }
        let mut texts: Vec<Units> = replayed.documents.iter().map(|d| units(&d.base)).collect();
        let mut next_edit = vec![0usize; replayed.documents.len()];
        for &doc in &replayed.edit_order {
            let Some(e) = replayed
                .documents
                .get(doc)
                .and_then(|d| d.edits.get(next_edit[doc]))
            else {
                continue;
            };
            next_edit[doc] += 1;
            let base = &texts[doc];
            let r = Replacement {
                start: e.start.min(base.len()),
                end: e.end.min(base.len()),
                text: units(&e.text),
            };
            let edit = StringEdit::single(r);
            let after = edit.apply(base);
            h.edit(doc, base.clone(), edit);
            texts[doc] = after;
        }
        h
    }

    fn position_of(&self, ordinal: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.ordinal == ordinal)
    }

    fn latest_entry(&self, doc: usize) -> Option<usize> {
        self.latest[doc].and_then(|o| self.position_of(o))
    }

    fn view(&mut self, doc: usize) {
        if let Some(at) = self.latest_entry(doc) {
            if matches!(self.entries[at].kind, Kind::Edit { .. }) {
                return;
            }
            self.entries.remove(at);
        }
        self.push(doc, Kind::Viewed);
    }

    fn edit(&mut self, doc: usize, base: Units, edit: StringEdit) {
        let Some(at) = self.latest_entry(doc) else {
            return self.push(doc, Kind::Edit { base, edit });
        };
        let merged = match &self.entries[at].kind {
            Kind::Viewed => None,
            Kind::Edit {
                base: last_base,
                edit: last,
            } => {
                let before = line_edit(last, last_base);
                let now = line_edit(&edit, &base);
                match (before.first(), now.first()) {
                    (Some(b), Some(n)) if b.start == n.start => Some(Kind::Edit {
                        base: last_base.clone(),
                        edit: last.compose(&edit),
                    }),
                    _ => None,
                }
            }
        };
        if merged.is_some() || matches!(self.entries[at].kind, Kind::Viewed) {
            self.entries.remove(at);
        }
        self.push(doc, merged.unwrap_or(Kind::Edit { base, edit }));
    }

    fn push(&mut self, doc: usize, kind: Kind) {
        let ordinal = self.next;
        self.next += 1;
        self.entries.push(Entry { doc, kind, ordinal });
        self.latest[doc] = Some(ordinal);
        if self.entries.len() > MAX_ENTRIES {
            let gone = self.entries.remove(0);
            if self.latest[gone.doc] == Some(gone.ordinal) {
                self.latest[gone.doc] = None;
            }
        }
    }
}

/// The document's edits as the library's second history groups them: an edit whose every
/// change touches what the previous group inserted (while that is under 200 units) joins it,
/// and a group that composes to nothing goes. Oldest first, each with the text it applies to.
fn groups(replayed: &Replayed, doc: usize) -> Vec<(Units, StringEdit)> {
    let history = &replayed.documents[doc];
    let mut text = units(&history.base);
    let mut groups: Vec<(Units, StringEdit)> = Vec::new();
    for e in &history.edits {
        let edit = StringEdit::single(Replacement {
            start: e.start.min(text.len()),
            end: e.end.min(text.len()),
            text: units(&e.text),
        });
        let after = edit.apply(&text);
        let joins = groups.last().is_some_and(|(_, last)| {
            let inserted: usize = last.0.iter().map(|r| r.text.len()).sum();
            let ranges = last.new_ranges();
            inserted < 200
                && edit
                    .0
                    .iter()
                    .all(|r| ranges.iter().any(|&(s, t)| r.start == t || r.end == s))
        });
        if joins {
            let (base, last) = groups.pop().expect("checked above");
            let composed = last.compose(&edit);
            if !composed.is_empty() {
                groups.push((base, composed));
            }
        } else {
            groups.push((text.clone(), edit));
        }
        text = after;
    }
    groups
}

/// The document's recent edits as the library's filters see them: walking back from the
/// newest group, groups are kept while each is within the size limits and, all together, they
/// change at most five separate runs of lines. Returns the text before the oldest kept group
/// and the kept groups, oldest first.
pub(crate) fn recent_edits(replayed: &Replayed, doc: usize) -> (Units, Vec<StringEdit>) {
    let groups = groups(replayed, doc);
    let mut recent = StringEdit::default();
    // The newest group as it would apply at each step back, while it can be moved there.
    let mut newest = StringEdit::default();
    let mut kept = groups.len();
    for (i, (base, edit)) in groups.iter().enumerate().rev() {
        let changed = changed_lines(base, edit);
        if changed > 10 || !within_chars(edit) {
            break;
        }
        if i + 1 == groups.len() {
            newest = edit.clone();
        } else {
            match edit.try_swap(&newest) {
                Some(moved) => newest = moved,
                // A larger edit that the newest one changes would hide it: stop here.
                None if changed >= 2 => break,
                None => newest = edit.compose(&newest),
            }
        }
        let candidate = edit.compose(&recent);
        if changed_runs(&candidate, base) > 5 {
            break;
        }
        recent = candidate;
        kept = i;
    }
    let base = match groups.get(kept) {
        Some((b, _)) => b.clone(),
        None => units(&replayed.documents[doc].text),
    };
    (
        base,
        groups.into_iter().skip(kept).map(|(_, e)| e).collect(),
    )
}

/// Where the library puts the cursor when the editor's selection is at the very start of the
/// document (which it takes for "no selection"): after the last change of the document's most
/// recent edit group. `None` when the document has no edit the library would look at.
pub(crate) fn cursor_from_last_edit(replayed: &Replayed, doc: usize) -> Option<usize> {
    let (_, recent) = recent_edits(replayed, doc);
    let last = recent.last()?;
    let text = units(&replayed.documents[doc].text);
    let r = last.0.last()?;
    let offset = (r.end + r.text.len()).saturating_sub(r.end - r.start);
    let positions = Positions::new(&text);
    let (line, column) = positions.position(offset);
    Some(positions.offset(line, column))
}

/// How many separate runs of lines an edit really changes (lines it rewrites to the same text
/// at either end of a run do not count).
fn changed_runs(edit: &StringEdit, base: &[u16]) -> usize {
    let lines = super::text::split_lines(base);
    line_edit(edit, base)
        .into_iter()
        .filter(|r| {
            let (mut start, mut end) = (r.start, r.end);
            let mut head = 0;
            while start < end
                && head < r.lines.len()
                && lines.get(start - 1) == Some(&r.lines[head].as_slice())
            {
                start += 1;
                head += 1;
            }
            let mut tail = 0;
            while start < end
                && head + tail < r.lines.len()
                && lines.get(end - 2) == Some(&r.lines[r.lines.len() - 1 - tail].as_slice())
            {
                end -= 1;
                tail += 1;
            }
            start != end || r.lines.len() > head + tail
        })
        .count()
}

/// How many lines an edit changes: the lines each replacement spans and the lines it inserts.
fn changed_lines(base: &[u16], edit: &StringEdit) -> usize {
    let positions = Positions::new(base);
    edit.0
        .iter()
        .map(|r| {
            let lines = positions.position(r.end).0 - positions.position(r.start).0;
            lines + r.text.iter().filter(|&&u| u == b'\n' as u16).count()
        })
        .sum()
}

/// Whether an edit inserts and removes at most 5,000 units, past which the library does not
/// look at it.
fn within_chars(edit: &StringEdit) -> bool {
    let inserted: usize = edit.0.iter().map(|r| r.text.len()).sum();
    let removed: usize = edit.0.iter().map(|r| r.end - r.start).sum();
    inserted <= 5000 && removed <= 5000
}
