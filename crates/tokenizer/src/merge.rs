//! Byte-pair merging of one piece of text, as OpenAI's tokenizer does it: start from single
//! bytes and keep joining the adjacent pair whose joined bytes are the lowest-ranked token,
//! the leftmost such pair on a tie, until no adjacent pair is a token. A token's id is its
//! rank in these vocabularies, so the ids come out of the same lookups.

use std::{cmp::Reverse, collections::BinaryHeap};

use crate::vocab::Vocabulary;

/// Pieces up to this many bytes are merged by rescanning a short list after each join; longer
/// ones (a long run of letters or symbols) through a heap, so that no piece costs quadratic
/// time.
const SCAN_LIMIT: usize = 96;

/// Appends the ids of `piece` to `out`.
pub(crate) fn merge(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>) {
    if let Some(id) = vocab.id(piece) {
        out.push(id);
    } else if piece.len() <= SCAN_LIMIT {
        merge_by_scan(vocab, piece, out);
    } else {
        merge_by_heap(vocab, piece, out);
    }
}

fn rank(vocab: &Vocabulary, bytes: &[u8]) -> u32 {
    vocab.id(bytes).unwrap_or(u32::MAX)
}

/// The list form: `bounds` are where tokens start (and the end), `ids` the tokens' ids, and
/// `ranks[i]` the rank of the token that joining tokens `i` and `i + 1` would make.
pub(crate) fn merge_by_scan(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>) {
    let mut bounds: Vec<usize> = (0..=piece.len()).collect();
    let mut ids: Vec<u32> = piece.iter().map(|&b| vocab.byte(b)).collect();
    let mut ranks: Vec<u32> = piece
        .windows(2)
        .map(|w| vocab.pair(w[0], w[1]).unwrap_or(u32::MAX))
        .collect();
    loop {
        let mut best = (u32::MAX, 0);
        for (i, &r) in ranks.iter().enumerate() {
            if r < best.0 {
                best = (r, i);
            }
        }
        let (merged, i) = best;
        if merged == u32::MAX {
            break;
        }
        bounds.remove(i + 1);
        ids.remove(i + 1);
        ids[i] = merged;
        ranks.remove(i);
        if i > 0 {
            ranks[i - 1] = rank(vocab, &piece[bounds[i - 1]..bounds[i + 1]]);
        }
        if i < ranks.len() {
            ranks[i] = rank(vocab, &piece[bounds[i]..bounds[i + 2]]);
        }
    }
    out.extend_from_slice(&ids);
}

/// The heap form: candidate joins ordered by (rank, start), checked when taken because a join
/// next to them may have changed the tokens they were made from.
pub(crate) fn merge_by_heap(vocab: &Vocabulary, piece: &[u8], out: &mut Vec<u32>) {
    let n = piece.len();
    // For the token starting at byte i: where it ends, where the one before it starts, its id,
    // and whether it still starts a token.
    let mut end: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut ids: Vec<u32> = piece.iter().map(|&b| vocab.byte(b)).collect();
    let mut alive = vec![true; n];
    let mut heap: BinaryHeap<Reverse<(u32, usize, usize)>> = piece
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| vocab.pair(w[0], w[1]).map(|r| Reverse((r, i, i + 2))))
        .collect();
    while let Some(Reverse((rank, start, pair_end))) = heap.pop() {
        let mid = end[start];
        if !alive[start] || mid >= n || !alive[mid] || end[mid] != pair_end {
            continue;
        }
        alive[mid] = false;
        end[start] = pair_end;
        ids[start] = rank;
        if pair_end < n {
            prev[pair_end] = start;
            let next_end = end[pair_end];
            if let Some(r) = vocab.id(&piece[start..next_end]) {
                heap.push(Reverse((r, start, next_end)));
            }
        }
        if start > 0 {
            let before = prev[start];
            if let Some(r) = vocab.id(&piece[before..pair_end]) {
                heap.push(Reverse((r, before, pair_end)));
            }
        }
    }
    let mut at = 0;
    while at < n {
        out.push(ids[at]);
        at = end[at];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The two forms of merging are one algorithm: they agree on any piece.
        #[test]
        fn scan_and_heap_agree(piece in prop::collection::vec(
            prop::sample::select(b"aaab  eeinnstt_(){}\xc3\xa9\xe4\xb8\xad".to_vec()), 2..200
        )) {
            for vocab in [Vocabulary::cl100k(), Vocabulary::o200k()] {
                let (mut scan, mut heap) = (Vec::new(), Vec::new());
                merge_by_scan(&vocab, &piece, &mut scan);
                merge_by_heap(&vocab, &piece, &mut heap);
                prop_assert_eq!(&scan, &heap);
                prop_assert_eq!(vocab.decode(&scan), piece.clone());
            }
        }
    }
}
