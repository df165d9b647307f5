//! Splits text into the pieces that are merged separately, exactly where the vocabularies'
//! split patterns split it. The patterns are regular expressions in OpenAI's tokenizer; here
//! each is a hand-written scanner that follows the expression's alternatives in order, with
//! the same greedy choices and the same backtracking outcome, because running the regular
//! expression was a quarter of the cost of encoding.
//!
//! `cl100k_base`:
//! `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
//!
//! `o200k_base` (with U = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, W = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
//! and C = `(?i:'s|'t|'re|'ve|'m|'ll|'d)`):
//! `[^\r\n\p{L}\p{N}]?U*W+C?|[^\r\n\p{L}\p{N}]?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

include!(concat!(env!("OUT_DIR"), "/folds.rs"));

/// Class bits of a character, as build.rs computes them from the regular expressions' own
/// Unicode tables.
const LETTER: u8 = 1;
const NUMBER: u8 = 2;
const UPPERISH: u8 = 4;
const LOWERISH: u8 = 8;
const SPACE: u8 = 16;

#[repr(C, align(4))]
struct Aligned<B: ?Sized>(B);

/// Runs of code points with equal class bits: words `start << 8 | bits`, by start.
static CLASSES: &Aligned<[u8]> =
    &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/classes.bin")));

/// The classes of ASCII, which is most of source code, without a search.
const ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = match c as u8 {
            b'\t'..=b'\r' | b' ' => SPACE,
            b'0'..=b'9' => NUMBER,
            b'A'..=b'Z' => LETTER | UPPERISH,
            b'a'..=b'z' => LETTER | LOWERISH,
            _ => 0,
        };
        c += 1;
    }
    t
};

fn class_runs() -> &'static [u32] {
    // SAFETY: any four bytes are a valid u32, and `align_to` only yields the aligned middle.
    let (head, words, _) = unsafe { CLASSES.0.align_to::<u32>() };
    assert!(head.is_empty(), "class table is word-aligned");
    words
}

#[inline]
fn class(c: u32) -> u8 {
    if c < 128 {
        return ASCII[c as usize];
    }
    let runs = class_runs();
    // The last run starting at or before `c`; the first run starts at U+0000.
    let i = runs.partition_point(|&w| w >> 8 <= c);
    (runs[i - 1] & 0xff) as u8
}

/// The code point at byte `i` of valid UTF-8 and its length in bytes.
#[inline]
fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let x = b[i];
    if x < 0x80 {
        (u32::from(x), 1)
    } else if x < 0xE0 {
        ((u32::from(x & 0x1F) << 6) | u32::from(b[i + 1] & 0x3F), 2)
    } else if x < 0xF0 {
        (
            (u32::from(x & 0x0F) << 12)
                | (u32::from(b[i + 1] & 0x3F) << 6)
                | u32::from(b[i + 2] & 0x3F),
            3,
        )
    } else {
        (
            (u32::from(x & 0x07) << 18)
                | (u32::from(b[i + 1] & 0x3F) << 12)
                | (u32::from(b[i + 2] & 0x3F) << 6)
                | u32::from(b[i + 3] & 0x3F),
            4,
        )
    }
}

/// Which split pattern to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    Cl100k,
    O200k,
}

/// The pieces of `text`, in order; together they are the whole text.
pub(crate) fn split(pattern: Pattern, text: &str) -> impl Iterator<Item = &str> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let b = text.as_bytes();
        let end = match pattern {
            Pattern::Cl100k => cl100k_piece(b, pos),
            Pattern::O200k => o200k_piece(b, pos),
        };
        debug_assert!(end > pos && text.is_char_boundary(end));
        let piece = &text[pos..end];
        pos = end;
        Some(piece)
    })
}

/// The end of the run of characters from `i` whose class has any of `bits`.
#[inline]
fn run(b: &[u8], mut i: usize, bits: u8) -> usize {
    while i < b.len() {
        let (c, n) = decode(b, i);
        if class(c) & bits == 0 {
            break;
        }
        i += n;
    }
    i
}

/// The end of the run from `i` of characters that have none of `bits`.
#[inline]
fn run_not(b: &[u8], mut i: usize, bits: u8) -> usize {
    while i < b.len() {
        let (c, n) = decode(b, i);
        if class(c) & bits != 0 {
            break;
        }
        i += n;
    }
    i
}

/// The length of a contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`, any case) at `i`.
fn contraction(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\'') || i + 1 >= b.len() {
        return 0;
    }
    let is = |at: usize, letter: u8| -> Option<usize> {
        if at >= b.len() {
            return None;
        }
        let (c, n) = decode(b, at);
        let folds = FOLDS.iter().find(|(l, _)| *l == letter)?.1;
        folds.iter().any(|&f| f as u32 == c).then_some(n)
    };
    let at = i + 1;
    for letter in [b's', b't'] {
        if let Some(n) = is(at, letter) {
            return 1 + n;
        }
    }
    for (first, second) in [(b'r', b'e'), (b'v', b'e')] {
        if let Some(n) = is(at, first)
            && let Some(m) = is(at + n, second)
        {
            return 1 + n + m;
        }
    }
    if let Some(n) = is(at, b'm') {
        return 1 + n;
    }
    if let Some(n) = is(at, b'l')
        && let Some(m) = is(at + n, b'l')
    {
        return 1 + n + m;
    }
    if let Some(n) = is(at, b'd') {
        return 1 + n;
    }
    0
}

