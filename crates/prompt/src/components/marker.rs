//! The document marker: the document's path, or its language when it has no path.

use super::{Part, WEIGHT_DOCUMENT_MARKER};
use crate::ElementKind;

pub(crate) fn document_marker(
    relative_path: Option<&str>,
    source: &str,
    language_id: &str,
) -> Part {
    match relative_path {
        Some(path) => Part {
            kind: ElementKind::PathMarker,
            path: Some(path.to_owned()),
            score: None,
            weight: WEIGHT_DOCUMENT_MARKER,
            values: vec![(languages::path_marker(Some(path)), None)],
            context_index: 0,
        },
        None => Part {
            kind: ElementKind::LanguageMarker,
            path: None,
            score: None,
            weight: WEIGHT_DOCUMENT_MARKER,
            values: vec![(languages::language_marker(source, language_id), None)],
            context_index: 0,
        },
    }
}
