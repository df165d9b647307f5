//! Code-like text in four languages: identifiers, statements, functions, imports, long lines,
//! and the words and lines of a text.

use crate::Rng;

/// The languages the documents are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    Python,
    Rust,
    Go,
}

impl Language {
    pub const ALL: &'static [Language] = &[
        Language::TypeScript,
        Language::Python,
        Language::Rust,
        Language::Go,
    ];

    /// The editor's language id.
    pub fn id(self) -> &'static str {
        match self {
            Language::TypeScript => "typescript",
            Language::Python => "python",
            Language::Rust => "rust",
            Language::Go => "go",
        }
    }

    pub(super) fn extension(self) -> &'static str {
        match self {
            Language::TypeScript => "ts",
            Language::Python => "py",
            Language::Rust => "rs",
            Language::Go => "go",
        }
    }

    pub(super) fn indent(self) -> &'static str {
        match self {
            Language::TypeScript => "  ",
            Language::Python | Language::Rust => "    ",
            Language::Go => "\t",
        }
    }

    pub(super) fn snake(self) -> bool {
        matches!(self, Language::Python | Language::Rust)
    }

    /// A line that imports something, as the language writes it.
    pub fn import_line(self, rng: &mut Rng) -> String {
        let module = rng.pick(MODULES);
        let a = rng.pick(WORDS);
        let b = rng.pick(WORDS);
        match (self, rng.below(2)) {
            (Language::TypeScript, 0) => format!("import {{ {a}, {b} }} from './{module}';"),
            (Language::TypeScript, _) => format!("import * as {module} from '{module}';"),
            (Language::Python, 0) => format!("import {module}"),
            (Language::Python, _) => format!("from {module} import {a}, {b}"),
            (Language::Rust, 0) => format!("use crate::{module}::{a};"),
            (Language::Rust, _) => format!("use std::collections::{{HashMap, {}}};", cap(a)),
            (Language::Go, _) => format!("import \"{module}\""),
        }
    }

    /// A statement at `depth` levels of indentation that uses `names`.
    pub fn statement(self, rng: &mut Rng, depth: usize, names: &[String]) -> String {
        let fallback = ["value".to_owned()];
        let names = if names.is_empty() {
            &fallback[..]
        } else {
            names
        };
        let a = rng.pick_ref(names).clone();
        let b = rng.pick_ref(names).clone();
        let indent = self.indent().repeat(depth);
        let expr = expression(rng, &a, &b);
        let local = ident(rng, self);
        match (self, rng.below(3)) {
            (_, 0) => self.declare(&indent, &local, &expr),
            (Language::TypeScript, 1) => format!("{indent}{a} = {expr};"),
            (Language::TypeScript, _) => format!("{indent}console.log({a}, {b});"),
            (Language::Python, 1) => format!("{indent}{a} += {b}"),
            (Language::Python, _) => format!("{indent}print({a}, {b})"),
            (Language::Rust, 1) => format!("{indent}{a} += {b};"),
            (Language::Rust, _) => format!("{indent}println!(\"{{}}\", {a});"),
            (Language::Go, 1) => format!("{indent}{a} += {b}"),
            (Language::Go, _) => format!("{indent}fmt.Println({a}, {b})"),
        }
    }

    /// A new local `name` set to `value`, at `indent`, as each language declares one.
    pub fn declare(self, indent: &str, name: &str, value: &str) -> String {
        match self {
            Language::TypeScript => format!("{indent}const {name} = {value};"),
            Language::Python => format!("{indent}{name} = {value}"),
            Language::Rust => format!("{indent}let {name} = {value};"),
            Language::Go => format!("{indent}{name} := {value}"),
        }
    }
}

pub(super) const WORDS: &[&str] = &[
    "total", "count", "item", "price", "order", "user", "name", "value", "index", "buffer",
    "result", "offset", "limit", "cache", "node", "parent", "child", "width", "height", "score",
    "line", "token", "range", "state",
];

pub(super) const MODULES: &[&str] = &[
    "utils", "models", "config", "store", "parser", "render", "http", "events",
];

/// Text that is not ASCII: two-byte accents, three-byte CJK, emoji of two UTF-16 units and a
/// joined emoji of several.
pub(super) const MULTIBYTE: &[&str] = &[
    "café",
    "naïve résumé",
    "中文字符",
    "日本語のテキスト",
    "😀",
    "🎉🎊",
    "👨\u{200D}👩\u{200D}👧",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "Привет мир",
    "e\u{301}",
];

pub(super) const KEYWORDS: &[&str] = &[
    "import",
    "from",
    "export",
    "function",
    "const",
    "return",
    "def",
    "pub",
    "fn",
    "let",
    "use",
    "func",
    "if",
    "print",
    "println",
    "console",
    "log",
    "fmt",
    "Println",
    "number",
    "u32",
    "int",
    "mut",
    "crate",
    "std",
    "collections",
    "HashMap",
    "as",
];

pub(super) fn cap(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A two-word identifier in the language's case.
pub(super) fn ident(rng: &mut Rng, language: Language) -> String {
    let a = rng.pick(WORDS);
    let b = rng.pick(WORDS);
    if language.snake() {
        format!("{a}_{b}")
    } else {
        format!("{a}{}", cap(b))
    }
}

pub(super) fn expression(rng: &mut Rng, a: &str, b: &str) -> String {
    match rng.below(5) {
        0 => format!("{a} + {b}"),
        1 => format!("{a} * 2"),
        2 => format!("{a} - {b} - 1"),
        3 => format!("compute({a}, {b})"),
        _ => a.to_owned(),
    }
}

/// What goes into generated code beyond plain statements.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Flavor {
    /// Percent of functions with string literals and comments that are not ASCII.
    pub(super) multibyte: usize,
}

