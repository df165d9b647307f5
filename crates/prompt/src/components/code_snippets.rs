//! Code snippets a language service supplies, grouped by file, most important last.

use super::{Part, WEIGHT_CODE_SNIPPETS, chunk_id};
use crate::{ElementKind, relative_path, request};

pub(crate) fn code_snippets(snippets: &[request::CodeSnippet], root: Option<&str>) -> Vec<Part> {
    // Group by file in order of first appearance.
    let mut groups: Vec<(String, Vec<&request::CodeSnippet>)> = Vec::new();
    for s in snippets {
        let path = relative_path(root, &s.path).unwrap_or_else(|| s.path.clone());
        match groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, g)) => g.push(s),
            None => groups.push((path, vec![s])),
        }
    }
    let mut chunks: Vec<(String, Vec<&request::CodeSnippet>, f64)> = groups
        .into_iter()
        .filter_map(|(path, g)| {
            let valid: Vec<&request::CodeSnippet> =
                g.into_iter().filter(|s| !s.value.is_empty()).collect();
            if valid.is_empty() {
                return None;
            }
            let importance = valid
                .iter()
                .map(|s| s.importance.unwrap_or(0.0))
                .fold(f64::NEG_INFINITY, f64::max);
            Some((path, valid, importance))
        })
        .collect();
    chunks.sort_by(|a, b| b.2.total_cmp(&a.2));
    chunks.reverse();
    chunks
        .into_iter()
        .enumerate()
        .map(|(n, (path, snippets, importance))| {
            let header = if snippets.len() > 1 {
                "these snippets"
            } else {
                "this snippet"
            };
            let mut values = vec![(format!("Compare {header} from {path}:"), chunk_id(2, n))];
            for (i, s) in snippets.iter().enumerate() {
                values.push((s.value.clone(), chunk_id(2, n)));
                if snippets.len() > 1 && i < snippets.len() - 1 {
                    values.push(("---".to_owned(), chunk_id(2, n)));
                }
            }
            Part {
                kind: ElementKind::CodeSnippet,
                path: Some(path),
                score: Some(importance),
                weight: WEIGHT_CODE_SNIPPETS,
                values,
                context_index: 0,
            }
        })
        .collect()
}
