//! What two texts share at their start and at their end, in bytes, on character boundaries:
//! the part between is the smallest replacement that turns one into the other. Both the
//! language server (a whole-text change made one edit) and a model's rewritten window (made
//! the smallest edit) need it.

/// The byte lengths of the longest common start and of the longest common end of `old` and
/// `new` that do not overlap in either text.
pub fn common_ends(old: &str, new: &str) -> (usize, usize) {
    let prefix = old
        .char_indices()
        .zip(new.chars())
        .take_while(|((_, a), b)| a == b)
        .last()
        .map_or(0, |((i, a), _)| i + a.len_utf8());
    let suffix = old[prefix..]
        .chars()
        .rev()
        .zip(new[prefix..].chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    (prefix, suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        for (old, new, want) in [
            ("let a = 1;", "let ab = 1;", (5, 5)),
            ("aa", "aaa", (2, 0)),
            ("😀x", "😀y", (4, 0)),
            ("same", "same", (4, 0)),
            ("", "x", (0, 0)),
            ("é", "è", (0, 0)),
        ] {
            assert_eq!(common_ends(old, new), want, "{old:?} -> {new:?}");
        }
    }
}
