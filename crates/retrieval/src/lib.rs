//! Neighbour-file snippets as Copilot's completions engine picks them: the lines of other open
//! files that look most like the code just above the cursor.
//!
//! The reference is the last `snippet_length` lines before the cursor, taken as a set of words
//! (runs of ASCII letters and digits, stop words removed). Every window of `snippet_length`
//! consecutive lines of a neighbour file (step 1) is scored by Jaccard similarity with it; each
//! file gives its best non-overlapping windows, and the best few over all files are kept,
//! ordered best **last** (the position nearest the cursor in a prompt).
//!
//! Scores are computed by a sliding window in linear time ([`Method::Sliding`]); the obvious
//! way, Copilot's, is kept as [`Method::Naive`] and gives identical results.
//!
//! ```
//! use retrieval::{similar_snippets, NeighbourFile, ReferenceDocument, SimilarFilesOptions};
//! let current = "def total(items):\n    return sum(item.price for item in items)\n";
//! let doc = ReferenceDocument { source: current, cursor: current.len(), language_id: "python" };
//! let files = [NeighbourFile { relative_path: "cart.py", source: "class Cart:\n    def total(self):\n        return sum(item.price for item in self.items)\n" }];
//! let snippets = similar_snippets(&doc, &files, &SimilarFilesOptions::DEFAULT);
//! assert_eq!(snippets.len(), 1);
//! assert_eq!(snippets[0].relative_path, "cart.py");
//! ```

mod analysis;
pub mod rank;
pub mod search;
mod windows;
mod words;

pub use analysis::clear_cache;
use std::rc::Rc;

use languages::normalize_language_id;
use tokenizer::utf16::utf16_len;
pub use windows::{Method, WordSet, window_scores, windows};

/// How many snippets to look for and how: Copilot's option sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarFilesOptions {
    /// Lines per window, and lines of reference above the cursor.
    pub snippet_length: usize,
    /// A snippet must score strictly above this.
    pub threshold: f64,
    /// How many snippets to keep over all files.
    pub max_top_snippets: usize,
    /// Files of this many UTF-16 code units or more are skipped.
    pub max_char_per_file: usize,
    /// Only the first this-many (eligible) files are searched.
    pub max_number_of_files: usize,
    /// How many non-overlapping snippets one file may give.
    pub max_snippets_per_file: usize,
}

impl SimilarFilesOptions {
    /// Copilot's defaults: 60-line windows, the best 4 snippets, one per file.
    pub const DEFAULT: SimilarFilesOptions = SimilarFilesOptions {
        snippet_length: 60,
        threshold: 0.0,
        max_top_snippets: 4,
        max_char_per_file: 10_000,
        max_number_of_files: 20,
        max_snippets_per_file: 1,
    };
    /// Copilot's conservative set: 10-line windows, one snippet scoring above 0.3.
    pub const CONSERVATIVE: SimilarFilesOptions = SimilarFilesOptions {
        snippet_length: 10,
        threshold: 0.3,
        max_top_snippets: 1,
        max_char_per_file: 10_000,
        max_number_of_files: 20,
        max_snippets_per_file: 1,
    };
    /// Copilot's set for C++: more and larger files, up to 16 snippets, 4 per file.
    pub const CPP: SimilarFilesOptions = SimilarFilesOptions {
        snippet_length: 60,
        threshold: 0.0,
        max_top_snippets: 16,
        max_char_per_file: 100_000,
        max_number_of_files: 200,
        max_snippets_per_file: 4,
    };
    /// No snippets at all.
    pub const NONE: SimilarFilesOptions = SimilarFilesOptions {
        snippet_length: 0,
        threshold: 1.0,
        max_top_snippets: 0,
        max_char_per_file: 0,
        max_number_of_files: 0,
        max_snippets_per_file: 0,
    };

    /// The set Copilot uses for a language: [`Self::CPP`] for `cpp`, [`Self::DEFAULT`]
    /// otherwise.
    pub fn for_language(language_id: &str) -> SimilarFilesOptions {
        if language_id == "cpp" {
            Self::CPP
        } else {
            Self::DEFAULT
        }
    }

    /// An option set by name: `default`, `conservative`, `cpp` or `none`.
    pub fn by_name(name: &str) -> Option<SimilarFilesOptions> {
        match name {
            "default" => Some(Self::DEFAULT),
            "conservative" => Some(Self::CONSERVATIVE),
            "cpp" => Some(Self::CPP),
            "none" => Some(Self::NONE),
            _ => None,
        }
    }
}

/// The document being edited.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceDocument<'a> {
    pub source: &'a str,
    /// The cursor as a byte offset into `source` (on a character boundary).
    pub cursor: usize,
    pub language_id: &'a str,
}

/// A file that may hold similar code.
#[derive(Debug, Clone, Copy)]
pub struct NeighbourFile<'a> {
    pub relative_path: &'a str,
    pub source: &'a str,
}

/// A window of a neighbour file chosen as a snippet.
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarSnippet {
    pub relative_path: String,
    /// Jaccard similarity with the reference, in (0, 1].
    pub score: f64,
    /// The window's first line (0-based) and the line after its last.
    pub start_line: usize,
    pub end_line: usize,
    /// The window's lines joined by `\n` (no trailing newline).
    pub text: String,
}

