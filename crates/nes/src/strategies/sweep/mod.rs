//! The `sweep` strategy: the raw completion prompt open next-edit models were trained on
//! (Sweep's `sweepai/sweep-next-edit-1.5B` above all), for llama-server's `/completion`, and the
//! model's answer read back as the new text of the window it rewrote.
//!
//! # The format
//!
//! The prompt is a run of Qwen2.5-Coder repository sections, each a `<|file_sep|>` token, a
//! name, a line break and a body, in this order:
//!
//! ```text
//! <|file_sep|>lib/util.ts                  a range of another file the user looked at
//! export function clamp(x: number) {
//! <|file_sep|>src/point.ts.diff            an earlier change, as whole lines
//! original:
//!   x: number;
//! updated:
//!   x: number;
//!   y: number;
//! <|file_sep|>original/src/point.ts        the window before the latest change
//! class Point {
//! <|file_sep|>current/src/point.ts         the window now
//! class Point3D {
//! <|file_sep|>updated/src/point.ts
//! ```
//!
//! and the model writes the window's updated text, then `<|file_sep|>` (or ends the text).
//! Where each rule comes from:
//!
//! - The sections, their order and names, `original:`/`updated:` in a `{path}.diff` section,
//!   each body without its last line break and sections joined by one line break, the
//!   `original/` section as the text "prior to the most recent change": `build_prompt` in
//!   `run_model.py`, the example published with the model (Hugging Face,
//!   `sweepai/sweep-next-edit-1.5B`), whose diffs do not repeat that most recent change.
//! - A line break after `updated/{path}`, so that the answer starts with the window's first
//!   line: Sweep's own local clients, `src/local/completions.ts` in `sweepai/vscode-nes` and
//!   `server/provider/sweep/sweep.go` in `sweepai/cursortab.nvim`. The latter's diffs hold the
//!   changed lines only, with no lines around them (`server/buffer/buffer.go`), as ours do.
//! - The window: a fixed 21 lines (Sweep's blog post "Open sourcing a 1.5B parameter Next-Edit
//!   Autocomplete Model", blog.sweep.dev/posts/oss-next-edit, which also gives the reason: the
//!   model knows how many lines to write back), the cursor's and 10 above and below, as Zed's
//!   support for this model takes them. No source says whether a window near the start or end
//!   of the file moves to keep 21 lines; ours is cut short there.
//! - No cursor marker: none of the above marks the cursor for the 1.5B model. (Sweep's later
//!   `sweep-next-edit-v2-7B` adds `:start:end` to the names and a `<|cursor|>` marker; that is
//!   another format, not this one.)
//! - Stops: `<|file_sep|>` and `</s>`, with greedy decoding and an 8,192-token context
//!   (`run_model.py`). `</s>` is not a token of Qwen2.5's vocabulary, only text, so it is left out
//!   when the window itself contains it (an HTML strike-through) lest the copy of the window stop
//!   there; `<|endoftext|>`, Qwen's own end of text, is added for servers that print it.
//!
//! Our own choices, which the sources leave open: a change is a run of consecutive edits to
//! lines at most two apart in one document; the cursor document's latest change goes into
//! `original/` only when it shows in the window's lines (else `original/` repeats `current/`
//! and the change stays a diff); at most five changes are shown, most recent last,
//! each side cut to 40 lines; related files are the `viewed` ranges, as whole lines, at most 60
//! each; line breaks are sent as `\n` and given back as the window had them; and text that
//! spells a special token (`<|file_sep|>` in a file about prompts) gets a zero-width space after
//! its `<`, because llama-server reads special tokens in a prompt's text, and the space is taken
//! out of the answer again.
//!
//! The prompt stays within `max_prompt_tokens` (6,000 by default) counted as three characters a
//! token: the window sections first (a quarter of the room each at most, fewer lines when lines
//! are long, part of the cursor's line when that one alone is longer), then the changes, most
//! recent first, then the related ranges.

use std::borrow::Cow;

use crate::{
    history::{History, byte_offset},
    prompt::{Answer, Body, Prompt, Window},
    request::Replayed,
};

