//! What neighbour-snippet retrieval derives from one document's text (its lines and each
//! line's words as small integer ids), kept by content: an open file that
//! did not change since the last keystroke costs a lookup, as in Copilot's own library, which
//! caches per document. A cache lives per thread, so the language server and `--batch`, which
//! assemble on long-lived threads, reuse it without passing it around.

use std::{cell::RefCell, hash::BuildHasher, rc::Rc};

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::words::{is_stop_word, raw_words};

/// One document's text as retrieval sees it.
#[derive(Debug)]
pub(crate) struct Analysis {
    text: Box<str>,
    /// Byte offset of every line start (lines split at `\n`), then the text's length plus one.
    line_starts: Vec<usize>,
    /// Word ids of all lines, one line after another, each id at most once per line.
    ids: Vec<u32>,
    /// Where each line's ids start in `ids`; one more entry than there are lines.
    id_starts: Vec<usize>,
    /// Where each word (by id) first occurs in the text.
    spans: Vec<(u32, u32)>,
    /// Ids by the hash of their word ([`word_hash`]); a word whose hash another word already
    /// has is found in `collisions` instead, so lookups stay exact.
    by_hash: FxHashMap<u64, u32>,
    collisions: FxHashMap<Box<str>, u32>,
}

/// The hash words are looked up by: a request hashes its reference words once and looks them
/// up in every neighbour's analysis by number.
pub(crate) fn word_hash(word: &str) -> u64 {
    FxBuildHasher.hash_one(word)
}

impl Analysis {
    fn new(text: &str) -> Analysis {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        line_starts.push(text.len() + 1);
        // Ids while the text is read; kept afterwards only as hashes and spans.
        let mut index: FxHashMap<&str, u32> =
            FxHashMap::with_capacity_and_hasher(text.len() / 16, Default::default());
        let mut spans = Vec::new();
        // Stop words are looked up once per distinct word, then skipped by their marker.
        let mut stop: FxHashMap<&str, ()> = FxHashMap::default();
        let mut last_line: Vec<usize> = Vec::new();
        let mut ids = Vec::new();
        let mut id_starts = Vec::with_capacity(line_starts.len());
        for line_no in 0..line_starts.len() - 1 {
            id_starts.push(ids.len());
            let line = &text[line_starts[line_no]..line_starts[line_no + 1] - 1];
            for word in raw_words(line) {
                let id = match index.get(word) {
                    Some(&id) => id,
                    None if stop.contains_key(word) => continue,
                    None if is_stop_word(word) => {
                        stop.insert(word, ());
                        continue;
                    }
                    None => {
                        let id = index.len() as u32;
                        index.insert(word, id);
                        let start = word.as_ptr() as usize - text.as_ptr() as usize;
                        spans.push((start as u32, word.len() as u32));
                        last_line.push(usize::MAX);
                        id
                    }
                };
                if last_line[id as usize] != line_no {
                    last_line[id as usize] = line_no;
                    ids.push(id);
                }
            }
        }
        id_starts.push(ids.len());
        let mut by_hash = FxHashMap::with_capacity_and_hasher(index.len(), Default::default());
        let mut collisions = FxHashMap::default();
        for (&word, &id) in &index {
            if let Some(other) = by_hash.insert(word_hash(word), id) {
                // Keep the first word by hash; the other is found by its text.
                by_hash.insert(word_hash(word), other);
                collisions.insert(word.into(), id);
            }
        }
        Analysis {
            text: text.into(),
            line_starts,
            ids,
            id_starts,
            spans,
            by_hash,
            collisions,
        }
    }

    /// The analysis of a text given as its lines, not remembered.
    pub(crate) fn of_lines(lines: &[&str]) -> Analysis {
        Analysis::new(&lines.join("\n"))
    }

    pub(crate) fn line_count(&self) -> usize {
        self.line_starts.len() - 1
    }

    /// Lines `start..end` joined by line breaks, as the text has them.
    pub(crate) fn lines(&self, start: usize, end: usize) -> &str {
        if start >= end {
            return "";
        }
        &self.text[self.line_starts[start]..self.line_starts[end] - 1]
    }

    pub(crate) fn line_ids(&self, line: usize) -> &[u32] {
        &self.ids[self.id_starts[line]..self.id_starts[line + 1]]
    }

    /// The number of distinct (non-stop) words.
    pub(crate) fn word_count(&self) -> usize {
        self.spans.len()
    }

    /// The id of `word`, whose [`word_hash`] is `hash`, if the text has it.
    pub(crate) fn id(&self, hash: u64, word: &str) -> Option<u32> {
        if let Some(&id) = self.by_hash.get(&hash) {
            let (start, len) = self.spans[id as usize];
            if &self.text[start as usize..(start + len) as usize] == word {
                return Some(id);
            }
        }
        if self.collisions.is_empty() {
            return None;
        }
        self.collisions.get(word).copied()
    }
}

/// Documents remembered per thread; past this the least recently used one is forgotten.
/// Copilot looks at 20 neighbour files, and an editor switches between a few sets of them.
const CACHED_DOCUMENTS: usize = 64;

/// Bytes of text remembered per thread at most, whatever the number of documents.
const CACHED_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Cache {
    by_hash: FxHashMap<u64, (Rc<Analysis>, u64)>,
    bytes: usize,
    clock: u64,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::default();
}

/// The analysis of `text`, from the cache when this thread has seen the same text lately.
pub(crate) fn analyse(text: &str) -> Rc<Analysis> {
    let key = FxBuildHasher.hash_one(text);
    CACHE.with(|cell| {
        let mut cache = cell.borrow_mut();
        cache.clock += 1;
        let now = cache.clock;
        if let Some((analysis, used)) = cache.by_hash.get_mut(&key)
            // A hash is not proof: the text itself must match.
            && *analysis.text == *text
        {
            *used = now;
            return Rc::clone(analysis);
        }
        let analysis = Rc::new(Analysis::new(text));
        if text.len() > CACHED_BYTES / 4 {
            return analysis;
        }
        if let Some((old, _)) = cache.by_hash.remove(&key) {
            cache.bytes -= old.text.len();
        }
        while cache.by_hash.len() >= CACHED_DOCUMENTS || cache.bytes + text.len() > CACHED_BYTES {
            let Some((&oldest, _)) = cache.by_hash.iter().min_by_key(|(_, (_, used))| *used) else {
                break;
            };
            let (old, _) = cache
                .by_hash
                .remove(&oldest)
                .expect("the key was just found");
            cache.bytes -= old.text.len();
        }
        cache.bytes += text.len();
        cache.by_hash.insert(key, (Rc::clone(&analysis), now));
        analysis
    })
}

/// Forgets every document this thread remembers, so that a benchmark can measure work done
/// from nothing.
pub fn clear_cache() {
    CACHE.with(|cell| *cell.borrow_mut() = Cache::default());
}
