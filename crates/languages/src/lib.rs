//! Languages as Copilot's completions engine sees them: VS Code language ids, their comment
//! syntax, the markers that open a prompt, and the language inferred from a file's name.
//!
//! Every string produced here is the string Copilot produces, byte for byte; the differential
//! tests hold us to that. Functions take a language id as VS Code spells it (`typescriptreact`,
//! `shellscript`, ...); unknown ids are not errors, they get Copilot's defaults (`//` comments).
//!
//! ```
//! assert_eq!(languages::comment("hello", "python"), "# hello");
//! assert_eq!(languages::language_marker("x = 1\n", "python"), "#!/usr/bin/env python3");
//! assert_eq!(languages::normalize_language_id("TypeScriptReact"), "typescript");
//! assert_eq!(languages::detect_language_from_path("src/lib.h", "plaintext"), "cpp");
//! ```

mod tables;

use std::borrow::Cow;

use tables::{COMMENT_SYNTAX, FILE_KINDS};

/// Every language id that has a comment syntax of its own, in Copilot's table order.
pub fn known_language_ids() -> impl Iterator<Item = &'static str> {
    COMMENT_SYNTAX.iter().map(|c| c.id)
}

/// Every Markdown code-fence name that maps to a language id.
pub fn markdown_language_ids() -> impl Iterator<Item = &'static str> {
    COMMENT_SYNTAX.iter().flat_map(|c| {
        c.markdown_ids
            .unwrap_or(std::slice::from_ref(&c.id))
            .iter()
            .copied()
    })
}

/// Every file extension (with its dot) and exact file name that identifies a language.
pub fn known_file_extensions_and_names() -> impl Iterator<Item = &'static str> {
    FILE_KINDS
        .iter()
        .flat_map(|k| k.extensions.iter().chain(k.filenames.iter()).copied())
}

/// The line comment of a language: its opening and closing text (`("//", "")` when the
/// language is unknown, as in Copilot).
pub fn line_comment(language_id: &str) -> (&'static str, &'static str) {
    COMMENT_SYNTAX
        .iter()
        .find(|c| c.id == language_id)
        .map_or(DEFAULT_COMMENT, |c| c.comment)
}

const DEFAULT_COMMENT: (&str, &str) = ("//", "");

/// One line of text as a comment in the language: `# text` in Python, `<!-- text -->` in HTML.
/// For text of several lines use [`comment_block_as_singles`].
pub fn comment(text: &str, language_id: &str) -> String {
    let (start, end) = line_comment(language_id);
    if end.is_empty() {
        format!("{start} {text}")
    } else {
        format!("{start} {text} {end}")
    }
}

/// Text of any number of lines as line comments, one per line. The result ends with a newline
/// exactly when the text does; empty text stays empty.
pub fn comment_block_as_singles(text: &str, language_id: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let (body, trailing_newline) = match text.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (text, false),
    };
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&comment(line, language_id));
    }
    if trailing_newline {
        out.push('\n');
    }
    out
}

/// The first lines that Copilot treats as already saying what language a file is in.
const SHEBANG_LINES: &[(&str, &str)] = &[
    ("html", "<!DOCTYPE html>"),
    ("python", "#!/usr/bin/env python3"),
    ("ruby", "#!/usr/bin/env ruby"),
    ("shellscript", "#!/bin/sh"),
    ("yaml", "# YAML data"),
];

/// Languages that get no language marker: PHP because the file may or may not open with
/// `<?php`, plain text because it has no comments.
const NO_LANGUAGE_MARKER: &[&str] = &["php", "plaintext"];

/// Whether `line` (trimmed) is one of the shebang lines Copilot writes as language markers.
pub fn is_shebang_line(line: &str) -> bool {
    let line = js_trim(line);
    SHEBANG_LINES.iter().any(|(_, s)| *s == line)
}