/// Lines of code: imports, then functions with parameters, locals, conditionals and returns,
/// until there are `n` lines (the last function may be cut short).
pub(super) fn code(rng: &mut Rng, language: Language, n: usize, flavor: Flavor) -> Vec<String> {
    let mut lines = Vec::new();
    if n == 0 {
        return lines;
    }
    for _ in 0..rng.below(4) {
        lines.push(language.import_line(rng));
    }
    if language == Language::Go && rng.chance(30) {
        lines.push("import (".into());
        lines.push("\t\"fmt\"".into());
        lines.push(format!("\t\"{}\"", rng.pick(MODULES)));
        lines.push(")".into());
    }
    if !lines.is_empty() {
        lines.push(String::new());
    }
    while lines.len() < n {
        function(rng, language, flavor, &mut lines);
        lines.push(String::new());
    }
    lines.truncate(n);
    lines
}

pub(super) fn function(rng: &mut Rng, language: Language, flavor: Flavor, lines: &mut Vec<String>) {
    let name = ident(rng, language);
    let mut names: Vec<String> = (0..1 + rng.below(3))
        .map(|_| ident(rng, language))
        .collect();
    names.dedup();
    let params = names.join(", ");
    let typed = |ty: &str| {
        names
            .iter()
            .map(|p| format!("{p}{ty}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let i = language.indent();
    if rng.chance(25) {
        let comment = if rng.chance(flavor.multibyte) {
            rng.pick(MULTIBYTE).to_owned()
        } else {
            format!("{} the {}", rng.pick(WORDS), rng.pick(WORDS))
        };
        lines.push(match language {
            Language::Python => format!("# {comment}"),
            _ => format!("// {comment}"),
        });
    }
    lines.push(match language {
        Language::TypeScript => format!("export function {name}({}): number {{", typed(": number")),
        Language::Python => format!("def {name}({params}):"),
        Language::Rust => format!("pub fn {name}({}) -> u32 {{", typed(": u32")),
        Language::Go => format!("func {name}({}) int {{", typed(" int")),
    });
    let mut locals = names.clone();
    for _ in 0..1 + rng.below(6) {
        if rng.chance(flavor.multibyte) {
            let local = ident(rng, language);
            let text = rng.pick(MULTIBYTE);
            lines.push(language.declare(i, &local, &format!("\"{text}\"")));
            locals.push(local);
        } else if rng.chance(20) {
            let a = rng.pick_ref(&locals).clone();
            let b = rng.pick_ref(&locals).clone();
            lines.push(match language {
                Language::TypeScript => format!("{i}if ({a} > {b}) {{"),
                Language::Python => format!("{i}if {a} > {b}:"),
                Language::Rust | Language::Go => format!("{i}if {a} > {b} {{"),
            });
            lines.push(language.statement(rng, 2, &locals));
            if language != Language::Python {
                lines.push(format!("{i}}}"));
            }
        } else {
            let a = rng.pick_ref(&locals).clone();
            let b = rng.pick_ref(&locals).clone();
            let local = ident(rng, language);
            let expr = expression(rng, &a, &b);
            lines.push(language.declare(i, &local, &expr));
            locals.push(local);
        }
    }
    let a = rng.pick_ref(&locals).clone();
    let b = rng.pick_ref(&locals).clone();
    let expr = expression(rng, &a, &b);
    lines.push(match language {
        Language::TypeScript => format!("{i}return {expr};"),
        Language::Python | Language::Go => format!("{i}return {expr}"),
        Language::Rust => format!("{i}{expr}"),
    });
    if language != Language::Python {
        lines.push("}".into());
    }
}

/// A line of about `len` UTF-16 units: a long table literal, sometimes with emoji in it.
pub(super) fn long_line(rng: &mut Rng, language: Language, len: usize) -> String {
    let name = ident(rng, language);
    let mut s = match language {
        Language::TypeScript => format!("const {name} = ["),
        Language::Python => format!("{name} = ["),
        Language::Rust => format!("let {name} = ["),
        Language::Go => format!("{name} := []int{{"),
    };
    let emoji = rng.chance(30);
    let mut k = 0;
    while s.encode_utf16().count() < len {
        if emoji && k % 7 == 3 {
            s.push_str("\"😀\", ");
        } else {
            s.push_str(&format!("{}, ", rng.below(1000)));
        }
        k += 1;
    }
    s.push_str(if language == Language::Go { "}" } else { "]" });
    s
}

/// Byte spans of the identifiers of `text`.
pub(super) fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let word_char = c.is_ascii_alphanumeric() || c == '_';
        match (start, word_char) {
            (None, true) if !c.is_ascii_digit() => start = Some(i),
            (Some(s), false) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Each line's byte span without its line break (`\n` or `\r\n`); a text ending in a line break
/// has a last, empty line, as Copilot counts lines.
pub(super) fn lines_of(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices('\n') {
        let end = if text[..i].ends_with('\r') { i - 1 } else { i };
        out.push((start, end));
        start = i + 1;
    }
    out.push((start, text.len()));
    out
}
