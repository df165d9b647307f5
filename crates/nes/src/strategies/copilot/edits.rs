//! Edits as Copilot's library models them: a string edit is a sorted list of disjoint
//! replacements of one text, two edits in a row compose into one, and an edit seen by whole
//! lines is a line edit. The history, the diff history and the answer's edit are all built from
//! these, and the exact way they normalize and compose decides what the prompt shows.

use super::text::{Positions, Units, split_lines};

/// `[start, end)` of a text replaced by `text` (UTF-16 offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    pub start: usize,
    pub end: usize,
    pub text: Units,
}

impl Replacement {
    fn delta(&self) -> isize {
        self.text.len() as isize - (self.end - self.start) as isize
    }

    fn is_empty(&self) -> bool {
        self.start == self.end && self.text.is_empty()
    }
}

/// Sorted, disjoint replacements of one text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct StringEdit(pub Vec<Replacement>);

fn shift(offset: usize, by: isize) -> usize {
    (offset as isize + by).max(0) as usize
}

impl StringEdit {
    pub(crate) fn single(r: Replacement) -> StringEdit {
        StringEdit(vec![r])
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text with the edit applied.
    pub(crate) fn apply(&self, text: &[u16]) -> Units {
        let mut out = Vec::with_capacity(text.len());
        let mut at = 0;
        for r in &self.0 {
            let start = r.start.min(text.len()).max(at);
            out.extend_from_slice(&text[at..start]);
            out.extend_from_slice(&r.text);
            at = r.end.min(text.len()).max(start);
        }
        out.extend_from_slice(&text[at..]);
        out
    }

    /// Drops replacements that change nothing and joins those that touch.
    pub(crate) fn normalize(&self) -> StringEdit {
        let mut out: Vec<Replacement> = Vec::new();
        let mut last: Option<Replacement> = None;
        for r in &self.0 {
            if r.is_empty() {
                continue;
            }
            if let Some(l) = &mut last
                && l.end == r.start
            {
                l.end = r.end;
                l.text.extend_from_slice(&r.text);
                continue;
            }
            if let Some(l) = last.take() {
                out.push(l);
            }
            last = Some(r.clone());
        }
        out.extend(last);
        StringEdit(out)
    }

    /// The one edit with the effect of `self` then `other` (`other` is on `self`'s result).
    pub(crate) fn compose(&self, other: &StringEdit) -> StringEdit {
        let edits1 = self.normalize();
        let edits2 = other.normalize();
        if edits1.is_empty() {
            return edits2;
        }
        if edits2.is_empty() {
            return edits1;
        }
        let mut queue: std::collections::VecDeque<Replacement> = edits1.0.into_iter().collect();
        let mut result = Vec::new();
        let mut delta: isize = 0;
        for r2 in &edits2.0 {
            // The replacements of the first edit that end before this one starts stay as
            // they are.
            while let Some(r1) = queue.front() {
                if shift(r1.start, delta) + r1.text.len() >= r2.start {
                    break;
                }
                let r1 = queue.pop_front().expect("front exists");
                delta += r1.delta();
                result.push(r1);
            }
            let first_delta = delta;
            let mut first: Option<Replacement> = None;
            let mut last: Option<Replacement> = None;
            while let Some(r1) = queue.front() {
                if shift(r1.start, delta) > r2.end {
                    break;
                }
                let r1 = queue.pop_front().expect("front exists");
                delta += r1.delta();
                if first.is_none() {
                    first = Some(r1.clone());
                }
                last = Some(r1);
            }
            let (Some(first), Some(last)) = (first, last) else {
                result.push(Replacement {
                    start: shift(r2.start, -delta),
                    end: shift(r2.end, -delta),
                    text: r2.text.clone(),
                });
                continue;
            };
            let new_start = first.start.min(shift(r2.start, -first_delta));
            let prefix = r2.start as isize - (first.start as isize + first_delta);
            if prefix > 0 {
                let prefix = (prefix as usize).min(first.text.len());
                result.push(Replacement {
                    start: new_start,
                    end: new_start,
                    text: first.text[..prefix].to_vec(),
                });
            }
            let suffix = (last.end as isize + delta) - r2.end as isize;
            if suffix > 0 {
                let suffix = (suffix as usize).min(last.text.len());
                let tail = Replacement {
                    start: last.end,
                    end: last.end,
                    text: last.text[last.text.len() - suffix..].to_vec(),
                };
                delta -= tail.text.len() as isize;
                queue.push_front(tail);
            }
            result.push(Replacement {
                start: new_start,
                end: shift(r2.end, -delta),
                text: r2.text.clone(),
            });
        }
        result.extend(queue);
        StringEdit(result).normalize()
    }

    /// This edit moved over `base`, an edit of the same text applied first; `None` when the
    /// two touch the same text (overlap, insert at one place, or one inserts inside the
    /// other's range), as the library's `tryRebase` decides.
    pub(crate) fn try_rebase(&self, base: &StringEdit) -> Option<StringEdit> {
        let mut out = Vec::new();
        let (mut b, mut offset) = (0usize, 0isize);
        for ours in &self.0 {
            loop {
                let Some(theirs) = base.0.get(b) else {
                    out.push(Replacement {
                        start: shift(ours.start, offset),
                        end: shift(ours.end, offset),
                        text: ours.text.clone(),
                    });
                    break;
                };
                let (s, e) = (ours.start, ours.end);
                let (bs, be) = (theirs.start, theirs.end);
                let conflict = s.max(bs) < e.min(be)
                    || (s == e && bs == be && s == bs)
                    || (s == e && bs < s && s < be)
                    || (bs == be && s < bs && bs < e);
                if conflict {
                    return None;
                }
                if s < bs || (s == e && s == bs) {
                    out.push(Replacement {
                        start: shift(s, offset),
                        end: shift(e, offset),
                        text: ours.text.clone(),
                    });
                    break;
                }
                b += 1;
                offset += theirs.delta();
            }
        }
        Some(StringEdit(out))
    }

    /// The edit that undoes this one, with spaces standing for the text it removed (only the
    /// ranges matter where the library uses it).
    fn inverse_with_spaces(&self) -> StringEdit {
        let mut offset: isize = 0;
        StringEdit(
            self.0
                .iter()
                .map(|r| {
                    let start = shift(r.start, offset);
                    offset += r.delta();
                    Replacement {
                        start,
                        end: start + r.text.len(),
                        text: vec![b' ' as u16; r.end - r.start],
                    }
                })
                .collect(),
        )
    }

    /// `later` (applied after `self`) moved before it, if the two do not touch, as the
    /// library's `trySwap` does; returns `later` as it would apply first.
    pub(crate) fn try_swap(&self, later: &StringEdit) -> Option<StringEdit> {
        let moved = later.try_rebase(&self.inverse_with_spaces())?;
        self.try_rebase(&moved)?;
        Some(moved)
    }

    /// Where each replacement's new text lies in the result.
    pub(crate) fn new_ranges(&self) -> Vec<(usize, usize)> {
        let mut offset: isize = 0;
        self.0
            .iter()
            .map(|r| {
                let start = shift(r.start, offset);
                offset += r.delta();
                (start, start + r.text.len())
            })
            .collect()
    }
}

/// Lines `[start, end)` (1-based, as the library counts them) replaced by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineReplacement {
    pub start: usize,
    pub end: usize,
    pub lines: Vec<Units>,
}

