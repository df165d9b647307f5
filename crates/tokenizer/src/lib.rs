//! Token counting and cutting for prompts: exact `cl100k_base` and `o200k_base`, and an
//! approximate tokenizer for models whose vocabulary we do not have.
//!
//! The exact tokenizers produce the token ids OpenAI's own `tiktoken` produces (ordinary
//! encoding: text that looks like a special token such as `<|endoftext|>` is plain text). The
//! vocabularies are compiled into the binary; nothing is read or downloaded at run time.
//!
//! The `take_*` methods follow Copilot's completions library to the character, including its
//! habit of measuring text in UTF-16 code units (see [`utf16`]), so that a prompt cut here is
//! cut where Copilot would cut it.
//!
//! ```
//! use tokenizer::{Encoding, Tokenizer};
//! let t = Tokenizer::exact(Encoding::Cl100kBase);
//! assert_eq!(t.token_ids("This is some text"), Some(vec![2028, 374, 1063, 1495]));
//! assert_eq!(t.count("This is some text"), 4);
//! assert_eq!(t.take_last_tokens("one two three", 1).text, " three");
//! ```

mod hash;
mod merge;
mod pretokenize;
pub mod utf16;
mod vocab;

use std::{fmt, str::FromStr};

use pretokenize::Pattern;
use vocab::Vocabulary;

/// The exact vocabularies pilotfish carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The GPT-3.5 / GPT-4 vocabulary.
    Cl100kBase,
    /// The GPT-4o vocabulary, Copilot's default for completions.
    O200kBase,
}

impl Encoding {
    /// The name OpenAI and Copilot use for this vocabulary.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::O200kBase => "o200k_base",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tokenizer name that pilotfish does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tokenizer `{0}`: use one of cl100k_base, o200k_base, approximate")]
pub struct UnknownTokenizer(pub String);

/// A token id that is not in the vocabulary it was decoded with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("token id {id} is not in {encoding} (it has {size} tokens)")]
    UnknownId {
        id: u32,
        encoding: Encoding,
        size: usize,
    },
    #[error(
        "the approximate tokenizer has no token ids to decode: choose cl100k_base or o200k_base"
    )]
    NoVocabulary,
}

impl FromStr for Encoding {
    type Err = UnknownTokenizer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            other => Err(UnknownTokenizer(other.to_owned())),
        }
    }
}

/// Text cut to a number of tokens, with the number of tokens it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub text: String,
    pub tokens: usize,
}

/// A tokenizer: exact for a known vocabulary, or an estimate from characters per token.
#[derive(Clone)]
pub struct Tokenizer {
    inner: Inner,
}

#[derive(Clone)]
enum Inner {
    Exact {
        encoding: Encoding,
        bpe: Bpe,
    },
    Approximate {
        encoding: Encoding,
        chars_per_token: f64,
    },
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            Inner::Exact { encoding, .. } => write!(f, "Tokenizer({encoding})"),
            Inner::Approximate {
                encoding,
                chars_per_token,
            } => write!(
                f,
                "Tokenizer(approximate {encoding}, {chars_per_token} chars/token)"
            ),
        }
    }
}

/// Copilot's first guess of characters per token when it cuts text, and how many more
/// characters per wanted token it adds while the guess is too short.
const CUT_CHARS_PER_TOKEN_START: usize = 4;
const CUT_CHARS_PER_TOKEN_ADD: usize = 1;

impl Tokenizer {
    /// The exact tokenizer for `encoding`. The vocabulary is read in place from tables
    /// compiled into the binary, so making one costs nothing.
    pub fn exact(encoding: Encoding) -> Tokenizer {
        let bpe = Bpe::of(encoding);
        Tokenizer {
            inner: Inner::Exact { encoding, bpe },
        }
    }

    /// An estimating tokenizer: characters per token measured for `encoding` on code of
    /// `language_id` (Copilot's figures), 4 for languages without a figure.
    pub fn approximate(encoding: Encoding, language_id: Option<&str>) -> Tokenizer {
        let chars_per_token = language_id
            .and_then(|lang| effective_token_length(encoding, lang))
            .unwrap_or(DEFAULT_CHARS_PER_TOKEN);
        Tokenizer {
            inner: Inner::Approximate {
                encoding,
                chars_per_token,
            },
        }
    }

