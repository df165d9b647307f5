//! The parts of Copilot's NES prompt that come from budgets: the current file clipped to pages
//! of ten lines around the cursor, the other edited files clipped around their edits, and the
//! edit history rendered as diffs, newest first until the budget runs out.

use super::edits::line_edit;
use super::text::{Units, lines_cost, split_lines, string, tokens};
use super::tracker::{History, Kind};

/// Lines per page when the library clips a file.
pub(crate) const PAGE: usize = 10;
/// The current file's budget (`currentFile.maxTokens`).
pub(crate) const CURRENT_FILE_TOKENS: i64 = 1500;
/// The other files' budget, their number, and the diff history's (`recentlyViewedDocuments`,
/// `diffHistory`).
const RECENT_TOKENS: i64 = 2000;
const RECENT_DOCUMENTS: usize = 5;
const DIFF_TOKENS: i64 = 1000;
const DIFF_ENTRIES: usize = 25;

/// Whole pages around `[start, end)` of `lines`, as many as the budget pays for: half the
/// budget above and half below (plus what above left, when `leftover_to_below`). Returns the
/// first and last page kept and the budget left, negative when the range's own pages do not
/// fit.
pub(crate) fn expand_to_pages<L: AsRef<[u16]>>(
    lines: &[L],
    start: i64,
    end: i64,
    budget: i64,
    leftover_to_below: bool,
) -> (i64, i64, i64) {
    let page = PAGE as i64;
    let pages = (lines.len() as i64 + page - 1) / page;
    let cost = |k: i64| -> i64 {
        let s = (k * page).clamp(0, lines.len() as i64) as usize;
        let e = ((k + 1) * page).clamp(0, lines.len() as i64) as usize;
        lines_cost(&lines[s..e]) as i64
    };
    let mut first = start.div_euclid(page);
    let mut last = (end - 1).div_euclid(page);
    let available = budget - (first..=last).map(cost).sum::<i64>();
    if available < 0 {
        return (first, last, available);
    }
    let half = available / 2;
    let mut left = half;
    let mut k = first - 1;
    while k >= 0 && left > 0 {
        let after = left - cost(k);
        if after < 0 {
            break;
        }
        first = k;
        left = after;
        k -= 1;
    }
    left = half + if leftover_to_below { left } else { 0 };
    let mut k = last + 1;
    while k < pages && left > 0 {
        let after = left - cost(k);
        if after < 0 {
            break;
        }
        last = k;
        left = after;
        k += 1;
    }
    (first, last, left)
}

/// The lines of the current file that the prompt shows: whole pages around the area near the
/// cursor, within the budget; `None` when the area alone is over it.
pub(crate) fn current_file_range(lines: &[&[u16]], area: (usize, usize)) -> Option<(usize, usize)> {
    let available = CURRENT_FILE_TOKENS - lines_cost(&lines[area.0..area.1]) as i64;
    if available < 0 {
        return None;
    }
    let (first, last, _) = expand_to_pages(lines, area.0 as i64, area.1 as i64, available, true);
    let start = (first.max(0) as usize * PAGE).min(lines.len());
    let end = (((last + 1).max(0) as usize) * PAGE).min(lines.len());
    Some((start, end.max(start)))
}

/// The `<|recently_viewed_code_snippet|>` blocks: the other documents edited most recently
/// (at most five), each clipped to pages around its latest edit, oldest first.
pub(crate) fn recent_snippets(history: &History, active: usize, paths: &[String]) -> String {
    let mut seen = Vec::new();
    let mut docs = Vec::new();
    for entry in history.entries.iter().rev() {
        let Kind::Edit { base, edit } = &entry.kind else {
            continue;
        };
        if entry.doc == active || seen.contains(&entry.doc) {
            continue;
        }
        seen.push(entry.doc);
        docs.push((entry.doc, edit.apply(base), edit.new_ranges()));
        if docs.len() >= RECENT_DOCUMENTS {
            break;
        }
    }
    let mut budget = RECENT_TOKENS;
    let mut snippets = Vec::new();
    for (doc, content, focal) in docs {
        match clip_around(&content, &focal, budget) {
            Clip::Stop => break,
            Clip::Nothing => {}
            Clip::Kept {
                lines,
                truncated,
                left,
            } => {
                budget = left;
                let mut s =
                    String::from("<|recently_viewed_code_snippet|>\ncode_snippet_file_path: ");
                s.push_str(&paths[doc]);
                if truncated {
                    s.push_str(" (truncated)");
                }
                s.push('\n');
                s.push_str(&lines);
                s.push_str("\n<|/recently_viewed_code_snippet|>");
                snippets.push(s);
            }
        }
    }
    snippets.reverse();
    snippets.join("\n\n")
}

enum Clip {
    /// No room: no further file is tried.
    Stop,
    /// The edit left nothing to centre on; the budget is untouched.
    Nothing,
    Kept {
        lines: String,
        truncated: bool,
        left: i64,
    },
}

