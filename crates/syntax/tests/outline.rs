//! Properties of outlines that hold for any text, half-typed or not: no panic, containers
//! before what they contain, lines in order, signatures that start as their first line does.

use proptest::prelude::*;
use syntax::Lang;
use syntax::outline::{DefKind, outline, outline_by_lines};

fn langs() -> impl Strategy<Value = Lang> {
    prop::sample::select(vec![
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Rust,
        Lang::Go,
        Lang::Java,
    ])
}

/// Code-like text: keywords, brackets, names, indentation and odd characters in any order.
fn code() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "def ",
            "class ",
            "fn ",
            "pub ",
            "impl ",
            "function ",
            "export ",
            "const ",
            "interface ",
            "type ",
            "func ",
            "struct ",
            "enum ",
            "macro_rules! ",
            "x",
            "Foo",
            "(a, b)",
            ":",
            " -> ",
            " { ",
            " } ",
            "{",
            "}",
            "\n",
            "\n    ",
            "\r\n",
            "=",
            " => ",
            ";",
            "//",
            "/*",
            "*/",
            "#",
            "\"",
            "'",
            "é",
            "😀",
            "\u{a0}",
            "<T>",
            "@d\n",
            "...",
        ]),
        0..120,
    )
    .prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn outlines_are_well_formed(lang in langs(), text in code()) {
        let defs = outline(lang, &text);
        let line_count = text.lines().count().max(1);
        for (i, d) in defs.iter().enumerate() {
            if let Some(c) = d.container {
                prop_assert!(c < i, "container {c} of {i} comes after it: {defs:?}");
            }
            prop_assert!(d.line <= d.end_line && d.line < line_count, "{d:?}");
            prop_assert!(!d.name.is_empty(), "{d:?}");
            // A signature starts with its definition's first line as written (its lines after
            // are joined to it), or with the start of that line where the body is elided.
            let first = d.signature.lines().next().unwrap_or_default();
            let first = first.strip_suffix(" {...}").unwrap_or(first);
            let first = first.strip_suffix(" ... }").unwrap_or(first);
            let first = first.strip_suffix(" ...").unwrap_or(first);
            let impl_head = (lang == Lang::Rust && d.kind == DefKind::Block)
                .then(|| first.find("impl").map(|i| &first[..i + 4]))
                .flatten();
            let starts_as = |line: &str| {
                let line = line.trim_end();
                // A Rust `impl` is shown without its own type parameters: up to `impl`, it is
                // its line as written.
                if let Some(head) = impl_head {
                    return line.starts_with(head);
                }
                // A comment at the end of the first line is left out when lines are joined.
                first.starts_with(line)
                    || line.starts_with(first.trim_end())
                    || line
                        .match_indices(['#', '/'])
                        .any(|(i, _)| first.starts_with(line[..i].trim_end()))
            };
            // (The line-based fallback trims a line's indentation.)
            prop_assert!(
                text.lines().any(|l| starts_as(l) || starts_as(l.trim_start())),
                "{first:?} does not start as a line of the text"
            );
        }
        for w in defs.windows(2) {
            prop_assert!(w[0].line <= w[1].line || w[1].container.is_some() || w[0].container.is_some(), "{defs:?}");
        }
    }

    #[test]
    fn the_fallback_never_panics(text in "\\PC{0,300}") {
        for d in outline_by_lines(&text) {
            prop_assert!(text.contains(d.signature.as_str()));
        }
    }
}