/// Builds the prompt for the document under the cursor.
pub fn build(replayed: &Replayed) -> Prompt {
    let fallback;
    let doc = match replayed.documents.get(replayed.cursor_document) {
        Some(doc) => doc,
        None => {
            fallback = History::new("", "", "");
            &fallback
        }
    };
    let paths = prompt_paths(&replayed.documents);
    let path = paths
        .get(replayed.cursor_document)
        .map_or(UNTITLED, String::as_str);
    let budget = replayed
        .options
        .max_prompt_tokens
        .unwrap_or(DEFAULT_PROMPT_TOKENS)
        .saturating_mul(CHARS_PER_TOKEN);
    let cap = (budget / 4).max(MIN_WINDOW_BYTES);

    let cursor = byte_at(&doc.text, replayed.cursor);
    let span = window_span(&doc.text, cursor, cap);
    let current = &doc.text[span.start..span.end];
    let mut history = replay_changes(replayed);
    let original = take_original(&mut history, span.lines, current, cap);

    let mut tail = String::new();
    push_section(&mut tail, &format!("original/{path}"), &prepare(&original));
    push_section(&mut tail, &format!("current/{path}"), &prepare(current));
    tail.push_str(FILE_SEP);
    tail.push_str("updated/");
    tail.push_str(path);
    tail.push('\n');

    let mut room = budget.saturating_sub(tail.len());
    let diffs = diff_sections(&history.changes, &paths, &mut room);
    let related = related_sections(replayed, &paths, &mut room);

    let mut stop = vec![FILE_SEP.to_owned()];
    if !current.contains(END_TAG) {
        stop.push(END_TAG.to_owned());
    }
    stop.push(END_OF_TEXT.to_owned());
    Prompt {
        body: Body::Completion {
            prompt: related + &diffs + &tail,
            stop,
        },
        window: Window {
            uri: doc.uri.clone(),
            start: span.start,
            end: span.end,
            text: current.to_owned(),
        },
        answer: Answer::Window,
    }
}

/// The new text of the window from the model's answer, in the window's line breaks, or `None`
/// when the answer is empty, much longer than the window, or holds tokens of the format.
pub fn read_answer(prompt: &Prompt, answer: &str) -> Option<String> {
    let cut = cut_at_stops(answer, &stops_of(prompt));
    if cut.trim().is_empty() || token_starts(cut).next().is_some() {
        return None;
    }
    let window = normalize_breaks(&prompt.window.text);
    if too_long(cut, &window) {
        return None;
    }
    let text = unescape_tokens(&normalize_breaks(cut)).into_owned();
    // The model ends the window's last line with a break whether or not the window had one.
    let mut new = text.strip_suffix('\n').unwrap_or(&text).to_owned();
    if window.ends_with('\n') {
        new.push('\n');
    }
    if mostly_crlf(&prompt.window.text) {
        new = new.replace('\n', "\r\n");
    }
    Some(new)
}

/// Qwen2.5-Coder's separator of files in a repository, which the format is built on.
const FILE_SEP: &str = "<|file_sep|>";
/// Qwen2.5's end of text.
const END_OF_TEXT: &str = "<|endoftext|>";
/// The second stop of Sweep's example.
const END_TAG: &str = "</s>";
/// What marks a special token as text: a zero-width space after its `<`.
const ESCAPE: char = '\u{200B}';
const UNTITLED: &str = "untitled";

/// Lines of the window above and below the cursor's: 21 in all.
const WINDOW_RADIUS: usize = 10;
const DEFAULT_PROMPT_TOKENS: usize = 6_000;
const CHARS_PER_TOKEN: usize = 3;
/// The least room a window section gets, however small the budget.
const MIN_WINDOW_BYTES: usize = 64;
/// Edits this many lines apart or closer are one change.
const NEARBY_LINES: usize = 2;
const MAX_CHANGES: usize = 5;
const MAX_CHANGE_LINES: usize = 40;
const MAX_RELATED_LINES: usize = 60;

/// The window in the document now: bytes, and lines when it is made of whole lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    /// `[first, end)` line numbers; `None` for part of one long line.
    lines: Option<(usize, usize)>,
}