/// Whether `c` may be the one character before a word: `[^\r\n\p{L}\p{N}]`.
#[inline]
fn prefix_char(c: u32, class: u8) -> bool {
    c != u32::from(b'\r') && c != u32::from(b'\n') && class & (LETTER | NUMBER) == 0
}

/// The end of the piece of `cl100k_base` that starts at `pos`.
fn cl100k_piece(b: &[u8], pos: usize) -> usize {
    let (c0, n0) = decode(b, pos);
    let k0 = class(c0);
    let len = contraction(b, pos);
    if len > 0 {
        return pos + len;
    }
    if k0 & LETTER != 0 {
        return run(b, pos, LETTER);
    }
    if prefix_char(c0, k0) && pos + n0 < b.len() {
        let (c1, _) = decode(b, pos + n0);
        if class(c1) & LETTER != 0 {
            return run(b, pos + n0, LETTER);
        }
    }
    symbols_numbers_spaces(b, pos, c0, n0, k0, false)
}

/// The end of the piece of `o200k_base` that starts at `pos`.
fn o200k_piece(b: &[u8], pos: usize) -> usize {
    let (c0, n0) = decode(b, pos);
    let k0 = class(c0);
    let prefix = prefix_char(c0, k0);
    if prefix && let Some(end) = upper_then_lower(b, pos + n0) {
        return end;
    }
    if let Some(end) = upper_then_lower(b, pos) {
        return end;
    }
    if prefix && let Some(end) = upper_then_maybe_lower(b, pos + n0) {
        return end;
    }
    if let Some(end) = upper_then_maybe_lower(b, pos) {
        return end;
    }
    symbols_numbers_spaces(b, pos, c0, n0, k0, true)
}

/// `U*W+C?` from `i`: the longest run of U, then a run of W; when no W follows the run, the
/// regular expression backs off to the last W inside the run (U and W share Lm, Lo and marks).
fn upper_then_lower(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    let mut last_lower_end = None;
    while j < b.len() {
        let (c, n) = decode(b, j);
        let k = class(c);
        if k & UPPERISH == 0 {
            break;
        }
        if k & LOWERISH != 0 {
            last_lower_end = Some(j + n);
        }
        j += n;
    }
    let lower_end = run(b, j, LOWERISH);
    let end = if lower_end > j {
        lower_end
    } else {
        last_lower_end?
    };
    Some(end + contraction(b, end))
}

/// `U+W*C?` from `i`.
fn upper_then_maybe_lower(b: &[u8], i: usize) -> Option<usize> {
    let j = run(b, i, UPPERISH);
    if j == i {
        return None;
    }
    let end = run(b, j, LOWERISH);
    Some(end + contraction(b, end))
}

/// The alternatives both patterns share after their word alternatives: `\p{N}{1,3}`,
/// ` ?[^\s\p{L}\p{N}]+` followed by line breaks (and slashes in o200k), `\s*[\r\n]+`,
/// `\s+(?!\S)` and `\s+`.
fn symbols_numbers_spaces(b: &[u8], pos: usize, c0: u32, n0: usize, k0: u8, o200k: bool) -> usize {
    if k0 & NUMBER != 0 {
        let mut end = pos + n0;
        for _ in 0..2 {
            if end >= b.len() {
                break;
            }
            let (c, n) = decode(b, end);
            if class(c) & NUMBER == 0 {
                break;
            }
            end += n;
        }
        return end;
    }
    let symbols_from = if c0 == u32::from(b' ') { pos + 1 } else { pos };
    if symbols_from < b.len() {
        let (c, _) = decode(b, symbols_from);
        if class(c) & (SPACE | LETTER | NUMBER) == 0 {
            let mut end = run_not(b, symbols_from, SPACE | LETTER | NUMBER);
            while end < b.len() && (b[end] == b'\r' || b[end] == b'\n' || (o200k && b[end] == b'/'))
            {
                end += 1;
            }
            return end;
        }
    }
    // From here the piece is white space (every character is a letter, a number, a symbol or
    // white space, and the alternatives above took the first three).
    debug_assert!(k0 & SPACE != 0);
    let mut last_break_end = None;
    let mut last_start = pos;
    let mut j = pos;
    while j < b.len() {
        let (c, n) = decode(b, j);
        if class(c) & SPACE == 0 {
            break;
        }
        if c == u32::from(b'\r') || c == u32::from(b'\n') {
            last_break_end = Some(j + n);
        }
        last_start = j;
        j += n;
    }
    if let Some(end) = last_break_end {
        return end;
    }
    if j == b.len() || last_start == pos {
        return j;
    }
    last_start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_table_agrees_with_the_unicode_tables() {
        let runs = class_runs();
        for c in 0u32..128 {
            let i = runs.partition_point(|&w| w >> 8 <= c);
            assert_eq!(ASCII[c as usize], (runs[i - 1] & 0xff) as u8, "U+{c:04X}");
        }
    }

    #[test]
    fn the_long_s_is_an_s_in_contractions() {
        assert_eq!(contraction("'\u{17f}".as_bytes(), 0), 3);
        assert_eq!(contraction(b"'LL", 0), 3);
        assert_eq!(contraction(b"'l", 0), 0);
    }
}
