//! The model's answer read as Copilot's library reads it: the rewritten lines compared with the
//! edit window line by line, each block where they part ways (until they meet again on a few
//! lines) made a line change, multi-line changes split further by a line diff, and the first
//! change that passes the library's filters kept. Filters drop changes to import lines,
//! changes of blank lines or leading and trailing white space only, deletions of what the user
//! just typed, and lines that leak the prompt's own tags.

use super::edits::{LineReplacement, Replacement, StringEdit};
use super::text::{Positions, Units, is_blank, split_lines, string, trim, units};
use super::tracker::recent_edits;
use crate::{
    prompt::{Prompt, Suggestion},
    request::Replayed,
};

/// Lines that must agree before a diverging block ends: 3 in all, or 2 with letters or digits.
const LINES_TO_CONVERGE: usize = 3;
const SIGNIFICANT_LINES_TO_CONVERGE: usize = 2;

/// Substrings that mark an answer as leaking the prompt.
const LEAKS: [&str; 3] = [
    "<|current_file_content|>",
    "<|/current_file_content|>",
    "<|diff_marker|>",
];

pub(crate) fn suggest(replayed: &Replayed, prompt: &Prompt, answer: &str) -> Option<Suggestion> {
    let doc = &replayed.documents[replayed.cursor_document];
    let content = units(&doc.text);
    let lines = split_lines(&content);
    let positions = Positions::new(&content);
    let window_start = positions
        .position(units_offset(&doc.text, prompt.window.start))
        .0;
    let cursor = if replayed.cursor == 0 {
        super::tracker::cursor_from_last_edit(replayed, replayed.cursor_document)?
    } else {
        replayed.cursor
    };
    let cursor_line = positions.position(cursor).0;
    let window_start = window_start.min(lines.len());
    let window_end = (window_start + prompt_window_lines(prompt)).min(lines.len());
    let window: Vec<&[u16]> = lines[window_start..window_end].to_vec();
    let cursor_tag = units("<|cursor|>");
    let keep_tag = window.iter().any(|l| super::text::contains(l, &cursor_tag));
    let answer_lines: Vec<Units> = answer_lines(answer)
        .into_iter()
        .map(|l| {
            let l = units(l);
            if keep_tag {
                l
            } else {
                super::text::remove_all(&l, &cursor_tag)
            }
        })
        .collect();
    let answer_lines = unfenced(&window, answer_lines);
    if is_junk(&window, &answer_lines) {
        return None;
    }
    // The filters see the document before the user's recent edits and those edits as the
    // library's second history keeps them.
    let (before, groups) = recent_edits(replayed, replayed.cursor_document);
    let before_lines = split_lines(&before);
    for block in diff(
        &window,
        &answer_lines,
        cursor_line.saturating_sub(window_start),
    ) {
        for change in split(&window, block) {
            let change = LineReplacement {
                start: change.start + window_start,
                end: change.end + window_start,
                lines: change.lines,
            };
            if is_import_change(&change, &doc.language_id, &before_lines)
                || is_whitespace_change(&change, &lines)
                || deletes_what_was_typed(&change, &content, &groups)
                || leaks_prompt(&change)
            {
                continue;
            }
            return to_suggestion(&doc.uri, &content, &change);
        }
    }
    None
}

/// The answer without a code fence around it, when the window itself has none. Copilot's
/// default model answers bare lines, and its library would insert a fence line into the code;
/// a chat model (a local one above all) often fences its answer, so pilotfish reads it as the
/// library reads its fenced format (`copilot-nes-xtab`'s): a first line of three backticks and
/// a language name, and a last line of three backticks, are dropped.
fn unfenced(window: &[&[u16]], mut lines: Vec<Units>) -> Vec<Units> {
    let fence = |l: &[u16]| {
        let l = string(l);
        l.strip_prefix("```")
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_lowercase()))
    };
    if window
        .iter()
        .any(|l| string(l).trim_start().starts_with("```"))
    {
        return lines;
    }
    // A final line break leaves one empty line after the closing fence.
    let closing = match lines.len() {
        n if n >= 2 && lines[n - 1].is_empty() => n - 2,
        n => n.saturating_sub(1),
    };
    if lines.len() >= 2 && closing > 0 && fence(&lines[0]) && string(&lines[closing]) == "```" {
        lines.truncate(closing);
        lines.remove(0);
    }
    lines
}

