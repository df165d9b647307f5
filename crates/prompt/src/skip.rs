//! Copilot's rules for not asking for a completion at all: a tiny document, or a cursor in
//! the middle of a line before anything but closing brackets.

use tokenizer::utf16;

/// Below this many characters of document Copilot does not ask for a completion.
const MIN_PROMPT_CHARS: usize = 10;

/// Whether Copilot would skip asking for a completion here, and why.
pub(crate) fn copilot_skip_reason(
    text: &str,
    cursor: usize,
    suffix_percent: u32,
    language_id: &str,
) -> Option<String> {
    let eligible = if suffix_percent > 0 {
        utf16::utf16_len(text)
    } else {
        utf16::utf16_len(&text[..cursor])
    };
    if eligible < MIN_PROMPT_CHARS && language_id != "scminput" {
        return Some(format!(
            "the document is shorter than {MIN_PROMPT_CHARS} characters"
        ));
    }
    let after = &text[cursor..];
    let rest_of_line = &after[..after.find(['\n', '\r']).unwrap_or(after.len())];
    let rest = rest_of_line.trim_matches(languages::is_js_whitespace);
    if !rest.is_empty() && !valid_middle_of_line(rest) {
        return Some(format!(
            "the cursor is in the middle of a line, before `{rest}`"
        ));
    }
    None
}

/// Copilot completes in the middle of a line only before closing brackets and quotes, with at
/// most one of `:{;,` after them.
fn valid_middle_of_line(rest: &str) -> bool {
    let rest = rest.trim_start_matches(languages::is_js_whitespace);
    let rest = rest.trim_start_matches([')', '>', '}', ']', '"', '\'', '`']);
    let rest = rest.trim_start_matches(languages::is_js_whitespace);
    let rest = rest.strip_prefix([':', '{', ';', ',']).unwrap_or(rest);
    rest.trim_start_matches(languages::is_js_whitespace)
        .is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_of_line() {
        assert!(valid_middle_of_line(")"));
        assert!(valid_middle_of_line(") {"));
        assert!(valid_middle_of_line("\"]);"));
        assert!(!valid_middle_of_line("foo)"));
        assert!(!valid_middle_of_line(");;"));
    }
}