    /// A tokenizer by name: `cl100k_base`, `o200k_base` (exact), or `approximate` (the
    /// o200k estimate for `language_id`).
    pub fn by_name(name: &str, language_id: Option<&str>) -> Result<Tokenizer, UnknownTokenizer> {
        match name {
            "approximate" => Ok(Tokenizer::approximate(Encoding::O200kBase, language_id)),
            other => Ok(Tokenizer::exact(other.parse()?)),
        }
    }

    /// The vocabulary this tokenizer uses or estimates.
    pub fn encoding(&self) -> Encoding {
        match &self.inner {
            Inner::Exact { encoding, .. } | Inner::Approximate { encoding, .. } => *encoding,
        }
    }

    /// Whether this tokenizer gives exact counts and token ids.
    pub fn is_exact(&self) -> bool {
        matches!(self.inner, Inner::Exact { .. })
    }

    /// The token ids of `text`, or `None` for the approximate tokenizer, which has none.
    pub fn token_ids(&self, text: &str) -> Option<Vec<u32>> {
        match &self.inner {
            Inner::Exact { bpe, .. } => Some(encode(*bpe, text)),
            Inner::Approximate { .. } => None,
        }
    }

    /// The number of tokens in `text`.
    pub fn count(&self, text: &str) -> usize {
        match &self.inner {
            Inner::Exact { bpe, .. } => count(*bpe, text),
            Inner::Approximate {
                chars_per_token, ..
            } => approximate_count(text, *chars_per_token),
        }
    }

    /// The text of `ids`; byte sequences that are not valid UTF-8 on their own (a character
    /// cut between tokens) become U+FFFD, as Copilot's decoder makes them.
    pub fn decode(&self, ids: &[u32]) -> Result<String, DecodeError> {
        let Inner::Exact { encoding, bpe } = &self.inner else {
            return Err(DecodeError::NoVocabulary);
        };
        let size = bpe.vocab.len();
        if let Some(&id) = ids.iter().find(|&&id| id as usize >= size) {
            return Err(DecodeError::UnknownId {
                id,
                encoding: *encoding,
                size,
            });
        }
        Ok(String::from_utf8_lossy(&bpe.vocab.decode(ids)).into_owned())
    }

