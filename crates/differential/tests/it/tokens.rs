//! Token ids, counts and take-first/last against chat-lib, in both vocabularies.

use differential::{DIVERGENT_CHARS, Oracle, Rng, random_text, real_files};
use serde_json::json;
use tokenizer::{Encoding, Tokenizer};

const ENCODINGS: [Encoding; 2] = [Encoding::Cl100kBase, Encoding::O200kBase];

fn openai(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
    }
}

fn texts(seed: u64, n: usize, divergent_percent: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let long = rng.chance(10);
            let pieces = 1 + rng.below(if long { 400 } else { 40 });
            random_text(&mut rng, pieces, divergent_percent)
        })
        .collect()
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    serde_json::from_value(v.clone()).expect("ids are numbers")
}

#[test]
fn token_ids_match_chat_lib_in_both_vocabularies() {
    let oracle = Oracle::start();
    let mut cases: Vec<String> = texts(1, 1500, 0);
    cases.extend(real_files().into_iter().map(|(_, text)| text));
    cases.push(String::new());
    let mut compared = 0;
    for encoding in ENCODINGS {
        let requests: Vec<_> = cases
            .iter()
            .map(|t| json!({"op": "encode", "tokenizer": encoding.name(), "text": t}))
            .collect();
        let answers = oracle.ask_ok(&requests);
        let ours = Tokenizer::exact(encoding);
        for (text, answer) in cases.iter().zip(&answers) {
            let theirs = ids(answer);
            assert_eq!(
                ours.token_ids(text).unwrap(),
                theirs,
                "{encoding} ids differ for {text:?}"
            );
            assert_eq!(
                ours.count(text),
                theirs.len(),
                "{encoding} count differs for {text:?}"
            );
            compared += 1;
        }
    }
    eprintln!("token ids: {compared} cases, 0 mismatches");
}

/// chat-lib departs from OpenAI on a few characters. pilotfish follows OpenAI (what the model
/// sees); here both facts are asserted: pilotfish equals OpenAI's tokenizer on every such text,
/// and chat-lib agrees with pilotfish once those characters are taken out.
#[test]
fn known_divergences_are_confined_to_known_characters() {
    let oracle = Oracle::start();
    let cases: Vec<String> = texts(2, 600, 8)
        .into_iter()
        .filter(|t| t.contains(DIVERGENT_CHARS))
        .collect();
    assert!(cases.len() > 300, "too few divergent cases generated");
    let mut diverged = 0;
    for encoding in ENCODINGS {
        let ours = Tokenizer::exact(encoding);
        let mut requests = Vec::new();
        for t in &cases {
            requests.push(json!({"op": "encode", "tokenizer": encoding.name(), "text": t}));
            let cleaned: String = t.chars().filter(|c| !DIVERGENT_CHARS.contains(c)).collect();
            requests.push(json!({"op": "encode", "tokenizer": encoding.name(), "text": cleaned}));
        }
        let answers = oracle.ask_ok(&requests);
        for (i, text) in cases.iter().enumerate() {
            let mine = ours.token_ids(text).unwrap();
            assert_eq!(
                mine,
                openai(encoding).encode_ordinary(text),
                "{encoding}: not OpenAI's ids for {text:?}"
            );
            if ids(&answers[2 * i]) != mine {
                diverged += 1;
            }
            let cleaned: String = text
                .chars()
                .filter(|c| !DIVERGENT_CHARS.contains(c))
                .collect();
            assert_eq!(
                ours.token_ids(&cleaned).unwrap(),
                ids(&answers[2 * i + 1]),
                "{encoding}: {cleaned:?}"
            );
        }
    }
    eprintln!(
        "divergent texts: {} cases, {diverged} differ from chat-lib as expected",
        cases.len() * 2
    );

    // The pinned examples, each way round.
    let pinned = [(Encoding::O200kBase, "\u{0}", vec![188u32], vec![156344u32])];
    let requests: Vec<_> = pinned
        .iter()
        .map(|(e, t, _, _)| json!({"op": "encode", "tokenizer": e.name(), "text": t}))
        .collect();
    for ((encoding, text, openai_ids, chat_lib_ids), answer) in
        pinned.iter().zip(oracle.ask_ok(&requests))
    {
        assert_eq!(
            &Tokenizer::exact(*encoding).token_ids(text).unwrap(),
            openai_ids
        );
        assert_eq!(&ids(&answer), chat_lib_ids);
    }
    // U+FEFF is white space to chat-lib, so it splits `if\u{FEFF}(x)` differently.
    let text = "if\u{FEFF}(x)";
    let request = [json!({"op": "encode", "tokenizer": "o200k_base", "text": text})];
    assert_eq!(ids(&oracle.ask_ok(&request)[0]), vec![366, 5574, 4061, 8]);
    let mine = Tokenizer::exact(Encoding::O200kBase)
        .token_ids(text)
        .unwrap();
    assert_eq!(mine, openai(Encoding::O200kBase).encode_ordinary(text));
    assert_eq!(mine, vec![366, 5574, 7, 87, 8]);
}

#[test]
fn take_first_and_last_tokens_match_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(3);
    let mut cases = texts(4, 700, 0);
    cases.extend(real_files().into_iter().take(40).map(|(_, t)| t));
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for (i, text) in cases.iter().enumerate() {
        let encoding = ENCODINGS[i % 2];
        let approximate = rng.chance(25);
        let language = rng.pick(&["python", "typescript", "go", "css", "rust", "cpp"]);
        let count = Tokenizer::exact(encoding).count(text);
        let n = match rng.below(4) {
            0 => rng.below(4),
            1 => count,
            2 => count + 1 + rng.below(3),
            _ => rng.below(count + 2),
        };
        let ours = if approximate {
            Tokenizer::approximate(encoding, Some(language))
        } else {
            Tokenizer::exact(encoding)
        };
        let base = json!({"tokenizer": encoding.name(), "text": text, "n": n, "approximate": approximate, "languageId": language});
        for op in ["take_first", "take_last", "take_last_lines", "count"] {
            let mut r = base.clone();
            r["op"] = json!(op);
            requests.push(r);
        }
        let first = ours.take_first_tokens(text, n);
        let last = ours.take_last_tokens(text, n);
        expected.push(json!({"text": first.text, "tokens": first.tokens}));
        expected.push(json!({"text": last.text, "tokens": last.tokens}));
        expected.push(json!(ours.take_last_lines_tokens(text, n)));
        expected.push(json!(ours.count(text)));
    }
    let answers = oracle.ask_ok(&requests);
    for ((request, answer), mine) in requests.iter().zip(&answers).zip(&expected) {
        assert_eq!(mine, answer, "mismatch for {request}");
    }
    eprintln!(
        "take first/last/last-lines and counts: {} cases, 0 mismatches",
        requests.len()
    );
}