/// A run of edits to nearby lines of one document, as whole lines before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Change {
    doc: usize,
    /// The first line that differs (the lines above are the same before and after).
    first_line: usize,
    /// The lines that differ, with their line breaks.
    original: String,
    updated: String,
}

/// The edit history as changes, oldest first, and what the cursor's document was before its
/// latest change.
#[derive(Debug, Default)]
struct ChangeHistory {
    changes: Vec<Change>,
    /// The index of the cursor document's latest change and that document's text before it.
    before_latest: Option<(usize, String)>,
}

/// The window: up to `WINDOW_RADIUS` lines each side of the cursor's, fewer while the window
/// is over `cap` bytes, and part of the cursor's line when that line alone is.
fn window_span(text: &str, cursor: usize, cap: usize) -> Span {
    let starts = line_starts(text);
    let line = line_of(&starts, cursor);
    let end_of = |l: usize| starts.get(l).copied().unwrap_or(text.len());
    let start_of = |l: usize| starts.get(l).copied().unwrap_or(0);
    let mut top = line.saturating_sub(WINDOW_RADIUS);
    let mut bottom = (line + WINDOW_RADIUS + 1).min(starts.len());
    while bottom - top > 1 && end_of(bottom) - start_of(top) > cap {
        // Drop the line farther from the cursor.
        if line - top >= bottom - 1 - line {
            top += 1;
        } else {
            bottom -= 1;
        }
    }
    if end_of(bottom) - start_of(top) <= cap {
        return Span {
            start: start_of(top),
            end: end_of(bottom),
            lines: Some((top, bottom)),
        };
    }
    let half = cap / 2;
    let start = floor_char(text, cursor.saturating_sub(half).max(start_of(line)));
    let end = floor_char(text, (cursor + half).min(end_of(line + 1))).max(cursor);
    Span {
        start,
        end,
        lines: None,
    }
}

/// The `original/` window: the same lines before the cursor document's latest change when that
/// change shows in them (and the change is then taken out of the diffs), else the window now.
fn take_original(
    history: &mut ChangeHistory,
    lines: Option<(usize, usize)>,
    current: &str,
    cap: usize,
) -> String {
    let (Some((top, bottom)), Some((index, before))) = (lines, history.before_latest.as_ref())
    else {
        return current.to_owned();
    };
    let Some(change) = history.changes.get(*index) else {
        return current.to_owned();
    };
    let old = old_lines(before, change, top, bottom);
    // A change of many lines that the window cuts into would make a long `original/`; the
    // change is then left as a diff.
    if old == current || old.len() > cap || old.lines().count() > 2 * (2 * WINDOW_RADIUS + 1) {
        return current.to_owned();
    }
    let old = old.to_owned();
    history.changes.remove(*index);
    old
}

/// Lines `[top, bottom)` of the text after `change`, taken from the text `before` it: lines
/// above the change are the same, lines below moved by what it added, and a window cutting
/// into the change gets all its old lines.
fn old_lines<'a>(before: &'a str, change: &Change, top: usize, bottom: usize) -> &'a str {
    let p = change.first_line;
    let old = change.original.split_inclusive('\n').count();
    let new = change.updated.split_inclusive('\n').count();
    let map = |l: usize, inside: usize| {
        if l <= p {
            l
        } else if l >= p + new {
            l - new + old
        } else {
            inside
        }
    };
    let starts = line_starts(before);
    let at = |l: usize| starts.get(l).copied().unwrap_or(before.len());
    let (start, end) = (at(map(top, p)), at(map(bottom, p + old)));
    &before[start..end.max(start)]
}

