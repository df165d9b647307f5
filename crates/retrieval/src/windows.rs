//! Jaccard scores of every fixed-size line window of a file against a reference word set,
//! computed two ways: the obvious way (Copilot's), and by sliding the window.
//!
//! Copilot builds each window's word set anew from its lines, which costs the window length for
//! every window. Sliding the window instead keeps, for every word, the number of lines in the
//! window that contain it: a line entering adds to its words' counts, a line leaving takes away,
//! and a word is in the window while its count is above zero. Intersection and union sizes are
//! the same integers either way, so the scores are the same floating-point numbers bit for bit.

use rustc_hash::FxHashSet;

use crate::{
    analysis::{Analysis, word_hash},
    words::words,
};

/// The set of words a file's windows are compared with.
pub type WordSet<'a> = FxHashSet<&'a str>;

/// How window scores are computed. Both give identical results; `Naive` exists as the
/// reference the fast form is tested and benchmarked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Build every window's word set from its lines (Copilot's way).
    Naive,
    /// Slide the window, counting words entering and leaving (linear time).
    #[default]
    Sliding,
}

/// The windows of `line_count` lines, as Copilot delineates them: every run of `window`
/// consecutive lines (step 1), or the whole file when it is shorter than one window.
pub fn windows(window: usize, line_count: usize) -> Vec<(usize, usize)> {
    if line_count == 0 {
        return Vec::new();
    }
    if line_count < window {
        return vec![(0, line_count)];
    }
    (0..=line_count - window).map(|s| (s, s + window)).collect()
}

/// Jaccard scores of the windows of `lines` against `reference`, in window order (see
/// [`windows`]).
pub fn window_scores(
    method: Method,
    reference: &WordSet<'_>,
    lines: &[&str],
    window: usize,
) -> Vec<f64> {
    match method {
        Method::Naive => naive(reference, lines, window),
        Method::Sliding => sliding(reference, lines, window),
    }
}

fn jaccard(intersection: usize, window_words: usize, reference_words: usize) -> f64 {
    intersection as f64 / (window_words + reference_words - intersection) as f64
}

fn naive(reference: &WordSet<'_>, lines: &[&str], window: usize) -> Vec<f64> {
    let line_sets: Vec<FxHashSet<&str>> = lines.iter().map(|l| words(l).collect()).collect();
    windows(window, lines.len())
        .into_iter()
        .map(|(start, end)| {
            let mut set: FxHashSet<&str> = FxHashSet::default();
            for line in &line_sets[start..end] {
                set.extend(line.iter().copied());
            }
            let intersection = set.iter().filter(|w| reference.contains(*w)).count();
            jaccard(intersection, set.len(), reference.len())
        })
        .collect()
}

fn sliding(reference: &WordSet<'_>, lines: &[&str], window: usize) -> Vec<f64> {
    // A text has at least one line; no lines at all have no windows.
    if lines.is_empty() {
        return Vec::new();
    }
    let hashed = hash_words(reference);
    sliding_scores(&hashed, &Analysis::of_lines(lines), window)
}

/// The reference's words with their hashes, worked out once for all neighbour files.
pub(crate) fn hash_words<'a>(reference: &WordSet<'a>) -> Vec<(u64, &'a str)> {
    reference.iter().map(|&w| (word_hash(w), w)).collect()
}

/// Window scores by sliding, over a document's analysis (see [`crate::analysis`]): the words'
/// ids come from the analysis, which an unchanged document keeps between requests; only which
/// ids are in the reference is worked out anew.
pub(crate) fn sliding_scores(reference: &[(u64, &str)], doc: &Analysis, window: usize) -> Vec<f64> {
    let delineations = windows(window, doc.line_count());
    let Some(&(_, first_end)) = delineations.first() else {
        return Vec::new();
    };
    let mut in_reference = vec![false; doc.word_count()];
    for &(hash, word) in reference {
        if let Some(id) = doc.id(hash, word) {
            in_reference[id as usize] = true;
        }
    }
    let mut counts = vec![0u32; doc.word_count()];
    let mut distinct = 0usize;
    let mut intersection = 0usize;
    // Branch-free updates: whether a count crosses zero is as good as random to a branch
    // predictor, and this loop runs for every window of every neighbour on every keystroke.
    let add = |id: u32, counts: &mut [u32], distinct: &mut usize, intersection: &mut usize| {
        let c = &mut counts[id as usize];
        let first = usize::from(*c == 0);
        *distinct += first;
        *intersection += first & usize::from(in_reference[id as usize]);
        *c += 1;
    };
    for line in 0..first_end {
        for &id in doc.line_ids(line) {
            add(id, &mut counts, &mut distinct, &mut intersection);
        }
    }
    let mut scores = Vec::with_capacity(delineations.len());
    scores.push(jaccard(intersection, distinct, reference.len()));
    for &(start, end) in &delineations[1..] {
        for &id in doc.line_ids(start - 1) {
            let c = &mut counts[id as usize];
            *c -= 1;
            let last = usize::from(*c == 0);
            distinct -= last;
            intersection -= last & usize::from(in_reference[id as usize]);
        }
        for &id in doc.line_ids(end - 1) {
            add(id, &mut counts, &mut distinct, &mut intersection);
        }
        scores.push(jaccard(intersection, distinct, reference.len()));
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delineation() {
        assert_eq!(windows(3, 0), vec![]);
        assert_eq!(windows(3, 2), vec![(0, 2)]);
        assert_eq!(windows(3, 3), vec![(0, 3)]);
        assert_eq!(windows(3, 5), vec![(0, 3), (1, 4), (2, 5)]);
    }

    #[test]
    fn both_methods_agree_on_a_small_case() {
        let reference: WordSet = ["alpha", "beta", "gamma"].into_iter().collect();
        let lines = ["alpha beta", "delta", "gamma alpha", "beta beta", "zeta"];
        let naive = window_scores(Method::Naive, &reference, &lines, 2);
        let fast = window_scores(Method::Sliding, &reference, &lines, 2);
        assert_eq!(naive, fast);
        assert_eq!(naive[0], 2.0 / 4.0);
    }
}
