//! Applying a model's edits without a second model.
//!
//! `edit_file` sends the new text of a file in which lines like `// ...existing code...` stand
//! for unchanged regions. Copilot hands that to another model to merge; pilotfish places it
//! deterministically. Each run of lines between markers (a segment) is anchored on the
//! existing file: lines at its start and its end that the file already has, found exactly,
//! then ignoring white space. A segment that is one whole block (a function, a class: its
//! first line opens a block that its last line closes) replaces the whole block its first line
//! starts in the file. An edit that could go in more than one place, or none, changes nothing
//! and says which lines it could have meant. The lines outside the placed region are never
//! touched, and the file's line endings are kept.
//!
//! `replace_string_in_file` uses the same ladder: the exact text, then the text with white
//! space ignored, then, above a high similarity, the closest window; several matches are an
//! error.

/// Why an edit was not applied: said to the model so that it can send a better one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("{0}")]
    Ambiguous(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Unsafe(String),
}

/// Whether a line stands for unchanged code: a comment whose text is `...existing code...`.
pub fn is_marker(line: &str) -> bool {
    let t = line.trim().to_ascii_lowercase();
    t.len() < 100 && (t.contains("...existing code...") || t.contains("… existing code …"))
}

/// Lines deleted by an edit without a marker at the file's start above which the edit is
/// refused: models often forget the marker, and the file's start is then lost.
const MAX_SILENT_DELETION: usize = 2;

/// The file after a lazy edit: `code` with its markers resolved against `original`.
pub fn apply_lazy_edit(original: &str, code: &str) -> Result<String, EditError> {
    apply_lazy_edit_in(original, code, None)
}

/// As [`apply_lazy_edit`], with the file's language: a whole block is then the syntax node its
/// first line starts (tree-sitter), not only what indentation says.
pub fn apply_lazy_edit_in(
    original: &str,
    code: &str,
    lang: Option<syntax::Lang>,
) -> Result<String, EditError> {
    let crlf = original.contains("\r\n");
    let ends_with_newline = original.is_empty() || original.ends_with('\n');
    let old: Vec<&str> = split_lines(original);
    let code_lines: Vec<&str> = split_lines(code);
    if !code_lines.iter().any(|l| is_marker(l)) {
        return Ok(join(
            &code_lines,
            crlf,
            code.ends_with('\n') || code.is_empty(),
        ));
    }
    // Items: segments of new lines between markers.
    let mut segments: Vec<Segment> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut marker_before = false;
    for line in &code_lines {
        if is_marker(line) {
            if !current.iter().all(|l| l.trim().is_empty()) {
                segments.push(Segment {
                    lines: trim_blank_edges(std::mem::take(&mut current)),
                    marker_before,
                    marker_after: true,
                    after_indent: Some(indent(line)),
                });
            }
            current.clear();
            marker_before = true;
        } else {
            current.push(line);
        }
    }
    if !current.iter().all(|l| l.trim().is_empty()) {
        segments.push(Segment {
            lines: trim_blank_edges(current),
            marker_before,
            marker_after: false,
            after_indent: None,
        });
    }
    let mut out: Vec<&str> = Vec::new();
    let mut pos = 0;
    // Line ends of the blocks tree-sitter sees, for the whole-block rule.
    let normalized;
    let source = if original.contains('\r') {
        normalized = old.join("\n");
        normalized.as_str()
    } else {
        original
    };
    let syntax_end = |line: usize| lang.and_then(|l| syntax::block_end_line(l, source, line));
    for seg in &segments {
        let (start, end) = place(&old, pos, seg, &syntax_end)?;
        out.extend_from_slice(&old[pos..start]);
        out.extend_from_slice(&seg.lines);
        pos = end;
    }
    if segments.last().is_some_and(|s| s.marker_after) {
        out.extend_from_slice(&old[pos..]);
    } else if old.len() > pos && old[pos..].iter().any(|l| !l.trim().is_empty()) {
        // An edit with markers is a partial one: text after its last segment that it drops
        // without a marker was almost always meant to stay.
        let lost = old[pos..].iter().filter(|l| !l.trim().is_empty()).count();
        if lost > 0 {
            return Err(EditError::Unsafe(format!(
                "the edit ends without a `...existing code...` line, so lines {pos}-{} would be deleted; end it with the marker if they stay, or send the whole file",
                old.len() - 1
            )));
        }
    }
    Ok(join(&out, crlf, ends_with_newline))
}

struct Segment<'a> {
    lines: Vec<&'a str>,
    marker_before: bool,
    marker_after: bool,
    /// The indentation of the marker after the segment: a marker indented deeper than the
    /// segment's first line is inside its block, which then does not end with the segment.
    after_indent: Option<usize>,
}