/// Replays every document's edits in the order they were made, grouping edits to nearby lines
/// of one document into changes.
fn replay_changes(replayed: &Replayed) -> ChangeHistory {
    let docs = &replayed.documents;
    let mut texts: Vec<Option<String>> = vec![None; docs.len()];
    let mut history = ChangeHistory::default();
    let mut open: Option<OpenChange> = None;
    for (d, i) in edit_sequence(replayed) {
        let (Some(doc), Some(edit)) = (docs.get(d), docs.get(d).and_then(|h| h.edits.get(i)))
        else {
            continue;
        };
        let text = texts[d].get_or_insert_with(|| doc.base.clone());
        let s = byte_at(text, edit.start);
        let e = byte_at(text, edit.end).max(s);
        let first = count_breaks(&text[..s]);
        let last = first + count_breaks(&text[s..e]);
        let reach = first + count_breaks(&edit.text);
        let joined = match open.as_mut() {
            Some(o)
                if o.doc == d
                    && first <= o.last + NEARBY_LINES
                    && last + NEARBY_LINES >= o.first =>
            {
                // Lines below the edit move by the lines it added or removed.
                let moved = if o.last > last {
                    o.last - (last - first) + (reach - first)
                } else {
                    reach
                };
                o.first = o.first.min(first);
                o.last = moved.max(reach);
                true
            }
            _ => false,
        };
        if !joined {
            let before = text.clone();
            if let Some(o) = open.take() {
                close(o, &texts, replayed.cursor_document, &mut history);
            }
            open = Some(OpenChange {
                doc: d,
                before,
                first,
                last: reach,
            });
        }
        if let Some(text) = texts[d].as_mut() {
            text.replace_range(s..e, &edit.text);
        }
    }
    if let Some(o) = open {
        close(o, &texts, replayed.cursor_document, &mut history);
    }
    history
}

/// A change still taking edits: its document, the text before it, and the lines it spans now.
#[derive(Debug)]
struct OpenChange {
    doc: usize,
    before: String,
    first: usize,
    last: usize,
}

/// Ends a change: the lines it made differ, if any (edits can undo each other).
fn close(o: OpenChange, texts: &[Option<String>], cursor_doc: usize, history: &mut ChangeHistory) {
    let Some(Some(after)) = texts.get(o.doc) else {
        return;
    };
    let Some(change) = line_change(o.doc, &o.before, after) else {
        return;
    };
    if o.doc == cursor_doc {
        history.before_latest = Some((history.changes.len(), o.before));
    }
    history.changes.push(change);
}

/// The lines that differ between two texts: what is left when the lines they start and end
/// with alike are taken away.
fn line_change(doc: usize, before: &str, after: &str) -> Option<Change> {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    if prefix == old.len() && prefix == new.len() {
        return None;
    }
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    Some(Change {
        doc,
        first_line: prefix,
        original: old[prefix..old.len() - suffix].concat(),
        updated: new[prefix..new.len() - suffix].concat(),
    })
}

/// `(document, edit)` in the order the edits were made. Edits the order does not name (it
/// was cut shorter than a history) come first; names beyond a history (edits folded into its
/// base) are its oldest and are passed over.
fn edit_sequence(replayed: &Replayed) -> Vec<(usize, usize)> {
    let docs = &replayed.documents;
    let mut named = vec![0usize; docs.len()];
    for &d in &replayed.edit_order {
        if let Some(n) = named.get_mut(d) {
            *n += 1;
        }
    }
    let mut sequence = Vec::new();
    let mut next = vec![0usize; docs.len()];
    let mut skip = vec![0usize; docs.len()];
    for (d, h) in docs.iter().enumerate() {
        let unnamed = h.edits.len().saturating_sub(named[d]);
        sequence.extend((0..unnamed).map(|i| (d, i)));
        next[d] = unnamed;
        skip[d] = named[d].saturating_sub(h.edits.len());
    }
    for &d in &replayed.edit_order {
        if d >= docs.len() {
            continue;
        }
        if skip[d] > 0 {
            skip[d] -= 1;
            continue;
        }
        sequence.push((d, next[d]));
        next[d] += 1;
    }
    sequence
}

/// The `{path}.diff` sections of the latest changes that fit in `room`, oldest first.
fn diff_sections(changes: &[Change], paths: &[String], room: &mut usize) -> String {
    let mut picked: Vec<String> = Vec::new();
    for change in changes.iter().rev() {
        if picked.len() == MAX_CHANGES {
            break;
        }
        let path = paths.get(change.doc).map_or(UNTITLED, String::as_str);
        let body = format!(
            "original:\n{}\nupdated:\n{}",
            change_side(&change.original),
            change_side(&change.updated)
        );
        let mut section = String::new();
        push_section(&mut section, &format!("{path}.diff"), &body);
        if section.len() <= *room {
            *room -= section.len();
            picked.push(section);
        }
    }
    picked.reverse();
    picked.concat()
}

