//! Budget split, elision and the rendering of elided blocks against chat-lib's own
//! `WishlistElision`, `getPromptLimits`, `makePrefixPrompt`/`makeContextPrompt` and `trimLastLine`.

use differential::{Oracle, Rng, random_text};
use prompt::elision::{Block, BlockType, elide, prompt_limits};
use serde_json::{Value, json};
use tokenizer::{Encoding, Tokenizer};

fn block_text(rng: &mut Rng) -> String {
    let lines = 1 + rng.below(8);
    let mut s = String::new();
    for _ in 0..lines {
        let pieces = rng.below(10);
        s.push_str(&random_text(rng, pieces, 0).replace(['\r', '\n'], " "));
        s.push_str(if rng.chance(15) { "\n\n" } else { "\n" });
    }
    if rng.chance(30) {
        s.pop();
    }
    s
}

#[test]
fn elision_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(30);
    let weights = [0.6, 0.65, 0.7, 0.8, 0.9, 0.99, 1.0];
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    for case in 0..600 {
        let encoding = if case % 2 == 0 {
            Encoding::O200kBase
        } else {
            Encoding::Cl100kBase
        };
        let tokenizer = Tokenizer::exact(encoding);
        let mut blocks = Vec::new();
        let count = rng.below(9);
        for _ in 0..count {
            let chunk = if rng.chance(40) {
                Some(rng.below(3))
            } else {
                None
            };
            let index = usize::from(rng.chance(20));
            let value = block_text(&mut rng);
            let weight = rng.pick(&weights);
            blocks.push(Block {
                block_type: BlockType::Context { index },
                value,
                weight,
                chunk,
            });
        }
        if rng.chance(90) {
            let value = block_text(&mut rng);
            blocks.push(Block {
                block_type: BlockType::Prefix,
                value,
                weight: 1.0,
                chunk: None,
            });
        }
        let suffix = if rng.chance(70) {
            block_text(&mut rng)
        } else {
            String::new()
        };
        let small = rng.chance(50);
        let max = 1 + rng.below(if small { 60 } else { 400 });
        let percent = rng.pick(&[0u32, 5, 15, 50, 100]);
        let (prefix_limit, suffix_limit) = prompt_limits(&suffix, max, percent);
        requests.push(
            json!({"op": "prompt_limits", "suffix": suffix, "max": max, "suffixPercent": percent}),
        );
        ours.push(json!({"prefixTokenLimit": prefix_limit, "suffixTokenLimit": suffix_limit}));
        if prefix_limit <= 0 {
            continue;
        }
        requests.push(json!({
            "op": "elide",
            "tokenizer": encoding.name(),
            "prefixLimit": prefix_limit,
            "suffixLimit": suffix_limit,
            "suffix": suffix,
            "blocks": blocks.iter().map(|b| json!({
                "type": match b.block_type { BlockType::Prefix => "prefix", BlockType::Context { .. } => "context" },
                "index": match b.block_type { BlockType::Context { index } => index, BlockType::Prefix => 0 },
                "value": b.value,
                "weight": b.weight,
                "chunk": b.chunk,
            })).collect::<Vec<_>>(),
        }));
        let (s, elided) = elide(blocks, prefix_limit, &suffix, suffix_limit, &tokenizer)
            .expect("elision succeeds");
        ours.push(json!({
            "suffix": {"elidedValue": s.elided_value, "elidedTokens": s.elided_tokens, "tokens": s.tokens},
            "blocks": elided.iter().map(|b| json!({"elidedValue": b.elided_value, "elidedTokens": b.elided_tokens, "tokens": b.tokens})).collect::<Vec<_>>(),
            "prefix": elided.iter().filter(|b| b.block.block_type == BlockType::Prefix).map(|b| b.elided_value.as_str()).collect::<String>(),
            "all": elided.iter().map(|b| b.elided_value.as_str()).collect::<String>(),
            "context": prompt::context_list(&elided),
        }));
    }
    for source in [
        "a\n    ",
        "a\n  x  ",
        "a\n",
        "",
        "   ",
        "x\u{FEFF}\t",
        "a\n\u{3000}",
    ] {
        requests.push(json!({"op": "trim_last_line", "source": source}));
        let (p, ws) = prompt::trim_last_line(source);
        ours.push(json!([p, ws]));
    }
    let answers = oracle.ask_ok(&requests);
    let mismatches: Vec<String> = requests
        .iter()
        .zip(&answers)
        .zip(&ours)
        .filter(|((_, a), o)| a != o)
        .map(|((r, a), o): ((&Value, &Value), &Value)| {
            format!("{r}\nchat-lib:  {a}\npilotfish: {o}")
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    eprintln!("elision and limits: {} cases, 0 mismatches", requests.len());
}