/// The edit seen by whole lines, as the library's `LineEdit.fromStringEdit` sees it: the
/// replacements that share a line are joined, each keeps the untouched head of its first line
/// and tail of its last, and a first or last line the edit does not really change is left out.
pub(crate) fn line_edit(edit: &StringEdit, base: &[u16]) -> Vec<LineReplacement> {
    let pos = Positions::new(base);
    let mut out = Vec::new();
    let mut group: Vec<&Replacement> = Vec::new();
    for (i, r) in edit.0.iter().enumerate() {
        group.push(r);
        if let Some(next) = edit.0.get(i + 1)
            && pos.position(next.start).0 == pos.position(r.end).0
        {
            continue;
        }
        // Replacements on one line become one, with the text between them kept.
        let start = group[0].start;
        let end = group[group.len() - 1].end;
        let mut text = Vec::new();
        for (k, g) in group.iter().enumerate() {
            text.extend_from_slice(&g.text);
            if let Some(n) = group.get(k + 1) {
                text.extend_from_slice(&base[g.end.min(n.start)..n.start]);
            }
        }
        group.clear();
        out.push(line_replacement(&pos, base, start, end, &text));
    }
    out
}

fn line_replacement(
    pos: &Positions,
    base: &[u16],
    start: usize,
    end: usize,
    text: &[u16],
) -> LineReplacement {
    let (start_line, start_col) = pos.position(start);
    let (end_line, end_col) = pos.position(end);
    let mut lines: Vec<Units> = split_lines(text).into_iter().map(<[u16]>::to_vec).collect();
    let head = &base[pos.line_start(start_line)..pos.offset(start_line, start_col)];
    let mut first = head.to_vec();
    first.extend_from_slice(&lines[0]);
    lines[0] = first;
    let tail = &base[pos.offset(end_line, end_col)..pos.line_end(end_line)];
    lines
        .last_mut()
        .expect("one line at least")
        .extend_from_slice(tail);
    let mut first_line = start_line + 1;
    let mut end_line_ex = end_line + 2;
    let start_at_line_end = start_col == pos.line_len(start_line);
    if start_at_line_end && lines[0].len() == head.len() {
        first_line += 1;
        lines.remove(0);
    }
    if !lines.is_empty()
        && first_line < end_line_ex
        && end_col == 0
        && lines[lines.len() - 1].len() == tail.len()
    {
        end_line_ex -= 1;
        lines.pop();
    }
    LineReplacement {
        start: first_line,
        end: end_line_ex,
        lines,
    }
}

