//! VS Code's line diff as Copilot's library uses it to split a multi-line change: lines
//! aligned by their trimmed text with a dynamic programme, then its clean-ups (diffs slid and
//! joined over equal lines, diffs with almost nothing between them joined), and aligned lines
//! whose white space differs made changes of their own.

use super::text::trim;

pub(super) type Span = (usize, usize);

/// Lines of the old and the new text aligned with each other, by index.
type Aligned = Vec<(usize, usize)>;

/// The changed runs between two lists of lines, as VS Code's line diff (which the library
/// uses, `DefaultLinesDiffComputer`) finds them: everything at once when either side is one
/// empty line; else lines aligned by their trimmed text with a dynamic programme that prefers
/// long and consecutive matches, diffs separated by almost nothing joined, and aligned lines
/// whose white space differs made changes of their own.
pub(super) fn line_diff(old: &[&[u16]], new: &[&[u16]]) -> Vec<(Span, Span)> {
    let (n, m) = (old.len(), new.len());
    if n <= 1 && old == new {
        return Vec::new();
    }
    if (n == 1 && old[0].is_empty()) || (m == 1 && new[0].is_empty()) {
        return vec![((0, n), (0, m))];
    }
    let a: Vec<&[u16]> = old.iter().map(|l| trim(l)).collect();
    let b: Vec<&[u16]> = new.iter().map(|l| trim(l)).collect();
    let (diffs, aligned) = backtrack(&align(&a, &b, old, new), n, m);
    let diffs = shift_diffs(&a, &b, old, new, diffs);
    let diffs = join_short_gaps(&a, diffs);
    join_touching(with_whitespace_changes(diffs, &aligned, old, new))
}

/// Which way the dynamic programme's best path goes through a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Not reached (the table's initial value).
    None,
    /// An old line with no new one.
    Up,
    /// A new line with no old one.
    Left,
    /// The two lines aligned.
    Diagonal,
}

/// The table of best steps aligning the trimmed lines `a` with `b`, as VS Code's
/// `DynamicProgrammingDiffing` fills it: equal trimmed lines score more when they are equal
/// untrimmed, long, and continue a run of aligned lines.
fn align(a: &[&[u16]], b: &[&[u16]], old: &[&[u16]], new: &[&[u16]]) -> Vec<Vec<Step>> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j], the step taken and the length of the diagonal run ending there.
    let mut lcs = vec![vec![0.0f64; m]; n];
    let mut dir = vec![vec![Step::None; m]; n];
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
                if i > 0 && j > 0 && dir[i - 1][j - 1] == Step::Diagonal {
                    score += run[i - 1][j - 1] as f64;
                }
                score + equality_score(old[i], new[j])
            } else {
                -1.0
            };
            let best = up.max(left).max(diagonal);
            if best == diagonal {
                run[i][j] = if i > 0 && j > 0 { run[i - 1][j - 1] } else { 0 } + 1;
                dir[i][j] = Step::Diagonal;
            } else if best == up {
                dir[i][j] = Step::Up;
            } else {
                dir[i][j] = Step::Left;
            }
            lcs[i][j] = best;
        }
    }
    dir
}

/// What aligning two lines equal once trimmed is worth: little for two empty lines, more for
/// longer lines, a little less when only their white space differs.
fn equality_score(old: &[u16], new: &[u16]) -> f64 {
    if old != new {
        0.99
    } else if new.is_empty() {
        0.1
    } else {
        1.0 + (1.0 + new.len() as f64).ln()
    }
}

/// The best path walked back from the table's end: the runs between aligned lines as diffs,
/// in order, and the aligned lines themselves.
fn backtrack(dir: &[Vec<Step>], n: usize, m: usize) -> (Vec<(Span, Span)>, Aligned) {
    let mut diffs: Vec<(Span, Span)> = Vec::new();
    let mut aligned: Aligned = Vec::new();
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
            Step::Diagonal => {
                report(i, j, &mut diffs);
                aligned.push((i as usize, j as usize));
                i -= 1;
                j -= 1;
            }
            Step::Up => i -= 1,
            Step::Left | Step::None => j -= 1,
        }
    }
    report(-1, -1, &mut diffs);
    diffs.reverse();
    (diffs, aligned)
}

/// Aligned lines that differ only in white space made changes too, as
/// `DefaultLinesDiffComputer`'s `scanForWhitespaceChanges` does, sorted.
fn with_whitespace_changes(
    mut diffs: Vec<(Span, Span)>,
    aligned: &[(usize, usize)],
    old: &[&[u16]],
    new: &[&[u16]],
) -> Vec<(Span, Span)> {
    for &(i, j) in aligned {
        if old[i] != new[j] && !diffs.iter().any(|(o, _)| o.0 <= i && i < o.1) {
            diffs.push(((i, i + 1), (j, j + 1)));
        }
    }
    diffs.sort();
    diffs
}

/// Changes that touch become one.
fn join_touching(sorted: Vec<(Span, Span)>) -> Vec<(Span, Span)> {
    let mut joined: Vec<(Span, Span)> = Vec::new();
    for (o, nw) in sorted {
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

/// VS Code's first clean-up of a line diff (`optimizeSequenceDiffs`): insertions and deletions slid left, then right,
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
/// joined when either is more than five lines long (`removeVeryShortMatchingLinesBetweenDiffs`).
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