/// Whether the answer is not a rewrite of the window at all: the refusal the system message
/// asks for, nothing but blank lines for a window with code, or, for a window with code on two
/// lines or more, text that shares no word (of three letters or more) with it. Copilot's library would put such text in place of the
/// window's lines; pilotfish's one departure from it here is to suggest nothing instead.
fn is_junk(window: &[&[u16]], answer: &[Units]) -> bool {
    let refusal = units("Sorry, I can't assist with that.");
    if answer.iter().any(|l| super::text::contains(l, &refusal)) {
        return true;
    }
    let code = window.iter().filter(|l| !is_blank(l)).count();
    let theirs: std::collections::HashSet<String> =
        window.iter().flat_map(|l| words(&string(l))).collect();
    let ours: Vec<String> = answer.iter().flat_map(|l| words(&string(l))).collect();
    // Nothing at all where the window has code: the model stopped at once.
    let nothing = answer.iter().all(|l| is_blank(l));
    (code >= 1 && nothing)
        || (code >= 2 && !ours.is_empty() && ours.iter().all(|w| !theirs.contains(w)))
}

/// The words of a line: runs of letters, digits and underscores, three or more long.
fn words(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_owned)
        .collect()
}

/// How many lines the window has: the prediction holds them, joined by line feeds.
fn prompt_window_lines(prompt: &Prompt) -> usize {
    match &prompt.body {
        crate::prompt::Body::Chat {
            prediction: Some(p),
            ..
        } => p.split('\n').count(),
        _ => split_lines(&units(&prompt.window.text)).len(),
    }
}

fn units_offset(text: &str, byte: usize) -> usize {
    // A window from another request could fall inside a character; count up to the
    // character boundary before it rather than panic.
    let mut b = byte.min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    tokenizer::utf16::utf16_len(&text[..b])
}

/// The answer's lines, split at `\n` or `\r\n`; an answer ending in a line break has a last,
/// empty line.
fn answer_lines(answer: &str) -> Vec<&str> {
    let parts: Vec<&str> = answer.split('\n').collect();
    let last = parts.len() - 1;
    parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            if i < last {
                p.strip_suffix('\r').unwrap_or(p)
            } else {
                p
            }
        })
        .collect()
}

/// Whether a line has a letter or a digit other than zero (the library's test, verbatim in
/// effect: `[a-zA-Z1-9]`).
fn significant(line: &[u16]) -> bool {
    line.iter()
        .any(|&u| matches!(u, 0x41..=0x5A | 0x61..=0x7A | 0x31..=0x39))
}

