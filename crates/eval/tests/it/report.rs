//! The summary is computed from the cases alone and agrees with them; the intervals behave as
//! intervals; the table and the page show what the summary and the cases hold.

use eval::{
    Case, CaseResult, Kind, Run, Scores, Sent, Timings,
    report::{estimate, table},
    stats, summarize,
};
use proptest::prelude::*;

fn case(i: usize, copy: bool, identifier: bool) -> Case {
    Case {
        file: format!("src/f{i}.py"),
        line: i + 1,
        column: 5,
        kind: Kind::CrossFile,
        expected: format!("call_{i}(x) <&>"),
        identifier: identifier.then(|| format!("call_{i}")),
        copy_from: copy.then_some(1),
        open: vec![],
        document: String::new(),
        offset: 0,
    }
}

fn run(strategy: &str, scores: Scores, ms: f64) -> Run {
    Run {
        strategy: strategy.to_owned(),
        budget: 1024,
        fim: false,
        prompt: Sent {
            context: vec![format!("context of {strategy} <b>")],
            prefix: format!("prefix of {strategy}"),
            suffix: String::new(),
        },
        prompt_tokens: 100,
        answer: format!("answer of {strategy}"),
        scores,
        timings: Timings {
            first_token_ms: Some(ms),
            total_ms: ms * 2.0,
            ..Timings::default()
        },
        error: None,
        empty: None,
        assembled: None,
    }
}

/// One case: copied from its file?, needs an identifier?, and per strategy (exact, identifier
/// written, similarity).
type Row = (bool, bool, [(bool, bool, f64); 3]);

