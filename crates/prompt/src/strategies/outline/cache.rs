//! Per-file work kept by content: a file's outline, the sub-token terms of each signature and
//! their token counts are computed once per (text, language, tokenizer) and shared by every
//! request after, so that a keystroke costs a hash and a lookup per unchanged file.
//!
//! The cache is one per process: the language server, `--batch` and single requests all reuse
//! it. It is bounded; the least recently used half is dropped when it fills.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use syntax::outline::Definition;
use tokenizer::Tokenizer;

/// A file's outline and what ranking and packing derive from it.
#[derive(Debug)]
pub(crate) struct FileOutline {
    pub definitions: Vec<Definition>,
    /// Sub-token terms of each definition's signature.
    pub terms: Vec<Vec<String>>,
    /// Sub-token terms of each definition's name.
    pub name_terms: Vec<Vec<String>>,
    /// Sub-token terms of each definition's owner type (empty without one).
    pub owner_terms: Vec<Vec<String>>,
    /// The file's whole identifiers, to tell which names it uses.
    pub words: FxHashSet<Box<str>>,
    /// Unique to this outline: what caches over sets of files key on.
    pub id: u64,
    /// Token counts of each signature (as a line of its own), filled on first use;
    /// `usize::MAX` until then.
    counts: Vec<AtomicUsize>,
}

impl FileOutline {
    fn new(definitions: Vec<Definition>, text: &str) -> FileOutline {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let terms = definitions
            .iter()
            .map(|d| retrieval::search::terms(&d.signature))
            .collect();
        let name_terms = definitions
            .iter()
            .map(|d| retrieval::search::terms(&d.name))
            .collect();
        let owner_terms = definitions
            .iter()
            .map(|d| {
                d.owner
                    .as_deref()
                    .map(retrieval::search::terms)
                    .unwrap_or_default()
            })
            .collect();
        let words = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
            .map(Box::from)
            .collect();
        let counts = definitions
            .iter()
            .map(|_| AtomicUsize::new(usize::MAX))
            .collect();
        FileOutline {
            definitions,
            terms,
            name_terms,
            owner_terms,
            words,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            counts,
        }
    }

    /// Tokens of definition `i`'s signature and its newline, counted together: the newline
    /// often joins the signature's last token (`):\n`, `{...}\n`), so counting it apart would
    /// overstate a definition's cost and leave part of the context's share unused.
    pub(crate) fn tokens(&self, i: usize, tokenizer: &Tokenizer) -> usize {
        let known = self.counts[i].load(Ordering::Relaxed);
        if known != usize::MAX {
            return known;
        }
        let n = tokenizer.count(&format!("{}\n", self.definitions[i].signature));
        self.counts[i].store(n, Ordering::Relaxed);
        n
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    hash: u64,
    len: usize,
    lang: Option<syntax::Lang>,
    tokenizer: String,
}

struct Entry {
    outline: Arc<FileOutline>,
    used: u64,
}

#[derive(Default)]
struct Cache {
    entries: FxHashMap<Key, Entry>,
    clock: u64,
}

/// Files kept at most; a workspace's open files and their imports fit many times over.
const CAPACITY: usize = 2048;

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::default()));

/// The outline of `text` in `lang` (`None`: the line-based fallback), computed once per content.
pub(crate) fn outline(
    text: &str,
    lang: Option<syntax::Lang>,
    tokenizer_name: &str,
) -> Arc<FileOutline> {
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    let key = Key {
        hash: hasher.finish(),
        len: text.len(),
        lang,
        tokenizer: tokenizer_name.to_owned(),
    };
    {
        // A poisoned lock only means another request panicked mid-insert; the map is intact.
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        if let Some(entry) = cache.entries.get_mut(&key) {
            entry.used = now;
            return Arc::clone(&entry.outline);
        }
    }
    // Parsing happens outside the lock, so other documents are not held up by a large file.
    let definitions = match lang {
        Some(lang) => syntax::outline::outline(lang, text),
        None => syntax::outline::outline_by_lines(text),
    };
    let outline = Arc::new(FileOutline::new(definitions, text));
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if cache.entries.len() >= CAPACITY {
        let mut ages: Vec<u64> = cache.entries.values().map(|e| e.used).collect();
        ages.sort_unstable();
        let cutoff = ages[ages.len() / 2];
        cache.entries.retain(|_, e| e.used > cutoff);
    }
    let used = cache.clock;
    cache.entries.insert(
        key,
        Entry {
            outline: Arc::clone(&outline),
            used,
        },
    );
    outline
}

