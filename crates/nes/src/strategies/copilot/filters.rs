//! The filters Copilot's library passes each change through before it suggests it: changes
//! to import lines (per language, old lines read from the text before the recent edits),
//! changes of blank lines or of white space at the ends of lines only, deletions of what the
//! user just typed, and lines that repeat the prompt's own tags.

use super::edits::{LineReplacement, StringEdit, minimal};
use super::text::{is_blank, string, trim};

/// Substrings that mark an answer as leaking the prompt.
const LEAKS: [&str; 3] = [
    "<|current_file_content|>",
    "<|/current_file_content|>",
    "<|diff_marker|>",
];

/// Whether the change touches an import (its new lines, or the lines it replaces as they were
/// before the user's edits, as the library reads them).
pub(super) fn is_import_change(
    change: &LineReplacement,
    language: &str,
    before: &[&[u16]],
) -> bool {
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
pub(super) fn is_whitespace_change(change: &LineReplacement, lines: &[&[u16]]) -> bool {
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
pub(super) fn deletes_what_was_typed(
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

pub(super) fn leaks_prompt(change: &LineReplacement) -> bool {
    change.lines.iter().any(|l| {
        let l = string(l);
        LEAKS.iter().any(|s| l.contains(s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
