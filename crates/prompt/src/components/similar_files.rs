//! Similar files: Copilot's best-matching windows of open documents.

use super::{Part, WEIGHT_SIMILAR_FILES, chunk_id};
use crate::request::{RequestError, RequestJson};
use crate::{AssembleError, ElementKind, detected_language, relative_path};
use retrieval::{NeighbourFile, OpenDocument, ReferenceDocument, SimilarFilesOptions};

pub(crate) fn similar_files(
    request: &RequestJson,
    language_id: &str,
    text: &str,
    cursor: usize,
    root: Option<&str>,
) -> Result<Vec<Part>, AssembleError> {
    let options = match request.options.similar_files.as_deref() {
        Some(name) => SimilarFilesOptions::by_name(name)
            .ok_or_else(|| RequestError::SimilarFiles(name.to_owned()))?,
        None => SimilarFilesOptions::for_language(language_id),
    };
    let snippets = neighbour_snippets(request, language_id, text, cursor, root, &options);
    Ok(snippets
        .into_iter()
        .enumerate()
        .map(|(n, s)| Part {
            kind: ElementKind::SimilarFile,
            path: Some(s.relative_path.clone()),
            score: Some(s.score),
            weight: WEIGHT_SIMILAR_FILES,
            values: vec![
                (
                    format!("Compare this snippet from {}:", s.relative_path),
                    chunk_id(3, n),
                ),
                (s.text, chunk_id(3, n)),
            ],
            context_index: 0,
        })
        .collect())
}

/// Copilot's neighbour-snippet search for a request: its open documents chosen as neighbours
/// (by recency, same normalized language, size caps), then the best windows of those.
pub(crate) fn neighbour_snippets(
    request: &RequestJson,
    language_id: &str,
    text: &str,
    cursor: usize,
    root: Option<&str>,
    options: &SimilarFilesOptions,
) -> Vec<retrieval::SimilarSnippet> {
    let current_path = relative_path(root, &request.document.path).unwrap_or_default();
    let docs: Vec<(String, String, &str)> = request
        .open_documents
        .iter()
        .map(|d| {
            (
                relative_path(root, &d.path).unwrap_or_default(),
                detected_language(&d.path, d.language_id.as_deref()),
                d.text.as_str(),
            )
        })
        .collect();
    let open: Vec<OpenDocument<'_>> = docs
        .iter()
        .map(|(p, l, t)| OpenDocument {
            path: p,
            language_id: l,
            text: t,
        })
        .collect();
    let chosen = retrieval::select_neighbours(
        &current_path,
        language_id,
        &open,
        retrieval::MAX_NEIGHBOUR_FILES,
    );
    let files: Vec<NeighbourFile<'_>> = chosen
        .iter()
        .map(|d| NeighbourFile {
            relative_path: d.path,
            source: d.text,
        })
        .collect();
    let doc = ReferenceDocument {
        source: text,
        cursor,
        language_id,
    };
    retrieval::similar_snippets(&doc, &files, options)
}
