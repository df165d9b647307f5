//! The words that similarity is computed over: runs of ASCII letters and digits, less a fixed
//! set of stop words (keywords common to most languages and frequent English words).

/// The words of `text` in order, stop words removed, duplicates kept.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    // Any byte that is not an ASCII letter or digit separates words; UTF-8 bytes of other
    // characters are all >= 0x80, so splitting bytes splits characters exactly as Copilot's
    // `/[^a-zA-Z0-9]/` does.
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !is_stop_word(w))
}

/// Every run of ASCII letters and digits in `text`, stop words included: the raw scan behind
/// [`words`], for callers that filter stop words once per distinct word instead of once per
/// occurrence.
pub(crate) fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && !bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i == bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        // Both ends are ASCII bytes or the end of the text, hence character boundaries.
        Some(&text[start..i])
    })
}

/// Copilot's stop words for every language (it has no language-specific sets). Case matters:
/// `TODO` is a stop word, `todo` is not.
pub(crate) fn is_stop_word(word: &str) -> bool {
    // Stop words are short; the length check keeps the common case (identifiers) to one
    // comparison before the match.
    word.len() <= 8
        && matches!(
            word,
            // words common in programming languages
            "if" | "then" | "else" | "for" | "while" | "with" | "def" | "function" | "return"
                | "TODO" | "import" | "try" | "catch" | "raise" | "finally" | "repeat"
                | "switch" | "case" | "match" | "assert" | "continue" | "break" | "const"
                | "class" | "enum" | "struct" | "static" | "new" | "super" | "this" | "var"
                // pronouns
                | "we" | "our" | "you" | "it" | "its" | "they" | "them" | "their"
                | "that" | "these" | "those"
                // verbs
                | "is" | "are" | "was" | "were" | "be" | "been" | "being" | "have" | "has"
                | "had" | "having" | "do" | "does" | "did" | "doing" | "can" | "don" | "t"
                | "s" | "will" | "would" | "should"
                // wh-words
                | "what" | "which" | "who" | "when" | "where" | "why" | "how"
                // articles
                | "a" | "an" | "the"
                // prepositions and other particles
                | "and" | "or" | "not" | "no" | "but" | "because" | "as" | "until" | "again"
                | "further" | "once" | "here" | "there" | "all" | "any" | "both" | "each"
                | "few" | "more" | "most" | "other" | "some" | "such" | "above" | "below"
                | "to" | "during" | "before" | "after" | "of" | "at" | "by" | "about"
                | "between" | "into" | "through" | "from" | "up" | "down" | "in" | "out"
                | "on" | "off" | "over" | "under" | "only" | "own" | "same" | "so" | "than"
                | "too" | "very" | "just" | "now"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_anything_but_ascii_alphanumerics() {
        let w: Vec<_> = words("fn send_request(x: u32) -> Ünïcode if TODO todo").collect();
        assert_eq!(
            w,
            ["fn", "send", "request", "x", "u32", "n", "code", "todo"]
        );
    }
}
