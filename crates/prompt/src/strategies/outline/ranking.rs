//! Ranking for the `outline` strategy: the candidate files are outlined (cached by content),
//! and every definition in them is scored against the cursor and ranked best first.

use std::sync::Arc;

use retrieval::rank::{self, CursorContext};
use tokenizer::Tokenizer;

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
    tokenizer: &Tokenizer,
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
    let file_terms = candidates::file_terms(&files);
    let (candidates, index) =
        candidates::candidates(&files, &outlines, &file_terms, &near, &cursor_context);
    let weights = options.context_weights.clone().unwrap_or_default();
    let scores = rank::score_all(&candidates, &cursor_context, &weights);
    drop(candidates);
    let mut ranked: Vec<(f64, Ranked)> = index
        .iter()
        .zip(&scores)
        .map(|(&(file, def), s)| {
            let tokens = outlines[file].tokens(def, tokenizer).max(1) as f64;
            let ranked = Ranked {
                file,
                def,
                score: s.total,
            };
            (s.total - tokens.ln(), ranked)
        })
        .collect();
    // Best first by their chance of being wanted per token: a score is a log-odds, so less the
    // log of the tokens. Ties keep file order, so equal candidates come from the most recent
    // files.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let ranked = ranked.into_iter().map(|(_, r)| r).collect();
    Ranking {
        files,
        outlines,
        index,
        scores,
        ranked,
    }
}
