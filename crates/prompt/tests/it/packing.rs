//! Packing the `outline` context: for each fixture in `test_data/packing/` (a document whose
//! prefix is longer than the budget, and an open file with more definitions than fit), the
//! context fills its share: no definition left out for want of room would have fitted in the
//! room the rendered context left, and the context never goes over its share.

use std::path::{Path, PathBuf};

use prompt::{ElementKind, Prompt};

use crate::fixtures::parse_fixture;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/packing");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fixture"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 4, "packing fixtures missing");
    paths
}

/// (tokens the context took, its share), from the note on the cut prefix.
fn took_of_share(prompt: &Prompt) -> (usize, usize) {
    let reason = prompt
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::BeforeCursor)
        .and_then(|e| e.reason.as_deref())
        .expect("the fixture's prefix is cut to fit");
    let numbers = |s: &str| -> Vec<usize> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    let tail = reason
        .split_once("the context took ")
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("no share in the prefix's reason: {reason}"));
    match numbers(tail)[..] {
        [took, share, ..] => (took, share),
        _ => panic!("no share in the prefix's reason: {reason}"),
    }
}

#[test]
fn the_outline_context_fills_its_share() {
    for path in fixtures() {
        let name = path.display();
        let request = parse_fixture(&std::fs::read_to_string(&path).unwrap());
        let prompt = prompt::assemble(&request, &mut prompt::Session::default()).unwrap();
        let (took, share) = took_of_share(&prompt);
        let definitions = |included: bool| {
            prompt
                .elements
                .iter()
                .filter(move |e| e.kind == ElementKind::Definition && e.included == included)
        };
        let chosen = definitions(true).count();
        let left_for_room: Vec<usize> = definitions(false)
            .filter(|e| {
                e.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("no room left"))
            })
            .map(|e| e.tokens)
            .collect();
        // Never vacuous: a fixture holds more definitions than fit, and many fit.
        assert!(chosen >= 10, "{name}: only {chosen} definitions chosen");
        assert!(!left_for_room.is_empty(), "{name}: every definition fitted");
        assert!(took <= share, "{name}: the context took {took} of {share}");
        let cheapest = left_for_room.iter().min().unwrap();
        assert!(
            share - took < *cheapest,
            "{name}: {} tokens of the {share}-token share left unused, but a definition of \
             {cheapest} tokens was left out for want of room ({chosen} chosen)",
            share - took
        );
    }
}

/// The fixtures in `test_data/twins/`: each defines `twin` several times with one owner (an
/// overload set, a declaration and its definition, two `impl` blocks of one type).
fn twins() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/twins");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 3, "twin fixtures missing");
    paths
}

#[test]
fn a_definition_s_twins_are_not_shown_again() {
    let mut failures = Vec::new();
    for path in twins() {
        let name = path.display();
        let request = parse_fixture(&std::fs::read_to_string(&path).unwrap());
        let prompt = prompt::assemble(&request, &mut prompt::Session::default()).unwrap();
        let twins = |included: bool| {
            prompt
                .elements
                .iter()
                .filter(|e| e.kind == ElementKind::Definition && e.included == included)
                .filter(|e| e.text.contains("twin(") || e.text.contains("twin<"))
                .collect::<Vec<_>>()
        };
        let shown = twins(true).len();
        let left = twins(false);
        // The budget has room: without the rule every twin would be shown.
        let context = prompt.context.join("\n");
        if shown != 1 {
            failures.push(format!("{name}: `twin` shown {shown} times"));
        } else if left.is_empty() {
            failures.push(format!("{name}: no twin of `twin` ranked"));
        } else if !context.contains("close(") {
            failures.push(format!(
                "{name}: the rest of the file is missing: {context}"
            ));
        }
        for e in left {
            let reason = e.reason.as_deref().unwrap_or("");
            if !reason.contains("same kind, name and owner") {
                failures.push(format!("{name}: a twin left out because {reason}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
