//! The suffix as Copilot takes it, and its cache: the previous suffix is sent again while the
//! new one is close enough, so that a model server's prompt cache stays warm.

use crate::Session;
use tokenizer::{Tokenizer, utf16};

/// Copilot's character cap for prefix and suffix: about four characters per token plus 10%.
pub(crate) fn approximate_max_characters(max_prompt_tokens: usize) -> usize {
    let tokens = max_prompt_tokens as f64;
    (tokens * 4.0 + tokens * 0.1).floor() as usize
}

/// The suffix as Copilot takes it: the text after the cursor, capped, without the rest of the
/// cursor's line and without leading white space.
pub(crate) fn suffix_after_cursor_line(after: &str, max_chars: usize) -> String {
    let capped = utf16::slice_to(after, max_chars);
    // JavaScript's `.` stops at \n, \r, U+2028 and U+2029.
    let rest = match capped.find(['\n', '\r', '\u{2028}', '\u{2029}']) {
        Some(i) => &capped[i..],
        None => "",
    };
    rest.trim_start_matches(languages::is_js_whitespace)
        .to_owned()
}

/// How many of the suffix's first tokens are compared with the cached suffix.
pub(crate) const MAX_EDIT_DISTANCE_LENGTH: usize = 50;

/// Keeps sending the previous suffix while the new one starts with the same token and differs
/// in fewer than `threshold` percent of its first tokens.
pub(crate) fn reuse_cached_suffix(
    session: &mut Session,
    suffix: String,
    tokenizer: &Tokenizer,
    threshold: u32,
) -> String {
    if suffix.is_empty() {
        return suffix;
    }
    if session.cached_suffix == suffix {
        return suffix;
    }
    let mut chosen = suffix;
    if !session.cached_suffix.is_empty() {
        let new_ids = first_token_ids(tokenizer, &chosen);
        let old_ids = first_token_ids(tokenizer, &session.cached_suffix);
        if let (Some(new), Some(old)) = (new_ids, old_ids)
            && !new.is_empty()
            && !old.is_empty()
            && new[0] == old[0]
        {
            let distance = edit_distance_score(&new, &old);
            if 100 * distance < threshold as usize * new.len() {
                chosen = session.cached_suffix.clone();
            }
        }
    }
    if chosen != session.cached_suffix {
        session.cached_suffix = chosen.clone();
    }
    chosen
}

fn first_token_ids(tokenizer: &Tokenizer, text: &str) -> Option<Vec<u32>> {
    let taken = tokenizer.take_first_tokens(text, MAX_EDIT_DISTANCE_LENGTH);
    tokenizer
        .token_ids(&taken.text)
        .map(|ids| ids.into_iter().take(taken.tokens).collect())
}

/// Copilot's edit distance between token sequences, including its boundary arithmetic.
pub(crate) fn edit_distance_score(a: &[u32], b: &[u32]) -> usize {
    if a.is_empty() || b.is_empty() {
        return a.len() + b.len();
    }
    let mut m = vec![vec![0usize; b.len()]; a.len()];
    for j in 0..b.len() {
        for i in 0..a.len() {
            let up = if i == 0 { j } else { m[i - 1][j] } + 1;
            let left = if j == 0 { i } else { m[i][j - 1] } + 1;
            let diagonal = if i == 0 || j == 0 {
                i.max(j)
            } else {
                m[i - 1][j - 1]
            } + usize::from(a[i] != b[j]);
            m[i][j] = up.min(left).min(diagonal);
        }
    }
    m[a.len() - 1][b.len() - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(edit_distance_score(&[1, 2, 3], &[1, 2, 3]), 0);
        assert_eq!(edit_distance_score(&[1, 2, 3], &[1, 9, 3]), 1);
        assert_eq!(edit_distance_score(&[], &[1, 2]), 2);
    }
}