/// The blocks where the answer leaves the window, as line changes of the window (1-based).
fn diff(original: &[&[u16]], modified: &[Units], cursor: usize) -> Vec<LineReplacement> {
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
fn split(window: &[&[u16]], block: LineReplacement) -> Vec<LineReplacement> {
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

type Span = (usize, usize);

/// The changed runs between two lists of lines, as VS Code's line diff (which the library
/// uses) finds them: everything at once when either side is one empty line; else lines
/// aligned by their trimmed text with a dynamic programme that prefers long and consecutive
/// matches, diffs separated by almost nothing joined, and aligned lines whose white space
/// differs made changes of their own.
fn line_diff(old: &[&[u16]], new: &[&[u16]]) -> Vec<(Span, Span)> {
    let (n, m) = (old.len(), new.len());
    if n <= 1 && old == new {
        return Vec::new();
    }
    if (n == 1 && old[0].is_empty()) || (m == 1 && new[0].is_empty()) {
        return vec![((0, n), (0, m))];
    }
    let a: Vec<&[u16]> = old.iter().map(|l| trim(l)).collect();
    let b: Vec<&[u16]> = new.iter().map(|l| trim(l)).collect();
    // lcs[i][j], the direction taken (3 diagonal, 1 from above, 2 from the left) and the
    // length of the diagonal run ending there.
    let mut lcs = vec![vec![0.0f64; m]; n];
    let mut dir = vec![vec![0u8; m]; n];
    let mut run = vec![vec![0usize; m]; n];
    for i in 0..n {
        for j in 0..m {
            let up = if i == 0 { 0.0 } else { lcs[i - 1][j] };
            let left = if j == 0 { 0.0 } else { lcs[i][j - 1] };
            let diagonal = if a[i] == b[j] {
                let mut score = if i == 0 || j == 0 {
                    0.0
                } else {
                    lcs[i - 1][j - 1]
                };
                if i > 0 && j > 0 && dir[i - 1][j - 1] == 3 {
                    score += run[i - 1][j - 1] as f64;
                }
                score
                    + if old[i] == new[j] {
                        if new[j].is_empty() {
                            0.1
                        } else {
                            1.0 + (1.0 + new[j].len() as f64).ln()
                        }
                    } else {
                        0.99
                    }
            } else {
                -1.0
            };
            let best = up.max(left).max(diagonal);
            if best == diagonal {
                run[i][j] = if i > 0 && j > 0 { run[i - 1][j - 1] } else { 0 } + 1;
                dir[i][j] = 3;
            } else if best == up {
                dir[i][j] = 1;
            } else {
                dir[i][j] = 2;
            }
            lcs[i][j] = best;
        }
    }
    let mut diffs: Vec<(Span, Span)> = Vec::new();
    let mut aligned: Vec<(usize, usize)> = Vec::new();
    let (mut last_i, mut last_j) = (n as isize, m as isize);
    let mut report = |i: isize, j: isize, diffs: &mut Vec<(Span, Span)>| {
        if i + 1 != last_i || j + 1 != last_j {
            diffs.push((
                ((i + 1) as usize, last_i as usize),
                ((j + 1) as usize, last_j as usize),
            ));
        }
        (last_i, last_j) = (i, j);
    };
    let (mut i, mut j) = (n as isize - 1, m as isize - 1);
    while i >= 0 && j >= 0 {
        match dir[i as usize][j as usize] {
            3 => {
                report(i, j, &mut diffs);
                aligned.push((i as usize, j as usize));
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    report(-1, -1, &mut diffs);
    diffs.reverse();
    let diffs = shift_diffs(&a, &b, old, new, diffs);
    let diffs = join_short_gaps(&a, diffs);
    // Aligned lines that differ only in white space are changes too.
    let mut out: Vec<(Span, Span)> = diffs;
    for (i, j) in aligned {
        if old[i] != new[j] && !out.iter().any(|(o, _)| o.0 <= i && i < o.1) {
            out.push(((i, i + 1), (j, j + 1)));
        }
    }
    out.sort();
    // Changes that touch become one.
    let mut joined: Vec<(Span, Span)> = Vec::new();
    for (o, nw) in out {
        if let Some(last) = joined.last_mut()
            && last.0.1 >= o.0
            && last.1.1 >= nw.0
        {
            last.0.1 = last.0.1.max(o.1);
            last.1.1 = last.1.1.max(nw.1);
            continue;
        }
        joined.push((o, nw));
    }
    joined
}

/// VS Code's first clean-up of a line diff: insertions and deletions slid left, then right,
/// over equal lines, joining their neighbours where they meet, twice; then each slid to
/// where the indentation around it is least.
fn shift_diffs(
    a: &[&[u16]],
    b: &[&[u16]],
    old: &[&[u16]],
    new: &[&[u16]],
    diffs: Vec<(Span, Span)>,
) -> Vec<(Span, Span)> {
    let diffs = join_by_shifting(a, b, old, new, diffs);
    let mut diffs = join_by_shifting(a, b, old, new, diffs);
    for i in 0..diffs.len() {
        let prev = i.checked_sub(1).map(|p| diffs[p]);
        let next = diffs.get(i + 1).copied();
        let d = diffs[i];
        let v1 = (
            prev.map_or(0, |p| p.0.1 + 1),
            next.map_or(old.len(), |n| n.0.0.saturating_sub(1)),
        );
        let v2 = (
            prev.map_or(0, |p| p.1.1 + 1),
            next.map_or(new.len(), |n| n.1.0.saturating_sub(1)),
        );
        if d.0.0 == d.0.1 {
            diffs[i] = best_position(d, old, new, v1, v2);
        } else if d.1.0 == d.1.1 {
            let swapped = best_position((d.1, d.0), new, old, v2, v1);
            diffs[i] = (swapped.1, swapped.0);
        }
    }
    diffs
}

fn join_by_shifting(
    a: &[&[u16]],
    b: &[&[u16]],
    old: &[&[u16]],
    new: &[&[u16]],
    diffs: Vec<(Span, Span)>,
) -> Vec<(Span, Span)> {
    if diffs.is_empty() {
        return diffs;
    }
    let mut result = vec![diffs[0]];
    for &d in &diffs[1..] {
        let prev = *result.last().expect("not empty");
        let mut cur = d;
        if cur.0.0 == cur.0.1 || cur.1.0 == cur.1.1 {
            let length = cur.0.0 - prev.0.1;
            let mut k = 1;
            while k <= length
                && a[cur.0.0 - k] == a[cur.0.1 - k]
                && b[cur.1.0 - k] == b[cur.1.1 - k]
            {
                k += 1;
            }
            k -= 1;
            if k == length {
                *result.last_mut().expect("not empty") =
                    ((prev.0.0, cur.0.1 - length), (prev.1.0, cur.1.1 - length));
                continue;
            }
            cur = ((cur.0.0 - k, cur.0.1 - k), (cur.1.0 - k, cur.1.1 - k));
        }
        result.push(cur);
    }
    let mut out = Vec::new();
    for i in 0..result.len() - 1 {
        let next = result[i + 1];
        let mut cur = result[i];
        if cur.0.0 == cur.0.1 || cur.1.0 == cur.1.1 {
            let length = next.0.0 - cur.0.1;
            let mut k = 0;
            while k < length
                && old[cur.0.0 + k] == old[cur.0.1 + k]
                && new[cur.1.0 + k] == new[cur.1.1 + k]
            {
                k += 1;
            }
            if k == length {
                result[i + 1] = ((cur.0.0 + length, next.0.1), (cur.1.0 + length, next.1.1));
                continue;
            }
            if k > 0 {
                cur = ((cur.0.0 + k, cur.0.1 + k), (cur.1.0 + k, cur.1.1 + k));
            }
        }
        out.push(cur);
    }
    out.push(*result.last().expect("not empty"));
    out
}

/// An insertion (empty on the `old` side) slid within the valid ranges to where the lines
/// around it are least indented.
fn best_position(
    d: (Span, Span),
    old: &[&[u16]],
    new: &[&[u16]],
    v1: Span,
    v2: Span,
) -> (Span, Span) {
    let same = |x: usize, y: usize| new.get(x).is_some() && new.get(x) == new.get(y);
    let mut before = 1;
    while d.0.0 >= v1.0 + before
        && d.1.0 >= v2.0 + before
        && same(d.1.0 - before, d.1.1 - before)
        && before < 100
    {
        before += 1;
    }
    before -= 1;
    let mut after = 0;
    while d.0.0 + after < v1.1
        && d.1.1 + after < v2.1
        && same(d.1.0 + after, d.1.1 + after)
        && after < 100
    {
        after += 1;
    }
    if before == 0 && after == 0 {
        return d;
    }
    let indent = |l: &[u16]| l.iter().take_while(|&&u| u == 32 || u == 9).count();
    let score = |lines: &[&[u16]], at: usize| {
        let above = if at == 0 { 0 } else { indent(lines[at - 1]) };
        let below = if at == lines.len() {
            0
        } else {
            indent(lines[at])
        };
        1000 - (above + below) as isize
    };
    let mut best = (0isize, -1isize);
    for delta in -(before as isize)..=(after as isize) {
        let s1 = (d.0.0 as isize + delta) as usize;
        let s2 = (d.1.0 as isize + delta) as usize;
        let e2 = (d.1.1 as isize + delta) as usize;
        let sc = score(old, s1) + score(new, s2) + score(new, e2);
        if sc > best.1 {
            best = (delta, sc);
        }
    }
    let m = |x: usize| (x as isize + best.0) as usize;
    ((m(d.0.0), m(d.0.1)), (m(d.1.0), m(d.1.1)))
}

/// Diffs with almost nothing between them (four characters or fewer besides white space) are
/// joined when either is more than five lines long.
fn join_short_gaps(old: &[&[u16]], mut diffs: Vec<(Span, Span)>) -> Vec<(Span, Span)> {
    for _ in 0..11 {
        if diffs.is_empty() {
            return diffs;
        }
        let mut again = false;
        let mut result = vec![diffs[0]];
        for &cur in &diffs[1..] {
            let last = *result.last().expect("not empty");
            let gap: usize = old[last.0.1..cur.0.0]
                .iter()
                .map(|l| l.iter().filter(|&&u| !is_js_space_unit(u)).count())
                .sum();
            let size = |d: (Span, Span)| (d.0.1 - d.0.0) + (d.1.1 - d.1.0);
            if gap <= 4 && (size(last) > 5 || size(cur) > 5) {
                again = true;
                *result.last_mut().expect("not empty") = ((last.0.0, cur.0.1), (last.1.0, cur.1.1));
            } else {
                result.push(cur);
            }
        }
        diffs = result;
        if !again {
            break;
        }
    }
    diffs
}

fn is_js_space_unit(u: u16) -> bool {
    trim(&[u]).is_empty()
}

/// Whether the change touches an import (its new lines, or the lines it replaces as they were
/// before the user's edits, as the library reads them).
fn is_import_change(change: &LineReplacement, language: &str, before: &[&[u16]]) -> bool {
    let old = (change.start..change.end).filter_map(|l| before.get(l - 1));
    change
        .lines
        .iter()
        .map(|l| string(l))
        .chain(old.map(|l| string(l)))
        .any(|l| is_import(&l, language))
}

/// The library's import patterns, per language (`\w` is ASCII in its patterns).
fn is_import(line: &str, language: &str) -> bool {
    let rest = line.trim_start();
    let word = |w: &str, then: &dyn Fn(char) -> bool| {
        rest.strip_prefix(w)
            .and_then(|r| r.chars().next())
            .is_some_and(then)
    };
    match language {
        "java" => word("import", &char::is_whitespace),
        "typescript" | "typescriptreact" | "javascript" | "javascriptreact" => {
            word("import", &|c| c.is_whitespace() || c == '{' || c == '*')
                || rest
                    .chars()
                    .next()
                    .is_some_and(|c| "var|constle".contains(c))
                    && rest
                        .match_indices('=')
                        .any(|(i, _)| i > 0 && rest[i + 1..].trim_start().starts_with("require("))
        }
        "php" => rest.starts_with("use"),
        "rust" => rust_use(rest),
        "python" => python_import(rest),
        _ => false,
    }
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `use` and a path of words, `::`, braces, commas and spaces, then `;`.
fn rust_use(rest: &str) -> bool {
    let Some(r) = rest.strip_prefix("use") else {
        return false;
    };
    if !r.starts_with(char::is_whitespace) {
        return false;
    }
    let body = r.trim_start();
    let run = body
        .find(|c: char| !(word_char(c) || ":{}, ".contains(c)))
        .unwrap_or(body.len());
    // The path may also be nothing but a space the leading white space gave back.
    let path = &body[..run];
    let spaces_given_back = r.len() - body.len() >= 2 && r.starts_with("  ");
    (!path.is_empty() || spaces_given_back) && body[run..].trim_start().starts_with(';')
}

/// `from a.b import c, d` or `import a, b`, the whole line.
fn python_import(rest: &str) -> bool {
    let names = |s: &str, star: bool| {
        !s.is_empty()
            && s.chars()
                .all(|c| word_char(c) || c == ',' || c == ' ' || (star && c == '*'))
    };
    let after_space = |s: &str| -> Option<usize> {
        let t = s.trim_start();
        (t.len() < s.len()).then_some(s.len() - t.len())
    };
    if let Some(r) = rest.strip_prefix("from") {
        let Some(skip) = after_space(r) else {
            return false;
        };
        let r = &r[skip..];
        let module = r
            .find(|c: char| !(word_char(c) || c == '.'))
            .unwrap_or(r.len());
        if module == 0 {
            return false;
        }
        let r = &r[module..];
        let Some(skip) = after_space(r) else {
            return false;
        };
        let Some(r) = r[skip..].strip_prefix("import") else {
            return false;
        };
        let Some(skip) = after_space(r) else {
            return false;
        };
        return names(&r[skip..], true);
    }
    if let Some(r) = rest.strip_prefix("import") {
        let Some(skip) = after_space(r) else {
            return false;
        };
        return names(&r[skip..], false);
    }
    false
}

/// Blank lines added or removed, or lines changed only at their ends' white space.
fn is_whitespace_change(change: &LineReplacement, lines: &[&[u16]]) -> bool {
    let old: Vec<&[u16]> = (change.start..change.end)
        .filter_map(|l| lines.get(l - 1).copied())
        .collect();
    if change.lines.is_empty() {
        return old.iter().all(|l| is_blank(l));
    }
    if change.lines.iter().all(|l| is_blank(l)) {
        return true;
    }
    old.len() == change.lines.len()
        && old
            .iter()
            .zip(&change.lines)
            .all(|(o, n)| trim(o) == trim(n))
}

/// Whether the change only deletes, and what it deletes touches one of the user's recent edits.
fn deletes_what_was_typed(
    change: &LineReplacement,
    content: &[u16],
    groups: &[StringEdit],
) -> bool {
    let r = change.to_replacement(content);
    let after = StringEdit::single(r).apply(content);
    let Some(edit) = minimal(content, &after) else {
        return false;
    };
    if !edit.text.is_empty() || edit.start == edit.end {
        return false;
    }
    let mut edit = StringEdit::single(edit);
    for recent in groups.iter().rev() {
        match edit.try_rebase(recent) {
            Some(moved) => edit = moved,
            None => return true,
        }
    }
    false
}

/// The smallest replacement turning `from` into `to`, common end trimmed first.
fn minimal(from: &[u16], to: &[u16]) -> Option<Replacement> {
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

fn leaks_prompt(change: &LineReplacement) -> bool {
    change.lines.iter().any(|l| {
        let l = string(l);
        LEAKS.iter().any(|s| l.contains(s))
    })
}

/// The change applied to the document, given back as the smallest edit (UTF-16 offsets),
/// never splitting a surrogate pair.
fn to_suggestion(uri: &str, content: &[u16], change: &LineReplacement) -> Option<Suggestion> {
    let mut r = change.to_replacement(content);
    if mostly_crlf(content) {
        let mut t = Vec::with_capacity(r.text.len());
        for &u in &r.text {
            if u == b'\n' as u16 {
                t.push(b'\r' as u16);
            }
            t.push(u);
        }
        r.text = t;
    }
    let after = StringEdit::single(r).apply(content);
    let m = minimal(content, &after)?;
    let (mut start, mut end) = (m.start, m.end);
    let mut new_end = after.len() - (content.len() - end);
    // Keep surrogate pairs whole on both sides of the edit.
    while start > 0 && (0xDC00..0xE000).contains(&content.get(start).copied().unwrap_or(0)) {
        start -= 1;
    }
    while end < content.len() && (0xDC00..0xE000).contains(&content[end]) {
        end += 1;
        new_end += 1;
    }
    Some(Suggestion {
        uri: uri.to_owned(),
        start,
        end,
        text: string(&after[start..new_end]),
    })
}

/// Whether the document's line breaks are `\r\n`, as the library decides for its edits.
fn mostly_crlf(content: &[u16]) -> bool {
    content
        .windows(2)
        .any(|w| w == [b'\r' as u16, b'\n' as u16])
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn imports_are_recognised_per_language() {
        for (line, lang, want) in [
            ("import { x } from 'y';", "typescript", true),
            ("const fs = require('fs');", "javascript", true),
            ("use std::io::{self, Read};", "rust", true),
            ("use std::fmt as f;", "rust", true),
            ("from a.b import c, d", "python", true),
            ("import os, sys", "python", true),
            ("import os.path", "python", false),
            ("x = importlib", "python", false),
            ("import java.util.List;", "java", true),
            ("let x = 1;", "typescript", false),
        ] {
            assert_eq!(is_import(line, lang), want, "{line} ({lang})");
        }
    }
}