    /// The pieces the vocabulary's split pattern cuts `text` into before merging: no token
    /// spans two of them. `None` for the approximate tokenizer.
    pub fn pieces<'t>(&self, text: &'t str) -> Option<Vec<&'t str>> {
        match &self.inner {
            Inner::Exact { bpe, .. } => Some(bpe.split(text).collect()),
            Inner::Approximate { .. } => None,
        }
    }

    /// The pieces that the ids of `text` stand for, one string per token (lossy where a token
    /// holds part of a character). `None` for the approximate tokenizer.
    pub fn token_strings(&self, text: &str) -> Option<Vec<String>> {
        let Inner::Exact { bpe, .. } = &self.inner else {
            return None;
        };
        Some(
            encode(*bpe, text)
                .into_iter()
                .map(|id| String::from_utf8_lossy(bpe.vocab.token(id)).into_owned())
                .collect(),
        )
    }

    /// The last `n` tokens of `text`, as Copilot takes them: tokenize a tail of the text that
    /// is long enough to hold `n + 2` tokens (so the cut does not change how the kept part
    /// tokenizes), keep its last `n` tokens and decode them. Text of fewer than `n` tokens is
    /// returned whole.
    pub fn take_last_tokens(&self, text: &str, n: usize) -> Taken {
        if n == 0 {
            return Taken {
                text: String::new(),
                tokens: 0,
            };
        }
        match &self.inner {
            Inner::Exact { bpe, .. } => {
                let len = utf16::utf16_len(text);
                let (tail, count) =
                    grow_until(len, n, *bpe, |chars| utf16::last_units(text, chars));
                if count < n {
                    return Taken {
                        text: text.to_owned(),
                        tokens: count,
                    };
                }
                let ids = encode(*bpe, tail.as_ref());
                let kept = &ids[ids.len() - n..];
                Taken {
                    text: String::from_utf8_lossy(&bpe.vocab.decode(kept)).into_owned(),
                    tokens: n,
                }
            }
            Inner::Approximate {
                chars_per_token, ..
            } => {
                let chars = approximate_chars(n, *chars_per_token);
                let tail = utf16::last_units(text, chars).into_owned();
                let tokens = approximate_count(&tail, *chars_per_token);
                Taken { text: tail, tokens }
            }
        }
    }

    /// The first `n` tokens of `text`, the mirror image of [`Tokenizer::take_last_tokens`].
    pub fn take_first_tokens(&self, text: &str, n: usize) -> Taken {
        if n == 0 {
            return Taken {
                text: String::new(),
                tokens: 0,
            };
        }
        match &self.inner {
            Inner::Exact { bpe, .. } => {
                let len = utf16::utf16_len(text);
                let (head, count) = grow_until(len, n, *bpe, |chars| utf16::slice_to(text, chars));
                if count < n {
                    return Taken {
                        text: text.to_owned(),
                        tokens: count,
                    };
                }
                let ids = encode(*bpe, head.as_ref());
                let kept = &ids[..n];
                Taken {
                    text: String::from_utf8_lossy(&bpe.vocab.decode(kept)).into_owned(),
                    tokens: n,
                }
            }
            Inner::Approximate {
                chars_per_token, ..
            } => {
                let chars = approximate_chars(n, *chars_per_token);
                let head = utf16::slice_to(text, chars).into_owned();
                let tokens = approximate_count(&head, *chars_per_token);
                Taken { text: head, tokens }
            }
        }
    }

    /// The last whole lines of `text` that fit in `n` tokens: the last `n` tokens, less the
    /// partial line they start with (unless they start at a line boundary or hold the whole text).
    pub fn take_last_lines_tokens(&self, text: &str, n: usize) -> String {
        let tail = self.take_last_tokens(text, n).text;
        let text_len = utf16::utf16_len(text);
        let tail_len = utf16::utf16_len(&tail);
        // Copilot looks at the character just before where the tail would start in the
        // original text; the decoded tail can differ in length from the original (U+FFFD), so
        // this is index arithmetic, not a search.
        let starts_a_line = text_len
            .checked_sub(tail_len + 1)
            .and_then(|i| utf16::unit_at(text, i))
            == Some(u16::from(b'\n'));
        if tail_len == text_len || starts_a_line {
            return tail;
        }
        match tail.find('\n') {
            Some(i) => tail[i + 1..].to_owned(),
            None => tail,
        }
    }
}

/// Grows a cut of `len` UTF-16 units until it holds at least `n + 2` tokens or is the whole
/// text, as Copilot does, and returns the cut with its token count. Counting is cheaper than
/// encoding, so only the final cut is encoded by the caller.
fn grow_until<'t>(
    len: usize,
    n: usize,
    bpe: Bpe,
    cut: impl Fn(usize) -> std::borrow::Cow<'t, str>,
) -> (std::borrow::Cow<'t, str>, usize) {
    let mut chars = len.min(n.saturating_mul(CUT_CHARS_PER_TOKEN_START));
    let mut piece = cut(chars);
    let mut count = count(bpe, piece.as_ref());
    while count < n + 2 && chars < len {
        chars = len.min(chars.saturating_add(n.saturating_mul(CUT_CHARS_PER_TOKEN_ADD)));
        piece = cut(chars);
        count = self::count(bpe, piece.as_ref());
    }
    (piece, count)
}

/// Pieces remembered per thread and vocabulary before the memory is cleared and starts again.
const PIECE_CACHE_LIMIT: usize = 1 << 16;

thread_local! {
    /// Token ids of the pieces this thread merged lately, per vocabulary. Prompts are built
    /// from the same files keystroke after keystroke, so most pieces recur across calls; a
    /// piece that is a token by itself never gets here.
    static PIECES: std::cell::RefCell<[rustc_hash::FxHashMap<String, Box<[u32]>>; 2]> = Default::default();
}

/// A vocabulary with the split pattern that goes with it.
#[derive(Debug, Clone, Copy)]
struct Bpe {
    vocab: Vocabulary,
    pattern: Pattern,
}

