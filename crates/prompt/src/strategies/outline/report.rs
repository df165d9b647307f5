//! What the `outline` strategy reports of its choice: each definition chosen or left out with
//! its score's parts, and the marker and the two sides of the cursor as elements.

use tokenizer::Tokenizer;

use super::pack;
use super::ranking::{MIN_SCORE, Ranking};
use crate::{Element, ElementKind};

/// Left-out definitions reported, best first (the rest are counted in a note).
const REPORTED_LEFT_OUT: usize = 20;

/// The elements: each chosen definition with its score's parts, the best left-out ones with
/// why they were left out, and a note counting the rest.
pub(super) fn report(
    ranking: &Ranking<'_>,
    packed: &pack::Packed,
    tokenizer: &Tokenizer,
    share: usize,
    notes: &mut Vec<String>,
) -> Vec<Element> {
    let Ranking {
        files,
        outlines,
        index,
        scores,
        ranked,
    } = ranking;
    let positions: rustc_hash::FxHashMap<(usize, usize), usize> =
        index.iter().enumerate().map(|(i, &key)| (key, i)).collect();
    let score_of = |file: usize, def: usize| positions.get(&(file, def)).map(|&i| &scores[i]);
    let chosen: rustc_hash::FxHashSet<(usize, usize)> = packed.chosen.iter().copied().collect();
    let shown: rustc_hash::FxHashSet<(usize, usize)> = packed
        .blocks
        .iter()
        .flat_map(|(f, defs)| defs.iter().map(move |&d| (*f, d)))
        .collect();
    let mut elements = Vec::new();
    // Chosen definitions, block by block in the order they are rendered.
    for (f, defs) in &packed.blocks {
        for (i, &d) in defs.iter().enumerate() {
            let tokens = outlines[*f].tokens(d, tokenizer);
            let score = score_of(*f, d);
            let for_itself = chosen.contains(&(*f, d));
            elements.push(Element {
                kind: ElementKind::Definition,
                path: Some(files[*f].shown.clone()),
                // What was sent, which for a container shown with its members is its
                // opening line.
                text: pack::shown_signature(&outlines[*f], defs, i),
                tokens,
                score: score.map(|s| round(s.total)),
                included: true,
                included_tokens: tokens,
                reason: (!for_itself)
                    .then(|| "shown as the container of a chosen definition".to_owned()),
                why: score.map(|s| s.parts.clone()).unwrap_or_default(),
            });
        }
    }
    let shown_in = |file: usize| {
        packed
            .blocks
            .iter()
            .find(|(f, _)| *f == file)
            .map(|(_, defs)| defs.as_slice())
    };
    let mut left_out = 0;
    for r in ranked {
        if shown.contains(&(r.file, r.def)) {
            continue;
        }
        left_out += 1;
        if left_out > REPORTED_LEFT_OUT {
            continue;
        }
        let def = &outlines[r.file].definitions[r.def];
        let tokens = outlines[r.file].tokens(r.def, tokenizer);
        let score = score_of(r.file, r.def);
        elements.push(Element {
            kind: ElementKind::Definition,
            path: Some(files[r.file].shown.clone()),
            text: def.signature.clone(),
            tokens,
            score: Some(round(r.score)),
            included: false,
            included_tokens: 0,
            reason: Some(if r.score < MIN_SCORE {
                format!("score {:.2} is below {MIN_SCORE}", r.score)
            } else if shown_in(r.file).is_some_and(|s| pack::has_twin(&outlines[r.file], s, r.def))
            {
                "a definition of the same kind, name and owner is shown from this file".to_owned()
            } else {
                format!("no room left in the context's {share}-token share")
            }),
            why: score.map(|s| s.parts.clone()).unwrap_or_default(),
        });
    }
    if left_out > REPORTED_LEFT_OUT {
        notes.push(format!(
            "{} more definitions ranked lower were left out",
            left_out - REPORTED_LEFT_OUT
        ));
    }
    elements
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The element of the marker naming the document.
pub(super) fn marker_element(marker: &str, path: Option<&str>, tokens: usize) -> Element {
    Element {
        kind: if path.is_some() {
            ElementKind::PathMarker
        } else {
            ElementKind::LanguageMarker
        },
        path: path.map(str::to_owned),
        text: marker.to_owned(),
        tokens,
        score: None,
        included: true,
        included_tokens: tokens,
        reason: None,
        why: Vec::new(),
    }
}

/// The element of one side of the cursor: its text, (its tokens, the tokens sent), and why it
/// was cut.
pub(super) fn side_element(
    kind: ElementKind,
    path: Option<&str>,
    text: &str,
    (tokens, sent): (usize, usize),
    reason: Option<String>,
) -> Element {
    Element {
        kind,
        path: path.map(str::to_owned),
        text: text.to_owned(),
        tokens,
        score: None,
        included: sent > 0,
        included_tokens: sent,
        reason,
        why: Vec::new(),
    }
}