impl LineReplacement {
    /// The replacement as a string replacement of `base`, as the library's
    /// `toSingleTextEdit` makes it (whole lines, no trimming to the changed characters).
    pub(crate) fn to_replacement(&self, base: &[u16]) -> Replacement {
        let pos = Positions::new(base);
        let count = pos.line_count();
        let lf = b'\n' as u16;
        if self.lines.is_empty() {
            if self.end > count {
                let start = if self.start > 1 {
                    pos.line_end(self.start - 2)
                } else {
                    0
                };
                return Replacement {
                    start,
                    end: base.len(),
                    text: Vec::new(),
                };
            }
            return Replacement {
                start: pos.line_start(self.start - 1),
                end: pos.line_start(self.end - 1),
                text: Vec::new(),
            };
        }
        if self.start == self.end {
            let mut text = Vec::new();
            if self.start == count + 1 {
                let at = pos.line_end(count - 1);
                for l in &self.lines {
                    text.push(lf);
                    text.extend_from_slice(l);
                }
                return Replacement {
                    start: at,
                    end: at,
                    text,
                };
            }
            for l in &self.lines {
                text.extend_from_slice(l);
                text.push(lf);
            }
            let at = pos.line_start(self.start - 1);
            return Replacement {
                start: at,
                end: at,
                text,
            };
        }
        Replacement {
            start: pos.line_start(self.start - 1),
            end: pos.line_end(self.end - 2),
            text: super::text::join_lines(&self.lines),
        }
    }
}

/// The smallest replacement turning `from` into `to`, common end trimmed first.
pub(super) fn minimal(from: &[u16], to: &[u16]) -> Option<Replacement> {
    if from == to {
        return None;
    }
    let max = from.len().min(to.len());
    let mut suffix = 0;
    while suffix < max && from[from.len() - 1 - suffix] == to[to.len() - 1 - suffix] {
        suffix += 1;
    }
    let mut prefix = 0;
    while prefix < max - suffix && from[prefix] == to[prefix] {
        prefix += 1;
    }
    Some(Replacement {
        start: prefix,
        end: from.len() - suffix,
        text: to[prefix..to.len() - suffix].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::text::{string, units};
    use super::*;

    fn r(start: usize, end: usize, text: &str) -> Replacement {
        Replacement {
            start,
            end,
            text: units(text),
        }
    }

    #[test]
    fn composing_keeps_the_effect_of_both() {
        let base = units("hello world");
        let cases: &[(Vec<Replacement>, Vec<Replacement>)] = &[
            (vec![r(5, 5, " big")], vec![r(9, 9, "ger")]),
            (vec![r(0, 5, "howdy")], vec![r(2, 8, "")]),
            (vec![r(0, 0, "X")], vec![r(0, 1, "")]),
            (vec![r(6, 11, "there")], vec![r(0, 1, "J")]),
            (vec![r(3, 4, "LLL")], vec![r(4, 5, "")]),
        ];
        for (a, b) in cases {
            let (a, b) = (StringEdit(a.clone()), StringEdit(b.clone()));
            let want = b.apply(&a.apply(&base));
            let got = a.compose(&b).apply(&base);
            assert_eq!(string(&got), string(&want), "{a:?} then {b:?}");
        }
    }

    #[test]
    fn an_inserted_line_is_a_pure_insertion() {
        let base = units("a\nb\nc\n");
        let e = StringEdit::single(r(2, 2, "x\n"));
        let le = line_edit(&e, &base);
        assert_eq!(
            le,
            [LineReplacement {
                start: 2,
                end: 2,
                lines: vec![units("x")]
            }]
        );
        let back = le[0].to_replacement(&base);
        assert_eq!(
            string(&StringEdit::single(back).apply(&base)),
            "a\nx\nb\nc\n"
        );
    }

    #[test]
    fn a_word_typed_replaces_its_line() {
        let base = units("class Point {\n}");
        let le = line_edit(&StringEdit::single(r(11, 11, "3D")), &base);
        assert_eq!(le[0].start, 1);
        assert_eq!(le[0].end, 2);
        assert_eq!(string(&le[0].lines[0]), "class Point3D {");
    }
}
