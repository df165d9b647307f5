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
    ]
}

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