/// Whether the source already opens with something that names its language: a shebang or a
/// doctype.
pub fn has_language_marker(source: &str) -> bool {
    source.starts_with("#!") || source.starts_with("<!DOCTYPE")
}

/// The one line that tells a model what language a document is in: a shebang line for the
/// languages that have one, otherwise `Language: <id>` (to be commented by the caller). Empty
/// when the source already carries a marker or the language takes none.
pub fn language_marker(source: &str, language_id: &str) -> String {
    if NO_LANGUAGE_MARKER.contains(&language_id) || has_language_marker(source) {
        return String::new();
    }
    match SHEBANG_LINES.iter().find(|(id, _)| *id == language_id) {
        Some((_, line)) => (*line).to_owned(),
        None => format!("Language: {language_id}"),
    }
}

/// The one line that tells a model which file it is looking at: `Path: <relative path>`, empty
/// when the path is not known.
pub fn path_marker(relative_path: Option<&str>) -> String {
    match relative_path {
        Some(path) if !path.is_empty() => format!("Path: {path}"),
        _ => String::new(),
    }
}

/// `text` followed by a newline unless it is empty or already ends with one.
pub fn new_line_ended(text: &str) -> Cow<'_, str> {
    if text.is_empty() || text.ends_with('\n') {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{text}\n"))
    }
}

/// The language id that a Markdown code fence's info string names (`py` -> `python`).
pub fn language_for_markdown_id(markdown_id: &str) -> Option<&'static str> {
    // Copilot builds a map from these lists in table order, so a later language that claims
    // the same name (`jsx`) wins.
    COMMENT_SYNTAX
        .iter()
        .rev()
        .find_map(|c| match c.markdown_ids {
            Some(ids) => ids.contains(&markdown_id).then_some(c.id),
            None => (c.id == markdown_id).then_some(c.id),
        })
}

/// Copilot's normalized form of a language id: lower case, with ids it does not tell apart
/// folded together (`typescriptreact` -> `typescript`, `c` -> `cpp`, ...). Neighbour files
/// are only compared within one normalized language.
pub fn normalize_language_id(language_id: &str) -> Cow<'_, str> {
    let lower: Cow<'_, str> = if language_id
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(language_id.to_lowercase())
    } else {
        Cow::Borrowed(language_id)
    };
    let folded = match lower.as_ref() {
        "javascriptreact" | "jsx" => "javascript",
        "typescriptreact" => "typescript",
        "jade" => "pug",
        "cshtml" => "razor",
        "c" => "cpp",
        _ => return lower,
    };
    Cow::Borrowed(folded)
}

/// The language Copilot infers for a file path, falling back to `client_language_id` (what the
/// editor said) when the name tells nothing. C and C++ are one language here (`cpp`).
pub fn detect_language_from_path<'a>(path: &str, client_language_id: &'a str) -> Cow<'a, str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    detect_from_file_name(name, client_language_id)
}

/// [`detect_language_from_path`] for a document URI, as an editor sends it: `untitled:` and
/// notebook cells keep the editor's language; file names are percent-decoded first.
pub fn detect_language_from_uri<'a>(uri: &str, client_language_id: &'a str) -> Cow<'a, str> {
    if uri.starts_with("untitled:") || uri.starts_with("vscode-notebook-cell:") {
        return Cow::Borrowed(client_language_id);
    }
    detect_from_file_name(&uri_basename(uri), client_language_id)
}

/// The language a file name alone identifies, without Copilot's C/C++ grouping, or `None`.
/// The file patterns of a language (`*.py`, `Dockerfile`), for filters such as Copilot's code
/// review guidelines. Empty for unknown languages.
pub fn file_patterns(language_id: &str) -> Vec<String> {
    tables::FILE_KINDS
        .iter()
        .filter(|k| k.id == language_id)
        .flat_map(|k| {
            k.extensions
                .iter()
                .map(|e| format!("*{e}"))
                .chain(k.filenames.iter().map(|n| (*n).to_owned()))
        })
        .collect()
}