impl Bpe {
    fn of(encoding: Encoding) -> Bpe {
        match encoding {
            Encoding::Cl100kBase => Bpe {
                vocab: Vocabulary::cl100k(),
                pattern: Pattern::Cl100k,
            },
            Encoding::O200kBase => Bpe {
                vocab: Vocabulary::o200k(),
                pattern: Pattern::O200k,
            },
        }
    }

    fn split(self, text: &str) -> impl Iterator<Item = &str> {
        pretokenize::split(self.pattern, text)
    }

    /// Which of the per-vocabulary caches below belongs to this vocabulary.
    fn index(self) -> usize {
        usize::from(self.pattern == Pattern::O200k)
    }
}

/// Calls `f` with the ids of `piece`: a whole token directly, others merged once and
/// remembered.
fn with_piece_ids<R>(bpe: Bpe, piece: &str, f: impl FnOnce(&[u32]) -> R) -> R {
    if let Some(id) = bpe.vocab.id(piece.as_bytes()) {
        return f(&[id]);
    }
    let v = bpe.index();
    PIECES.with(|cell| {
        let mut caches = cell.borrow_mut();
        let cache = &mut caches[v];
        if let Some(ids) = cache.get(piece) {
            return f(ids);
        }
        let mut ids = Vec::new();
        merge::merge(&bpe.vocab, piece.as_bytes(), &mut ids);
        let ids: Box<[u32]> = ids.into();
        let out = f(&ids);
        remember(cache, PIECE_CACHE_LIMIT, piece.to_owned(), ids);
        out
    })
}

/// Encodes `text` into OpenAI's ids, through the piece shortcuts above.
fn encode(bpe: Bpe, text: &str) -> Vec<u32> {
    if let Some(parts) = parallel_parts(text) {
        return std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|part| scope.spawn(move || encode_serially(bpe, part)))
                .collect();
            let mut out = Vec::with_capacity(text.len() / 3 + 1);
            for handle in handles {
                out.extend(handle.join().expect("encoding does not panic"));
            }
            out
        });
    }
    if text.len() > REMEMBERED_TEXT_BYTES {
        let mut out: Vec<u32> = Vec::with_capacity(text.len() / 3 + 1);
        for chunk in chunks(text) {
            encode_chunk(bpe, chunk, &mut out);
        }
        return out;
    }
    encode_serially(bpe, text)
}

/// Chunks' ids by their text, and the bytes of text held.
type ChunkIds = (rustc_hash::FxHashMap<Box<str>, Box<[u32]>>, usize);

/// Text of the chunks whose ids are remembered, per thread and vocabulary, before the memory
/// is cleared and starts again.
const CHUNK_IDS_LIMIT_BYTES: usize = 8 << 20;

thread_local! {
    /// Ids of the chunks (see [`chunks`]) this thread encoded lately, per vocabulary, with the
    /// bytes of text they hold. A prompt's text is cut again on every keystroke, mostly from
    /// the same lines, so a line already encoded costs a lookup.
    static CHUNK_IDS: std::cell::RefCell<[ChunkIds; 2]> = Default::default();
}

/// Appends the ids of `chunk`, a piece of text that no split spans, from memory when this
/// thread has encoded it lately.
fn encode_chunk(bpe: Bpe, chunk: &str, out: &mut Vec<u32>) {
    let v = bpe.index();
    let found = CHUNK_IDS.with(|c| {
        c.borrow()[v]
            .0
            .get(chunk)
            .map(|ids| out.extend_from_slice(ids))
            .is_some()
    });
    if found {
        return;
    }
    let ids = encode_serially(bpe, chunk);
    out.extend_from_slice(&ids);
    CHUNK_IDS.with(|c| {
        let (map, bytes) = &mut c.borrow_mut()[v];
        if *bytes + chunk.len() > CHUNK_IDS_LIMIT_BYTES {
            map.clear();
            *bytes = 0;
        }
        *bytes += chunk.len();
        map.insert(chunk.into(), ids.into());
    });
}

fn encode_serially(bpe: Bpe, text: &str) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(text.len() / 3 + 1);
    for piece in bpe.split(text) {
        with_piece_ids(bpe, piece, |ids| out.extend_from_slice(ids));
    }
    out
}

