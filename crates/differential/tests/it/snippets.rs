//! Similar-file snippets and neighbour selection against chat-lib.

use differential::{Oracle, Rng, random_boundary, real_files, utf16_offset};
use retrieval::{Method, NeighbourFile, OpenDocument, ReferenceDocument, SimilarFilesOptions};
use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "user", "users", "User", "id", "name", "email", "order", "orders", "total", "price", "item",
    "items", "cart", "add", "remove", "get", "set", "list", "map", "filter", "reduce", "x", "y",
    "i", "j", "n", "value", "result", "error", "err", "ok", "self", "this", "the", "a", "if",
    "else", "for", "return", "def", "function", "const", "let", "TODO", "todo", "v2", "42", "0",
    "données", "名前", "ÜBER", "fn", "pub", "struct", "impl", "async", "await",
];
const SEPARATORS: &[&str] = &[
    " ", " ", "(", ")", ".", "_", ", ", " = ", ": ", "->", "::", "é", "\t", "  ",
];

fn line(rng: &mut Rng) -> String {
    let mut s = " ".repeat(rng.below(3) * 4);
    for k in 0..rng.below(8) {
        if k > 0 {
            s.push_str(rng.pick(SEPARATORS));
        }
        s.push_str(rng.pick(WORDS));
    }
    if rng.chance(5) {
        s.push('\r');
    }
    s
}

fn file(rng: &mut Rng, max_lines: usize) -> String {
    let n = rng.below(max_lines + 1);
    (0..n).map(|_| line(rng)).collect::<Vec<_>>().join("\n")
}

#[derive(Debug)]
struct Case {
    source: String,
    cursor: usize,
    language: &'static str,
    files: Vec<(String, String)>,
    options: &'static str,
}

fn cases() -> Vec<Case> {
    let mut rng = Rng::new(20);
    let real = real_files();
    let mut out = Vec::new();
    for i in 0..700 {
        let source = if i % 7 == 0 {
            rng.pick_ref(&real).1.clone()
        } else {
            file(&mut rng, 150)
        };
        let cursor = random_boundary(&mut rng, &source);
        let mut files: Vec<(String, String)> = Vec::new();
        for f in 0..rng.below(24) {
            let text = match rng.below(10) {
                0 => source.clone(),
                1 if !files.is_empty() => rng.pick_ref(&files).1.clone(),
                2 => rng.pick_ref(&real).1.clone(),
                3 => String::new(),
                4 => file(&mut rng, 600),
                _ => file(&mut rng, 120),
            };
            files.push((format!("src/f{f}.py"), text));
        }
        let options = rng.pick(&["default", "default", "conservative", "cpp", "none"]);
        let language = rng.pick(&["python", "cpp", "typescript"]);
        out.push(Case {
            source,
            cursor,
            language,
            files,
            options,
        });
    }
    out
}

#[test]
fn similar_snippets_match_chat_lib() {
    let oracle = Oracle::start();
    let cases = cases();
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({
                "op": "similar_snippets",
                "source": c.source,
                "offset": utf16_offset(&c.source, c.cursor),
                "languageId": c.language,
                "files": c.files.iter().map(|(p, s)| json!({"relativePath": p, "source": s})).collect::<Vec<_>>(),
                "options": c.options,
            })
        })
        .collect();
    let answers = oracle.ask_ok(&requests);
    let (mut snippets, mut exact_scores, mut nonempty) = (0, 0, 0);
    for (case, answer) in cases.iter().zip(&answers) {
        let doc = ReferenceDocument {
            source: &case.source,
            cursor: case.cursor,
            language_id: case.language,
        };
        let files: Vec<NeighbourFile> = case
            .files
            .iter()
            .map(|(p, s)| NeighbourFile {
                relative_path: p,
                source: s,
            })
            .collect();
        let options = SimilarFilesOptions::by_name(case.options).unwrap();
        let fast = retrieval::similar_snippets_with(Method::Sliding, &doc, &files, &options);
        let naive = retrieval::similar_snippets_with(Method::Naive, &doc, &files, &options);
        assert_eq!(fast, naive, "sliding and naive differ");
        let theirs = answer.as_array().expect("an array of snippets");
        assert_eq!(
            fast.len(),
            theirs.len(),
            "snippet count differs for {case:?}\nchat-lib: {answer}\npilotfish: {fast:?}"
        );
        for (mine, theirs) in fast.iter().zip(theirs) {
            let score = theirs["score"].as_f64().unwrap();
            assert!(
                (mine.score - score).abs() <= 1e-9,
                "score {} vs {score} in {case:?}",
                mine.score
            );
            exact_scores += usize::from(mine.score == score);
            assert_eq!(mine.relative_path, theirs["path"].as_str().unwrap());
            assert_eq!(
                mine.start_line as u64,
                theirs["startLine"].as_u64().unwrap(),
                "{case:?}"
            );
            assert_eq!(mine.end_line as u64, theirs["endLine"].as_u64().unwrap());
            assert_eq!(mine.text, theirs["text"].as_str().unwrap());
            snippets += 1;
        }
        nonempty += usize::from(!fast.is_empty());
    }
    assert!(
        nonempty > cases.len() / 2,
        "too few cases produced snippets ({nonempty})"
    );
    eprintln!(
        "similar snippets: {} cases ({nonempty} with snippets), {snippets} snippets, 0 mismatches, {exact_scores} scores bit-identical",
        cases.len()
    );
}

#[test]
fn neighbour_selection_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(21);
    let langs = [
        "python",
        "typescript",
        "typescriptreact",
        "javascript",
        "javascriptreact",
        "c",
        "cpp",
        "go",
        "Python",
    ];
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..400 {
        let current = format!("src/f{}.x", rng.below(5));
        let language = rng.pick(&langs);
        let docs: Vec<(String, &str, String)> = (0..rng.below(40))
            .map(|_| {
                let size = match rng.below(5) {
                    0 => rng.below(200_001),
                    1 => 50_000 + rng.below(10),
                    _ => rng.below(12_000),
                };
                let ch = rng.pick(&["a", "é", "😀"]);
                let text = ch.repeat(size / ch.chars().map(char::len_utf16).sum::<usize>().max(1));
                (format!("src/f{}.x", rng.below(30)), rng.pick(&langs), text)
            })
            .collect();
        let max_files = if rng.chance(80) { 20 } else { rng.below(6) };
        let open: Vec<OpenDocument> = docs
            .iter()
            .map(|(p, l, t)| OpenDocument {
                path: p,
                language_id: l,
                text: t,
            })
            .collect();
        let chosen = retrieval::select_neighbours(&current, language, &open, max_files);
        expected.push(json!(
            chosen
                .iter()
                .map(|d| json!({"path": d.path, "text": d.text}))
                .collect::<Vec<_>>()
        ));
        requests.push(json!({
            "op": "neighbours",
            "path": current,
            "languageId": language,
            "maxFiles": max_files,
            "docs": docs.iter().map(|(p, l, t)| json!({"path": p, "languageId": l, "text": t})).collect::<Vec<_>>(),
        }));
    }
    let answers = oracle.ask_ok(&requests);
    for (i, (mine, theirs)) in expected.iter().zip(&answers).enumerate() {
        assert_eq!(mine, theirs, "neighbour selection differs in case {i}");
    }
    eprintln!(
        "neighbour selection: {} cases, 0 mismatches",
        requests.len()
    );
}