/// The best snippets from `files` for the code before the cursor, best last.
pub fn similar_snippets(
    doc: &ReferenceDocument<'_>,
    files: &[NeighbourFile<'_>],
    options: &SimilarFilesOptions,
) -> Vec<SimilarSnippet> {
    similar_snippets_with(Method::Sliding, doc, files, options)
}

/// [`similar_snippets`] with a chosen way of computing window scores.
pub fn similar_snippets_with(
    method: Method,
    doc: &ReferenceDocument<'_>,
    files: &[NeighbourFile<'_>],
    options: &SimilarFilesOptions,
) -> Vec<SimilarSnippet> {
    if options.max_top_snippets == 0 {
        return Vec::new();
    }
    let reference_text = reference_context(doc.source, doc.cursor, options.snippet_length);
    let reference: WordSet<'_> = words::words(reference_text).collect();
    if reference.is_empty() {
        return Vec::new();
    }
    let hashed = windows::hash_words(&reference);
    let mut found = Vec::new();
    let eligible = files
        .iter()
        .filter(|f| is_short_enough(f.source, options.max_char_per_file));
    for file in eligible.take(options.max_number_of_files) {
        let doc = analysis::analyse(file.source);
        let scores = match method {
            Method::Sliding => windows::sliding_scores(&hashed, &doc, options.snippet_length),
            Method::Naive => {
                let lines: Vec<&str> = file.source.split('\n').collect();
                window_scores(method, &reference, &lines, options.snippet_length)
            }
        };
        let best = best_windows(
            &scores,
            options.snippet_length,
            doc.line_count(),
            options.max_snippets_per_file,
        );
        for window in best {
            // Zero-scored windows take a place among the file's best but give no snippet.
            if window.score == 0.0 {
                continue;
            }
            // An empty window (blank lines) gives no snippet either.
            if window.score > options.threshold && !doc.lines(window.start, window.end).is_empty() {
                found.push((window, file, Rc::clone(&doc)));
            }
        }
    }
    // A stable sort: among equal scores, the earlier file (and earlier window) stays earlier.
    found.sort_by(|a, b| a.0.score.total_cmp(&b.0.score));
    let skip = found.len().saturating_sub(options.max_top_snippets);
    // Only the snippets kept are copied out of their files.
    found
        .drain(skip..)
        .map(|(window, file, doc)| SimilarSnippet {
            relative_path: file.relative_path.to_owned(),
            score: window.score,
            start_line: window.start,
            end_line: window.end,
            text: doc.lines(window.start, window.end).to_owned(),
        })
        .collect()
}

/// The text the neighbours are compared with: the last `max_lines` lines before the cursor
/// (the cursor's own line up to the cursor counts as one).
/// Whether `text` is not empty and shorter than `max` UTF-16 units, Copilot's test for a
/// neighbour file. Most files are settled by their byte length (a UTF-16 unit takes one to
/// three bytes), without counting.
fn is_short_enough(text: &str, max: usize) -> bool {
    if text.is_empty() {
        return false;
    }
    if text.len() < max {
        return true;
    }
    if text.len() / 3 >= max {
        return false;
    }
    utf16_len(text) < max
}

pub fn reference_context(source: &str, cursor: usize, max_lines: usize) -> &str {
    if max_lines == 0 {
        return "";
    }
    let before = &source[..cursor.min(source.len())];
    let mut start = before.len();
    for _ in 0..max_lines {
        match before[..start].rfind('\n') {
            Some(nl) => start = nl,
            None => return before,
        }
    }
    &before[start + 1..]
}

#[derive(Debug, Clone, Copy)]
struct ScoredWindow {
    score: f64,
    start: usize,
    end: usize,
}

/// A file's windows reduced to non-overlapping ones, best first. Windows come in line order;
/// a window that overlaps the last one kept replaces it only when it scores strictly higher,
/// as in Copilot, so the first of equally good overlapping windows wins.
fn best_windows(
    scores: &[f64],
    window: usize,
    line_count: usize,
    wanted: usize,
) -> Vec<ScoredWindow> {
    let mut kept: Vec<ScoredWindow> = Vec::new();
    for (&score, (start, end)) in scores.iter().zip(windows(window, line_count)) {
        if let Some(last) = kept.last_mut()
            && start > 0
            && last.end > start
        {
            if last.score < score {
                *last = ScoredWindow { score, start, end };
            }
            continue;
        }
        kept.push(ScoredWindow { score, start, end });
    }
    if wanted == 1 {
        // What the stable descending sort below puts first: the first of the highest.
        let mut best: Option<ScoredWindow> = None;
        for w in kept {
            if best.is_none_or(|b| w.score.total_cmp(&b.score).is_gt()) {
                best = Some(w);
            }
        }
        return best.into_iter().collect();
    }
    // Stable and descending: equal scores keep line order.
    kept.sort_by(|a, b| b.score.total_cmp(&a.score));
    kept.truncate(wanted);
    kept
}

/// An open editor document, as a candidate neighbour.
#[derive(Debug, Clone, Copy)]
pub struct OpenDocument<'a> {
    pub path: &'a str,
    /// The language Copilot detects for it (see `languages::detect_language_from_path`).
    pub language_id: &'a str,
    pub text: &'a str,
}

/// Copilot's cap on the total size of neighbour files handed to snippet selection, in UTF-16
/// code units, and on their number.
pub const MAX_NEIGHBOUR_AGGREGATE_LENGTH: usize = 200_000;
pub const MAX_NEIGHBOUR_FILES: usize = 20;

/// What became of one open document when neighbours were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It is a neighbour.
    Chosen,
    /// It is the document being edited.
    CurrentFile,
    /// Its normalized language differs from the current document's.
    OtherLanguage,
    /// Taking it would have exceeded the total size cap.
    OverTotalSize,
    /// The file-count cap was reached before it.
    NotReached,
}