/// One side of a change as the diff shows it: at most `MAX_CHANGE_LINES` lines, without the
/// last line break.
fn change_side(lines: &str) -> String {
    let kept: String = normalize_breaks(lines)
        .split_inclusive('\n')
        .take(MAX_CHANGE_LINES)
        .collect();
    let kept = kept.strip_suffix('\n').unwrap_or(&kept);
    escape_tokens(kept).into_owned()
}

/// Sections of the ranges the user looked at in other open documents, as whole lines, in the
/// order given, each cut to what fits in `room`.
fn related_sections(replayed: &Replayed, paths: &[String], room: &mut usize) -> String {
    let mut out = String::new();
    let mut shown: Vec<(usize, usize, usize)> = Vec::new();
    for range in &replayed.viewed {
        let Some(d) = replayed.documents.iter().position(|h| h.uri == range.uri) else {
            continue;
        };
        if d == replayed.cursor_document {
            continue;
        }
        let text = &replayed.documents[d].text;
        let (first, end) = viewed_lines(text, range.start, range.end);
        if shown
            .iter()
            .any(|&(sd, sf, se)| sd == d && sf <= first && end <= se)
        {
            continue;
        }
        let starts = line_starts(text);
        let at = |l: usize| starts.get(l).copied().unwrap_or(text.len());
        let header = paths.get(d).map_or(UNTITLED, String::as_str);
        let overhead = FILE_SEP.len() + header.len() + 2;
        let body = prepare(&text[at(first)..at(end)]);
        let mut fitting = String::new();
        for line in body.split_inclusive('\n') {
            if overhead + fitting.len() + line.len() > *room {
                break;
            }
            fitting.push_str(line);
        }
        if fitting.is_empty() {
            continue;
        }
        let before = out.len();
        push_section(&mut out, header, &fitting);
        *room = room.saturating_sub(out.len() - before);
        shown.push((d, first, end));
    }
    out
}

/// `[first, end)` lines a viewed range covers, at most `MAX_RELATED_LINES`; offsets past the
/// end or inside a character are taken to the nearest character before.
fn viewed_lines(text: &str, start: usize, end: usize) -> (usize, usize) {
    let (s, e) = (byte_at(text, start), byte_at(text, end));
    let (s, e) = (s.min(e), s.max(e));
    let starts = line_starts(text);
    let first = line_of(&starts, s);
    let last = line_of(&starts, e);
    // A range that ends where a line starts stops at the line before.
    let end_line = if e > s && starts.get(last) == Some(&e) && last > first {
        last
    } else {
        last + 1
    };
    (first, end_line.min(first + MAX_RELATED_LINES))
}

/// A section: the separator, its name, a line break, the body and a line break unless the body
/// ends with one.
fn push_section(out: &mut String, name: &str, body: &str) {
    out.push_str(FILE_SEP);
    out.push_str(name);
    out.push('\n');
    out.push_str(body);
    if !body.ends_with('\n') {
        out.push('\n');
    }
}

/// Document text as the prompt shows it: `\n` line breaks, special tokens made text.
fn prepare(text: &str) -> String {
    escape_tokens(&normalize_breaks(text)).into_owned()
}

fn normalize_breaks(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Where `<|name|>` starts, for names of lower-case letters and `_`: how Qwen2.5's special
/// tokens (and Sweep's) are spelled.
fn token_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.match_indices("<|")
        .map(|(i, _)| i)
        .filter(move |&i| names_token(&text[i + 2..]))
}

/// Whether `rest` starts with a token's name and its closing `|>`.
fn names_token(rest: &str) -> bool {
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_lowercase() || *b == b'_')
        .count();
    name > 0 && rest[name..].starts_with("|>")
}

