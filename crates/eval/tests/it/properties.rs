//! Properties every pick keeps, over generated repositories and over this workspace's own
//! Rust code: each case's document is its file less the expected text, lines and texts within
//! their limits, no two cases on one line, honest cases' text nowhere else, the same cases
//! for the same seed.

use std::collections::HashSet;

use eval::{Case, Options, Repository, pick};
use proptest::prelude::*;

/// Every property of one pick of `repo`.
fn check(repo: &Repository, cases: &[Case], asked: usize) {
    assert!(cases.len() <= asked);
    let mut lines = HashSet::new();
    for c in cases {
        assert!(
            lines.insert((c.file.clone(), c.line)),
            "two cases on one line: {c:?}"
        );
        let original = &repo.files.iter().find(|f| f.path == c.file).unwrap().text;
        let mut rebuilt = c.document.clone();
        rebuilt.insert_str(c.offset, &c.expected);
        // Trailing white space after the expected text goes with it.
        let line = original.split('\n').nth(c.line - 1).unwrap();
        assert!(line.chars().count() <= eval::cases::MAX_LINE_CHARS, "{c:?}");
        assert!(
            c.expected.trim().chars().count() >= eval::cases::MIN_EXPECTED_CHARS,
            "{c:?}"
        );
        assert!(!c.expected.contains('\n'), "{c:?}");
        assert_eq!(
            rebuilt.replace([' ', '\t', '\r'], ""),
            original.replace([' ', '\t', '\r'], ""),
            "{c:?}"
        );
        let squash = eval::cases::squash;
        assert_eq!(
            c.honest(),
            !squash(&c.document).contains(&squash(&c.expected)),
            "{c:?}"
        );
        for f in repo.files.iter().filter(|f| f.path != c.file) {
            assert!(
                !f.text.contains(c.expected.trim()),
                "{c:?} is in {}",
                f.path
            );
        }
        assert!(
            c.open.len() <= eval::cases::MAX_OPEN && !c.open.contains(&c.file),
            "{c:?}"
        );
        if c.kind != eval::Kind::WholeLine {
            assert!(
                c.expected.starts_with(c.identifier.as_deref().unwrap()),
                "{c:?}"
            );
        }
    }
}

/// A generated Python module that imports from the others and calls what they define.
fn module(i: usize, n: usize, calls: &[(usize, usize)], blank: &[bool]) -> (String, String) {
    let mut text = String::new();
    if i > 0 {
        text.push_str(&format!("from .m{} import func{}_0\n", i - 1, i - 1));
    }
    for (f, (callee, arg)) in calls.iter().enumerate() {
        text.push_str(&format!("\n\ndef func{i}_{f}(value):\n"));
        if blank.get(f).copied().unwrap_or(false) {
            text.push_str("    # a comment line\n");
        }
        let target = if i > 0 && callee % 2 == 0 {
            format!("func{}_0", i - 1)
        } else {
            format!("func{i}_{}", callee % (f + 1))
        };
        text.push_str(&format!(
            "    result = {target}(value + {arg})\n\n    return result * {}\n",
            arg % 7
        ));
        let _ = n;
    }
    (format!("pkg/m{i}.py"), text)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_pick_of_a_generated_repository_keeps_the_properties(
        shape in prop::collection::vec(
            (prop::collection::vec((0usize..6, 0usize..1000), 1..6), prop::collection::vec(any::<bool>(), 0..6)),
            1..6,
        ),
        asked in 1usize..40,
        seed in any::<u64>(),
    ) {
        let files: Vec<eval::SourceFile> = shape
            .iter()
            .enumerate()
            .map(|(i, (calls, blank))| module(i, shape.len(), calls, blank))
            .map(|(path, text)| eval::SourceFile { path, text })
            .collect();
        let repo = Repository { recency: files.iter().rev().map(|f| f.path.clone()).collect(), files };
        let cases = pick(&repo, Options { cases: asked, seed }).unwrap();
        check(&repo, &cases, asked);
        prop_assert_eq!(cases, pick(&repo, Options { cases: asked, seed }).unwrap());
    }
}

/// This workspace's own Rust sources (a real repository nobody generated).
fn this_workspace() -> Repository {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for krate in ["eval", "prompt", "retrieval", "engine"] {
        let mut stack = vec![root.join("crates").join(krate).join("src")];
        while let Some(dir) = stack.pop() {
            let mut entries: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let relative = path
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    files.push(eval::SourceFile {
                        path: relative,
                        text,
                    });
                }
            }
        }
    }
    Repository {
        files,
        recency: Vec::new(),
    }
}

#[test]
fn a_pick_of_this_workspace_keeps_the_properties_and_its_shares() {
    let repo = this_workspace();
    let cases = pick(
        &repo,
        Options {
            cases: 80,
            seed: 46,
        },
    )
    .unwrap();
    assert_eq!(cases.len(), 80);
    check(&repo, &cases, 80);
    let count = |k| cases.iter().filter(|c| c.kind == k).count();
    assert_eq!(
        (
            count(eval::Kind::CrossFile),
            count(eval::Kind::SameFile),
            count(eval::Kind::WholeLine)
        ),
        (40, 20, 20)
    );
    assert_eq!(
        cases,
        pick(
            &repo,
            Options {
                cases: 80,
                seed: 46
            }
        )
        .unwrap(),
        "the same seed, the same cases"
    );
    assert_ne!(
        cases,
        pick(
            &repo,
            Options {
                cases: 80,
                seed: 47
            }
        )
        .unwrap()
    );
}
