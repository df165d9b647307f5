//! How good one answer is against the expected text: the first line exactly, the identifier the
//! line needs, and the edit similarity of the first line (1 for equal, 0 for nothing alike).

use serde::Serialize;

/// The scores of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scores {
    /// 1 when the answer's first line is the expected text (white space at its ends aside).
    pub exact: f64,
    /// 1 when the answer's first line writes the needed identifier as a whole word; `None` for
    /// a case that has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifier: Option<f64>,
    /// 1 less the edit distance between the first lines over the longer's length, in characters.
    pub similarity: f64,
}

/// The scores of `answer` for a case expecting `expected` and needing `identifier`.
pub fn score(answer: &str, expected: &str, identifier: Option<&str>) -> Scores {
    let first = first_line(answer);
    let expected = expected.trim();
    Scores {
        exact: f64::from(u8::from(first == expected)),
        identifier: identifier.map(|id| f64::from(u8::from(has_word(first, id)))),
        similarity: similarity(first, expected),
    }
}

/// The answer's first line, trimmed: a model that starts with a line break has written nothing
/// on the cursor's line.
pub fn first_line(answer: &str) -> &str {
    answer.split('\n').next().unwrap_or_default().trim()
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// 1 - Levenshtein distance / the longer length, in characters; 1 for two empty texts.
pub fn similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    1.0 - row[b.len()] as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_is_scored_and_the_identifier_as_a_whole_word() {
        let s = score("total(items)\nmore", "total(items)", Some("total"));
        assert_eq!((s.exact, s.identifier, s.similarity), (1.0, Some(1.0), 1.0));
        let s = score("subtotal(items)", "total(items)", Some("total"));
        assert_eq!((s.exact, s.identifier), (0.0, Some(0.0)));
        assert!((s.similarity - (1.0 - 3.0 / 15.0)).abs() < 1e-12);
        assert_eq!(score("", "x = 1", None).identifier, None);
        assert_eq!(similarity("", ""), 1.0);
        assert_eq!(similarity("abc", ""), 0.0);
        assert_eq!(similarity("kitten", "sitting"), 1.0 - 3.0 / 7.0);
    }
}
