//! Precomputes what the tokenizer reads in place at run time, so that starting it costs no
//! parsing: for each vocabulary, every token's bytes by id and an open-addressing table from
//! bytes to id; and the character classes of the split patterns, taken from the same Unicode
//! tables the reference tokenizer's regular expressions use.
//!
//! The vocabularies come from the `bpe-openai` crate (OpenAI's published `.tiktoken` files),
//! used here only at build time.

use std::{env, fs, path::PathBuf};

#[path = "src/hash.rs"]
mod hash;
use hash::hash;

/// Layout version: the reader checks it, so a stale build cannot be misread.
const VERSION: u32 = 2;

/// Table slots hold `fingerprint << ID_BITS | (id + 1)`: the fingerprint (low hash bits)
/// rejects most wrong slots without comparing bytes.
const ID_BITS: u32 = 18;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    write_vocabulary(&out.join("cl100k_base.vocab"), bpe_openai::cl100k_base());
    write_vocabulary(&out.join("o200k_base.vocab"), bpe_openai::o200k_base());
    write_classes(&out.join("classes.bin"));
    fs::write(out.join("folds.rs"), contraction_folds()).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/hash.rs");
}

/// Little-endian `u32` words: version, token count, table bits, byte count; the id of each
/// single byte (256); the id of each two-byte token by its bytes (65,536, `u32::MAX` where
/// the two bytes are not a token); the token offsets (count + 1); the table (0 when empty);
/// then the token bytes, padded to a whole word.
fn write_vocabulary(path: &std::path::Path, bpe: &bpe_openai::Tokenizer) {
    let n = bpe.bpe.num_tokens();
    // At most half full, so that a miss (most lookups while merging) ends in a probe or two.
    let mut bits = 1;
    while (1usize << bits) < n * 2 {
        bits += 1;
    }
    assert!(n < (1 << ID_BITS), "token ids fit beside the fingerprint");
    let mut table = vec![0u32; 1 << bits];
    let mut byte_ids = vec![u32::MAX; 256];
    let mut pair_ids = vec![u32::MAX; 1 << 16];
    let mut offsets = Vec::with_capacity(n + 1);
    let mut bytes = Vec::new();
    for id in 0..n as u32 {
        let token = bpe.bpe.token_bytes(id);
        offsets.push(bytes.len() as u32);
        bytes.extend_from_slice(token);
        let mask = (1usize << bits) - 1;
        let h = hash(token);
        let mut slot = (h >> (64 - bits)) as usize;
        while table[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        table[slot] = ((h as u32) << ID_BITS) | (id + 1);
        match *token {
            [b] => byte_ids[usize::from(b)] = id,
            [a, b] => pair_ids[usize::from(a) << 8 | usize::from(b)] = id,
            _ => {}
        }
    }
    assert!(
        byte_ids.iter().all(|&id| id != u32::MAX),
        "every byte is a token"
    );
    offsets.push(bytes.len() as u32);
    let mut words = vec![VERSION, n as u32, bits as u32, bytes.len() as u32];
    words.extend(byte_ids);
    words.extend(pair_ids);
    words.extend(offsets);
    words.extend(table);
    let mut file: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    file.extend_from_slice(&bytes);
    while !file.len().is_multiple_of(4) {
        file.push(0);
    }
    fs::write(path, file).expect("OUT_DIR is writable");
}

/// Character class bits, as `pretokenize.rs` names them.
const LETTER: u8 = 1;
const NUMBER: u8 = 2;
const UPPERISH: u8 = 4;
const LOWERISH: u8 = 8;
const SPACE: u8 = 16;

/// Runs of code points with the same class bits, from U+0000 on, as little-endian words
/// `start << 8 | bits`.
fn write_classes(path: &std::path::Path) {
    let mut bits = vec![0u8; 0x11_0000];
    for (pattern, bit) in [
        (r"\p{L}", LETTER),
        (r"\p{N}", NUMBER),
        (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPERISH),
        (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWERISH),
        (r"\s", SPACE),
    ] {
        for (start, end) in ranges(pattern) {
            for c in start..=end {
                bits[c as usize] |= bit;
            }
        }
    }
    let mut words = Vec::new();
    let mut last = None;
    for (c, &b) in bits.iter().enumerate() {
        if last != Some(b) {
            words.push((c as u32) << 8 | u32::from(b));
            last = Some(b);
        }
    }
    let file: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    fs::write(path, file).expect("OUT_DIR is writable");
}

/// The code point ranges a one-class pattern matches.
fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .expect("the class patterns parse");
    match hir.kind() {
        regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (r.start() as u32, r.end() as u32))
            .collect(),
        regex_syntax::hir::HirKind::Literal(lit) => {
            let c = std::str::from_utf8(&lit.0)
                .expect("a literal of one character")
                .chars()
                .next()
                .expect("a literal of one character") as u32;
            vec![(c, c)]
        }
        other => panic!("{pattern} is not one class: {other:?}"),
    }
}

/// The characters each letter of the contractions (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`,
/// `'d`) matches under the patterns' case-insensitive flag: more than its two cases for some
/// (the long s, U+017F, is an `s`).
fn contraction_folds() -> String {
    let mut src = String::from(
        "/// Characters each contraction letter matches case-insensitively (generated).\n\
         const FOLDS: [(u8, &[char]); 8] = [\n",
    );
    for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
        let chars: Vec<String> = ranges(&format!("(?i){letter}"))
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .map(|c| format!("'\\u{{{c:x}}}'"))
            .collect();
        src.push_str(&format!("    (b'{letter}', &[{}]),\n", chars.join(", ")));
    }
    src.push_str("];\n");
    src
}
