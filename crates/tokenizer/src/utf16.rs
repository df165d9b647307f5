//! JavaScript string arithmetic on Rust strings: lengths, indices and slices in UTF-16 code units.
//!
//! Copilot measures and cuts text with JavaScript's `length` and `slice`, which count UTF-16 code
//! units. To cut at exactly the same places we do the same arithmetic on UTF-8 text. A JavaScript
//! slice can split a surrogate pair; the lone half then reaches the tokenizer, whose UTF-8 encoder
//! turns it into U+FFFD. The slicing helpers here put U+FFFD in the same place, so the bytes that
//! get tokenized are the bytes Copilot tokenizes.

use std::borrow::Cow;

/// The replacement character that a lone surrogate becomes when JavaScript encodes it to UTF-8.
const REPLACEMENT: &str = "\u{FFFD}";

/// The number of UTF-16 code units in `s` (JavaScript's `s.length`).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    let bytes = s.as_bytes();
    let mut words = bytes.chunks_exact(8);
    let mut units = 0;
    for word in &mut words {
        units += units_starting_in(word);
    }
    units
        + words
            .remainder()
            .iter()
            .map(|&b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
            .sum::<usize>()
}

/// The UTF-16 units of the characters that start in eight bytes of UTF-8: one for every byte
/// that is not a continuation byte (`10xxxxxx`), one more for every lead byte of four
/// (`11110xxx`, a character outside the Basic Multilingual Plane, which takes two units).
#[inline]
fn units_starting_in(word: &[u8]) -> usize {
    let mut w = [0u8; 8];
    w.copy_from_slice(word);
    let w = u64::from_le_bytes(w);
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let continuation = w & !(w << 1) & HIGH;
    let four_byte_lead = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
    8 - continuation.count_ones() as usize + four_byte_lead.count_ones() as usize
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utf16Pos {
    /// On a character boundary, at this byte offset.
    Boundary(usize),
    /// Between the two halves of a surrogate pair: the character starts at this byte offset
    /// and is four bytes long.
    InsidePair(usize),
}

/// Finds the byte position of UTF-16 index `index`, clamped to the end of the string.
pub fn utf16_pos(s: &str, index: usize) -> Utf16Pos {
    let bytes = s.as_bytes();
    // Text is mostly ASCII, where units and bytes coincide; find where that stops.
    let head = index.min(bytes.len());
    let ascii = bytes[..head]
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(head);
    if ascii == head {
        return Utf16Pos::Boundary(head);
    }
    let (mut units, mut i) = (ascii, ascii);
    // Skip eight bytes at a time while the characters starting in them end before `index`.
    // The next eight may then begin with continuation bytes of a character already counted,
    // which the byte loop below passes over.
    while i + 8 <= bytes.len() {
        let n = units_starting_in(&bytes[i..i + 8]);
        if units + n > index {
            break;
        }
        units += n;
        i += 8;
    }
    while i < bytes.len() {
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            i += 1;
            continue;
        }
        if units == index {
            return Utf16Pos::Boundary(i);
        }
        let width = if b >= 0xF0 { 2 } else { 1 };
        if units + width > index {
            return Utf16Pos::InsidePair(i);
        }
        units += width;
        i += 1;
    }
    Utf16Pos::Boundary(bytes.len())
}

/// JavaScript's `s.slice(0, end)` for `end` in UTF-16 units, with a split pair's lone half
/// replaced by U+FFFD as the UTF-8 encoder would.
pub fn slice_to(s: &str, end: usize) -> Cow<'_, str> {
    match utf16_pos(s, end) {
        Utf16Pos::Boundary(b) => Cow::Borrowed(&s[..b]),
        Utf16Pos::InsidePair(b) => Cow::Owned(format!("{}{REPLACEMENT}", &s[..b])),
    }
}

/// JavaScript's `s.slice(start)` for `start` in UTF-16 units, with a split pair's lone half
/// replaced by U+FFFD as the UTF-8 encoder would.
pub fn slice_from(s: &str, start: usize) -> Cow<'_, str> {
    match utf16_pos(s, start) {
        Utf16Pos::Boundary(b) => Cow::Borrowed(&s[b..]),
        Utf16Pos::InsidePair(b) => Cow::Owned(format!("{REPLACEMENT}{}", &s[b + 4..])),
    }
}

/// The last `units` UTF-16 units of `s` (JavaScript's `s.slice(-units)` for `units > 0`).
pub fn last_units(s: &str, units: usize) -> Cow<'_, str> {
    let len = utf16_len(s);
    slice_from(s, len.saturating_sub(units))
}

/// The UTF-16 code unit at `index`, as JavaScript's `s[index]` (`None` when out of range).
pub fn unit_at(s: &str, index: usize) -> Option<u16> {
    let (byte, second) = match utf16_pos(s, index) {
        Utf16Pos::Boundary(b) => (b, false),
        Utf16Pos::InsidePair(b) => (b, true),
    };
    let ch = s[byte..].chars().next()?;
    let mut buf = [0u16; 2];
    let encoded = ch.encode_utf16(&mut buf);
    Some(encoded[usize::from(second)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_code_units() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("€"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀b"), 4);
    }

    #[test]
    fn slicing_inside_a_pair_leaves_a_replacement_character() {
        assert_eq!(slice_to("a😀b", 2), "a\u{FFFD}");
        assert_eq!(slice_from("a😀b", 2), "\u{FFFD}b");
        assert_eq!(slice_to("a😀b", 3), "a😀");
        assert_eq!(slice_from("a😀b", 3), "b");
        assert_eq!(slice_from("ab", 10), "");
        assert_eq!(last_units("a😀b", 2), "\u{FFFD}b");
    }

    #[test]
    fn unit_at_reads_code_units() {
        assert_eq!(unit_at("a\nb", 1), Some(u16::from(b'\n')));
        assert_eq!(unit_at("😀", 0), Some(0xD83D));
        assert_eq!(unit_at("😀", 1), Some(0xDE00));
        assert_eq!(unit_at("😀", 2), None);
    }
}