pub fn language_from_file_name(name: &str) -> Option<&'static str> {
    let extension = extname(name).to_lowercase();
    let extension = extension_without_template(name, &extension);
    detect_language_id(name, &extension)
}

fn detect_from_file_name<'a>(name: &str, client_language_id: &'a str) -> Cow<'a, str> {
    match language_from_file_name(name) {
        Some("c") | Some("cpp") => Cow::Borrowed("cpp"),
        Some(id) => Cow::Borrowed(id),
        None => Cow::Borrowed(client_language_id),
    }
}

/// Extensions that a template engine adds on top of another language's extension
/// (`page.html.erb`): the inner extension decides the language when it is a known one.
const TEMPLATE_EXTENSIONS: &[&str] = &[
    ".ejs",
    ".erb",
    ".haml",
    ".hbs",
    ".j2",
    ".jinja",
    ".jinja2",
    ".liquid",
    ".mustache",
    ".njk",
    ".php",
    ".pug",
    ".slim",
    ".webc",
];

fn extension_without_template(name: &str, extension: &str) -> String {
    if TEMPLATE_EXTENSIONS.contains(&extension) {
        let stem = &name[..name.rfind('.').unwrap_or(0)];
        let inner = extname(stem).to_lowercase();
        // `.php` only wraps Blade templates; the other engines wrap anything.
        let allowed = extension != ".php" || inner == ".blade";
        if !inner.is_empty() && allowed && is_known_extension(&inner) {
            return inner;
        }
    }
    extension.to_owned()
}

fn is_known_extension(extension: &str) -> bool {
    FILE_KINDS.iter().any(|k| k.extensions.contains(&extension))
}

fn detect_language_id(name: &str, extension: &str) -> Option<&'static str> {
    if let Some(id) = language_for_file_name_exact(name) {
        return Some(id);
    }
    if let Some(kind) = FILE_KINDS
        .iter()
        .find(|k| k.extensions.contains(&extension))
    {
        return Some(kind.id);
    }
    // `Dockerfile.dev`, `Jenkinsfile.prod`: drop extensions one by one and look for a name.
    let mut stem = name;
    while let Some(dot) = stem.rfind('.') {
        stem = &stem[..dot];
        if let Some(id) = language_for_file_name_exact(stem) {
            return Some(id);
        }
    }
    None
}

fn language_for_file_name_exact(name: &str) -> Option<&'static str> {
    FILE_KINDS
        .iter()
        .find(|k| k.filenames.contains(&name))
        .map(|k| k.id)
}

/// Node's `path.extname` for a bare file name: from the last dot on, except for names whose
/// only dot leads (`.env`) and for `..`.
fn extname(name: &str) -> &str {
    match name.rfind('.') {
        None | Some(0) => "",
        Some(_) if name == ".." => "",
        Some(dot) => &name[dot..],
    }
}

/// The last path segment of a URI, percent-decoded, as Copilot takes it: the query and
/// fragment go, then one trailing slash, then everything up to the last `/` or `:`.
fn uri_basename(uri: &str) -> String {
    let uri = &uri[..uri.find(['#', '?']).unwrap_or(uri.len())];
    let uri = uri.strip_suffix('/').unwrap_or(uri);
    let last = uri.rfind(['/', ':']).map_or(uri, |i| &uri[i + 1..]);
    percent_decode(last)
}

/// Decodes runs of `%XX` escapes as UTF-8, leaving any escape that does not decode as it was
/// (JavaScript's `decodeURIComponent`, retried three characters further on failure).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let run_end = escape_run_end(bytes, i);
        if run_end == i {
            let ch = s[i..].chars().next().expect("i is on a char boundary");
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let mut start = i;
        while start < run_end {
            match decode_escapes(&s[start..run_end]) {
                Some(decoded) => {
                    out.push_str(&decoded);
                    start = run_end;
                }
                None => {
                    out.push_str(&s[start..start + 3]);
                    start += 3;
                }
            }
        }
        i = run_end;
    }
    out
}