/// Texts at least this long are cut where the split patterns always cut (see [`chunks`]) and
/// the parts worked on by as many threads as the machine has cores: a whole file or corpus,
/// not a prompt, which is far shorter.
const PARALLEL_BYTES: usize = 1 << 20;

/// The parts a long text is worked on in, one per core; `None` for a text that is short, a
/// one-core machine, or a text with nowhere to cut.
fn parallel_parts(text: &str) -> Option<Vec<&str>> {
    if text.len() < PARALLEL_BYTES {
        return None;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(16));
    if threads < 2 {
        return None;
    }
    let target = text.len() / threads;
    let mut parts = Vec::with_capacity(threads);
    let (mut start, mut at) = (0, 0);
    for chunk in chunks(text) {
        at += chunk.len();
        if at - start >= target && parts.len() + 1 < threads {
            parts.push(&text[start..at]);
            start = at;
        }
    }
    parts.push(&text[start..]);
    (parts.len() > 1).then_some(parts)
}

/// Forgets the pieces and counts this thread remembers, so that a benchmark can measure work
/// done from nothing.
pub fn clear_caches() {
    PIECES.with(|c| c.borrow_mut().iter_mut().for_each(|m| m.clear()));
    COUNTS.with(|c| c.borrow_mut().iter_mut().for_each(|m| m.clear()));
    LONG_COUNTS.with(|c| c.borrow_mut().iter_mut().for_each(|m| m.clear()));
    CHUNK_IDS.with(|c| {
        c.borrow_mut()
            .iter_mut()
            .for_each(|(m, bytes)| (m.clear(), *bytes = 0).0)
    });
}

/// Texts up to this long have their counts remembered whole: prompt assembly counts every
/// line of the prompt on every keystroke, and almost all of them are the same lines as before.
const REMEMBERED_TEXT_BYTES: usize = 256;

thread_local! {
    static COUNTS: std::cell::RefCell<[rustc_hash::FxHashMap<String, u32>; 2]> = Default::default();
    static LONG_COUNTS: std::cell::RefCell<[rustc_hash::FxHashMap<(u64, usize), u32>; 2]> = Default::default();
}

/// Long chunks remembered at most per vocabulary.
const LONG_CACHE_LIMIT: usize = 4096;

/// Counts the tokens of `text`, through the shortcuts above. A
/// long text is counted in [`chunks`] that the split pattern never joins, so that its lines are
/// remembered one by one and a text that changed in one line costs that line.
fn count(bpe: Bpe, text: &str) -> usize {
    if let Some(parts) = parallel_parts(text) {
        // A text this long is not a prompt: its lines are not remembered, only its pieces.
        return std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|part| {
                    scope.spawn(move || {
                        bpe.split(part)
                            .map(|piece| with_piece_ids(bpe, piece, <[u32]>::len))
                            .sum::<usize>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("counting does not panic"))
                .sum()
        });
    }
    if text.len() > REMEMBERED_TEXT_BYTES {
        return chunks(text).map(|chunk| count_chunk(bpe, chunk)).sum();
    }
    count_chunk(bpe, text)
}

/// Where the split patterns of both vocabularies always cut: right after a line break, when
/// the next line holds something other than white space and does not start with `/` or `\r`.
/// No piece spans such a point: letters, digits and contractions stop at a line break; a run
/// of punctuation takes the line breaks after it, and in o200k the slashes after those, but
/// nothing else; white space taken with a line break ends at the last line break of the run,
/// and the run stops where the next line has text.
fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let mut at = start;
        loop {
            // `str::find` with one byte searches with the standard library's vectorized memchr.
            let Some(i) = text[at..].find('\n') else {
                let chunk = &text[start..];
                start = text.len();
                return Some(chunk);
            };
            let next = at + i + 1;
            if next >= bytes.len() {
                let chunk = &text[start..];
                start = text.len();
                return Some(chunk);
            }
            let cuts = !matches!(bytes[next], b'/' | b'\r') && line_has_text(text, next);
            if cuts {
                let chunk = &text[start..next];
                start = next;
                return Some(chunk);
            }
            at = next;
        }
    })
}