/// Where a segment goes in `old` (at or after `pos`): the region `[start, end)` it replaces.
fn place(
    old: &[&str],
    pos: usize,
    seg: &Segment<'_>,
    syntax_end: &dyn Fn(usize) -> Option<usize>,
) -> Result<(usize, usize), EditError> {
    let lines = &seg.lines;
    let first = lines[0];
    // One whole block whose first line the file has: the block it starts there is replaced.
    // Whole means closed: by a closing line of its own, or by what follows it (the end of
    // the edit, or a marker no deeper than the block's first line).
    let base = indent(first);
    let closed = starts_closing(lines[lines.len() - 1]) && indent(lines[lines.len() - 1]) == base
        || seg.after_indent.is_none_or(|i| i <= base);
    if lines.len() > 1 && closed && block_end(lines, 0) == lines.len() {
        let at = find_all(old, pos, &lines[..1]);
        if at.len() == 1 && (opens_block(old, at[0]) || syntax_end(at[0]).is_some()) {
            // The syntax tree knows where the block ends; indentation is the fallback.
            let end = syntax_end(at[0])
                .map_or_else(|| block_end(old, at[0]), |e| e + 1)
                .min(old.len());
            // A block that ends only because the edit does, and would lose lines the edit
            // does not show, is more likely a forgotten marker than a deletion.
            let has_own_end = starts_closing(lines[lines.len() - 1]);
            let shown: std::collections::HashSet<String> =
                lines.iter().map(|l| squash(l)).collect();
            let lost = old[at[0]..end]
                .iter()
                .filter(|l| !l.trim().is_empty() && !shown.contains(&squash(l)))
                .count();
            if !has_own_end && lost > 2 {
                return Err(EditError::Unsafe(format!(
                    "the edit would replace lines {}-{} (all of `{}`) and drop {lost} of its lines it does not show; if they stay, mark them with `...existing code...`",
                    at[0],
                    end - 1,
                    first.trim()
                )));
            }
            return Ok((at[0], end));
        }
        if at.len() > 1 {
            return Err(ambiguous(first, &at));
        }
    }
    // Anchors: the longest start of the segment the file has, and the longest end after it.
    let (top, top_len) = longest_anchor(old, pos, lines, true)?;
    let bottom_from = top.map_or(pos, |t| t + top_len);
    let (bottom, bottom_len) = if top_len == lines.len() {
        (None, 0)
    } else {
        longest_anchor(old, bottom_from, &lines[top_len..], false)?
    };
    match (top, bottom) {
        (Some(t), Some(b)) => Ok((t, b + bottom_len)),
        // Only the top is known: what follows it is new, inserted after it (the file's lines
        // after it stay when a marker follows).
        (Some(t), None) if seg.marker_after => Ok((t, t + top_len)),
        (Some(t), None) => Ok((t, old.len().max(t + top_len))),
        (None, Some(b)) if seg.marker_before => Ok((b, b + bottom_len)),
        (None, Some(b)) => {
            if b - pos > MAX_SILENT_DELETION {
                return Err(EditError::Unsafe(format!(
                    "the edit starts without a `...existing code...` line, so lines {pos}-{} would be deleted; start it with the marker if they stay",
                    b - 1
                )));
            }
            Ok((pos, b + bottom_len))
        }
        (None, None)
            if !seg.marker_before && pos == 0 && old.iter().all(|l| l.trim().is_empty()) =>
        {
            Ok((0, old.len()))
        }
        (None, None) => Err(EditError::NotFound(format!(
            "none of the lines around `{}` are in the file, so there is no telling where it goes: include an unchanged line before and after the new code",
            first.trim()
        ))),
    }
}

/// The longest run of `lines` from their start (`from_start`) or their end that the file has
/// at one place at or after `pos`, and its length. A run found in several places is extended;
/// if even the longest is not unique, the edit is refused with the places.
fn longest_anchor(
    old: &[&str],
    pos: usize,
    lines: &[&str],
    from_start: bool,
) -> Result<(Option<usize>, usize), EditError> {
    let mut best: (Option<usize>, usize) = (None, 0);
    let mut ambiguous_at: Option<(String, Vec<usize>)> = None;
    for len in 1..=lines.len() {
        let run = if from_start {
            &lines[..len]
        } else {
            &lines[lines.len() - len..]
        };
        // An anchor ends on a line with text: blank lines at its inner edge belong to the new
        // code's spacing, not to the place it goes.
        let inner = if from_start { run[len - 1] } else { run[0] };
        if inner.trim().is_empty() {
            continue;
        }
        let found = find_all(old, pos, run);
        match found.len() {
            0 => break,
            1 => {
                best = (Some(found[0]), len);
                ambiguous_at = None;
            }
            _ => {
                if best.0.is_none() {
                    ambiguous_at =
                        Some((run[if from_start { 0 } else { len - 1 }].to_owned(), found));
                }
            }
        }
    }
    // A run that only ever matched in several places cannot anchor anything; unless it is
    // a lone closing line, which says nothing anyway, the model is told where it could go.
    if best.0.is_none()
        && let Some((line, at)) = ambiguous_at
        && !is_closing(&line)
    {
        return Err(ambiguous(&line, &at));
    }
    Ok(best)
}

fn ambiguous(line: &str, at: &[usize]) -> EditError {
    let places: Vec<String> = at.iter().take(8).map(usize::to_string).collect();
    EditError::Ambiguous(format!(
        "`{}` is at lines {} (0-based) of the file, so the edit could go in several places: include more unchanged lines around the change so it fits one place only",
        line.trim(),
        places.join(", ")
    ))
}