/// The end of the run of `%` followed by two ASCII letters or digits that starts at `i`.
fn escape_run_end(bytes: &[u8], mut i: usize) -> usize {
    while i + 2 < bytes.len()
        && bytes[i] == b'%'
        && bytes[i + 1].is_ascii_alphanumeric()
        && bytes[i + 2].is_ascii_alphanumeric()
    {
        i += 3;
    }
    i
}

fn decode_escapes(run: &str) -> Option<String> {
    let decoded: Option<Vec<u8>> = run
        .as_bytes()
        .chunks(3)
        .map(|c| {
            let hex = std::str::from_utf8(&c[1..]).ok()?;
            u8::from_str_radix(hex, 16).ok()
        })
        .collect();
    String::from_utf8(decoded?).ok()
}

/// JavaScript's `String.prototype.trim`: its white space includes U+FEFF and excludes U+0085.
fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// The characters JavaScript's `\s` and `trim` treat as white space.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_follow_each_languages_syntax() {
        assert_eq!(comment("x", "html"), "<!-- x -->");
        assert_eq!(comment("x", "no-such-language"), "// x");
        assert_eq!(comment_block_as_singles("a\nb\n", "python"), "# a\n# b\n");
        assert_eq!(comment_block_as_singles("a\n\nb", "sql"), "-- a\n-- \n-- b");
        assert_eq!(comment_block_as_singles("", "python"), "");
    }

    #[test]
    fn markers() {
        assert_eq!(language_marker("", "rust"), "Language: rust");
        assert_eq!(language_marker("#!/bin/bash\n", "shellscript"), "");
        assert_eq!(language_marker("x", "shellscript"), "#!/bin/sh");
        assert_eq!(language_marker("<?php", "php"), "");
        assert_eq!(path_marker(Some("src/a.rs")), "Path: src/a.rs");
        assert_eq!(path_marker(None), "");
        assert!(is_shebang_line("  #!/usr/bin/env ruby\u{FEFF}"));
    }

    #[test]
    fn detection_from_names() {
        assert_eq!(detect_language_from_path("a/b/main.rs", "x"), "rust");
        assert_eq!(
            detect_language_from_path("Dockerfile.dev", "x"),
            "dockerfile"
        );
        assert_eq!(detect_language_from_path(".env", "x"), "dotenv");
        assert_eq!(detect_language_from_path("view.html.erb", "x"), "html");
        assert_eq!(detect_language_from_path("view.blade.php", "x"), "blade");
        assert_eq!(detect_language_from_path("x.txt", "plaintext"), "plaintext");
        assert_eq!(
            detect_language_from_uri("file:///a/My%20File.PY", "x"),
            "python"
        );
        assert_eq!(detect_language_from_uri("untitled:Untitled-1", "go"), "go");
        assert_eq!(language_for_markdown_id("py"), Some("python"));
        assert_eq!(language_for_markdown_id("go"), Some("go"));
        assert_eq!(language_for_markdown_id("swift"), Some("swift"));
    }

    #[test]
    fn percent_decoding_is_graceful() {
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert_eq!(percent_decode("%E2%82%AC"), "€");
        assert_eq!(percent_decode("%E2%82"), "%E2%82");
        assert_eq!(percent_decode("100%"), "100%");
    }

    #[test]
    fn extname_matches_node() {
        assert_eq!(extname("a.b"), ".b");
        assert_eq!(extname(".env"), "");
        assert_eq!(extname(".."), "");
        assert_eq!(extname("..."), ".");
        assert_eq!(extname("..env"), ".env");
        assert_eq!(extname("a."), ".");
        assert_eq!(extname("abc"), "");
    }
}
