//! Invariants of assembly for arbitrary inputs: the prompt never exceeds its token budget, and
//! assembly never panics.

use prompt::request::{DocumentJson, Options, Position, RequestJson};
use proptest::prelude::*;

fn request(
    text: String,
    cursor_fraction: f64,
    open: Vec<String>,
    max: usize,
    suffix_percent: u32,
    inline: bool,
) -> RequestJson {
    let mut cursor = (text.len() as f64 * cursor_fraction) as usize;
    while !text.is_char_boundary(cursor) {
        cursor -= 1;
    }
    // Positions count lines the way editors do (\n, \r\n, \r); a cursor between \r and \n is
    // moved before the \r.
    if text[..cursor].ends_with('\r') && text[cursor..].starts_with('\n') {
        cursor -= 1;
    }
    let before = &text[..cursor];
    let normalized = before.replace("\r\n", "\n").replace('\r', "\n");
    let line = normalized.matches('\n').count();
    let line_start = normalized.rfind('\n').map_or(0, |i| i + 1);
    let character = normalized[line_start..].encode_utf16().count();
    RequestJson {
        workspace_root: None,
        document: DocumentJson {
            path: "src/main.py".into(),
            language_id: None,
            text,
        },
        position: Position { line, character },
        open_documents: open
            .into_iter()
            .enumerate()
            .map(|(i, text)| DocumentJson {
                path: format!("src/n{i}.py"),
                language_id: None,
                text,
            })
            .collect(),
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: Options {
            max_prompt_tokens: max,
            suffix_percent,
            context: if inline {
                prompt::request::ContextRendering::Inline
            } else {
                prompt::request::ContextRendering::Split
            },
            ..Options::default()
        },
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-z_ ().:=\\n]{0,400}",
        "([a-z]{1,8}( |\\n|\\r\\n|\\t|é|😀)){0,150}",
        "\\PC{0,200}",
        "x{500,3000}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn never_over_budget(
        text in text(),
        cursor in 0.0f64..=1.0,
        open in prop::collection::vec(text(), 0..4),
        max in 1usize..400,
        suffix_percent in 0u32..=100,
        inline in any::<bool>(),
        strategy in prop::sample::select(prompt::STRATEGIES),
    ) {
        let mut req = request(text, cursor, open, max, suffix_percent, inline);
        req.options.strategy = strategy.to_owned();
        if strategy == "copilot-legacy" && max % 2 == 0 {
            req.options.legacy_preset = Some("order-list".to_owned());
        }
        match prompt::assemble(&req, &mut prompt::Session::default()) {
            Ok(p) => {
                prop_assert!(p.prompt_tokens + p.suffix_tokens <= max, "{} + {} > {max}", p.prompt_tokens, p.suffix_tokens);
                let from_document = req.document.text.replace('\r', "").contains(&p.suffix.replace('\r', ""));
                prop_assert!(from_document || p.suffix.contains(char::REPLACEMENT_CHARACTER));
            }
            // The only refusal, as in Copilot: a split that leaves the prefix no tokens at all.
            Err(e) => {
                let available = max.saturating_sub(5);
                let suffix_share = (available as f64 * (f64::from(suffix_percent) / 100.0)).ceil() as usize;
                prop_assert!(available <= suffix_share, "unexpected error {e} with budget {max}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// With a FIM template the template's tokens are reserved, and its tokens are all there.
    #[test]
    fn fim_templates_are_never_cut(
        text in text(),
        cursor in 0.0f64..=1.0,
        open in prop::collection::vec(text(), 0..3),
        max in 60usize..400,
        template in prop::sample::select(vec!["starcoder", "starcoder2-repo", "codellama", "deepseek-coder", "qwen2.5-coder", "qwen2.5-coder-repo", "codestral", "codegemma", "granite"]),
    ) {
        let mut req = request(text, cursor, open, max, 15, false);
        req.options.fim_template = Some(template.to_owned());
        let p = match prompt::assemble(&req, &mut prompt::Session::default()) {
            Ok(p) => p,
            // A repository-level template can take most of a small budget by itself (its repo
            // name, path and section headers); what is left may give the prefix nothing, and
            // then assembly refuses as Copilot's elision does. Never with a budget to speak of.
            Err(prompt::AssembleError::Elision(prompt::elision::ElisionError::NoPrefixBudget)) => {
                prop_assert!(max < 100, "refused with a budget of {max}");
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let fim = p.fim_prompt.clone().unwrap();
        let reserved = p.fim_template_tokens.unwrap();
        prop_assert!(p.prompt_tokens + p.suffix_tokens + reserved <= max);
        let tokens: &[&str] = match template {
            "starcoder" | "granite" => &["<fim_prefix>", "<fim_suffix>", "<fim_middle>"],
            "starcoder2-repo" => &["<repo_name>", "<file_sep>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>"],
            "codellama" => &["<PRE> ", " <SUF>", " <MID>"],
            "deepseek-coder" => &["<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"],
            "qwen2.5-coder" | "codegemma" => &["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
            "qwen2.5-coder-repo" => &["<|repo_name|>", "<|file_sep|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
            _ => &["[SUFFIX]", "[PREFIX]"],
        };
        for t in tokens {
            prop_assert!(fim.contains(t), "{t} missing from {fim:?}");
        }
        prop_assert!(fim.contains(&p.suffix) && fim.contains(&p.prefix));
    }
}

#[test]
fn a_five_megabyte_document_stays_within_budget() {
    let line = "    value = compute(value, other) + 1  # keep going\n";
    let text = line.repeat(5_000_000 / line.len());
    let req = request(text, 0.5, vec![], 7692, 15, false);
    let p = prompt::assemble(&req, &mut prompt::Session::default()).unwrap();
    assert!(p.prompt_tokens + p.suffix_tokens <= 7692);
    assert!(
        p.prompt_tokens > 5000,
        "the prefix should use most of its share"
    );
}

#[test]
fn bad_positions_are_errors_not_panics() {
    let mut req = request("ab\ncd".into(), 0.0, vec![], 100, 15, false);
    req.position = Position {
        line: 7,
        character: 0,
    };
    let err = prompt::assemble(&req, &mut prompt::Session::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "position line 7 is outside the document (2 lines): lines count from 0"
    );
    req.position = Position {
        line: 1,
        character: 9,
    };
    let err = prompt::assemble(&req, &mut prompt::Session::default()).unwrap_err();
    assert!(err.to_string().contains("past the end of line 1"), "{err}");
}

#[test]
fn the_suffix_is_reused_while_it_barely_changes() {
    let base = "def f():\n    $0\n\nrest = compute(alpha, beta, gamma, delta, epsilon)\nmore = 1\n";
    let fixture = format!("//- /a.py\n{base}");
    let req = crate::fixtures::parse_fixture(&fixture);
    let mut session = prompt::Session::default();
    let first = prompt::assemble(&req, &mut session).unwrap();
    // One token changes far into the suffix: within 10% of 50 tokens, the old suffix is sent.
    let changed = fixture.replace("more = 1", "more = 2");
    let second = prompt::assemble(&crate::fixtures::parse_fixture(&changed), &mut session).unwrap();
    assert_eq!(second.suffix, first.suffix);
    // A new first token: the new suffix is sent.
    let different = fixture.replace("rest =", "other =");
    let third =
        prompt::assemble(&crate::fixtures::parse_fixture(&different), &mut session).unwrap();
    assert!(third.suffix.starts_with("other ="), "{}", third.suffix);
}

/// Arbitrary requests, valid or not: assembly answers or refuses, and never panics.
mod arbitrary_requests {
    use prompt::request::{
        CodeSnippet, Diagnostic, DiagnosticBag, DocumentJson, Options, Position, Range,
        RequestJson, Severity, Snapshot, Trait,
    };
    use proptest::prelude::*;

    fn small_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "\\PC{0,80}",
            "([a-z(){}.:=]{0,6}(\\n|\\r\\n|\\r| |😀)){0,20}"
        ]
    }

    fn options() -> impl Strategy<Value = Options> {
        (
            prop::sample::select(vec!["o200k_base", "cl100k_base", "approximate", "bogus"]),
            0usize..600,
            0u32..130,
            0u32..130,
            prop::sample::select(vec!["outline", "copilot", "copilot-legacy", "other"]),
            prop::option::of(prop::sample::select(vec![
                "qwen2.5-coder",
                "codestral",
                "{prefix}X{suffix}",
                "{prefix}",
                "nope",
            ])),
            prop::option::of(any::<bool>()),
            prop::option::of(prop::sample::select(vec!["default", "cpp", "none", "odd"])),
        )
            .prop_map(
                |(t, max, sp, th, strategy, fim, imports, similar)| Options {
                    tokenizer: t.to_owned(),
                    max_prompt_tokens: max,
                    suffix_percent: sp,
                    suffix_match_threshold: th,
                    strategy: strategy.to_owned(),
                    fim_template: fim.map(str::to_owned),
                    imports,
                    similar_files: similar.map(str::to_owned),
                    ..Options::default()
                },
            )
    }

    fn request() -> impl Strategy<Value = RequestJson> {
        (
            (
                small_text(),
                0usize..6,
                0usize..40,
                prop::collection::vec(small_text(), 0..3),
            ),
            prop::collection::vec((small_text(), small_text()), 0..3),
            prop::collection::vec((0usize..10, 0usize..50, small_text()), 0..4),
            prop::collection::vec(small_text(), 0..4),
            options(),
        )
            .prop_map(
                |((text, line, character, open), traits, diags, snapshots, options)| RequestJson {
                    workspace_root: Some("/w".into()),
                    document: DocumentJson {
                        path: "/w/src/main.py".into(),
                        language_id: None,
                        text,
                    },
                    position: Position { line, character },
                    open_documents: open
                        .into_iter()
                        .enumerate()
                        .map(|(i, text)| DocumentJson {
                            path: format!("/w/src/o{i}.py"),
                            language_id: None,
                            text,
                        })
                        .collect(),
                    recent_edits: snapshots
                        .into_iter()
                        .map(|text| Snapshot {
                            path: "/w/src/main.py".into(),
                            text,
                        })
                        .collect(),
                    diagnostics: vec![DiagnosticBag {
                        path: "/w/src/main.py".into(),
                        importance: None,
                        values: diags
                            .into_iter()
                            .map(|(line, character, message)| Diagnostic {
                                range: Range {
                                    start: Position { line, character },
                                    end: None,
                                },
                                severity: Severity::Error,
                                message,
                                code: None,
                                source: None,
                            })
                            .collect(),
                    }],
                    traits: traits
                        .into_iter()
                        .map(|(name, value)| Trait { name, value })
                        .collect(),
                    code_snippets: vec![CodeSnippet {
                        path: "/w/src/x.py".into(),
                        value: "def x(): pass".into(),
                        importance: Some(0.5),
                    }],
                    tooltip_signature: Some("f(x)".into()),
                    options,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn never_panics(req in request()) {
            if let Ok(p) = prompt::assemble(&req, &mut prompt::Session::default()) {
                let reserved = p.fim_template_tokens.unwrap_or(0);
                prop_assert!(p.prompt_tokens + p.suffix_tokens + reserved <= req.options.max_prompt_tokens);
            }
        }
    }
}

/// A path outside the workspace keeps its name as it is; `%` followed by a non-ASCII character
/// must not trip the decoding that the legacy engine applies to shown paths.
#[test]
fn odd_paths_outside_the_workspace_do_not_panic() {
    let mut req = request("x = 1\ny = ".into(), 1.0, vec![], 200, 15, false);
    req.workspace_root = Some("/w".into());
    req.document.path = "/elsewhere/%aé%zz%41.py".into();
    for strategy in ["outline", "copilot", "copilot-legacy"] {
        req.options.strategy = strategy.into();
        let p = prompt::assemble(&req, &mut prompt::Session::default()).unwrap();
        assert!(
            p.prefix.contains("y =") || p.prefix.contains("y="),
            "{strategy}: {}",
            p.prefix
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Typing with the document's session kept from keystroke to keystroke, as the language
    /// server does (the stable layout reuses its context and the prefix's anchor), with an edit
    /// above the cursor half way: every prompt stays within its budget and its prefix is the
    /// text just before the cursor, whatever was kept from earlier keystrokes.
    #[test]
    fn typing_with_a_kept_session_stays_within_budget_and_true(
        base in "([a-z]{1,8}( |\\n|\\(|\\)|:|\\.)){20,300}",
        open in prop::collection::vec("(def [a-z]{1,8}\\([a-z, ]{0,12}\\):\\n    return [a-z]{1,6}\\n){1,12}", 1..3),
        typed in "[a-z_ .(]{1,40}",
        cursor in 0.0f64..=1.0,
        max in 64usize..600,
        edit_above in any::<bool>(),
    ) {
        let mut session = prompt::Session::default();
        let mut cursor_at = (base.len() as f64 * cursor) as usize;
        while !base.is_char_boundary(cursor_at) {
            cursor_at -= 1;
        }
        for k in 0..=typed.len() {
            let above = if edit_above && k >= typed.len() / 2 { "import os\n" } else { "" };
            let text = format!("{above}{}{}{}", &base[..cursor_at], &typed[..k], &base[cursor_at..]);
            let at = above.len() + cursor_at + k;
            let req = request(text.clone(), at as f64 / text.len().max(1) as f64, open.clone(), max, 15, false);
            let p = match prompt::assemble(&req, &mut session) {
                Ok(p) => p,
                Err(_) => continue,
            };
            prop_assert!(p.prompt_tokens + p.suffix_tokens <= max, "{} + {} > {max}", p.prompt_tokens, p.suffix_tokens);
            // The prefix sent is the end of the text before the cursor (a last line of white
            // space only is set apart).
            let cut = {
                let mut c = (text.len() as f64 * (at as f64 / text.len().max(1) as f64)) as usize;
                while !text.is_char_boundary(c) {
                    c -= 1;
                }
                c
            };
            let with_space = format!("{}{}", p.prefix, p.trailing_whitespace);
            prop_assert!(
                text[..cut].ends_with(&p.prefix) || text[..cut].ends_with(&with_space),
                "prefix {:?} is not the end of {:?}", p.prefix, &text[..cut]
            );
        }
    }
}
