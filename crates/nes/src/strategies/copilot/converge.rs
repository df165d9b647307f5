//! The library's reading of a rewritten window against the window it was shown: lines that
//! agree are skipped; where they part ways, a block runs until a few lines agree again (three,
//! or two with letters or digits), and becomes a line change. A change that only adds
//! characters to the cursor's line is taken at once. Multi-line blocks are then split by the
//! line diff.

use super::edits::LineReplacement;
use super::line_diff::line_diff;
use super::text::{Units, trim};

/// Lines that must agree before a diverging block ends: 3 in all, or 2 with letters or digits.
const LINES_TO_CONVERGE: usize = 3;
const SIGNIFICANT_LINES_TO_CONVERGE: usize = 2;

/// Whether a line has a letter or a digit other than zero (the library's test, verbatim in
/// effect: `[a-zA-Z1-9]`).
fn significant(line: &[u16]) -> bool {
    line.iter()
        .any(|&u| matches!(u, 0x41..=0x5A | 0x61..=0x7A | 0x31..=0x39))
}

/// The blocks where the answer leaves the window, as line changes of the window (1-based).
pub(super) fn diff(original: &[&[u16]], modified: &[Units], cursor: usize) -> Vec<LineReplacement> {
    let mut out = Vec::new();
    let mut at = 0usize;
    // `Some((start, new lines))` while the answer has parted from the window.
    let mut diverged: Option<(usize, Vec<Units>)> = None;
    for line in modified {
        if at >= original.len() {
            match &mut diverged {
                None => diverged = Some((at, vec![line.clone()])),
                Some((_, new)) => new.push(line.clone()),
            }
            continue;
        }
        if diverged.is_none() {
            if original[at] == line.as_slice() {
                at += 1;
                continue;
            }
            diverged = Some((at, Vec::new()));
        }
        let (start, new) = diverged.as_mut().expect("set above");
        new.push(line.clone());
        if let Some((change, end)) = converge(original, cursor, *start, new, at) {
            out.push(change);
            at = end;
            diverged = None;
        }
    }
    match diverged {
        Some((start, new)) => out.push(LineReplacement {
            start: start + 1,
            end: original.len() + 1,
            lines: new,
        }),
        None if at < original.len() => out.push(LineReplacement {
            start: at + 1,
            end: original.len() + 1,
            lines: Vec::new(),
        }),
        None => {}
    }
    out
}

/// Whether the diverging block `new` (from window line `start`) has met the window again:
/// its last lines equal window lines at or after `at`. Returns the change and where the window
/// goes on.
fn converge(
    original: &[&[u16]],
    cursor: usize,
    start: usize,
    new: &[Units],
    at: usize,
) -> Option<(LineReplacement, usize)> {
    let last = new.len() - 1;
    let mut candidates: Vec<(usize, usize)> = original
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == new[last].as_slice())
        .map(|(i, _)| (i, i))
        .collect();
    if candidates.is_empty() {
        // A change on the cursor's line that only adds characters is taken at once.
        if at != cursor || new.len() > 1 {
            return None;
        }
        let old = original[at];
        let line = &new[0];
        if trim(old).is_empty() && at + 1 < original.len() {
            let next = original[at + 1];
            if next == line.as_slice() || next.starts_with(line) {
                return None;
            }
        }
        if !is_subsequence(old, line) {
            return None;
        }
        return Some((
            LineReplacement {
                start: at + 1,
                end: at + 2,
                lines: new.to_vec(),
            },
            at + 1,
        ));
    }
    if new.len() < SIGNIFICANT_LINES_TO_CONVERGE {
        return None;
    }
    let mut plain = 1;
    let mut sig = usize::from(significant(&new[last]));
    let mut found = false;
    let mut matched = candidates[0];
    if matched.0 as isize - start as isize == new.len() as isize - 1 {
        found = true;
    }
    let mut k = last as isize - 1;
    while k >= 0 {
        let line = &new[k as usize];
        candidates = candidates
            .into_iter()
            .filter_map(|(end, cur)| {
                let cur = cur.checked_sub(1)?;
                (at <= cur && original[cur] == line.as_slice()).then_some((end, cur))
            })
            .collect();
        if candidates.is_empty() {
            break;
        }
        plain += 1;
        if significant(line) {
            sig += 1;
        }
        if sig == SIGNIFICANT_LINES_TO_CONVERGE {
            found = true;
            matched = candidates[0];
        }
        if plain == LINES_TO_CONVERGE {
            found = true;
            matched = candidates[0];
            break;
        }
        k -= 1;
    }
    if !found {
        return None;
    }
    let (conv_end, conv) = matched;
    let converging = conv_end - conv + 1;
    let removed = conv as isize - start as isize;
    let inserted = &new[..new.len().saturating_sub(converging)];
    if removed - inserted.len() as isize > 1 && !inserted.is_empty() {
        return None;
    }
    Some((
        LineReplacement {
            start: start + 1,
            end: conv + 1,
            lines: inserted.to_vec(),
        },
        conv_end + 1,
    ))
}

fn is_subsequence(sub: &[u16], of: &[u16]) -> bool {
    if sub.len() > of.len() {
        return false;
    }
    let mut i = 0;
    for &u in of {
        if i < sub.len() && u == sub[i] {
            i += 1;
        }
    }
    i == sub.len()
}

/// A block that replaces several lines with several lines, split into the changes a line diff
/// finds between them; insertions, deletions and one-line changes stay whole.
pub(super) fn split(window: &[&[u16]], block: LineReplacement) -> Vec<LineReplacement> {
    let old_len = block.end - block.start;
    if old_len == 0 || block.lines.is_empty() || (old_len == 1 && block.lines.len() == 1) {
        return vec![block];
    }
    let old: Vec<&[u16]> = window[block.start - 1..(block.end - 1).min(window.len())].to_vec();
    let new: Vec<&[u16]> = block.lines.iter().map(Vec::as_slice).collect();
    line_diff(&old, &new)
        .into_iter()
        .map(|(o, n)| LineReplacement {
            start: block.start + o.0,
            end: block.start + o.1,
            lines: block.lines[n.0..n.1].to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::text::{string, units};
    use super::*;

    fn lines(text: &str) -> Vec<Units> {
        text.split('\n').map(units).collect()
    }

    #[test]
    fn a_changed_line_is_one_block() {
        let window = lines("a\nPoint(1)\nb\nc\nd");
        let w: Vec<&[u16]> = window.iter().map(Vec::as_slice).collect();
        let got = diff(&w, &lines("a\nPoint3D(1)\nb\nc\nd"), 1);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].start, got[0].end), (2, 3));
        assert_eq!(string(&got[0].lines[0]), "Point3D(1)");
    }

    #[test]
    fn the_window_repeated_is_no_change() {
        let window = lines("x = 1\ny = 2\nz = 3");
        let w: Vec<&[u16]> = window.iter().map(Vec::as_slice).collect();
        assert!(diff(&w, &window, 0).is_empty());
    }
}
