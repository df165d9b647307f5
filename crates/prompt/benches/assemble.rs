//! What is measured: whole prompt assembly (split context, o200k_base, Copilot's defaults) for
//! a 2,000-line document with 20 open files of about 10,000 characters, the document changing
//! between runs as it does on every keystroke; and the same with the inline rendering and with
//! the legacy engine, for comparison in the same run. The `outline` strategy (the default) is
//! measured warm: its per-file outlines are cached by content after the first run, as they are
//! in an editor session where the open files do not change between keystrokes. Its two
//! layouts are measured side by side: `stable` (the default) and `plain`; and `stable` once
//! more as an editor session runs it, with the document's `Session` kept from keystroke to
//! keystroke (the context sent again, the prefix's anchor) while a character is typed at the
//! cursor. The text is the workspace's own Rust sources, or those under `PROMPT_BENCH_CRATES`
//! (a `crates` folder), so that two commits can be timed on the same text.

use criterion::{Criterion, criterion_group, criterion_main};
use prompt::request::{DocumentJson, Layout, Options, Position, RequestJson};
use std::hint::black_box;

/// The Rust sources of the workspace's crates: those of `PROMPT_BENCH_CRATES` when set (a
/// `crates` folder), so that two commits can be timed on the same text; else this workspace's.
fn sources() -> String {
    let root = match std::env::var_os("PROMPT_BENCH_CRATES") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        for f in std::fs::read_dir(entry.path().join("src"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "rs") {
                files.push(f.path());
            }
        }
    }
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

fn request(strategy: &str, inline: bool, layout: Layout) -> RequestJson {
    let text = sources();
    let lines: Vec<&str> = text.lines().collect();
    let doc = lines
        .iter()
        .cycle()
        .take(2000)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    let open = (0..20)
        .map(|k| {
            let start = (k * 97) % lines.len();
            let mut s = String::new();
            for l in lines.iter().cycle().skip(start) {
                if s.len() + l.len() > 9_800 {
                    break;
                }
                s.push_str(l);
                s.push('\n');
            }
            DocumentJson {
                path: format!("/w/src/f{k}.rs"),
                language_id: None,
                text: s,
            }
        })
        .collect();
    RequestJson {
        workspace_root: Some("/w".into()),
        document: DocumentJson {
            path: "/w/src/main.rs".into(),
            language_id: None,
            text: doc,
        },
        position: Position {
            line: 1500,
            character: 0,
        },
        open_documents: open,
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: Options {
            strategy: strategy.to_owned(),
            context: if inline {
                prompt::request::ContextRendering::Inline
            } else {
                prompt::request::ContextRendering::Split
            },
            layout,
            ..Options::default()
        },
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("assemble-2000-lines-20-open");
    group.sample_size(20);
    for (name, strategy, inline, layout) in [
        ("outline split", "outline", false, Layout::Stable),
        ("outline split plain", "outline", false, Layout::Plain),
        ("outline inline", "outline", true, Layout::Stable),
        ("copilot split", "copilot", false, Layout::Stable),
        ("copilot inline", "copilot", true, Layout::Stable),
        ("copilot-legacy", "copilot-legacy", false, Layout::Stable),
    ] {
        let base = request(strategy, inline, layout);
        let p = prompt::assemble(&base, &mut prompt::Session::default()).unwrap();
        assert!(p.prompt_tokens + p.suffix_tokens <= 7692 && p.prompt_tokens > 1000);
        let mut run = 0u64;
        // The document changes in place, as an editor's copy does; cloning the whole request
        // (its 20 open files) per run would measure the copy.
        let mut r = base.clone();
        let length = r.document.text.len();
        group.bench_function(name, |b| {
            b.iter(|| {
                run += 1;
                r.document.text.truncate(length);
                r.document.text.push_str(&format!("\n// run {run}"));
                prompt::assemble(black_box(&r), &mut prompt::Session::default()).unwrap()
            })
        });
    }
    // Typing at the cursor with the document's session kept, as the language server does.
    let base = request("outline", false, Layout::Stable);
    let mut r = base.clone();
    let mut session = prompt::Session::default();
    let cursor_line = r.position.line;
    let at = r
        .document
        .text
        .match_indices('\n')
        .nth(cursor_line - 1)
        .map_or(0, |(i, _)| i + 1);
    let mut typed = 0usize;
    group.bench_function("outline split, session kept, typing", |b| {
        b.iter(|| {
            typed += 1;
            if typed.is_multiple_of(60) {
                // A line typed: start again, as the next line of code would.
                r.document
                    .text
                    .replace_range(at..at + r.position.character, "");
                r.position.character = 0;
            }
            r.document.text.insert(at + r.position.character, 'x');
            r.position.character += 1;
            prompt::assemble(black_box(&r), &mut session).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