/// Puts a zero-width space after the `<` of each special token's spelling, so that the
/// server reads it as text.
fn escape_tokens(text: &str) -> Cow<'_, str> {
    let at: Vec<usize> = token_starts(text).collect();
    if at.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 3 * at.len());
    let mut from = 0;
    for i in at {
        out.push_str(&text[from..=i]);
        out.push(ESCAPE);
        from = i + 1;
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// Takes out the zero-width spaces `escape_tokens` put in.
fn unescape_tokens(text: &str) -> Cow<'_, str> {
    let marker = "<\u{200B}|";
    let at: Vec<usize> = text
        .match_indices(marker)
        .map(|(i, _)| i)
        .filter(|&i| names_token(&text[i + marker.len()..]))
        .collect();
    if at.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for i in at {
        out.push_str(&text[from..=i]);
        from = i + 1 + ESCAPE.len_utf8();
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

fn stops_of(prompt: &Prompt) -> Vec<&str> {
    match &prompt.body {
        Body::Completion { stop, .. } => stop.iter().map(String::as_str).collect(),
        Body::Chat { .. } => vec![FILE_SEP, END_OF_TEXT],
    }
}

/// The answer up to the first stop in it.
fn cut_at_stops<'a>(answer: &'a str, stops: &[&str]) -> &'a str {
    let end = stops
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| answer.find(s))
        .min()
        .unwrap_or(answer.len());
    &answer[..end]
}

/// Whether most of the text's line breaks are CRLF (a window of mixed breaks gets its
/// majority's).
fn mostly_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && 2 * crlf >= count_breaks(text)
}

/// An answer far longer than the window is the model running on, not a rewrite of it.
fn too_long(answer: &str, window: &str) -> bool {
    answer.lines().count() > 2 * window.lines().count() + 20
        || answer.len() > 3 * window.len() + 2_000
}

/// Byte offsets where lines start; a text ending with a line break has an empty last line.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

fn line_of(starts: &[usize], byte: usize) -> usize {
    starts.partition_point(|&s| s <= byte).saturating_sub(1)
}

fn count_breaks(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

/// The byte offset of a UTF-16 offset, taken back to the start of a character it falls in
/// and to the end of the text when past it.
fn byte_at(text: &str, units: usize) -> usize {
    match byte_offset(text, units) {
        Ok(b) => b,
        // Inside a surrogate pair: the pair's character starts one unit before.
        Err(_) => byte_offset(text, units.saturating_sub(1)).unwrap_or(0),
    }
}

fn floor_char(text: &str, mut byte: usize) -> usize {
    byte = byte.min(text.len());
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    byte
}

/// The names documents go by in the prompt: `file:` paths relative to the folder all of them
/// are in (a lone document goes by its file name), other URIs by their last segment.
fn prompt_paths(documents: &[History]) -> Vec<String> {
    let parsed: Vec<Option<Vec<String>>> = documents.iter().map(|h| file_path(&h.uri)).collect();
    let mut folders = parsed
        .iter()
        .flatten()
        .map(|parts| &parts[..parts.len().saturating_sub(1)]);
    let common = match folders.next() {
        Some(first) => folders.fold(first.len(), |n, other| {
            first[..n]
                .iter()
                .zip(other)
                .take_while(|(a, b)| a == b)
                .count()
        }),
        None => 0,
    };
    documents
        .iter()
        .zip(&parsed)
        .map(|(h, parts)| {
            let name = match parts {
                Some(parts) => parts.get(common..).unwrap_or_default().join("/"),
                None => last_segment(&h.uri),
            };
            if name.is_empty() {
                UNTITLED.to_owned()
            } else {
                name
            }
        })
        .collect()
}

/// The path of a `file:` URI as its decoded segments (the host, if any, left out).
fn file_path(uri: &str) -> Option<Vec<String>> {
    let rest = uri.strip_prefix("file://")?;
    let path = &rest[rest.find('/').unwrap_or(rest.len())..];
    Some(
        path.split('/')
            .filter(|s| !s.is_empty())
            .map(percent_decode)
            .collect(),
    )
}

fn last_segment(uri: &str) -> String {
    let after_scheme = uri.split_once(':').map_or(uri, |(_, rest)| rest);
    percent_decode(after_scheme.rsplit('/').next().unwrap_or(after_scheme))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
