//! What Copilot does to a completion before it shows it: drop answers that repeat a pattern or
//! the next line, snip block-closing lines the document already has, measure how much of the
//! rest of the line the completion replaces, and re-indent with the editor's characters.
//!
//! Each function reproduces Copilot's, quirks included (the differential tests hold them to
//! it); a document is given as its lines.

use languages::is_js_whitespace;

/// The token that closes a block in a language, as Copilot's snipping uses it: `end` for Ruby,
/// `}` for every other language (Copilot falls back to `}` where it has no answer, Python too).
pub fn block_close_token(language_id: &str) -> &'static str {
    if language_id == "ruby" { "end" } else { "}" }
}

/// Cuts trailing lines of `completion` that only close blocks the document closes already on
/// the lines after the cursor (empty lines skipped on both sides); the last line may also just
/// be a prefix of the document's line or the other way round (`} else {`).
pub fn maybe_snip_completion(
    doc_lines: &[&str],
    cursor_line: usize,
    completion: &str,
    block_close_token: &str,
) -> String {
    let newline = if completion.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let lines: Vec<&str> = completion.split(newline).collect();
    if lines.len() == 1 {
        return completion.to_owned();
    }
    let blank = |s: &str| s.trim_matches(is_js_whitespace).is_empty();
    for start in 1..lines.len() {
        let mut matched = true;
        let mut doc_skipped = 0usize;
        let mut completion_skipped = 0usize;
        let mut offset = 0usize;
        while offset + start + completion_skipped < lines.len() {
            let doc_line = loop {
                let idx = cursor_line + 1 + offset + doc_skipped;
                match doc_lines.get(idx) {
                    Some(l) if blank(l) => doc_skipped += 1,
                    other => break other.copied(),
                }
            };
            let (completion_idx, completion_line) = loop {
                let idx = start + offset + completion_skipped;
                match lines.get(idx) {
                    Some(l) if blank(l) => completion_skipped += 1,
                    other => break (idx, other.copied()),
                }
            };
            let is_last = completion_idx == lines.len() - 1;
            let ok = match (completion_line, doc_line) {
                (Some(c), Some(d)) if !c.is_empty() => {
                    if is_last {
                        d.starts_with(c) || c.starts_with(d)
                    } else {
                        d == c && c.trim_matches(is_js_whitespace) == block_close_token
                    }
                }
                _ => false,
            };
            if !ok {
                matched = false;
                break;
            }
            offset += 1;
        }
        if matched {
            return lines[..start].join(newline);
        }
    }
    completion.to_owned()
}

/// Whether `text` is the next non-empty line after the cursor (trimmed when `trim`): Copilot
/// drops a single-line completion that only repeats it.
pub fn matches_next_line(doc_lines: &[&str], cursor_line: usize, text: &str, trim: bool) -> bool {
    let wanted = if trim {
        text.trim_matches(is_js_whitespace)
    } else {
        text
    };
    let mut next = "";
    let mut line = cursor_line + 1;
    while next.is_empty() && line < doc_lines.len() {
        next = doc_lines[line];
        if trim {
            next = next.trim_matches(is_js_whitespace);
        }
        if next == wanted {
            return true;
        }
        line += 1;
    }
    false
}

/// How much of the rest of the cursor's line a completion replaces, as Copilot measures it:
/// the whole rest (in UTF-16 code units) when the completion contains it, else the number of
/// its characters found in order in the completion.
pub fn check_suffix(rest_of_line: &str, completion: &str) -> usize {
    if rest_of_line.is_empty() {
        return 0;
    }
    let hay: Vec<u16> = completion.encode_utf16().collect();
    let rest: Vec<u16> = rest_of_line.encode_utf16().collect();
    if find_units(&hay, &rest, 0).is_some() {
        return rest.len();
    }
    let mut last: isize = -1;
    let mut matched = 0;
    for c in rest_of_line.chars() {
        let mut buf = [0u16; 2];
        let needle = c.encode_utf16(&mut buf);
        match find_units(&hay, needle, (last + 1) as usize) {
            Some(i) if i as isize > last => {
                matched += 1;
                last = i as isize;
            }
            _ => break,
        }
    }
    matched
}

fn find_units(hay: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from.min(hay.len()));
    }
    (from..hay.len().saturating_sub(needle.len() - 1))
        .find(|&i| hay[i..i + needle.len()] == *needle)
}

