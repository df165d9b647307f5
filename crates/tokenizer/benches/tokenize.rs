//! What is measured: encoding and counting throughput of the exact tokenizers on about 1 MB of
//! Rust source (this workspace's own code, repeated), pilotfish's tokenizer
//! against `tiktoken-rs` as the baseline in the same run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tokenizer::{Encoding, Tokenizer};

fn corpus() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect_rs(&root.join("crates"), &mut files);
    files.sort();
    let mut one = String::new();
    for f in files {
        one.push_str(&std::fs::read_to_string(f).expect("workspace source is readable"));
    }
    assert!(!one.is_empty(), "no Rust sources found under crates/");
    let mut text = String::new();
    while text.len() < 1_000_000 {
        text.push_str(&one);
    }
    text
}

fn collect_rs(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") && !path.ends_with("node_modules") {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn bench(c: &mut Criterion) {
    let text = corpus();
    let mut group = c.benchmark_group("tokenize");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    for (encoding, baseline) in [
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
    ] {
        let ours = Tokenizer::exact(encoding);
        // The two must agree before their speeds mean anything.
        assert_eq!(
            ours.token_ids(&text).unwrap(),
            baseline.encode_ordinary(&text)
        );
        group.bench_function(format!("{encoding}/pilotfish-encode"), |b| {
            b.iter(|| ours.token_ids(black_box(&text)))
        });
        group.bench_function(format!("{encoding}/pilotfish-count"), |b| {
            b.iter(|| ours.count(black_box(&text)))
        });
        group.bench_function(format!("{encoding}/tiktoken-rs-encode"), |b| {
            b.iter(|| baseline.encode_ordinary(black_box(&text)))
        });
    }
    group.finish();

    // A prompt's text again, as on the next keystroke: every line's count is remembered, so
    // this is the cost of the memory itself; the same text with the memory emptied first is
    // the cost of a text seen for the first time.
    let prompt_text: String = text.chars().take(30_000).collect();
    let lines: Vec<&str> = prompt_text.split_inclusive('\n').collect();
    let mut group = c.benchmark_group("remembered-30k");
    group.throughput(Throughput::Bytes(prompt_text.len() as u64));
    for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
        let t = Tokenizer::exact(encoding);
        group.bench_function(format!("{encoding}/count whole, remembered"), |b| {
            b.iter(|| t.count(black_box(&prompt_text)))
        });
        group.bench_function(format!("{encoding}/count line by line, remembered"), |b| {
            b.iter(|| lines.iter().map(|l| t.count(black_box(l))).sum::<usize>())
        });
        group.bench_function(format!("{encoding}/encode whole, remembered"), |b| {
            b.iter(|| t.token_ids(black_box(&prompt_text)))
        });
        group.bench_function(format!("{encoding}/count whole, nothing remembered"), |b| {
            b.iter(|| {
                tokenizer::clear_caches();
                t.count(black_box(&prompt_text))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