/// Token counts of single lines, by tokenizer and line text: a keystroke changes one line, and
/// the prefix's other lines are counted once per editing session rather than on every key.
static LINES: LazyLock<Mutex<FxHashMap<(u64, usize), usize>>> =
    LazyLock::new(|| Mutex::new(FxHashMap::default()));

/// Lines counted at most before the line cache starts over.
const LINE_CAPACITY: usize = 200_000;

/// The token count of each line of `text` (split after each `\n`), each line counted on its
/// own. Their sum is an estimate of the text's count (tokens can merge across a line break);
/// callers count what they finally send exactly.
pub(crate) fn line_counts(text: &str, tokenizer: &Tokenizer, tokenizer_name: &str) -> Vec<usize> {
    let keys: Vec<(u64, usize)> = text
        .split_inclusive('\n')
        .map(|line| {
            let mut hasher = FxHasher::default();
            tokenizer_name.hash(&mut hasher);
            line.hash(&mut hasher);
            (hasher.finish(), line.len())
        })
        .collect();
    let mut out = Vec::with_capacity(keys.len());
    let mut missing = Vec::new();
    {
        let cache = LINES.lock().unwrap_or_else(|p| p.into_inner());
        for (i, key) in keys.iter().enumerate() {
            match cache.get(key) {
                Some(&n) => out.push(n),
                None => {
                    out.push(0);
                    missing.push(i);
                }
            }
        }
    }
    if missing.is_empty() {
        return out;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for &i in &missing {
        out[i] = tokenizer.count(lines[i]);
    }
    let mut cache = LINES.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() + missing.len() > LINE_CAPACITY {
        cache.clear();
    }
    for &i in &missing {
        cache.insert(keys[i], out[i]);
    }
    out
}

/// Per file, per definition: how many other candidate files use the definition's name.
pub(crate) type UseCounts = Vec<Vec<u32>>;

/// For each file of a set of candidate files and each of its definitions, how many of the
/// other files use the definition's name. Kept per set of files (by their outlines), so that
/// typing, which changes only the document, does not count again.
pub(crate) fn used_elsewhere(outlines: &[Arc<FileOutline>]) -> Arc<UseCounts> {
    static USED: LazyLock<Mutex<FxHashMap<Vec<u64>, Arc<UseCounts>>>> =
        LazyLock::new(|| Mutex::new(FxHashMap::default()));
    let key: Vec<u64> = outlines.iter().map(|o| o.id).collect();
    if let Some(found) = USED.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Arc::clone(found);
    }
    let counts: Vec<Vec<u32>> = outlines
        .iter()
        .enumerate()
        .map(|(f, outline)| {
            outline
                .definitions
                .iter()
                .map(|d| {
                    let users = outlines
                        .iter()
                        .enumerate()
                        .filter(|&(g, other)| g != f && other.words.contains(d.name.as_str()))
                        .count();
                    u32::try_from(users).unwrap_or(u32::MAX)
                })
                .collect()
        })
        .collect();
    let counts = Arc::new(counts);
    let mut cache = USED.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= 64 {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&counts));
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_in_other_files_is_counted_once_per_set_of_files() {
        let lang = Some(syntax::Lang::Python);
        let defining = outline("def size(x):\n    return 1\n", lang, "o200k_base");
        let caller = outline("from sizes import size\nsize(2)\n", lang, "o200k_base");
        let other = outline("def unrelated():\n    return sized\n", lang, "o200k_base");
        let files = [defining, caller, other];
        let counts = used_elsewhere(&files);
        // `size` is used by one other file (`sized` is another word); `unrelated` by none.
        assert_eq!(counts[0], [1]);
        assert_eq!(counts[2], [0]);
        let again = used_elsewhere(&files);
        assert!(
            Arc::ptr_eq(&counts, &again),
            "counted again for the same files"
        );
    }
}