/// Re-indents a completion with the editor's characters: tabs to spaces (or spaces to tabs)
/// at line starts, and on an empty line rounds a first line's odd indentation up to whole
/// indentation steps, as Copilot does.
pub fn normalize_indent(
    text: &str,
    tab_size: Option<usize>,
    insert_spaces: Option<bool>,
    is_empty_line: bool,
) -> String {
    let size = tab_size.unwrap_or(4).max(1);
    match insert_spaces {
        Some(false) => replace_leading(text, " ", |n| {
            format!("{}{}", "\t".repeat(n / size), " ".repeat(n % size))
        }),
        Some(true) => {
            let spaced = replace_leading(text, "\t", |n| " ".repeat(n * size));
            if !is_empty_line || spaced.is_empty() {
                return spaced;
            }
            let first = spaced.split('\n').next().unwrap_or_default();
            let leading = first.len() - first.trim_start_matches(is_js_whitespace).len();
            let remainder = leading % size;
            if remainder != 0 && leading > 0 {
                let unit = " ".repeat(remainder);
                replace_leading(&spaced, &unit, |n| " ".repeat((n / size + 1) * size))
            } else {
                spaced
            }
        }
        None => text.to_owned(),
    }
}

/// Replaces each line's leading run of `unit` repeats by `replacer(number of characters removed)`.
fn replace_leading(text: &str, unit: &str, replacer: impl Fn(usize) -> String) -> String {
    text.split('\n')
        .map(|line| {
            let mut rest = line;
            while let Some(r) = rest.strip_prefix(unit) {
                rest = r;
            }
            let removed = line.len() - rest.len();
            format!("{}{rest}", replacer(removed))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether the answer's last tokens repeat a short pattern (Copilot drops such answers): a
/// token ten times over, or the last 30, 45 or 60 tokens made of a pattern of at most 10, 20
/// or 30 — also after dropping white-space tokens.
pub fn is_repetitive(tokens: &[&str]) -> bool {
    let backwards: Vec<&str> = tokens.iter().rev().copied().collect();
    let non_blank: Vec<&str> = backwards
        .iter()
        .copied()
        .filter(|t| !t.trim_matches(is_js_whitespace).is_empty())
        .collect();
    repeated_pattern(&backwards) || repeated_pattern(&non_blank)
}

const REPETITION_CONFIGS: [(usize, usize); 4] = [(1, 10), (10, 30), (20, 45), (30, 60)];

fn repeated_pattern(s: &[&str]) -> bool {
    if s.is_empty() {
        return false;
    }
    let prefix = kmp_prefix(s);
    REPETITION_CONFIGS.iter().any(|&(max_len, consider)| {
        s.len() >= consider && (consider as isize - 1 - prefix[consider - 1]) <= max_len as isize
    })
}

fn kmp_prefix(s: &[&str]) -> Vec<isize> {
    let mut pi = vec![0isize; s.len()];
    pi[0] = -1;
    let mut k: isize = -1;
    for q in 1..s.len() {
        while k >= 0 && s[(k + 1) as usize] != s[q] {
            k = pi[k as usize];
        }
        if s[(k + 1) as usize] == s[q] {
            k += 1;
        }
        pi[q] = k;
    }
    pi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snips_closing_lines_the_document_has() {
        let doc = ["fn f() {", "    ", "}", "fn g() {}"];
        assert_eq!(
            maybe_snip_completion(&doc, 1, "let x = 1;\n}", "}"),
            "let x = 1;"
        );
        assert_eq!(
            maybe_snip_completion(&doc, 1, "let x = 1;\n}\nfn h() {}", "}"),
            "let x = 1;\n}\nfn h() {}"
        );
        let doc = ["if x {", "", "} else {"];
        assert_eq!(maybe_snip_completion(&doc, 1, "y();\n}", "}"), "y();");
    }

    #[test]
    fn suffix_overlap() {
        assert_eq!(check_suffix(")", "a, b)"), 1);
        assert_eq!(check_suffix(");", "x)"), 1);
        assert_eq!(check_suffix("", "x"), 0);
        assert_eq!(check_suffix("😀", "a😀"), 2);
    }

    #[test]
    fn indentation() {
        assert_eq!(
            normalize_indent("\tx\n\t\ty", Some(4), Some(true), false),
            "    x\n        y"
        );
        assert_eq!(
            normalize_indent("      x", Some(4), Some(false), false),
            "\t  x"
        );
        assert_eq!(
            normalize_indent("  x\n  y", Some(4), Some(true), true),
            "    x\n    y"
        );
    }

    #[test]
    fn repetition() {
        assert!(is_repetitive(&["a"; 10]));
        assert!(!is_repetitive(&["a"; 9]));
        let varied: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        let varied: Vec<&str> = varied.iter().map(String::as_str).collect();
        assert!(!is_repetitive(&varied));
    }
}