/// One file clipped around the ranges its edit inserted, most recent first, their span capped
/// at three pages.
fn clip_around(content: &[u16], focal: &[(usize, usize)], budget: i64) -> Clip {
    if budget <= 0 {
        return Clip::Stop;
    }
    let positions = super::text::Positions::new(content);
    // 1-based line numbers, as the library counts them; an offset before the text (the end of
    // an empty range at 0, less one) is on line 0 there.
    let line_of = |offset: i64| {
        if offset < 0 {
            0
        } else {
            positions.position(offset as usize).0 as i64 + 1
        }
    };
    let cap = (PAGE * 3) as i64;
    let mut selected: Vec<(usize, usize)> = Vec::new();
    let (mut lo, mut hi) = (0, 0);
    for (i, &(s, e)) in focal.iter().enumerate() {
        let rs = line_of(s as i64);
        let re = line_of((s as i64).max(e as i64 - 1));
        if i == 0 {
            (lo, hi) = (rs, re);
            selected.push((s, e));
            continue;
        }
        let (cl, ch) = (lo.min(rs), hi.max(re));
        if ch - cl > cap {
            break;
        }
        selected.push((s, e));
        (lo, hi) = (cl, ch);
    }
    if selected.is_empty() {
        return Clip::Nothing;
    }
    let start = selected
        .iter()
        .map(|r| r.0 as i64)
        .min()
        .expect("not empty");
    let end = selected
        .iter()
        .map(|r| r.1 as i64 - 1)
        .max()
        .expect("not empty");
    let lines = split_lines(content);
    let (first, last, left) =
        expand_to_pages(&lines, line_of(start) - 1, line_of(end), budget, false);
    if left == budget || left < 0 {
        return Clip::Stop;
    }
    let from = ((first.max(0) as usize) * PAGE).min(lines.len());
    let to = (((last + 1).max(0) as usize) * PAGE)
        .min(lines.len())
        .max(from);
    let kept = &lines[from..to];
    Clip::Kept {
        lines: string(&super::text::join_lines(kept)),
        truncated: kept.len() < lines.len(),
        left,
    }
}

/// The `<|edit_diff_history|>` body: the newest diffs that fit, oldest first.
pub(crate) fn diff_history(history: &History, paths: &[String]) -> String {
    let mut budget = DIFF_TOKENS;
    let mut diffs = Vec::new();
    for entry in history.entries.iter().rev() {
        if diffs.len() >= DIFF_ENTRIES {
            break;
        }
        let Kind::Edit { base, edit } = &entry.kind else {
            continue;
        };
        let Some(diff) = doc_diff(base, edit, &paths[entry.doc]) else {
            continue;
        };
        budget -= tokens(super::text::units(&diff).len()) as i64;
        if budget < 0 {
            break;
        }
        diffs.push(diff);
    }
    diffs.reverse();
    let mut piece = diffs.join("\n\n");
    if !diffs.is_empty() {
        piece.push('\n');
    }
    piece
}

/// One entry as a diff: a `---`/`+++` header and a hunk per group of touching line changes,
/// with 0-based line numbers of the text before the entry.
fn doc_diff(base: &[u16], edit: &super::edits::StringEdit, path: &str) -> Option<String> {
    let base_lines = split_lines(base);
    // Lines past the end are left out, as a JavaScript slice leaves them out.
    let lines_of = |from: usize, to: usize| -> Vec<Units> {
        let to = to.min(base_lines.len());
        base_lines[from.min(to)..to]
            .iter()
            .map(|l| l.to_vec())
            .collect()
    };
    let replacements = line_edit(edit, base);
    let mut hunks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < replacements.len() {
        let mut j = i + 1;
        while j < replacements.len() && replacements[j - 1].end >= replacements[j].start {
            j += 1;
        }
        let group = &replacements[i..j];
        i = j;
        let mut old: Vec<Units> = Vec::new();
        let mut new: Vec<Units> = Vec::new();
        let mut previous_end = group[0].start;
        for r in group {
            if previous_end < r.start {
                let same = lines_of(previous_end - 1, r.start - 1);
                old.extend(same.iter().cloned());
                new.extend(same);
            }
            old.extend(lines_of(r.start - 1, r.end - 1));
            new.extend(r.lines.iter().cloned());
            previous_end = r.end;
        }
        let blank = |ls: &[Units]| ls.iter().all(|l| super::text::is_blank(l));
        if blank(&old) && blank(&new) {
            continue;
        }
        if old == new {
            continue;
        }
        let start = group[0].start - 1;
        let mut h = format!("@@ -{start},{} +{start},{} @@", old.len(), new.len());
        for l in &old {
            h.push_str("\n-");
            h.push_str(&string(l));
        }
        for l in &new {
            h.push_str("\n+");
            h.push_str(&string(l));
        }
        hunks.push(h);
    }
    if hunks.is_empty() {
        return None;
    }
    Some(format!("--- {path}\n+++ {path}\n{}", hunks.join("\n")))
}
