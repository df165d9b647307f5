//! What each line of a source file is, read lexically: code, or a comment, a string that
//! spans lines (a docstring, a template), an import; and where the identifiers of a code line
//! are, outside its string literals. Cases are picked only where this says code.

use syntax::Lang;

/// One line of a file as cases see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// Byte offset of the line's start in the file.
    pub(crate) start: usize,
    /// Whether the line is code a case may be taken from: not blank, not a comment, not
    /// inside a comment or string over several lines, not an import.
    pub(crate) code: bool,
    /// Identifiers outside string literals and comments: (byte offset in the line, name).
    pub(crate) identifiers: Vec<(usize, String)>,
}

/// The lines of `text` in `lang`.
pub(crate) fn scan(lang: Lang, text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut state = State::default();
    let mut start = 0;
    for raw in text.split('\n') {
        let starts_inside = state.open.is_some();
        let (identifiers, comment) = tokens(lang, raw, &mut state);
        let trimmed = raw.trim();
        let import = import_line(lang, trimmed, &mut state);
        let code = !starts_inside
            && state.open.is_none()
            && !trimmed.is_empty()
            && !comment_line(lang, trimmed)
            && !comment
            && !import;
        out.push(Line {
            start,
            code,
            identifiers,
        });
        start += raw.len() + 1;
    }
    out
}

/// What is open at a line's end: a block comment or a string over several lines.
#[derive(Debug, Default)]
struct State {
    open: Option<&'static str>,
    /// Inside an import list over several lines (`from m import (`, `use a::{`, Go's
    /// `import (`), closed by this.
    import_list: Option<char>,
}

/// Whether a trimmed line is a whole-line comment.
fn comment_line(lang: Lang, trimmed: &str) -> bool {
    match lang {
        Lang::Python => trimmed.starts_with('#'),
        _ => trimmed.starts_with("//") || trimmed.starts_with("/*") || trimmed.starts_with('*'),
    }
}

/// Whether a trimmed line imports (or is inside an import list over several lines).
fn import_line(lang: Lang, trimmed: &str, state: &mut State) -> bool {
    if let Some(close) = state.import_list {
        if trimmed.contains(close) {
            state.import_list = None;
        }
        return true;
    }
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| trimmed.starts_with(p));
    let import = match lang {
        Lang::Python => starts(&["import ", "from "]) && !trimmed.starts_with("from_"),
        Lang::Rust => starts(&[
            "use ",
            "pub use ",
            "pub(crate) use ",
            "extern crate ",
            "mod ",
            "pub mod ",
        ]),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            starts(&["import ", "import{", "export * from", "export {"])
                || trimmed.contains("require(")
                || (trimmed.starts_with("export ") && trimmed.contains(" from "))
        }
        Lang::Go => starts(&["import ", "import(", "package "]),
        Lang::Java => starts(&["import ", "package "]),
    };
    if import {
        for (open, close) in [('(', ')'), ('{', '}')] {
            if trimmed.ends_with(open) || (trimmed.contains(open) && !trimmed.contains(close)) {
                state.import_list = Some(close);
            }
        }
    }
    import
}

/// The identifiers of one line outside strings and comments, and whether the line holds a
/// comment or part of a string over several lines (such lines are no cases: the expected text
/// would be prose). A string within the line is skipped: a cursor never lands inside it.
fn tokens(lang: Lang, line: &str, state: &mut State) -> (Vec<(usize, String)>, bool) {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut prose = false;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(close) = state.open {
            prose = true;
            match line[i..].find(close) {
                Some(at) => {
                    i += at + close.len();
                    state.open = None;
                }
                None => return (out, prose),
            }
            continue;
        }
        let rest = &line[i..];
        let c = bytes[i];
        if (lang == Lang::Python && c == b'#') || rest.starts_with("//") {
            return (out, true);
        }
        if lang != Lang::Python && rest.starts_with("/*") {
            state.open = Some("*/");
            i += 2;
            continue;
        }
        if lang == Lang::Python && (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
            state.open = Some(if c == b'"' { "\"\"\"" } else { "'''" });
            i += 3;
            continue;
        }
        if c == b'`'
            && matches!(
                lang,
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Go
            )
        {
            state.open = Some("`");
            i += 1;
            continue;
        }
        if c == b'"' || (c == b'\'' && lang != Lang::Rust) {
            i = string_end(bytes, i);
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let end = i + bytes[i..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            out.push((i, line[i..end].to_owned()));
            i = end;
            continue;
        }
        i += 1;
    }
    (out, prose)
}

/// The byte after the string literal opened at `start` (the line's end if it does not close).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(lang: Lang, text: &str) -> Vec<bool> {
        scan(lang, text).into_iter().map(|l| l.code).collect()
    }

    #[test]
    fn comments_docstrings_strings_and_imports_are_no_code() {
        let py = "import os\nfrom a import (\n    b,\n)\n\"\"\"doc\nstill doc\n\"\"\"\n# note\nx = f(y)\ns = 'text'\n";
        assert_eq!(
            code(Lang::Python, py),
            [
                false, false, false, false, false, false, false, false, true, true, false
            ]
        );
        let rs = "use a::{\n    b,\n};\n/* one\n two */\nlet x = y; // why\nlet z = w.v();\n";
        assert_eq!(
            code(Lang::Rust, rs),
            [false, false, false, false, false, false, true, false]
        );
    }

    #[test]
    fn identifiers_inside_strings_are_not_read() {
        let lines = scan(Lang::TypeScript, "const a = b(\"c d\", e);\n");
        let names: Vec<&str> = lines[0]
            .identifiers
            .iter()
            .map(|(_, n)| n.as_str())
            .collect();
        assert_eq!(names, ["const", "a", "b", "e"]);
        assert_eq!(lines[0].identifiers[3].0, 19);
    }
}
