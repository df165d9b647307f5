//! Properties of the tokenizers that hold for any text: agreement with OpenAI's `tiktoken`
//! (through `tiktoken-rs`), and the limits of the take-tokens functions.

use proptest::prelude::*;
use tokenizer::{Encoding, Tokenizer};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ a-zA-Z0-9_(){};.,'\"\\n\\t-]{0,300}",
        "(\\PC|\\s|😀|é|中){0,120}",
        // Long enough for the per-call piece cache, with pieces that recur.
        prop::collection::vec(
            prop::sample::select(vec![
                "fn ", "x", "  ", "\n", "(a)", "é", "😀", "'s", "123456", "\u{85}"
            ]),
            150..700
        )
        .prop_map(|p| p.concat()),
        // Long texts of many lines, with what the chunked count must not cut between: blank
        // and white-space lines, slashes and carriage returns after a line break, Unicode
        // spaces, punctuation that takes the line breaks after it.
        prop::collection::vec(
            prop::sample::select(vec![
                "\n",
                "\r\n",
                "\r",
                "//",
                "/",
                "  ",
                "\t",
                "\u{a0}",
                "\u{2028}",
                "\u{85}",
                "};",
                ".",
                "x",
                "def f(a):",
                "'s",
                "é",
                "1234",
                "#",
                "  return x"
            ]),
            100..600
        )
        .prop_map(|p| p.concat()),
        // Characters of every class the split patterns tell apart, where o200k's case rules
        // (upper, title, modifier and other letters, marks) and the contractions backtrack.
        prop::collection::vec(
            prop::sample::select(vec![
                'A', 'a', 'Z', 'z', '\u{1c5}', '\u{2b0}', '中', '\u{301}', '\u{17f}', '\'', 's',
                'S', 'l', 'L', 'r', 'e', 'v', 'd', 'm', 't', '1', '\u{661}', '\u{216b}', '²', ' ',
                '\t', '\n', '\r', '\u{a0}', '\u{3000}', '/', '!', '😀', 'é', 'É', 'ß', 'Σ', '_',
                '\u{200d}', '\u{85}',
            ]),
            0..120,
        )
        .prop_map(|p| p.into_iter().collect()),
        // Long single pieces: runs of letters, symbols or digits that are merged by the heap.
        ("[a-zA-Z]{90,400}", "[!-/:-@]{90,300}", "[а-яé中]{40,200}")
            .prop_map(|(a, b, c)| format!("{a} {b}\n{c}")),
    ]
}

static CL100K_PATTERN: std::sync::LazyLock<fancy_regex::Regex> = std::sync::LazyLock::new(|| {
    // cl100k's pattern as the vocabulary was trained with it. OpenAI's `tiktoken` now states it
    // with possessive quantifiers and white space at the end of the text as one piece; that
    // cuts trailing white space differently but gives the same ids, because no token of the
    // vocabulary joins a line break to the spaces after it (`ids_equal_openais` checks the ids
    // against the new form).
    fancy_regex::Regex::new(
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    )
    .expect("the reference pattern compiles")
});
static O200K_PATTERN: std::sync::LazyLock<fancy_regex::Regex> = std::sync::LazyLock::new(|| {
    fancy_regex::Regex::new(tiktoken_rs::O200K_BASE_PAT_STR)
        .expect("the reference pattern compiles")
});

