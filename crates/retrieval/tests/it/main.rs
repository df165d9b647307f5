//! Properties of snippet retrieval that hold for any input.

use proptest::prelude::*;
use retrieval::{Method, NeighbourFile, ReferenceDocument, SimilarFilesOptions, WordSet};

/// Lines built from a small vocabulary so that windows overlap in words often.
fn lines() -> impl Strategy<Value = Vec<String>> {
    let word = prop::sample::select(vec![
        "user", "id", "x", "if", "the", "Total", "a1", "名", "é",
    ]);
    let line = prop::collection::vec(word, 0..6).prop_map(|w| w.join(" "));
    prop::collection::vec(line, 0..90)
}

fn options() -> impl Strategy<Value = SimilarFilesOptions> {
    (
        1usize..70,
        0usize..4,
        1usize..6,
        1usize..4,
        prop::sample::select(vec![0.0, 0.1, 0.3]),
    )
        .prop_map(
            |(snippet_length, files, top, per_file, threshold)| SimilarFilesOptions {
                snippet_length,
                threshold,
                max_top_snippets: top,
                max_char_per_file: 10_000,
                max_number_of_files: 20 - files,
                max_snippets_per_file: per_file,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The sliding window computes exactly the scores the naive window does.
    #[test]
    fn sliding_scores_equal_naive_scores(file in lines(), reference in lines(), window in 1usize..70) {
        let reference_text = reference.join("\n");
        let set: WordSet = reference_text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let file: Vec<&str> = file.iter().map(String::as_str).collect();
        let naive = retrieval::window_scores(Method::Naive, &set, &file, window);
        let fast = retrieval::window_scores(Method::Sliding, &set, &file, window);
        prop_assert_eq!(naive.len(), retrieval::windows(window, file.len()).len());
        // Bit for bit: the same integers divided the same way (an empty reference gives the
        // same NaN from both; the library never scores against one).
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&naive), bits(&fast));
    }

    /// Whole snippet selections agree too, and respect every cap.
    #[test]
    fn selections_agree_and_respect_caps(current in lines(), files in prop::collection::vec(lines(), 0..6), options in options(), cut in 0.0f64..=1.0) {
        let source = current.join("\n");
        let mut cursor = (source.len() as f64 * cut) as usize;
        while !source.is_char_boundary(cursor) { cursor -= 1; }
        let doc = ReferenceDocument { source: &source, cursor, language_id: "python" };
        let texts: Vec<String> = files.iter().map(|f| f.join("\n")).collect();
        let paths: Vec<String> = (0..texts.len()).map(|i| format!("f{i}.py")).collect();
        let neighbours: Vec<NeighbourFile> = texts.iter().zip(&paths).map(|(t, p)| NeighbourFile { relative_path: p, source: t }).collect();
        let naive = retrieval::similar_snippets_with(Method::Naive, &doc, &neighbours, &options);
        let fast = retrieval::similar_snippets_with(Method::Sliding, &doc, &neighbours, &options);
        prop_assert_eq!(&naive, &fast);
        prop_assert!(fast.len() <= options.max_top_snippets);
        prop_assert!(fast.windows(2).all(|w| w[0].score <= w[1].score), "best last");
        for s in &fast {
            prop_assert!(s.score > options.threshold && s.score <= 1.0);
            prop_assert!(s.end_line - s.start_line <= options.snippet_length);
            prop_assert_eq!(fast.iter().filter(|o| o.relative_path == s.relative_path).count() <= options.max_snippets_per_file, true);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// A thread remembers each neighbour's analysis by its text: asking again, with some files
    /// edited in between, selects exactly what a thread that remembers nothing selects.
    #[test]
    fn remembered_analyses_select_what_fresh_ones_do(
        current in lines(),
        files in prop::collection::vec(lines(), 1..6),
        edits in prop::collection::vec((any::<prop::sample::Index>(), lines()), 0..3),
        options in options(),
    ) {
        let source = current.join("\n");
        let doc = ReferenceDocument { source: &source, cursor: source.len(), language_id: "python" };
        let mut texts: Vec<String> = files.iter().map(|f| f.join("\n")).collect();
        let paths: Vec<String> = (0..texts.len()).map(|i| format!("f{i}.py")).collect();
        let select = |texts: &[String]| {
            let neighbours: Vec<NeighbourFile> = texts.iter().zip(&paths).map(|(t, p)| NeighbourFile { relative_path: p, source: t }).collect();
            retrieval::similar_snippets(&doc, &neighbours, &options)
        };
        retrieval::clear_cache();
        let first = select(&texts);
        prop_assert_eq!(&select(&texts), &first, "the same texts, now remembered");
        for (at, new_lines) in edits {
            let i = at.index(texts.len());
            texts[i] = new_lines.join("\n");
        }
        let remembered = select(&texts);
        retrieval::clear_cache();
        prop_assert_eq!(remembered, select(&texts));
    }
}