/// The results of `rows`, one case each, with the strategies none, copilot and outline.
fn results(rows: &[Row]) -> Vec<CaseResult> {
    rows.iter()
        .enumerate()
        .map(|(i, (copy, has_id, scores))| CaseResult {
            case: case(i, *copy, *has_id),
            runs: ["none", "copilot", "outline"]
                .iter()
                .zip(scores)
                .map(|(name, (exact, hit, similarity))| {
                    run(
                        name,
                        Scores {
                            exact: f64::from(u8::from(*exact)),
                            identifier: has_id.then(|| f64::from(u8::from(*hit))),
                            similarity: *similarity,
                        },
                        10.0 + i as f64,
                    )
                })
                .collect(),
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn the_summary_equals_the_cases(
        rows in prop::collection::vec(
            (any::<bool>(), any::<bool>(), prop::array::uniform3((any::<bool>(), any::<bool>(), 0.0f64..=1.0))),
            1..30,
        ),
    ) {
        let results = results(&rows);
        let summary = summarize(&results);
        for (group, copy) in [(&summary.honest, false), (&summary.copy_from, true)] {
            let cases: Vec<&CaseResult> = results.iter().filter(|r| r.case.copy_from.is_some() == copy).collect();
            prop_assert_eq!(group.cases, cases.len());
            for (s, figures) in group.strategies.iter().enumerate() {
                let exact: Vec<f64> = cases.iter().map(|r| r.runs[s].scores.exact).collect();
                let ids: Vec<f64> = cases.iter().filter_map(|r| r.runs[s].scores.identifier).collect();
                let sims: Vec<f64> = cases.iter().map(|r| r.runs[s].scores.similarity).collect();
                prop_assert!(close(figures.exact.unwrap().mean, stats::mean(&exact)));
                prop_assert!(close(figures.similarity.unwrap().mean, stats::mean(&sims)));
                prop_assert_eq!(figures.identifier.map(|e| e.n), (!ids.is_empty()).then_some(ids.len()));
                if let Some(e) = figures.identifier {
                    prop_assert!(close(e.mean, stats::mean(&ids)));
                }
                for e in [figures.exact, figures.identifier, figures.similarity].into_iter().flatten() {
                    prop_assert!(e.low <= e.mean && e.mean <= e.high && e.low >= 0.0 && e.high <= 1.0, "{e:?}");
                }
            }
            // Each paired difference's mean is the difference of the means.
            for d in &group.differences {
                let a = group.strategies.iter().find(|s| s.strategy == d.a).unwrap();
                let b = group.strategies.iter().find(|s| s.strategy == d.b).unwrap();
                prop_assert!(close(d.similarity.unwrap().mean, b.similarity.unwrap().mean - a.similarity.unwrap().mean));
                prop_assert!(close(d.exact.unwrap().mean, b.exact.unwrap().mean - a.exact.unwrap().mean));
            }
            if !cases.is_empty() {
                prop_assert_eq!(group.differences.len(), 3);
            }
        }
    }

    #[test]
    fn a_bootstrap_interval_lies_within_the_values_and_holds_the_mean(
        values in prop::collection::vec(-5.0f64..5.0, 1..60),
    ) {
        let e = stats::bootstrap(&values).unwrap();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(lo - 1e-9 <= e.low && e.low <= e.mean && e.mean <= e.high && e.high <= hi + 1e-9);
        prop_assert_eq!(e.n, values.len());
        prop_assert_eq!(Some(e), stats::bootstrap(&values), "the same values, the same interval");
        // The paired difference of a list with itself is exactly zero.
        let d = stats::paired(&values, &values).unwrap();
        prop_assert_eq!((d.mean, d.low, d.high), (0.0, 0.0, 0.0));
    }
}

#[test]
fn a_clear_difference_is_marked_and_a_noisy_one_is_not() {
    let clear: Vec<Row> = (0..30)
        .map(|i| {
            (
                false,
                true,
                [
                    (false, false, 0.1),
                    (false, false, 0.1 + (i % 3) as f64 * 0.01),
                    (true, true, 0.9),
                ],
            )
        })
        .collect();
    let summary = summarize(&results(&clear));
    let outline_none = &summary.honest.differences[1];
    assert_eq!(
        (outline_none.a.as_str(), outline_none.b.as_str()),
        ("none", "outline")
    );
    assert!(outline_none.similarity.unwrap().excludes_zero());
    let copilot_none = &summary.honest.differences[0];
    assert!(
        !copilot_none.exact.unwrap().excludes_zero(),
        "equal scores are not told apart"
    );
    let text = table(&summary);
    assert!(text.contains("outline - none"), "{text}");
    assert!(
        text.contains("first token, answer: medians over the same requests"),
        "the table says what its times are over: {text}"
    );
    assert!(
        text.contains("+0.800 [+0.790, +0.800] *") || text.contains(" *"),
        "{text}"
    );
    for s in &summary.honest.strategies {
        assert!(text.contains(&estimate(s.similarity.as_ref())), "{text}");
        assert!(text.contains(&estimate(s.exact.as_ref())), "{text}");
    }
    assert!(
        !text.contains("counted apart"),
        "no copy_from cases, no such group: {text}"
    );
}

#[test]
fn the_page_holds_every_case_and_every_prompt_escaped() {
    let rows: Vec<Row> = (0..5)
        .map(|i| {
            (
                i == 2,
                true,
                [(false, false, 0.2), (true, true, 1.0), (false, true, 0.5)],
            )
        })
        .collect();
    let mut results = results(&rows);
    results[1].runs[2].empty = Some("cut <all>".to_owned());
    let page = eval::page::render("five cases <x>", &summarize(&results), &results);
    assert_eq!(page.matches("no answer: cut &lt;all&gt;").count(), 1);
    assert!(
        page.contains("default-src 'none'") && !page.contains("src=") && !page.contains("href=")
    );
    assert!(page.contains("five cases &lt;x&gt;"));
    assert_eq!(page.matches("<section class=case ").count(), 5);
    for r in &results {
        assert!(
            page.contains(&format!("call_{}(x) &lt;&amp;&gt;", r.case.line - 1)),
            "{page}"
        );
        for run in &r.runs {
            assert!(page.contains(&format!("prefix of {}", run.strategy)));
            assert!(page.contains(&format!("context of {} &lt;b&gt;", run.strategy)));
        }
    }
    assert_eq!(page.matches("data-strategy=").count(), 15);
    assert!(page.contains("also on line 1 of the file: counted apart"));
}

#[test]
fn the_answer_median_is_over_the_requests_the_first_token_median_is_over() {
    let mut results = results(&[(false, false, [(false, false, 0.0); 3]); 3]);
    // A request that sent nothing: no first token, a short whole time.
    for (i, r) in results.iter_mut().enumerate() {
        r.runs[0].timings = Timings {
            first_token_ms: (i > 0).then_some(100.0 * i as f64),
            total_ms: if i == 0 { 1.0 } else { 100.0 * i as f64 + 5.0 },
            ..Timings::default()
        };
    }
    let none = &summarize(&results).honest.strategies[0];
    assert_eq!(
        (none.first_token_ms, none.total_ms),
        (Some(150.0), Some(155.0))
    );
}
