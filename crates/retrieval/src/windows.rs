//! Jaccard scores of every fixed-size line window of a file against a reference word set,
//! computed two ways: the obvious way (Copilot's), and by sliding the window.
//!
//! Copilot builds each window's word set anew from its lines, which costs the window length for
//! every window. Sliding the window instead keeps, for every word, the number of lines in the
//! window that contain it: a line entering adds to its words' counts, a line leaving takes away,
//! and a word is in the window while its count is above zero. Intersection and union sizes are
//! the same integers either way, so the scores are the same floating-point numbers bit for bit.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::words::{is_stop_word, raw_words, words};

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

/// The words of each line as small integer ids, each id at most once per line.
struct InternedLines {
    /// Ids of all lines, one line after another.
    ids: Vec<u32>,
    /// Where each line's ids start in `ids`; one more entry than there are lines.
    starts: Vec<usize>,
    /// For each id, whether the word is in the reference set.
    in_reference: Vec<bool>,
}

impl InternedLines {
    fn new(reference: &WordSet<'_>, lines: &[&str]) -> InternedLines {
        // Stop words get an id like any word, marked `u32::MAX` so that the stop-word test runs
        // once per distinct word rather than once per occurrence.
        let bytes: usize = lines.iter().map(|l| l.len()).sum();
        // Distinct words run to roughly one per 16 bytes of code; sizing for that up front
        // saves most rehashing.
        let mut index: FxHashMap<&str, u32> =
            FxHashMap::with_capacity_and_hasher(bytes / 16, Default::default());
        let mut in_reference = Vec::new();
        // The line each id was last seen on, to keep an id once per line without a set.
        let mut last_line: Vec<usize> = Vec::new();
        let mut ids = Vec::new();
        let mut starts = Vec::with_capacity(lines.len() + 1);
        for (line_no, line) in lines.iter().enumerate() {
            starts.push(ids.len());
            for word in raw_words(line) {
                let id = *index.entry(word).or_insert_with(|| {
                    if is_stop_word(word) {
                        return u32::MAX;
                    }
                    in_reference.push(reference.contains(word));
                    last_line.push(usize::MAX);
                    (in_reference.len() - 1) as u32
                });
                if id != u32::MAX && last_line[id as usize] != line_no {
                    last_line[id as usize] = line_no;
                    ids.push(id);
                }
            }
        }
        starts.push(ids.len());
        InternedLines {
            ids,
            starts,
            in_reference,
        }
    }

    fn line(&self, i: usize) -> &[u32] {
        &self.ids[self.starts[i]..self.starts[i + 1]]
    }
}

fn sliding(reference: &WordSet<'_>, lines: &[&str], window: usize) -> Vec<f64> {
    let delineations = windows(window, lines.len());
    let Some(&(_, first_end)) = delineations.first() else {
        return Vec::new();
    };
    let interned = InternedLines::new(reference, lines);
    let mut counts = vec![0u32; interned.in_reference.len()];
    let mut distinct = 0usize;
    let mut intersection = 0usize;
    let add = |id: u32, counts: &mut [u32], distinct: &mut usize, intersection: &mut usize| {
        let c = &mut counts[id as usize];
        if *c == 0 {
            *distinct += 1;
            *intersection += usize::from(interned.in_reference[id as usize]);
        }
        *c += 1;
    };
    for line in 0..first_end {
        for &id in interned.line(line) {
            add(id, &mut counts, &mut distinct, &mut intersection);
        }
    }
    let mut scores = Vec::with_capacity(delineations.len());
    scores.push(jaccard(intersection, distinct, reference.len()));
    for &(start, end) in &delineations[1..] {
        for &id in interned.line(start - 1) {
            let c = &mut counts[id as usize];
            *c -= 1;
            if *c == 0 {
                distinct -= 1;
                intersection -= usize::from(interned.in_reference[id as usize]);
            }
        }
        for &id in interned.line(end - 1) {
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
