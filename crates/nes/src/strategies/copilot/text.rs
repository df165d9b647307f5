//! Text as Copilot's library sees it: strings of UTF-16 code units, lines split at `\r\n`, `\r`
//! or `\n`, positions counted from line starts after each `\n`, and "tokens" estimated as a
//! quarter of a string's length. Working in code units makes every offset and every budget
//! match the library's JavaScript exactly, surrogate pairs included.

/// A text in UTF-16 code units.
pub(crate) type Units = Vec<u16>;

pub(crate) fn units(text: &str) -> Units {
    text.encode_utf16().collect()
}

/// The text back as a Rust string. Slices are only ever cut at character boundaries, so
/// nothing is lost; a lone surrogate would become U+FFFD rather than a panic.
pub(crate) fn string(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

const CR: u16 = b'\r' as u16;
const LF: u16 = b'\n' as u16;

/// The lines of a text, split at `\r\n`, `\r` and `\n`; a text ending in a line break has a
/// last, empty line.
pub(crate) fn split_lines(text: &[u16]) -> Vec<&[u16]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            CR => {
                lines.push(&text[start..i]);
                i += if text.get(i + 1) == Some(&LF) { 2 } else { 1 };
                start = i;
            }
            LF => {
                lines.push(&text[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    lines.push(&text[start..]);
    lines
}

/// The library's token estimate: a quarter of the length, rounded down.
pub(crate) fn tokens(len: usize) -> usize {
    len / 4
}

/// What a run of lines costs: each line's estimate plus one for its line break.
pub(crate) fn lines_cost<L: AsRef<[u16]>>(lines: &[L]) -> usize {
    lines.iter().map(|l| tokens(l.as_ref().len()) + 1).sum()
}

/// Line positions as the library's offset transformer counts them: a line starts after each
/// `\n`, and ends before its `\n` or `\r\n`.
#[derive(Debug, Clone)]
pub(crate) struct Positions {
    starts: Vec<usize>,
    ends: Vec<usize>,
    len: usize,
}

impl Positions {
    pub(crate) fn new(text: &[u16]) -> Positions {
        let mut starts = vec![0];
        let mut ends = Vec::new();
        for (i, &u) in text.iter().enumerate() {
            if u == LF {
                starts.push(i + 1);
                ends.push(if i > 0 && text[i - 1] == CR { i - 1 } else { i });
            }
        }
        ends.push(text.len());
        Positions {
            starts,
            ends,
            len: text.len(),
        }
    }

    pub(crate) fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line and column of an offset.
    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        (line, offset - self.starts[line])
    }

    /// The offset of a 0-based line and column, clamped to the line's end as the library
    /// clamps positions.
    pub(crate) fn offset(&self, line: usize, column: usize) -> usize {
        if line >= self.starts.len() {
            return self.len;
        }
        (self.starts[line] + column).min(self.ends[line])
    }

    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.starts[line.min(self.starts.len() - 1)]
    }

    pub(crate) fn line_end(&self, line: usize) -> usize {
        self.ends[line.min(self.ends.len() - 1)]
    }

    pub(crate) fn line_len(&self, line: usize) -> usize {
        self.line_end(line) - self.line_start(line)
    }
}

/// Whether a line is blank, as JavaScript's `trim()` sees it.
pub(crate) fn is_blank(line: &[u16]) -> bool {
    trim(line).is_empty()
}

/// JavaScript's `trim()`: white space and line terminators off both ends.
pub(crate) fn trim(line: &[u16]) -> &[u16] {
    let start = line.iter().position(|&u| !is_js_space(u));
    let Some(start) = start else {
        return &line[..0];
    };
    let end = line.iter().rposition(|&u| !is_js_space(u)).unwrap_or(start);
    &line[start..=end]
}

/// The code units JavaScript's `trim()` removes.
fn is_js_space(u: u16) -> bool {
    matches!(
        u,
        0x09..=0x0D
            | 0x20
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// Whether `needle` occurs in `hay`.
pub(crate) fn contains(hay: &[u16], needle: &[u16]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// `hay` with every `needle` removed.
pub(crate) fn remove_all(hay: &[u16], needle: &[u16]) -> Units {
    if needle.is_empty() {
        return hay.to_vec();
    }
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(needle) {
            i += needle.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

/// Lines joined with `\n`.
pub(crate) fn join_lines<L: AsRef<[u16]>>(lines: &[L]) -> Units {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push(LF);
        }
        out.extend_from_slice(l.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        let u = units(text);
        split_lines(&u).into_iter().map(string).collect()
    }

    #[test]
    fn lines_split_at_every_kind_of_break() {
        assert_eq!(lines("a\r\nb\rc\nd"), ["a", "b", "c", "d"]);
        assert_eq!(lines("a\n"), ["a", ""]);
        assert_eq!(lines(""), [""]);
    }

    #[test]
    fn positions_follow_line_feeds() {
        let p = Positions::new(&units("ab\r\ncd\nef"));
        assert_eq!(p.line_count(), 3);
        assert_eq!(p.position(0), (0, 0));
        assert_eq!(p.position(4), (1, 0));
        assert_eq!(p.position(9), (2, 2));
        assert_eq!(p.line_len(0), 2);
        assert_eq!(p.offset(1, 9), 6);
    }

    #[test]
    fn trim_is_javascripts() {
        assert_eq!(string(trim(&units("\u{3000} x \t"))), "x");
        assert!(is_blank(&units(" \u{FEFF}")));
    }
}
