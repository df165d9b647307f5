//! What is measured: choosing similar-file snippets for one cursor with 20 open files of about
//! 10,000 characters each (Copilot's per-file cap), the sliding-window scorer against the
//! naive one (Copilot's algorithm) as the baseline in the same run, with and without the
//! open files' analyses remembered from an earlier keystroke. The files are slices of this
//! workspace's own Rust sources.

use criterion::{Criterion, criterion_group, criterion_main};
use retrieval::{
    Method, NeighbourFile, ReferenceDocument, SimilarFilesOptions, similar_snippets_with,
};
use std::hint::black_box;

fn sources() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root)
        .expect("crates/ is readable")
        .flatten()
    {
        for sub in ["src", "tests/it", "benches"] {
            for f in std::fs::read_dir(entry.path().join(sub))
                .into_iter()
                .flatten()
                .flatten()
            {
                if f.path().extension().is_some_and(|e| e == "rs") {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

/// `count` line-aligned slices of just under `chars` bytes each, cycling through `text`.
fn slices(text: &str, count: usize, chars: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < count {
        let mut s = String::new();
        while s.len() + lines[i % lines.len()].len() + 1 < chars {
            s.push_str(lines[i % lines.len()]);
            s.push('\n');
            i += 1;
        }
        i += 7;
        out.push(s);
    }
    out
}

fn bench(c: &mut Criterion) {
    let text = sources();
    let files = slices(&text, 21, 10_000);
    let (current, neighbours) = files.split_first().unwrap();
    let doc = ReferenceDocument {
        source: current,
        cursor: current.len() / 2,
        language_id: "rust",
    };
    let paths: Vec<String> = (0..neighbours.len())
        .map(|i| format!("src/f{i}.rs"))
        .collect();
    let files: Vec<NeighbourFile> = neighbours
        .iter()
        .zip(&paths)
        .map(|(s, p)| NeighbourFile {
            relative_path: p,
            source: s,
        })
        .collect();
    let options = SimilarFilesOptions::DEFAULT;
    let naive = similar_snippets_with(Method::Naive, &doc, &files, &options);
    let fast = similar_snippets_with(Method::Sliding, &doc, &files, &options);
    assert_eq!(
        naive, fast,
        "the two methods must agree before their speeds mean anything"
    );
    assert_eq!(fast.len(), 4);

    let mut group = c.benchmark_group("similar-snippets-20x10k");
    group.bench_function("naive (Copilot's algorithm)", |b| {
        b.iter(|| {
            similar_snippets_with(Method::Naive, black_box(&doc), black_box(&files), &options)
        })
    });
    // The open files do not change between keystrokes, so their analyses are remembered; the
    // same with the memory emptied before every run is the cost of a first sight of them.
    group.bench_function("sliding window, nothing remembered", |b| {
        b.iter(|| {
            retrieval::clear_cache();
            similar_snippets_with(
                Method::Sliding,
                black_box(&doc),
                black_box(&files),
                &options,
            )
        })
    });
    group.bench_function("sliding window", |b| {
        b.iter(|| {
            similar_snippets_with(
                Method::Sliding,
                black_box(&doc),
                black_box(&files),
                &options,
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
