//! The sampling parameters Copilot asks a model for: stop sequences by language, temperature by
//! the number of candidates wanted, top_p, and the length of an answer.

/// Copilot's default limit on a completion's length, in tokens.
pub const MAX_COMPLETION_TOKENS: u32 = 500;

/// Copilot's top_p: always 1.
pub const TOP_P: f64 = 1.0;

/// The stop sequences Copilot sends for a language: Python stops at the next top-level
/// definition or statement, Markdown at two blank lines, everything else at two blank lines or
/// a closing code fence.
pub fn stops_for_language(language_id: &str) -> Vec<&'static str> {
    match language_id {
        "markdown" => vec!["\n\n\n"],
        "python" => vec!["\ndef ", "\nclass ", "\nif ", "\n\n#"],
        _ => vec!["\n\n\n", "\n```"],
    }
}

/// The temperature for `candidates` samples: deterministic for one, more varied for more.
pub fn temperature_for_samples(candidates: u32) -> f64 {
    match candidates {
        0 | 1 => 0.0,
        2..=9 => 0.2,
        10..=19 => 0.4,
        _ => 0.8,
    }
}

/// Cuts `text` at the first of `stops` (what a server does with stop sequences, for servers
/// and streams that do not).
pub fn cut_at_stop(text: &str, stops: &[&str]) -> (String, bool) {
    match stops.iter().filter_map(|s| text.find(s)).min() {
        Some(i) => (text[..i].to_owned(), true),
        None => (text.to_owned(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_and_temperatures() {
        assert_eq!(stops_for_language("rust"), ["\n\n\n", "\n```"]);
        assert_eq!(temperature_for_samples(3), 0.2);
        assert_eq!(
            cut_at_stop("a\ndef b", &stops_for_language("python")),
            ("a".to_owned(), true)
        );
        assert_eq!(cut_at_stop("abc", &["x"]), ("abc".to_owned(), false));
    }
}
