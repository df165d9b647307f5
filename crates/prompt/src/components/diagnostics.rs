//! Diagnostics: the problems an editor reports, nearest the cursor first.

use super::{Part, WEIGHT_DIAGNOSTICS, chunk_id};
use crate::request::{self, RequestJson};
use crate::{ElementKind, relative_path};

pub(crate) fn diagnostics(
    request: &RequestJson,
    language_id: &str,
    root: Option<&str>,
) -> Vec<Part> {
    let language = languages::normalize_language_id(language_id);
    let mut bags: Vec<&request::DiagnosticBag> = request
        .diagnostics
        .iter()
        .filter(|b| !b.values.is_empty())
        .collect();
    // Copilot sorts by importance, most important first, then reverses the list.
    bags.sort_by(|a, b| {
        b.importance
            .unwrap_or(0.0)
            .total_cmp(&a.importance.unwrap_or(0.0))
    });
    bags.reverse();
    bags.iter()
        .enumerate()
        .map(|(n, bag)| {
            let path = relative_path(root, &bag.path).unwrap_or_default();
            let mut values = vec![(
                format!("Consider the following {language} diagnostics from {path}:"),
                chunk_id(1, n),
            )];
            let mut diagnostics: Vec<&request::Diagnostic> = bag.values.iter().collect();
            if bag.path == request.document.path {
                let line = request.position.line;
                diagnostics.sort_by_key(|d| d.range.start.line.abs_diff(line));
            }
            for d in diagnostics {
                let code = match (&d.code, &d.source) {
                    (None, _) => String::new(),
                    (Some(code), source) => {
                        let code = match code {
                            request::DiagnosticCode::Number(n) => n.to_string(),
                            request::DiagnosticCode::Text(t) => t.clone(),
                        };
                        format!(
                            " {}{code}",
                            source.as_deref().unwrap_or_default().to_uppercase()
                        )
                    }
                };
                let start = d.range.start;
                values.push((
                    format!(
                        "{}:{} - {}{code}: {}",
                        start.line + 1,
                        start.character + 1,
                        d.severity.name(),
                        d.message
                    ),
                    chunk_id(1, n),
                ));
            }
            Part {
                kind: ElementKind::Diagnostic,
                path: Some(path),
                score: None,
                weight: WEIGHT_DIAGNOSTICS,
                values,
                context_index: 0,
            }
        })
        .collect()
}
