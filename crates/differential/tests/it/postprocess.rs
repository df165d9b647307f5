//! Post-processing of a model's answer against chat-lib's own functions: snipping block-closing
//! lines, the suffix overlap, indentation, repetition, and the block-close token.

use differential::{Oracle, Rng};
use serde_json::{Value, json};

const LINES: &[&str] = &[
    "}",
    "  }",
    "    }",
    "end",
    "  end",
    "",
    "   ",
    "} else {",
    "x = 1",
    "  return x;",
    ")",
    "});",
    "\t}",
    "fi",
];

fn lines(rng: &mut Rng, n: usize) -> Vec<String> {
    (0..n).map(|_| rng.pick(LINES).to_owned()).collect()
}

fn compare(oracle: &Oracle, what: &str, cases: Vec<(Value, Value)>) {
    let (requests, ours): (Vec<Value>, Vec<Value>) = cases.into_iter().unzip();
    let answers = oracle.ask_ok(&requests);
    let bad: Vec<String> = requests
        .iter()
        .zip(&answers)
        .zip(&ours)
        // Numbers compare as numbers: JavaScript writes 0.0 as 0.
        .filter(|((_, a), o)| match (a.as_f64(), o.as_f64()) {
            (Some(x), Some(y)) => x != y,
            _ => a != o,
        })
        .map(|((r, a), o)| format!("{r}: chat-lib {a}, pilotfish {o}"))
        .take(5)
        .collect();
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
    eprintln!("{what}: {} cases, 0 mismatches", requests.len());
}

#[test]
fn post_processing_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(50);
    let mut snips = Vec::new();
    for _ in 0..1500 {
        let n = rng.below(8);
        let doc = lines(&mut rng, n);
        let m = 1 + rng.below(6);
        let mut completion = lines(&mut rng, m);
        if rng.chance(50) {
            completion[0] = "doSomething();".into();
        }
        let newline = if rng.chance(15) { "\r\n" } else { "\n" };
        let completion = completion.join(newline);
        let line = rng.below(n + 1);
        let token = rng.pick(&["}", "end"]);
        let doc_refs: Vec<&str> = doc.iter().map(String::as_str).collect();
        let ours = engine::postprocess::maybe_snip_completion(&doc_refs, line, &completion, token);
        snips.push((json!({"op": "snip", "lines": doc, "line": line, "completion": completion, "token": token}), json!(ours)));
    }
    compare(&oracle, "block-close snipping", snips);

    let mut suffixes = Vec::new();
    let pieces = ["", ")", ");", "})", "\"", "x", "😀", "é", " ", "]", ", y)"];
    for _ in 0..1000 {
        let rest: String = (0..rng.below(4)).map(|_| rng.pick(&pieces)).collect();
        let completion: String = (0..rng.below(6)).map(|_| rng.pick(&pieces)).collect();
        suffixes.push((
            json!({"op": "check_suffix", "rest": rest, "completion": completion}),
            json!(engine::postprocess::check_suffix(&rest, &completion)),
        ));
    }
    compare(&oracle, "suffix overlap", suffixes);

    let mut indents = Vec::new();
    for _ in 0..1000 {
        let text: String = (0..1 + rng.below(4))
            .map(|_| {
                format!(
                    "{}{}",
                    rng.pick(&["", " ", "  ", "   ", "    ", "\t", "\t\t", " \t", "\t  "]),
                    rng.pick(&["x", "", "y = 1"])
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let tab_size = if rng.chance(20) {
            None
        } else {
            Some(1 + rng.below(8))
        };
        let insert_spaces = match rng.below(3) {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        };
        let empty = rng.chance(50);
        let ours = engine::postprocess::normalize_indent(&text, tab_size, insert_spaces, empty);
        indents.push((json!({"op": "normalize_indent", "text": text, "tabSize": tab_size, "insertSpaces": insert_spaces, "isEmptyLine": empty}), json!(ours)));
    }
    compare(&oracle, "indentation", indents);

    let mut reps = Vec::new();
    for _ in 0..1000 {
        let alphabet = 1 + rng.below(12);
        let len = rng.below(80);
        let period = 1 + rng.below(35);
        let tokens: Vec<String> = (0..len)
            .map(|i| {
                if rng.chance(85) {
                    format!("t{}", (i % period) % alphabet)
                } else {
                    rng.pick(&[" ", "\n", "x", "  "]).to_owned()
                }
            })
            .collect();
        let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
        reps.push((
            json!({"op": "is_repetitive", "tokens": tokens}),
            json!(engine::postprocess::is_repetitive(&refs)),
        ));
    }
    compare(&oracle, "repetition", reps);

    let mut tokens = Vec::new();
    for id in languages::known_language_ids().chain([
        "javascriptreact",
        "typescriptreact",
        "c",
        "unknown",
    ]) {
        tokens.push((
            json!({"op": "block_close_token", "languageId": id}),
            json!(engine::postprocess::block_close_token(id)),
        ));
    }
    compare(&oracle, "block-close tokens", tokens);

    let mut params = Vec::new();
    for id in languages::known_language_ids().chain(["python", "markdown", "plaintext"]) {
        params.push((
            json!({"op": "stops", "languageId": id}),
            json!(engine::params::stops_for_language(id)),
        ));
    }
    for n in 0..30 {
        params.push((
            json!({"op": "temperature", "n": n}),
            json!(engine::params::temperature_for_samples(n)),
        ));
    }
    compare(&oracle, "request parameters", params);
}

/// Copilot's completion cache: the same finds after the same appends, evictions included.
#[test]
fn completion_cache_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(51);
    let stems = [
        "def f(",
        "def g(",
        "x = ",
        "for i in ",
        "class A",
        "",
        "d",
        "de",
        "def",
    ];
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    let mut finds = 0usize;
    for _ in 0..40 {
        let mut cache = engine::cache::CompletionsCache::default();
        let mut ops = Vec::new();
        let mut expected = Vec::new();
        for _ in 0..400 {
            let mut prefix = rng.pick(&stems).to_owned();
            for _ in 0..rng.below(4) {
                prefix.push_str(rng.pick(&["a", "b", ", ", "1", "é"]));
            }
            if rng.chance(30) {
                prefix.push_str(&rng.below(150).to_string());
            }
            let suffix = rng.pick(&["", ")", "\n}"]).to_owned();
            if rng.chance(45) {
                let completion = format!(
                    "{}{}",
                    rng.pick(&["a", "b", ", ", "1", "é", ""]),
                    rng.pick(&["x)", ", y):", "b1", ""])
                );
                cache.append(&prefix, &suffix, &completion);
                ops.push(json!({"append": true, "prefix": prefix, "suffix": suffix, "completion": completion}));
            } else {
                let found: Vec<String> = cache
                    .find_all(&prefix, &suffix)
                    .into_iter()
                    .map(|f| f.completion)
                    .collect();
                finds += usize::from(!found.is_empty());
                expected.push(found);
                ops.push(json!({"prefix": prefix, "suffix": suffix}));
            }
        }
        requests.push(json!({"op": "cache_ops", "ops": ops}));
        ours.push(json!(expected));
    }
    assert!(finds > 500, "too few lookups found anything ({finds})");
    let answers = oracle.ask_ok(&requests);
    for (i, (theirs, mine)) in answers.iter().zip(&ours).enumerate() {
        assert_eq!(theirs, mine, "sequence {i} differs");
    }
    eprintln!(
        "completion cache: {} sequences of 400 operations, 0 mismatches",
        requests.len()
    );
}
