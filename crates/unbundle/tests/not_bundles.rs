//! Arbitrary text and arbitrary JavaScript-like input: never a panic, and what is not a
//! bundle is refused with a reason.

use proptest::prelude::*;

fn javascript_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            ",",
            ";",
            "=>",
            "function",
            "e",
            "t",
            "r",
            "1",
            "2:",
            "\"a\":",
            "var ",
            "=",
            "x.exports",
            "require(1)",
            "!0",
            "void 0",
            "\"use strict\";",
            "...",
            " ",
            "\n",
            "class A{}",
            "return",
            "async ",
        ]),
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_input_panics(text in prop_oneof![any::<String>(), javascript_soup()]) {
        match unbundle::unbundle(&[unbundle::Input { name: "x.js", text: &text }]) {
            Ok(out) => prop_assert!(!out.manifest.modules.is_empty()),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn plain_programs_are_refused() {
    for text in [
        "console.log(1)",
        "",
        "module.exports = {a: 1}",
        "var x = {1: 2}",
    ] {
        let err = unbundle::unbundle(&[unbundle::Input { name: "x.js", text }]).unwrap_err();
        assert!(
            matches!(err, unbundle::UnbundleError::NotABundle { .. }),
            "{text}: {err}"
        );
    }
    assert!(matches!(
        unbundle::unbundle(&[]),
        Err(unbundle::UnbundleError::NoInput)
    ));
}
