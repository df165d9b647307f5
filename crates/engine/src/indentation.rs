//! Where a multi-line answer leaves its block, judged by indentation alone: Copilot's way for
//! languages it has no parser for. A line indented less than the cursor's block (or as much,
//! unless it continues the block: `}`, `else`, `end`, ...) ends the answer.

use languages::is_js_whitespace;

/// The indentation around a cursor: of the nearest non-blank line at or before it
/// (`current`), of the closest line above that one indented less (`prev`), and of the next
/// non-blank line after the cursor's line (`next`). Widths count characters as UTF-16 units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextIndentation {
    pub prev: Option<usize>,
    pub current: usize,
    pub next: Option<usize>,
}

/// The width of a line's leading white space, or `None` for a blank line.
fn indentation_of_line(line: &str) -> Option<usize> {
    let body = line.trim_start_matches(is_js_whitespace);
    (!body.is_empty()).then(|| utf16_len(&line[..line.len() - body.len()]))
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The context indentation at byte `offset` of `source`.
///
/// For Python, a docstring just above the cursor is skipped, so that the statements after a
/// function's docstring count as its body (Copilot's special case for PEP 257 docstrings).
pub fn context_indentation(source: &str, offset: usize, language_id: &str) -> ContextIndentation {
    let offset = offset.min(source.len());
    let offset = (0..=offset)
        .rev()
        .find(|&o| source.is_char_boundary(o))
        .unwrap_or(0);
    let before: Vec<&str> = source[..offset].split('\n').collect();
    let after: Vec<&str> = source[offset..].split('\n').collect();

    let (mut current, mut current_index) = (None, None);
    let mut i = before.len() as isize - 1;
    while current.is_none() && i >= 0 {
        current = indentation_of_line(before[i as usize]);
        current_index = Some(i as usize);
        i -= 1;
    }
    if language_id == "python" {
        // `i` is one above the line found; step back onto it.
        let mut j = i + 1;
        if j >= 0 && (j as usize) < before.len() {
            let trimmed = before[j as usize].trim_matches(is_js_whitespace);
            if trimmed.ends_with("\"\"\"") {
                let one_line = trimmed.starts_with("\"\"\"") && trimmed != "\"\"\"";
                if !one_line {
                    j -= 1;
                    while j >= 0
                        && !before[j as usize]
                            .trim_matches(is_js_whitespace)
                            .starts_with("\"\"\"")
                    {
                        j -= 1;
                    }
                }
                if j >= 0 {
                    current = None;
                    j -= 1;
                    while current.is_none() && j >= 0 {
                        current = indentation_of_line(before[j as usize]);
                        current_index = Some(j as usize);
                        j -= 1;
                    }
                }
            }
        }
    }
    let prev = match (current, current_index) {
        (Some(cur), Some(index)) => before[..index]
            .iter()
            .rev()
            .filter_map(|l| indentation_of_line(l))
            .find(|&ind| ind < cur),
        _ => None,
    };
    let next = after.iter().skip(1).find_map(|l| indentation_of_line(l));
    ContextIndentation {
        prev,
        current: current.unwrap_or(0),
        next,
    }
}

/// Keywords and brackets that continue a block at its own indentation.
const CONTINUATIONS: &[&str] = &["{", "}", "[", "]", "(", ")"];
const CONTINUATION_WORDS: &[&str] = &[
    "then", "else", "elseif", "elif", "catch", "finally", "fi", "done", "end", "loop", "until",
    "where", "when",
];

fn is_continuation_line(line: &str) -> bool {
    let line = line.trim_start_matches(is_js_whitespace).to_lowercase();
    if CONTINUATIONS.iter().any(|c| line.starts_with(c)) {
        return true;
    }
    CONTINUATION_WORDS.iter().any(|w| {
        line.strip_prefix(w).is_some_and(|rest| {
            // `\b` after the word: the next character is not a word character.
            !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

/// Where `completion` leaves the cursor's block: the length in bytes of the part to keep, or
/// `None` while the answer has not left it. The first line is always kept.
pub fn indentation_block_finished(completion: &str, context: ContextIndentation) -> Option<usize> {
    let lines: Vec<&str> = completion.split('\n').collect();
    if lines.len() <= 1 {
        return None;
    }
    let limit = context.current.max(context.next.unwrap_or(0));
    let mut kept = lines[0].len();
    for line in &lines[1..] {
        if let Some(ind) = indentation_of_line(line)
            && (ind < limit || (ind == limit && !is_continuation_line(line)))
        {
            return Some(kept);
        }
        kept += 1 + line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context() {
        let src = "def f():\n    x = 1\n    \n";
        let c = context_indentation(src, src.len() - 1, "plaintext");
        assert_eq!(
            c,
            ContextIndentation {
                prev: Some(0),
                current: 4,
                next: None
            }
        );
    }

    #[test]
    fn cut_at_outdent() {
        let ctx = ContextIndentation {
            prev: Some(0),
            current: 4,
            next: None,
        };
        // A line at the block's indentation starts the next statement: one is enough.
        let completion = "y = 2\n    z = 3\nprint(y)\n";
        assert_eq!(
            indentation_block_finished(completion, ctx),
            Some("y = 2".len())
        );
        let completion = "if y:\n        z = 3\nprint(y)\n";
        assert_eq!(
            indentation_block_finished(completion, ctx),
            Some("if y:\n        z = 3".len())
        );
        // A closing line at the block's own indentation continues it.
        let ctx = ContextIndentation {
            prev: None,
            current: 0,
            next: None,
        };
        assert_eq!(indentation_block_finished("a\n} else {\n  b", ctx), None);
        assert_eq!(indentation_block_finished("only one line", ctx), None);
    }
}
