//! Positions as LSP clients give them (line, character in UTF-16, UTF-8 or UTF-32 units, as
//! negotiated) and byte offsets into a document: the one place where they are converted.
//!
//! Lines end at `\n`, `\r\n` or `\r`, as the protocol says. A character past the end of its
//! line means the end of the line (the protocol's rule); a line past the end of the document is
//! an error.

/// The unit a position's `character` counts, from `positionEncoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}

impl Encoding {
    /// The encoding for a name the client offers (`utf-8`, `utf-16`, `utf-32`).
    pub fn parse(name: &str) -> Option<Encoding> {
        match name {
            "utf-8" => Some(Encoding::Utf8),
            "utf-16" => Some(Encoding::Utf16),
            "utf-32" => Some(Encoding::Utf32),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// A position outside the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} is past the end of the document ({lines} lines)")]
pub struct OutOfRange {
    pub line: usize,
    pub lines: usize,
}

/// The byte range of line `line` (without its line break).
fn line_range(text: &str, line: usize) -> Result<(usize, usize), OutOfRange> {
    let bytes = text.as_bytes();
    let mut start = 0;
    for seen in 0..line {
        match bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            Some(i) => {
                let at = start + i;
                start = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                    at + 2
                } else {
                    at + 1
                };
            }
            None => {
                return Err(OutOfRange {
                    line,
                    lines: seen + 1,
                });
            }
        }
    }
    let end = bytes[start..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(text.len(), |i| start + i);
    Ok((start, end))
}

/// The byte offset of (`line`, `character`). A character inside a multi-unit character
/// rounds down to its start; past the end of the line, the end of the line.
pub fn to_offset(
    text: &str,
    line: usize,
    character: usize,
    encoding: Encoding,
) -> Result<usize, OutOfRange> {
    let (start, end) = line_range(text, line)?;
    let mut units = 0;
    for (i, c) in text[start..end].char_indices() {
        let next = units + encoding.units(c);
        if next > character {
            return Ok(start + i);
        }
        units = next;
    }
    Ok(end)
}

/// The (line, character) of a byte offset (rounded down to a character boundary, clamped to
/// the text).
pub fn to_position(text: &str, offset: usize, encoding: Encoding) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let bytes = text.as_bytes();
    let mut line = 0;
    let mut line_start = 0;
    let mut i = 0;
    while i < offset {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    // An offset between `\r` and `\n` belongs to the line the pair ends.
    let character = text[line_start..offset]
        .trim_end_matches('\r')
        .chars()
        .map(|c| encoding.units(c))
        .sum();
    (line, character)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn encodings_count_differently() {
        let text = "a😀b\né";
        assert_eq!(to_offset(text, 0, 3, Encoding::Utf16).unwrap(), 5);
        assert_eq!(to_offset(text, 0, 2, Encoding::Utf32).unwrap(), 5);
        assert_eq!(to_offset(text, 0, 5, Encoding::Utf8).unwrap(), 5);
        // Inside the emoji: its start.
        assert_eq!(to_offset(text, 0, 2, Encoding::Utf16).unwrap(), 1);
        // Past the end of the line: the end of the line.
        assert_eq!(to_offset(text, 0, 99, Encoding::Utf16).unwrap(), 6);
        assert_eq!(to_offset(text, 1, 1, Encoding::Utf16).unwrap(), 9);
        assert!(to_offset(text, 2, 0, Encoding::Utf16).is_err());
        assert_eq!(to_position(text, 9, Encoding::Utf16), (1, 1));
        assert_eq!(to_position("a\r\nb\rc", 5, Encoding::Utf8), (2, 0));
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a",
                "é",
                "😀",
                "\n",
                "\r\n",
                "\r",
                " ",
                "中",
                "\u{10ffff}",
            ]),
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        /// Every character boundary (not inside a `\r\n`) survives a round trip through a
        /// position in every encoding.
        #[test]
        fn round_trips(text in text(), pick in 0usize..200) {
            let boundaries: Vec<usize> = (0..=text.len())
                .filter(|&b| text.is_char_boundary(b))
                .filter(|&b| !(b > 0 && text.as_bytes()[b - 1] == b'\r' && text.as_bytes().get(b) == Some(&b'\n')))
                .collect();
            let offset = boundaries[pick % boundaries.len()];
            for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                let (line, character) = to_position(&text, offset, encoding);
                prop_assert_eq!(to_offset(&text, line, character, encoding).unwrap(), offset);
            }
        }

        /// Any position maps to a character boundary or an error, never a panic.
        #[test]
        fn any_position_is_safe(text in text(), line in 0usize..50, character in 0usize..200) {
            for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                if let Ok(offset) = to_offset(&text, line, character, encoding) {
                    prop_assert!(text.is_char_boundary(offset));
                }
            }
        }
    }
}