/// The open documents that are neighbours of the current one, as Copilot chooses them from
/// its open tabs: `open` in order of most recent use; other files only, of the same normalized
/// language, while their total size stays within [`MAX_NEIGHBOUR_AGGREGATE_LENGTH`] (a file that
/// would exceed it is skipped, later smaller ones may still fit), at most `max_files` of them.
pub fn select_neighbours<'a>(
    current_path: &str,
    current_language_id: &str,
    open: &[OpenDocument<'a>],
    max_files: usize,
) -> Vec<OpenDocument<'a>> {
    let verdicts = judge_neighbours(current_path, current_language_id, open, max_files);
    let mut chosen: Vec<OpenDocument<'a>> = Vec::new();
    for (doc, verdict) in open.iter().zip(verdicts) {
        if verdict != Verdict::Chosen {
            continue;
        }
        // A document listed twice keeps its first place and takes the later content: Copilot
        // keys the chosen files by URI.
        match chosen.iter_mut().find(|c| c.path == doc.path) {
            Some(existing) => *existing = *doc,
            None => chosen.push(*doc),
        }
    }
    chosen
}

/// The verdict on each of `open` (same order) that [`select_neighbours`] acts on.
pub fn judge_neighbours(
    current_path: &str,
    current_language_id: &str,
    open: &[OpenDocument<'_>],
    max_files: usize,
) -> Vec<Verdict> {
    let language = normalize_language_id(current_language_id);
    let mut verdicts = vec![Verdict::NotReached; open.len()];
    let mut chosen: Vec<&str> = Vec::new();
    let mut total = 0usize;
    for (doc, verdict) in open.iter().zip(verdicts.iter_mut()) {
        let len = utf16_len(doc.text);
        *verdict = if total + len > MAX_NEIGHBOUR_AGGREGATE_LENGTH {
            Verdict::OverTotalSize
        } else if doc.path == current_path {
            Verdict::CurrentFile
        } else if normalize_language_id(doc.language_id) != language {
            Verdict::OtherLanguage
        } else {
            // A repeated path counts its size again but not its place, as in Copilot.
            if !chosen.contains(&doc.path) {
                chosen.push(doc.path);
            }
            total += len;
            Verdict::Chosen
        };
        if chosen.len() >= max_files {
            break;
        }
    }
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_the_last_lines_before_the_cursor() {
        let src = "a\nb\nc\nd";
        assert_eq!(reference_context(src, src.len(), 2), "c\nd");
        assert_eq!(reference_context(src, 3, 2), "a\nb");
        assert_eq!(reference_context(src, 4, 2), "b\n");
        assert_eq!(reference_context(src, 4, 10), "a\nb\n");
        assert_eq!(reference_context(src, 4, 0), "");
    }

    #[test]
    fn overlapping_windows_keep_the_first_best() {
        let w = best_windows(&[0.1, 0.5, 0.5, 0.2, 0.4], 2, 6, usize::MAX);
        // (0,2) is replaced by (1,3) [0.5]; (2,4) ties and does not replace; (3,5) starts at
        // 3 = end of (1,3): no overlap, kept; (4,6) overlaps and beats 0.2.
        let got: Vec<_> = w.iter().map(|w| (w.start, w.end, w.score)).collect();
        assert_eq!(got, vec![(1, 3, 0.5), (4, 6, 0.4)]);
    }

    #[test]
    fn the_single_best_window_is_the_first_of_the_sorted_ones() {
        // Scores from a small set, so that ties are common, in every order a counter gives.
        let values = [0.0, 0.25, 0.5, 0.5, 1.0];
        for seed in 0u64..2000 {
            let mut x = seed;
            let scores: Vec<f64> = (0..12)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    values[(x >> 33) as usize % values.len()]
                })
                .collect();
            let window = 1 + (seed as usize % 4);
            let all = best_windows(&scores, window, scores.len() + window - 1, usize::MAX);
            let one = best_windows(&scores, window, scores.len() + window - 1, 1);
            let firsts: Vec<_> = all.iter().take(1).map(|w| (w.start, w.score)).collect();
            assert_eq!(
                one.iter().map(|w| (w.start, w.score)).collect::<Vec<_>>(),
                firsts
            );
        }
    }
}