fn is_closing(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| "})];,".contains(c)) || t == "end"
}

/// Every position at or after `pos` where `run` matches: exactly, else ignoring white space.
fn find_all(old: &[&str], pos: usize, run: &[&str]) -> Vec<usize> {
    if run.is_empty() || old.len() < run.len() {
        return Vec::new();
    }
    let search = |eq: &dyn Fn(&str, &str) -> bool| -> Vec<usize> {
        (pos..=old.len() - run.len())
            .filter(|&i| run.iter().enumerate().all(|(k, l)| eq(old[i + k], l)))
            .collect()
    };
    let exact = search(&|a, b| a == b);
    if !exact.is_empty() {
        return exact;
    }
    search(&|a, b| squash(a) == squash(b))
}

/// A line with its white space removed, for matches that ignore it.
fn squash(line: &str) -> String {
    line.split_whitespace().collect()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether the line at `i` opens a block: the next non-blank line is indented more.
fn opens_block(lines: &[&str], i: usize) -> bool {
    lines[i + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| indent(l) > indent(lines[i]))
}

/// The end (exclusive) of the block the line at `i` opens: the lines indented more, then a
/// closing line at its own indentation (`}`, `end`, ...), trailing blank lines left out.
fn block_end(lines: &[&str], i: usize) -> usize {
    let base = indent(lines[i]);
    let mut k = i + 1;
    let mut last = i + 1;
    while k < lines.len() {
        let l = lines[k];
        if l.trim().is_empty() {
            k += 1;
            continue;
        }
        if indent(l) > base {
            k += 1;
            last = k;
            continue;
        }
        if indent(l) == base && starts_closing(l) {
            last = k + 1;
        }
        break;
    }
    last
}

fn starts_closing(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('}')
        || t.starts_with(')')
        || t.starts_with(']')
        || t == "end"
        || t.starts_with("end ")
}

fn trim_blank_edges(mut lines: Vec<&str>) -> Vec<&str> {
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Lines without their endings (`\n` or `\r\n`).
fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

fn join(lines: &[&str], crlf: bool, final_newline: bool) -> String {
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut s = lines.join(eol);
    if final_newline && !lines.is_empty() {
        s.push_str(eol);
    }
    s
}

/// Similarity of two texts from 0 to 1 (1 - edit distance / longer length), on characters.
fn similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    1.0 - prev[b.len()] as f64 / longest as f64
}

/// How similar a window must be to the text asked for, for the fuzzy step of
/// `replace_string_in_file` (Copilot's threshold).
pub const FUZZY_THRESHOLD: f64 = 0.95;

/// The file with `old_string` replaced by `new_string`: the exact text, else the lines with white
/// space ignored, else the one window of lines similar above [`FUZZY_THRESHOLD`].
pub fn replace_string(
    original: &str,
    old_string: &str,
    new_string: &str,
) -> Result<String, EditError> {
    if old_string.is_empty() {
        return Err(EditError::NotFound(
            "oldString is empty: give the exact text to replace, with a few lines around it".into(),
        ));
    }
    let crlf = original.contains("\r\n");
    let eol = |s: &str| {
        if crlf {
            s.replace("\r\n", "\n").replace('\n', "\r\n")
        } else {
            s.replace("\r\n", "\n")
        }
    };
    let (old_s, new_s) = (eol(old_string), eol(new_string));
    let count = original.matches(old_s.as_str()).count();
    if count == 1 {
        return Ok(original.replacen(old_s.as_str(), &new_s, 1));
    }
    if count > 1 {
        let at: Vec<usize> = original
            .match_indices(old_s.as_str())
            .map(|(i, _)| original[..i].matches('\n').count())
            .collect();
        return Err(ambiguous(old_string.lines().next().unwrap_or(""), &at));
    }
    // By lines: white space ignored, then similarity.
    let lines = split_lines(original);
    let want = split_lines(&old_s);
    let want = trim_blank_edges(want);
    if want.is_empty() {
        return Err(EditError::NotFound("oldString has only white space".into()));
    }
    let mut at = find_all(&lines, 0, &want);
    if at.is_empty() && lines.len() >= want.len() {
        let target = want.join("\n");
        let scored: Vec<(usize, f64)> = (0..=lines.len() - want.len())
            .map(|i| (i, similarity(&lines[i..i + want.len()].join("\n"), &target)))
            .filter(|(_, s)| *s >= FUZZY_THRESHOLD)
            .collect();
        at = scored.iter().map(|(i, _)| *i).collect();
    }
    match at.len() {
        0 => Err(EditError::NotFound(format!(
            "oldString was not found in the file (not even with white space ignored): read the file again and copy the text exactly, starting at `{}`",
            want[0].trim()
        ))),
        1 => {
            let i = at[0];
            let mut out: Vec<&str> = lines[..i].to_vec();
            let replacement = split_lines(&new_s);
            out.extend(replacement.iter());
            out.extend_from_slice(&lines[i + want.len()..]);
            Ok(join(&out, crlf, original.ends_with('\n')))
        }
        _ => Err(ambiguous(want[0], &at)),
    }
}
