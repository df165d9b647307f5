//! Keeping tool results inside the prompt's budget: a result takes at most half of it, cut in
//! the middle (the start and the end are where commands and files say the most), with a note
//! saying what was cut.

/// Cuts `text` to at most `max_chars` characters, keeping 40% from its start and 60% from its
/// end, with a line in between saying how much was left out.
pub fn cut_middle(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let head = max_chars * 2 / 5;
    let tail = max_chars - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(total - tail).collect();
    format!(
        "{start}\n[... {} characters cut from the middle to fit the prompt's budget ...]\n{end}",
        total - head - tail
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_cut_in_the_middle() {
        assert_eq!(cut_middle("short", 10), "short");
        let long = "a".repeat(40) + &"b".repeat(60) + &"c".repeat(100);
        let cut = cut_middle(&long, 50);
        assert!(cut.starts_with(&"a".repeat(20)));
        assert!(cut.ends_with(&"c".repeat(30)));
        assert!(cut.contains("150 characters cut from the middle"));
        // Characters, not bytes: no cut inside a character.
        let wide = "é".repeat(100);
        assert!(cut_middle(&wide, 10).starts_with("éééé\n"));
    }
}
