//! The model's answer read as Copilot's library reads it: the rewritten lines compared with the
//! edit window (`converge`), multi-line changes split by VS Code's line diff (`line_diff`), and
//! the first change that passes the library's filters (`filters`) kept and made the smallest
//! edit. Also pilotfish's two departures: fences dropped, and no suggestion from an answer that
//! is not a rewrite of the window.

use super::converge::{diff, split};
use super::edits::{LineReplacement, StringEdit, minimal};
use super::filters::{
    deletes_what_was_typed, is_import_change, is_whitespace_change, leaks_prompt,
};
use super::text::{Positions, Units, is_blank, split_lines, string, units};
use super::tracker::recent_edits;
use crate::{
    prompt::{Prompt, Suggestion},
    request::Replayed,
};

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
