//! A rewritten window made the smallest edit of the document: what the old and new windows
//! share at their start and end is kept, the rest replaced. Offsets are counted in UTF-16 units,
//! as editors count them.

use crate::prompt::{Suggestion, Window};

/// The edit that turns `window` into `new`, or `None` when they are the same.
pub fn minimal_edit(document: &str, window: &Window, new: &str) -> Option<Suggestion> {
    let old = &window.text;
    if old == new {
        return None;
    }
    let (prefix, suffix) = crate::ends::common_ends(old, new);
    let start = window.start + prefix;
    let end = window.start + old.len() - suffix;
    let units = tokenizer::utf16::utf16_len;
    Some(Suggestion {
        uri: window.uri.clone(),
        start: units(&document[..start]),
        end: units(&document[..end]),
        text: new[prefix..new.len() - suffix].to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(document: &str, start: usize, end: usize) -> Window {
        Window {
            uri: "u".into(),
            start,
            end,
            text: document[start..end].to_owned(),
        }
    }

    #[test]
    fn cases() {
        // (document, window bytes, new window, expected (start, end, text) in UTF-16 units)
        type Case<'a> = (
            &'a str,
            (usize, usize),
            &'a str,
            Option<(usize, usize, &'a str)>,
        );
        let cases: &[Case] = &[
            (
                "a\nPoint(1)\nz\n",
                (2, 11),
                "Point3D(1)\n",
                Some((7, 7, "3D")),
            ),
            ("a\nb\n", (0, 4), "a\nb\n", None),
            ("é😀x\n", (0, 8), "é😀y\n", Some((3, 4, "y"))),
            ("x\n", (0, 2), "", Some((0, 2, ""))),
            ("aa\n", (0, 3), "aaa\n", Some((2, 2, "a"))),
        ];
        for (document, (s, e), new, want) in cases {
            let got = minimal_edit(document, &window(document, *s, *e), new)
                .map(|g| (g.start, g.end, g.text));
            let want = want.map(|(a, b, t)| (a, b, t.to_owned()));
            assert_eq!(got, want, "{document:?} -> {new:?}");
        }
    }
}
