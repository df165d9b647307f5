//! Ranking for the `outline` strategy: the candidate files are outlined (cached by content),
//! and every definition in them is scored against the cursor and ranked best first.

use std::sync::Arc;

use retrieval::rank::{self, CursorContext};

use super::cache::{self, FileOutline};
use super::pack::Ranked;
use super::{candidates, sources};
use crate::OpenFirst;
use crate::request::RequestJson;

/// Definitions scoring below this are not worth their tokens.
pub(super) const MIN_SCORE: f64 = 0.0;
/// Files larger than this are outlined line by line rather than parsed.
const MAX_PARSED_BYTES: usize = 1 << 20;

/// The candidate files, their outlines, and every definition scored and ranked best first.
pub(super) struct Ranking<'r> {
    pub(super) files: Vec<sources::SourceFile<'r>>,
    pub(super) outlines: Vec<Arc<FileOutline>>,
    /// (file, definition) of each score.
    pub(super) index: Vec<(usize, usize)>,
    pub(super) scores: Vec<rank::Score>,
    pub(super) ranked: Vec<Ranked>,
}

pub(super) fn rank_files<'r>(
    request: &'r RequestJson,
    reader: &OpenFirst<'r>,
    language_id: &str,
    cursor: usize,
    before: &str,
    suffix: &str,
) -> Ranking<'r> {
    let options = &request.options;
    let doc = &request.document;
    let doc_lang = syntax::Lang::from_language_id(language_id);
    let files = sources::source_files(request, reader, doc_lang);
    let outlines: Vec<Arc<FileOutline>> = files
        .iter()
        .map(|f| {
            let lang = f.lang.filter(|_| f.text.len() <= MAX_PARSED_BYTES);
            cache::outline(&f.text, lang, &options.tokenizer)
        })
        .collect();
    let near = candidates::near_cursor(&doc.text[..cursor], &doc.text[cursor..]);
    let cursor_context = CursorContext::new(&reader.relative(&doc.path), before, suffix);
    let (candidates, index) = candidates::candidates(&files, &outlines, &near, &cursor_context);
    let weights = options.context_weights.clone().unwrap_or_default();
    let scores = rank::score_all(&candidates, &cursor_context, &weights);
    drop(candidates);
    let mut ranked: Vec<Ranked> = index
        .iter()
        .zip(&scores)
        .map(|(&(file, def), s)| Ranked {
            file,
            def,
            score: s.total,
        })
        .collect();
    // Best first; ties keep file order, so equal candidates come from the most recent files.
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ranking {
        files,
        outlines,
        index,
        scores,
        ranked,
    }
}