/// Whether the line starting at byte `start` (a character boundary) holds anything but white
/// space before its line break. Looks no further than the first such character: lines are
/// mostly indentation, then code.
fn line_has_text(text: &str, start: usize) -> bool {
    let bytes = text.as_bytes();
    let mut j = start;
    while j < bytes.len() {
        match bytes[j] {
            b'\n' => return false,
            b'\t' | 0x0b | 0x0c | b'\r' | b' ' => j += 1,
            b if b < 0x80 => return true,
            _ => {
                let c = text[j..].chars().next().expect("a character starts here");
                if !c.is_whitespace() {
                    return true;
                }
                j += c.len_utf8();
            }
        }
    }
    false
}

/// [`count`] for a text counted as one piece of work (remembered when short).
fn count_chunk(bpe: Bpe, text: &str) -> usize {
    let compute = || {
        bpe.split(text)
            .map(|piece| with_piece_ids(bpe, piece, <[u32]>::len))
            .sum()
    };
    let v = bpe.index();
    if text.len() > REMEMBERED_TEXT_BYTES {
        // A long chunk (a block of comment lines, say, which the split patterns may join) is
        // remembered by a strong hash of its text rather than by the text itself.
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        let key = (hasher.finish(), text.len());
        if let Some(n) = LONG_COUNTS.with(|c| c.borrow()[v].get(&key).copied()) {
            return n as usize;
        }
        let n: usize = compute();
        LONG_COUNTS.with(|c| remember(&mut c.borrow_mut()[v], LONG_CACHE_LIMIT, key, n as u32));
        return n;
    }
    if let Some(n) = COUNTS.with(|c| c.borrow()[v].get(text).copied()) {
        return n as usize;
    }
    let n: usize = compute();
    COUNTS.with(|c| {
        remember(
            &mut c.borrow_mut()[v],
            PIECE_CACHE_LIMIT,
            text.to_owned(),
            n as u32,
        )
    });
    n
}

/// Puts `key` in a memory that forgets everything once it holds `limit` entries: simpler and
/// cheaper than least-recently-used order, and a prompt's text refills it at once.
fn remember<K: std::hash::Hash + Eq, V>(
    memory: &mut rustc_hash::FxHashMap<K, V>,
    limit: usize,
    key: K,
    value: V,
) {
    if memory.len() >= limit {
        memory.clear();
    }
    memory.insert(key, value);
}

/// Copilot's characters per token where it has no measured figure.
const DEFAULT_CHARS_PER_TOKEN: f64 = 4.0;

fn approximate_count(text: &str, chars_per_token: f64) -> usize {
    (utf16::utf16_len(text) as f64 / chars_per_token).ceil() as usize
}

fn approximate_chars(n: usize, chars_per_token: f64) -> usize {
    (n as f64 * chars_per_token).floor() as usize
}

/// Characters per token that Copilot measured for each vocabulary on code of the most common
/// languages; it uses them to estimate counts when it cannot tokenize exactly.
fn effective_token_length(encoding: Encoding, language_id: &str) -> Option<f64> {
    let table: &[(&str, f64)] = match encoding {
        Encoding::Cl100kBase => &[
            ("python", 3.99),
            ("typescript", 4.54),
            ("typescriptreact", 4.58),
            ("javascript", 4.76),
            ("csharp", 5.13),
            ("java", 4.86),
            ("cpp", 3.85),
            ("php", 4.1),
            ("html", 4.57),
            ("vue", 4.22),
            ("go", 3.93),
            ("dart", 5.66),
            ("javascriptreact", 4.81),
            ("css", 3.37),
        ],
        Encoding::O200kBase => &[
            ("python", 4.05),
            ("typescript", 4.12),
            ("typescriptreact", 5.01),
            ("javascript", 4.47),
            ("csharp", 5.47),
            ("java", 4.86),
            ("cpp", 3.8),
            ("php", 4.35),
            ("html", 4.86),
            ("vue", 4.3),
            ("go", 4.21),
            ("dart", 5.7),
            ("javascriptreact", 4.83),
            ("css", 3.33),
        ],
    };
    table
        .iter()
        .find(|(lang, _)| *lang == language_id)
        .map(|&(_, etl)| etl)
}