fn both() -> impl Strategy<Value = Encoding> {
    prop::sample::select(vec![Encoding::Cl100kBase, Encoding::O200kBase])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn ids_equal_openais(text in text(), encoding in both()) {
        let openai = match encoding {
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        };
        let t = Tokenizer::exact(encoding);
        let ids = t.token_ids(&text).unwrap();
        prop_assert_eq!(&ids, &openai.encode_ordinary(&text));
        prop_assert_eq!(t.count(&text), ids.len());
        prop_assert_eq!(t.decode(&ids).unwrap(), text);
    }

    /// The split into pieces is the reference regular expression's, piece for piece: this
    /// catches splits that happen to give the same ids on the vocabulary's tokens.
    #[test]
    fn pieces_equal_the_reference_pattern(text in text(), encoding in both()) {
        let pattern = match encoding {
            Encoding::Cl100kBase => &*CL100K_PATTERN,
            Encoding::O200kBase => &*O200K_PATTERN,
        };
        let expected: Vec<&str> = pattern
            .find_iter(&text)
            .map(|m| m.expect("the reference pattern runs").as_str())
            .collect();
        prop_assert_eq!(Tokenizer::exact(encoding).pieces(&text).unwrap(), expected);
    }

    /// JavaScript's string arithmetic agrees with Rust's own UTF-16 encoding, at every index
    /// (the fast paths skip ASCII and eight bytes at a time).
    #[test]
    fn utf16_arithmetic_equals_encode_utf16(text in text(), at in 0usize..2000) {
        use tokenizer::utf16::{Utf16Pos, unit_at, utf16_len, utf16_pos};
        let units: Vec<u16> = text.encode_utf16().collect();
        prop_assert_eq!(utf16_len(&text), units.len());
        let index = at % (units.len() + 2);
        prop_assert_eq!(unit_at(&text, index), units.get(index).copied());
        // The reference: walk the characters.
        let mut expected = Utf16Pos::Boundary(text.len());
        let mut seen = 0;
        for (byte, ch) in text.char_indices() {
            if seen == index {
                expected = Utf16Pos::Boundary(byte);
                break;
            }
            if seen + ch.len_utf16() > index {
                expected = Utf16Pos::InsidePair(byte);
                break;
            }
            seen += ch.len_utf16();
        }
        prop_assert_eq!(utf16_pos(&text, index), expected);
    }

    /// Taking n tokens never gives more than n, and gives the whole text when it is shorter.
    #[test]
    fn takes_stay_within_n(text in text(), encoding in both(), n in 0usize..80, approximate in any::<bool>()) {
        let t = if approximate { Tokenizer::approximate(encoding, Some("python")) } else { Tokenizer::exact(encoding) };
        let count = t.count(&text);
        for taken in [t.take_first_tokens(&text, n), t.take_last_tokens(&text, n)] {
            prop_assert!(taken.tokens <= n.max(count.min(n)));
            if !approximate {
                prop_assert!(t.count(&taken.text) <= n + 1, "retokenizing a cut may merge at most one pair");
                if count < n {
                    prop_assert_eq!(&taken.text, &text);
                }
            }
        }
        let lines = t.take_last_lines_tokens(&text, n);
        let cut_character = lines.contains(char::REPLACEMENT_CHARACTER);
        prop_assert!(text.ends_with(&lines) || cut_character);
    }
}

/// A text long enough to be cut into parts and worked on by several threads gives the ids
/// and count of the whole.
#[test]
fn long_texts_worked_in_parallel_equal_openais() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 1_300_000 {
        text.push_str(&format!(
            "fn f{i}(x: u32) -> u32 {{\n    // é 中 {i}\n\n  \t\n    x * {i} // don't\n}}\n//\n"
        ));
        i += 1;
    }
    for (encoding, openai) in [
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
    ] {
        let t = Tokenizer::exact(encoding);
        let expected = openai.encode_ordinary(&text);
        assert_eq!(t.token_ids(&text).unwrap(), expected);
        assert_eq!(t.count(&text), expected.len());
    }
}

#[test]
fn names_and_errors() {
    assert!(
        Tokenizer::by_name("gpt2", None)
            .unwrap_err()
            .to_string()
            .contains("cl100k_base, o200k_base, approximate")
    );
    let exact = Tokenizer::exact(Encoding::O200kBase);
    assert!(exact.decode(&[u32::MAX]).is_err());
    let approx = Tokenizer::by_name("approximate", Some("python")).unwrap();
    assert!(approx.token_ids("x").is_none());
    assert_eq!(
        approx.count("12345678"),
        2,
        "8 UTF-16 units at 4.05 per token"
    );
    assert_eq!(approx.count("😀😀😀😀😀"), 3, "emoji count two units each");
}
