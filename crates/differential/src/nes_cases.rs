//! Generated next-edit cases for the differential tests: open documents of code-like text, the
//! edits a user made to them (renames, typed characters, inserted and deleted lines, edits in
//! other files), the cursor and the ranges viewed, each with a short description.
//!
//! Every case is made from its kind and a seed alone, so that a failing case can be made again
//! with [`generate`]. The kinds aim at the places where Copilot's next-edit prompt is delicate:
//! UTF-16 offsets, line ends, file edges, the budgets of the current file, of the edit history
//! and of the other files' snippets, and the cases in which Copilot sends nothing at all.

use nes::request::{CursorJson, DocumentJson, EditJson, RangeJson, Request};
use serde_json::Value;

use crate::{Rng, utf16_offset};

/// What a case exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An identifier renamed where it is declared, the cursor on a later use.
    Rename,
    InsertLines,
    DeleteLines,
    /// Many one-character edits on one line, with typos taken back.
    Typing,
    /// Edits in several other files (more than five, some of 40 lines and more), the cursor in
    /// this one: the recently-edited snippets and their budget.
    OtherFiles,
    /// Accents, CJK and emoji (surrogate pairs) before the edits and the cursor.
    Multibyte,
    /// Edits and the cursor at the very start and end of short files, with and without a
    /// trailing line break, and in empty files.
    Edges,
    /// Any of the other shapes with `\r\n` line ends.
    Crlf,
    /// Files of 300 to 1000 lines, so that the current file is clipped to pages.
    LongFile,
    /// Long lines around the cursor, up to a window too large to send.
    LongLines,
    /// More than 25 edits and more than 1000 tokens of diff history.
    ManyEdits,
    /// The cursor at offset 0, where Copilot falls back to the end of the last edit.
    CursorAtZero,
    /// No edits at all: Copilot sends nothing.
    NoEdits,
    /// Ranges viewed in several documents, before the edits.
    Viewed,
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::Rename,
        Kind::InsertLines,
        Kind::DeleteLines,
        Kind::Typing,
        Kind::OtherFiles,
        Kind::Multibyte,
        Kind::Edges,
        Kind::Crlf,
        Kind::LongFile,
        Kind::LongLines,
        Kind::ManyEdits,
        Kind::CursorAtZero,
        Kind::NoEdits,
        Kind::Viewed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Rename => "rename",
            Kind::InsertLines => "insert lines",
            Kind::DeleteLines => "delete lines",
            Kind::Typing => "typing",
            Kind::OtherFiles => "other files",
            Kind::Multibyte => "multi-byte",
            Kind::Edges => "file edges",
            Kind::Crlf => "crlf",
            Kind::LongFile => "long file",
            Kind::LongLines => "long lines",
            Kind::ManyEdits => "many edits",
            Kind::CursorAtZero => "cursor at 0",
            Kind::NoEdits => "no edits",
            Kind::Viewed => "viewed",
        }
    }
}

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

    fn extension(self) -> &'static str {
        match self {
            Language::TypeScript => "ts",
            Language::Python => "py",
            Language::Rust => "rs",
            Language::Go => "go",
        }
    }

    fn indent(self) -> &'static str {
        match self {
            Language::TypeScript => "  ",
            Language::Python | Language::Rust => "    ",
            Language::Go => "\t",
        }
    }

    fn snake(self) -> bool {
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
            (Language::TypeScript, 0) => format!("{indent}const {local} = {expr};"),
            (Language::TypeScript, 1) => format!("{indent}{a} = {expr};"),
            (Language::TypeScript, _) => format!("{indent}console.log({a}, {b});"),
            (Language::Python, 0) => format!("{indent}{local} = {expr}"),
            (Language::Python, 1) => format!("{indent}{a} += {b}"),
            (Language::Python, _) => format!("{indent}print({a}, {b})"),
            (Language::Rust, 0) => format!("{indent}let {local} = {expr};"),
            (Language::Rust, 1) => format!("{indent}{a} += {b};"),
            (Language::Rust, _) => format!("{indent}println!(\"{{}}\", {a});"),
            (Language::Go, 0) => format!("{indent}{local} := {expr}"),
            (Language::Go, 1) => format!("{indent}{a} += {b}"),
            (Language::Go, _) => format!("{indent}fmt.Println({a}, {b})"),
        }
    }
}

/// One generated case.
#[derive(Debug, Clone)]
pub struct Case {
    pub kind: Kind,
    pub seed: u64,
    /// What the user did, in a few words, with the cursor's line and column.
    pub description: String,
    /// The language of the cursor's document.
    pub language: Language,
    pub request: Request,
    /// Each document's text after the edits, by URI, in the order of `request.documents`.
    pub texts_now: Vec<(String, String)>,
}

impl Case {
    /// The oracle's request for this case: the contract's JSON with the operation named.
    pub fn oracle_request(&self, op: &str) -> Value {
        let mut value = serde_json::to_value(&self.request).expect("requests serialize");
        value["op"] = Value::from(op);
        value
    }

    /// The cursor's document as it is after the edits.
    pub fn cursor_text(&self) -> &str {
        self.text_now(&self.request.cursor.uri)
            .expect("the cursor names a document of the case")
    }

    /// A document's text after the edits.
    pub fn text_now(&self, uri: &str) -> Option<&str> {
        self.texts_now
            .iter()
            .find(|(u, _)| u == uri)
            .map(|(_, t)| t.as_str())
    }
}

/// `per_kind` cases of every kind, the kinds interleaved.
pub fn cases(per_kind: usize) -> Vec<Case> {
    let mut out = Vec::with_capacity(per_kind * Kind::ALL.len());
    for seed in 0..per_kind as u64 {
        for &kind in Kind::ALL {
            out.push(generate(kind, seed));
        }
    }
    out
}

/// The case of `kind` made from `seed`.
pub fn generate(kind: Kind, seed: u64) -> Case {
    // Each kind draws from its own stream, so that adding a kind changes no other kind's cases.
    let position = Kind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u64;
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (position + 1) << 48);
    let language = rng.pick(Language::ALL);
    let mut g = Gen {
        rng,
        eol: "\n",
        docs: Vec::new(),
        langs: Vec::new(),
        texts: Vec::new(),
        edits: Vec::new(),
        viewed: Vec::new(),
        cursor: None,
        notes: Vec::new(),
    };
    match kind {
        Kind::Crlf => {
            g.eol = "\r\n";
            let shape = g.rng.pick(&[
                Kind::Rename,
                Kind::InsertLines,
                Kind::DeleteLines,
                Kind::Typing,
                Kind::OtherFiles,
                Kind::Edges,
                Kind::Multibyte,
                Kind::ManyEdits,
                Kind::CursorAtZero,
            ]);
            g.notes.push(format!("CRLF {}", shape.name()));
            g.shape(shape, language);
        }
        _ => g.shape(kind, language),
    }
    // Viewed ranges come with some cases of every kind; the `viewed` kind has them always.
    if kind != Kind::Viewed && g.rng.chance(20) {
        let n = 1 + g.rng.below(2);
        for _ in 0..n {
            let doc = g.rng.below(g.docs.len());
            g.view(doc);
        }
    }
    g.finish(kind, seed)
}

const WORDS: &[&str] = &[
    "total", "count", "item", "price", "order", "user", "name", "value", "index", "buffer",
    "result", "offset", "limit", "cache", "node", "parent", "child", "width", "height", "score",
    "line", "token", "range", "state",
];

const MODULES: &[&str] = &[
    "utils", "models", "config", "store", "parser", "render", "http", "events",
];

/// Text that is not ASCII: two-byte accents, three-byte CJK, emoji of two UTF-16 units and a
/// joined emoji of several.
const MULTIBYTE: &[&str] = &[
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

const KEYWORDS: &[&str] = &[
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

fn cap(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A two-word identifier in the language's case.
fn ident(rng: &mut Rng, language: Language) -> String {
    let a = rng.pick(WORDS);
    let b = rng.pick(WORDS);
    if language.snake() {
        format!("{a}_{b}")
    } else {
        format!("{a}{}", cap(b))
    }
}

fn expression(rng: &mut Rng, a: &str, b: &str) -> String {
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
struct Flavor {
    /// Percent of functions with string literals and comments that are not ASCII.
    multibyte: usize,
}

/// Lines of code: imports, then functions with parameters, locals, conditionals and returns,
/// until there are `n` lines (the last function may be cut short).
fn code(rng: &mut Rng, language: Language, n: usize, flavor: Flavor) -> Vec<String> {
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

fn function(rng: &mut Rng, language: Language, flavor: Flavor, lines: &mut Vec<String>) {
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
            lines.push(match language {
                Language::TypeScript => format!("{i}const {local} = \"{text}\";"),
                Language::Python => format!("{i}{local} = \"{text}\""),
                Language::Rust => format!("{i}let {local} = \"{text}\";"),
                Language::Go => format!("{i}{local} := \"{text}\""),
            });
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
            lines.push(match language {
                Language::TypeScript => format!("{i}const {local} = {expr};"),
                Language::Python => format!("{i}{local} = {expr}"),
                Language::Rust => format!("{i}let {local} = {expr};"),
                Language::Go => format!("{i}{local} := {expr}"),
            });
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
fn long_line(rng: &mut Rng, language: Language, len: usize) -> String {
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
fn words(text: &str) -> Vec<(usize, usize)> {
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
fn lines_of(text: &str) -> Vec<(usize, usize)> {
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

/// Where on a line a cursor goes.
#[derive(Debug, Clone, Copy)]
enum At {
    Start,
    End,
    Anywhere,
}

/// The state of one case being made.
struct Gen {
    rng: Rng,
    eol: &'static str,
    docs: Vec<DocumentJson>,
    /// The language each document is written in (its id may say otherwise).
    langs: Vec<Language>,
    /// Each document's text now.
    texts: Vec<String>,
    edits: Vec<EditJson>,
    viewed: Vec<RangeJson>,
    /// Document and byte offset.
    cursor: Option<(usize, usize)>,
    notes: Vec<String>,
}

impl Gen {
    fn shape(&mut self, kind: Kind, language: Language) {
        match kind {
            Kind::Rename => self.rename(language),
            Kind::InsertLines => self.insert_lines_case(language),
            Kind::DeleteLines => self.delete_lines_case(language),
            Kind::Typing => self.typing(language),
            Kind::OtherFiles => {
                let others = 2 + self.rng.below(8);
                self.other_files(language, others)
            }
            Kind::Multibyte => self.multibyte(language),
            Kind::Edges => self.edges(language),
            Kind::LongFile => self.long_file(language),
            Kind::LongLines => self.long_lines(language),
            Kind::ManyEdits => self.many_edits(language),
            Kind::CursorAtZero => self.cursor_at_zero(language),
            Kind::NoEdits => self.no_edits(language),
            Kind::Viewed => self.viewed_case(language),
            // Only `generate` chooses the shape of a CRLF case.
            Kind::Crlf => self.rename(language),
        }
    }

    // ---- The shapes, one per kind.

    fn rename(&mut self, language: Language) {
        let doc = self.new_doc(language, 15, 70, Flavor::default());
        if self.rng.chance(30) {
            let other = self.rng.pick(Language::ALL);
            let n = 10 + self.rng.below(30);
            self.new_doc(other, n, 1, Flavor::default());
        }
        let text = self.texts[doc].clone();
        // Identifiers used at least twice, so that a later use is left to fix.
        let spans = words(&text);
        let mut candidates: Vec<&str> = spans
            .iter()
            .map(|&(s, e)| &text[s..e])
            .filter(|w| w.len() >= 3 && !KEYWORDS.contains(w))
            .filter(|w| spans.iter().filter(|&&(s, e)| &text[s..e] == *w).count() >= 2)
            .collect();
        candidates.sort();
        candidates.dedup();
        let Some(&old) = candidates.get(self.rng.below(candidates.len().max(1))) else {
            self.insert_lines(doc, None);
            self.cursor_after_last_edit(doc);
            return;
        };
        let old = old.to_owned();
        let suffix = self.rng.pick(&["Next", "2", "_v2", "s", "Count"]);
        let new = format!("{old}{suffix}");
        let occurrences = |text: &str| -> Vec<(usize, usize)> {
            words(text)
                .into_iter()
                .filter(|&(s, e)| text[s..e] == old)
                .collect()
        };
        let first = occurrences(&self.texts[doc])[0];
        let style = self.rng.below(4);
        match style {
            0 => {
                self.replace(doc, first.0, first.1, &new);
                self.notes
                    .push(format!("renamed `{old}` to `{new}` in one edit"));
            }
            1 => {
                self.type_text(doc, first.1, suffix, false);
                self.notes.push(format!("typed `{suffix}` after `{old}`"));
            }
            2 => {
                self.replace(doc, first.0, first.1, "");
                self.type_text(doc, first.0, &new, true);
                self.notes
                    .push(format!("deleted `{old}` and typed `{new}` (with typos)"));
            }
            _ => {
                let total = occurrences(&self.texts[doc]).len();
                let k = 1 + self.rng.below(total.saturating_sub(1).max(1));
                for _ in 0..k.min(total - 1).max(1) {
                    let at = occurrences(&self.texts[doc])[0];
                    self.replace(doc, at.0, at.1, &new);
                }
                self.notes
                    .push(format!("renamed {k} of {total} uses of `{old}` to `{new}`"));
            }
        }
        let left = occurrences(&self.texts[doc]);
        if left.is_empty() || self.rng.chance(10) {
            self.cursor_after_last_edit(doc);
        } else {
            let (s, e) = left[self.rng.below(left.len())];
            let at = match self.rng.below(3) {
                0 => s,
                1 => e,
                _ => s + (e - s) / 2,
            };
            self.cursor = Some((doc, at));
            self.notes.push("cursor on a later use".into());
        }
    }

    fn insert_lines_case(&mut self, language: Language) {
        let doc = self.new_doc(language, 5, 110, Flavor::default());
        for _ in 0..1 + self.rng.below(2) {
            self.insert_lines(doc, None);
        }
        match self.rng.below(3) {
            0 => self.cursor_after_last_edit(doc),
            1 => {
                let (line, _) = self.edit_line(doc);
                let line = line + self.rng.below(4);
                self.cursor_on_line(doc, line, At::Anywhere);
            }
            _ => self.random_cursor(doc),
        }
    }

    fn delete_lines_case(&mut self, language: Language) {
        let doc = self.new_doc(language, 8, 110, Flavor::default());
        for _ in 0..1 + self.rng.below(2) {
            self.delete_lines(doc);
        }
        match self.rng.below(3) {
            0 => self.cursor_after_last_edit(doc),
            1 => {
                let (line, _) = self.edit_line(doc);
                let line = (line + 1).saturating_sub(self.rng.below(3));
                self.cursor_on_line(doc, line, At::Anywhere);
            }
            _ => self.random_cursor(doc),
        }
    }

    fn typing(&mut self, language: Language) {
        let doc = self.new_doc(language, 5, 80, Flavor::default());
        let lines = lines_of(&self.texts[doc]);
        let line = self.rng.below(lines.len());
        let (start, end) = lines[line];
        let at = if self.rng.chance(70) {
            end
        } else {
            self.boundary_in(doc, start, end)
        };
        let names: Vec<String> = words(&self.texts[doc][start..end])
            .into_iter()
            .map(|(s, e)| self.texts[doc][start + s..start + e].to_owned())
            .collect();
        let new_line = self.rng.chance(40);
        let statement = language.statement(&mut self.rng, 1, &names);
        let statement = if new_line {
            statement
        } else {
            statement.trim_start().to_owned()
        };
        // Stop part way through at times: the user is in the middle of typing.
        let keep = if self.rng.chance(50) {
            statement.len()
        } else {
            let mut k = 1 + self.rng.below(statement.len());
            while !statement.is_char_boundary(k) {
                k -= 1;
            }
            k
        };
        let typed = &statement[..keep];
        // The line break goes in as one edit, as an editor's Enter does.
        let mut caret = at;
        if new_line {
            caret = self.type_unit(doc, caret, self.eol);
        }
        let caret = self.type_text(doc, caret, typed, true);
        self.notes.push(format!(
            "typed {:?} on line {line}{}",
            typed,
            if new_line { " after Enter" } else { "" }
        ));
        if self.rng.chance(80) {
            self.cursor = Some((doc, caret));
        } else {
            self.random_cursor(doc);
        }
    }

    fn other_files(&mut self, language: Language, others: usize) {
        let mut all = Vec::new();
        let this = self.new_doc(language, 10, 70, Flavor::default());
        all.push(this);
        for _ in 0..others {
            let l = if self.rng.chance(60) {
                language
            } else {
                self.rng.pick(Language::ALL)
            };
            let n = if self.rng.chance(50) {
                40 + self.rng.below(80)
            } else {
                3 + self.rng.below(37)
            };
            let multibyte = if self.rng.chance(20) { 50 } else { 0 };
            all.push(self.new_doc(l, n, 1, Flavor { multibyte }));
        }
        // Some documents stay untouched, open beside the others.
        let edited: Vec<usize> = all[1..]
            .iter()
            .copied()
            .filter(|_| self.rng.chance(85))
            .collect();
        let mut queue: Vec<usize> = Vec::new();
        for &d in &edited {
            for _ in 0..1 + self.rng.below(3) {
                queue.push(d);
            }
        }
        for _ in 0..self.rng.below(3) {
            queue.push(this);
        }
        // Interleave the documents' edits.
        for i in (1..queue.len()).rev() {
            let j = self.rng.below(i + 1);
            queue.swap(i, j);
        }
        if self.rng.chance(30) {
            // This document edited last, as when the user comes back to it.
            queue.push(this);
        }
        for d in queue {
            self.random_edit(d);
        }
        if self.rng.chance(30) && !edited.is_empty() {
            // A line of this document, another document, then the same line again: Copilot
            // merges an edit only into its document's latest entry, however far back it is.
            let lines = lines_of(&self.texts[this]);
            let line = self.rng.below(lines.len());
            let caret = self.type_text(this, lines[line].1, " a", false);
            let other = edited[self.rng.below(edited.len())];
            self.random_edit(other);
            self.type_text(this, caret, "b", false);
            self.notes.push(format!(
                "typed on line {line}, in another file, then on line {line} again"
            ));
        }
        self.notes.push(format!(
            "{} other files, {} of them edited",
            others,
            edited.len()
        ));
        self.random_cursor_not_zero(this);
        self.shuffle_documents();
    }

    fn multibyte(&mut self, language: Language) {
        let doc = self.new_doc(language, 8, 60, Flavor { multibyte: 70 });
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(4) {
                0 => {
                    // Type text that is not ASCII at the end of a line that already has some.
                    let line = self.multibyte_line(doc);
                    let (_, end) = lines_of(&self.texts[doc])[line];
                    let text = format!(" {}", self.rng.pick(MULTIBYTE));
                    self.type_text(doc, end, &text, false);
                    self.notes.push(format!("typed {text:?} on line {line}"));
                }
                1 => {
                    // Replace an identifier that follows text that is not ASCII.
                    let line = self.multibyte_line(doc);
                    let (start, end) = lines_of(&self.texts[doc])[line];
                    let after = self.texts[doc][start..end]
                        .char_indices()
                        .find(|(_, c)| c.len_utf8() > 1)
                        .map_or(start, |(i, _)| start + i);
                    let word = words(&self.texts[doc][after..end]).first().copied();
                    match word {
                        Some((s, e)) => {
                            let new = format!("{}é", &self.texts[doc][after + s..after + e]);
                            self.replace(doc, after + s, after + e, &new);
                            self.notes.push(format!("renamed a word on line {line}"));
                        }
                        None => self.insert_lines(doc, Some(line + 1)),
                    }
                }
                2 => self.insert_lines(doc, None),
                _ => self.random_edit(doc),
            }
        }
        if self.rng.chance(30) {
            let other = self.new_doc(language, 5, 40, Flavor { multibyte: 80 });
            let line = self.multibyte_line(other);
            let (_, end) = lines_of(&self.texts[other])[line];
            let emoji = self.rng.pick(&["🎉", "😀", "中", "é"]);
            self.type_text(other, end, emoji, false);
            self.notes.push("typed in another file too".into());
        }
        // The cursor just after a character that is not ASCII, most of the time.
        if self.rng.chance(70) {
            let line = self.multibyte_line(doc);
            let (start, end) = lines_of(&self.texts[doc])[line];
            let afters: Vec<usize> = self.texts[doc][start..end]
                .char_indices()
                .filter(|(_, c)| c.len_utf8() > 1)
                .map(|(i, c)| start + i + c.len_utf8())
                .collect();
            let at = if afters.is_empty() {
                end
            } else {
                afters[self.rng.below(afters.len())]
            };
            self.cursor = Some((doc, at));
            self.notes
                .push("cursor after a multi-byte character".into());
        } else {
            self.random_cursor(doc);
        }
    }

    fn edges(&mut self, language: Language) {
        let n = self.rng.below(13);
        let trailing = self.rng.chance(50);
        let doc = self.new_doc_with(language, n, Flavor::default(), trailing);
        for _ in 0..1 + self.rng.below(2) {
            let text = self.texts[doc].clone();
            let lines = lines_of(&text);
            let last = *lines.last().expect("a text has a line");
            let statement = language.statement(&mut self.rng, 0, &[]);
            match self.rng.below(6) {
                0 => {
                    let t = format!("{statement}{}", self.eol);
                    self.replace(doc, 0, 0, &t);
                    self.notes.push("inserted a line at the start".into());
                }
                1 => {
                    let caret = self.type_text(doc, text.len(), "x", false);
                    self.type_text(doc, caret, "yz", false);
                    self.notes.push("typed at the very end".into());
                }
                2 if lines.len() >= 2 => {
                    // The last line with content and the line break before it.
                    let (s, _) = lines[lines.len() - if trailing { 2 } else { 1 }];
                    let from = s.saturating_sub(self.eol.len());
                    self.replace(doc, from, text.len(), if trailing { self.eol } else { "" });
                    self.notes.push("deleted the last line".into());
                }
                3 => {
                    let t = if text.is_empty() || text.ends_with('\n') {
                        format!("{statement}{}", if trailing { self.eol } else { "" })
                    } else {
                        format!("{}{statement}", self.eol)
                    };
                    self.replace(doc, text.len(), text.len(), &t);
                    self.notes.push("appended a line at the end".into());
                }
                4 => {
                    let (s, e) = lines[0];
                    match words(&text[s..e]).first() {
                        Some(&(a, b)) => {
                            self.replace(doc, s + a, s + b, "renamed");
                            self.notes.push("renamed the first word".into());
                        }
                        None => {
                            self.replace(doc, 0, 0, "x");
                            self.notes.push("typed at the start".into());
                        }
                    }
                }
                _ => {
                    let (s, e) = last;
                    self.replace(doc, s, e, &statement);
                    self.notes.push("rewrote the last line".into());
                }
            }
        }
        let text = &self.texts[doc];
        let lines = lines_of(text);
        let at = match self.rng.below(5) {
            0 => text.len(),
            1 => lines[lines.len() - 1].0,
            2 => lines[0].1,
            3 => {
                let mut at = lines[0].1.min(1);
                while !text.is_char_boundary(at) {
                    at += 1;
                }
                at
            }
            _ => self.last_edit_end(doc).unwrap_or(text.len()),
        };
        let at = if text[..at].ends_with('\r') {
            at - 1
        } else {
            at
        };
        self.cursor = Some((doc, at));
        self.notes.push(format!(
            "{} lines{}",
            n,
            if trailing {
                ", trailing line break"
            } else {
                ""
            }
        ));
    }

    fn long_file(&mut self, language: Language) {
        let n = 300 + self.rng.below(701);
        let doc = self.new_doc(language, n, 1, Flavor::default());
        let lines = lines_of(&self.texts[doc]).len();
        // Near the start, near the end, near a page boundary or anywhere.
        let line = match self.rng.below(4) {
            0 => self.rng.below(20),
            1 => lines - 1 - self.rng.below(20),
            2 => (10 * self.rng.below(lines / 10) + self.rng.below(5))
                .saturating_sub(2)
                .min(lines - 1),
            _ => self.rng.below(lines),
        };
        let edits = 1 + self.rng.below(3);
        for _ in 0..edits {
            let near = (line + self.rng.below(10)).saturating_sub(5);
            if self.rng.chance(70) {
                self.edit_on_line(doc, near.min(lines - 1));
            } else {
                self.random_edit(doc);
            }
        }
        let lines = lines_of(&self.texts[doc]).len();
        self.cursor_on_line(doc, line.min(lines - 1), At::Anywhere);
        self.notes.push(format!("{n} lines"));
    }

    fn long_lines(&mut self, language: Language) {
        let n = 20 + self.rng.below(40);
        let mut lines = code(&mut self.rng, language, n, Flavor::default());
        let c = self.rng.below(lines.len());
        // Lengths around Copilot's limits: 2000 tokens for the window (8000 UTF-16 units) and
        // 1500 for the area of 31 lines around the cursor.
        let scheme = self.rng.below(5);
        let (from, to) = match scheme {
            0 | 1 => (c.saturating_sub(2), (c + 6).min(lines.len())),
            _ => (c.saturating_sub(15), (c + 16).min(lines.len())),
        };
        for (i, line) in lines.iter_mut().enumerate().take(to).skip(from) {
            let len = match scheme {
                // One very long line in the window.
                0 if i == c => 8200 + self.rng.below(3000),
                0 => continue,
                // Every window line long: about 2000 tokens in all.
                1 => 850 + self.rng.below(400),
                // The area near its budget.
                2 => 150 + self.rng.below(100),
                3 => 180 + self.rng.below(40),
                // A few long lines that fit.
                _ if self.rng.chance(20) => 300 + self.rng.below(500),
                _ => continue,
            };
            *line = long_line(&mut self.rng, language, len);
        }
        self.notes.push(format!("long lines (scheme {scheme})"));
        let trailing = self.rng.chance(80);
        let doc = self.add_doc(language, &lines, trailing);
        self.edit_on_line(doc, c);
        let cl = lines_of(&self.texts[doc]).len();
        self.cursor_on_line(doc, c.min(cl - 1), At::Anywhere);
    }

    fn many_edits(&mut self, language: Language) {
        let this = self.new_doc(language, 40, 80, Flavor::default());
        let mut docs = vec![this];
        for _ in 0..self.rng.below(4) {
            let n = 10 + self.rng.below(50);
            docs.push(self.new_doc(language, n, 1, Flavor::default()));
        }
        let n = 26 + self.rng.below(35);
        // Without long lines the 25 entries are the limit; with them, the 1000 tokens.
        let long_lines = self.rng.pick(&[0, 0, 10, 40]);
        for _ in 0..n {
            let d = if self.rng.chance(70) {
                this
            } else {
                *self.rng.pick_ref(&docs)
            };
            if self.rng.chance(long_lines) {
                // A long line makes the diff history go over its 1000 tokens sooner.
                let lines = lines_of(&self.texts[d]);
                let line = self.rng.below(lines.len());
                let len = 100 + self.rng.below(300);
                let t = format!("{}{}", long_line(&mut self.rng, language, len), self.eol);
                self.replace(d, lines[line].0, lines[line].0, &t);
            } else if self.rng.chance(3) {
                // An edit that changes nothing still counts as an edit.
                let at = self.random_boundary(d);
                self.replace(d, at, at, "");
            } else if long_lines == 0 {
                // Small edits on short lines only, so that the 25 entries fill before the
                // 1000 tokens do (an entry costs its header with the path twice).
                let lines = lines_of(&self.texts[d]);
                let short: Vec<usize> = (0..lines.len())
                    .filter(|&i| lines[i].1 - lines[i].0 < 12)
                    .collect();
                let line = short
                    .get(self.rng.below(short.len().max(1)))
                    .copied()
                    .unwrap_or(0);
                let word = self.rng.pick(&["x", "y1", "ok", "n"]);
                self.replace(d, lines[line].1, lines[line].1, word);
            } else {
                self.random_edit_quiet(d);
            }
        }
        self.notes.push(format!(
            "{n} edits over {} documents, {long_lines}% of them long lines",
            docs.len()
        ));
        self.random_cursor_not_zero(this);
    }

    fn cursor_at_zero(&mut self, language: Language) {
        let this = self.new_doc(language, 3, 50, Flavor::default());
        let variant = self.rng.below(4);
        match variant {
            0 => {
                // Only other documents were edited: Copilot has no fallback and sends nothing.
                let other = self.new_doc(language, 10, 20, Flavor::default());
                self.random_edit(other);
                self.notes.push("only another file edited".into());
            }
            1 => {
                // The last edit is at the very start.
                self.random_edit(this);
                let statement = language.statement(&mut self.rng, 0, &[]);
                let t = format!("{statement}{}", self.eol);
                self.replace(this, 0, 0, &t);
                self.notes.push("inserted a line at the start".into());
            }
            2 => {
                // This document edited, then another one.
                for _ in 0..1 + self.rng.below(3) {
                    self.random_edit(this);
                }
                let other = self.new_doc(language, 10, 20, Flavor::default());
                self.random_edit(other);
            }
            _ => {
                for _ in 0..1 + self.rng.below(4) {
                    self.random_edit(this);
                }
            }
        }
        self.cursor = Some((this, 0));
    }

    fn no_edits(&mut self, language: Language) {
        let this = self.new_doc(language, 0, 60, Flavor::default());
        for _ in 0..self.rng.below(4) {
            let n = 5 + self.rng.below(30);
            let l = self.rng.pick(Language::ALL);
            self.new_doc(l, n, 1, Flavor::default());
        }
        // A view is history too: chat-lib sends a request for a document only viewed.
        if self.rng.chance(40) {
            self.view(this);
        }
        if self.docs.len() > 1 && self.rng.chance(40) {
            let other = 1 + self.rng.below(self.docs.len() - 1);
            self.view(other);
        }
        if self.rng.chance(20) {
            self.cursor = Some((this, 0));
        } else {
            self.random_cursor(this);
        }
        self.notes.push("no edits".into());
        self.shuffle_documents();
    }

    fn viewed_case(&mut self, language: Language) {
        let this = self.new_doc(language, 10, 60, Flavor::default());
        let mut docs = vec![this];
        for _ in 0..1 + self.rng.below(5) {
            let n = 5 + self.rng.below(60);
            let l = self.rng.pick(Language::ALL);
            docs.push(self.new_doc(l, n, 1, Flavor::default()));
        }
        for _ in 0..2 + self.rng.below(5) {
            let d = *self.rng.pick_ref(&docs);
            self.view(d);
        }
        // Sometimes enough edits that the views push the history over its 25 entries.
        let n = if self.rng.chance(40) {
            20 + self.rng.below(8)
        } else {
            1 + self.rng.below(5)
        };
        for _ in 0..n {
            let d = *self.rng.pick_ref(&docs);
            self.random_edit_quiet(d);
        }
        self.notes.push(format!("{n} edits"));
        self.random_cursor_not_zero(this);
        self.shuffle_documents();
    }

    // ---- Documents.

    /// A document of `min` lines and up to `spread - 1` more.
    fn new_doc(&mut self, language: Language, min: usize, spread: usize, flavor: Flavor) -> usize {
        let lines = min + self.rng.below(spread);
        let trailing = self.rng.chance(80);
        self.new_doc_with(language, lines, flavor, trailing)
    }

    fn new_doc_with(
        &mut self,
        language: Language,
        lines: usize,
        flavor: Flavor,
        trailing: bool,
    ) -> usize {
        let lines = code(&mut self.rng, language, lines, flavor);
        self.add_doc(language, &lines, trailing)
    }

    fn add_doc(&mut self, language: Language, lines: &[String], trailing: bool) -> usize {
        let mut text = lines.join(self.eol);
        if trailing && !lines.is_empty() {
            text.push_str(self.eol);
        }
        let dir = self.rng.pick(&[
            "src",
            "lib",
            "pkg/util",
            "app/models",
            "my%20lib",
            "caf%C3%A9",
        ]);
        let uri = loop {
            // A document never saved has no path, only a name.
            if self.rng.chance(3) {
                let uri = format!("untitled:Untitled-{}", 1 + self.rng.below(9));
                if !self.docs.iter().any(|d| d.uri == uri) {
                    break uri;
                }
                continue;
            }
            let name = if language.snake() {
                format!("{}_{}", self.rng.pick(WORDS), self.rng.pick(WORDS))
            } else {
                format!("{}{}", self.rng.pick(WORDS), cap(self.rng.pick(WORDS)))
            };
            let uri = format!("file:///ws/{dir}/{name}.{}", language.extension());
            if !self.docs.iter().any(|d| d.uri == uri) {
                break uri;
            }
        };
        // The language id an editor gives is not always the language's own name: chat-lib's
        // import filter knows some ids and not others.
        let language_id = match (language, self.rng.below(20)) {
            (_, 0) => "plaintext",
            (Language::TypeScript, 1) => "typescriptreact",
            (Language::TypeScript, 2) => "javascript",
            (Language::TypeScript, 3) => "javascriptreact",
            (Language::Python, 1) => "",
            _ => language.id(),
        };
        self.docs.push(DocumentJson {
            uri,
            language_id: language_id.to_owned(),
            text: text.clone(),
        });
        self.langs.push(language);
        self.texts.push(text);
        self.docs.len() - 1
    }

    /// Puts the documents in a random order (the indices used while generating stay valid,
    /// since they are only read back through URIs).
    fn shuffle_documents(&mut self) {
        let mut order: Vec<usize> = (0..self.docs.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        let cursor = self.cursor.map(|(d, at)| (self.docs[d].uri.clone(), at));
        self.docs = order.iter().map(|&i| self.docs[i].clone()).collect();
        self.texts = order.iter().map(|&i| self.texts[i].clone()).collect();
        self.langs = order.iter().map(|&i| self.langs[i]).collect();
        if let Some((uri, at)) = cursor {
            let d = self.docs.iter().position(|x| x.uri == uri).expect("kept");
            self.cursor = Some((d, at));
        }
    }

    // ---- Edits. Each records the edit in UTF-16 units of the text at that moment.

    fn replace(&mut self, doc: usize, start: usize, end: usize, text: &str) {
        let now = &self.texts[doc];
        self.edits.push(EditJson {
            uri: self.docs[doc].uri.clone(),
            start: utf16_offset(now, start),
            end: utf16_offset(now, end),
            text: text.to_owned(),
        });
        self.texts[doc].replace_range(start..end, text);
    }

    /// Inserts `unit` at `caret` and returns the caret after it.
    fn type_unit(&mut self, doc: usize, caret: usize, unit: &str) -> usize {
        self.replace(doc, caret, caret, unit);
        caret + unit.len()
    }

    /// Types `text` one character at a time from `caret`, now and then a wrong character
    /// taken back with a backspace, and returns the caret after it.
    fn type_text(&mut self, doc: usize, mut caret: usize, text: &str, typos: bool) -> usize {
        for c in text.chars() {
            if typos && self.rng.chance(10) {
                let wrong = self.rng.pick(&['x', 'q', ';', ' ']);
                caret = self.type_unit(doc, caret, wrong.encode_utf8(&mut [0; 4]));
                self.replace(doc, caret - 1, caret, "");
                caret -= 1;
            }
            caret = self.type_unit(doc, caret, c.encode_utf8(&mut [0; 4]));
        }
        caret
    }

    /// Inserts one to five lines of code, in one of the ways an editor does: whole lines at a
    /// line start, Enter at the end of a line, or line by line.
    fn insert_lines(&mut self, doc: usize, line: Option<usize>) {
        let lines = lines_of(&self.texts[doc]);
        let line = line
            .unwrap_or_else(|| self.rng.below(lines.len()))
            .min(lines.len() - 1);
        let language = self.language_of(doc);
        let names: Vec<String> = words(&self.texts[doc])
            .into_iter()
            .filter(|_| self.rng.chance(5))
            .map(|(s, e)| self.texts[doc][s..e].to_owned())
            .filter(|w| !KEYWORDS.contains(&w.as_str()))
            .collect();
        let k = 1 + self.rng.below(5);
        let new: Vec<String> = (0..k)
            .map(|_| {
                if self.rng.chance(10) {
                    language.import_line(&mut self.rng)
                } else if self.rng.chance(10) {
                    String::new()
                } else {
                    language.statement(&mut self.rng, 1, &names)
                }
            })
            .collect();
        let (start, end) = lines[line];
        match self.rng.below(3) {
            0 => {
                let t: String = new.iter().map(|l| format!("{l}{}", self.eol)).collect();
                self.replace(doc, start, start, &t);
                self.notes
                    .push(format!("inserted {k} lines at line {line}"));
            }
            1 => {
                let t: String = new.iter().map(|l| format!("{}{l}", self.eol)).collect();
                self.replace(doc, end, end, &t);
                self.notes
                    .push(format!("inserted {k} lines after line {line}"));
            }
            _ => {
                let mut at = start;
                for l in &new {
                    let t = format!("{l}{}", self.eol);
                    self.replace(doc, at, at, &t);
                    at += t.len();
                }
                self.notes
                    .push(format!("inserted {k} lines one by one at line {line}"));
            }
        }
    }

    fn delete_lines(&mut self, doc: usize) {
        let text = self.texts[doc].clone();
        let lines = lines_of(&text);
        if lines.len() < 2 {
            self.replace(doc, 0, text.len(), "");
            self.notes.push("deleted everything".into());
            return;
        }
        let line = self.rng.below(lines.len() - 1);
        let k = (1 + self.rng.below(6)).min(lines.len() - 1 - line);
        match self.rng.below(3) {
            0 => {
                self.replace(doc, lines[line].0, lines[line + k].0, "");
                self.notes.push(format!("deleted {k} lines at line {line}"));
            }
            1 => {
                for _ in 0..k {
                    let now = lines_of(&self.texts[doc]);
                    self.replace(doc, now[line].0, now[line + 1].0, "");
                }
                self.notes
                    .push(format!("deleted {k} lines one by one at line {line}"));
            }
            _ => {
                // From inside one line to inside another: the lines are joined.
                let from = self.boundary_in_text(&text, lines[line].0, lines[line].1);
                let last = lines[line + k];
                let to = self.boundary_in_text(&text, last.0, last.1);
                self.replace(doc, from, to, "");
                self.notes
                    .push(format!("deleted from line {line} into line {}", line + k));
            }
        }
    }

    /// Replaces, types, inserts or deletes somewhere in the document, noting what it did.
    fn random_edit(&mut self, doc: usize) {
        let before = self.notes.len();
        let lines = lines_of(&self.texts[doc]);
        let line = self.rng.below(lines.len());
        let (start, end) = lines[line];
        let language = self.language_of(doc);
        match self.rng.below(14) {
            0..=3 => {
                self.edit_on_line(doc, line);
                self.notes.push(format!("edited line {line}"));
            }
            4 | 5 => self.insert_lines(doc, Some(line)),
            6 | 7 => self.delete_lines(doc),
            8 => {
                // Only white space: the history leaves out hunks whose lines are all blank.
                if self.rng.chance(50) {
                    self.replace(doc, start, start, language.indent());
                    self.notes.push(format!("indented line {line}"));
                } else {
                    self.replace(doc, end, end, "  ");
                    self.notes
                        .push(format!("added trailing spaces to line {line}"));
                }
            }
            9 => {
                let t = self.eol.repeat(1 + self.rng.below(2));
                self.replace(doc, start, start, &t);
                self.notes
                    .push(format!("inserted blank lines at line {line}"));
            }
            10 => {
                // A paste of many lines: a focal range longer than a page, and more changed
                // lines than Copilot's per-document history keeps.
                let n = 10 + self.rng.below(40);
                let mut t = code(&mut self.rng, language, n, Flavor::default()).join(self.eol);
                t.push_str(self.eol);
                self.replace(doc, start, start, &t);
                self.notes.push(format!("pasted {n} lines at line {line}"));
            }
            11 => {
                // Typed and taken back: the document is as it was.
                let word = self.rng.pick(WORDS);
                let caret = self.type_text(doc, end, word, false);
                self.replace(doc, end, caret, "");
                self.notes
                    .push(format!("typed and deleted {word:?} on line {line}"));
            }
            12 if self.rng.chance(15) => {
                // The whole document replaced, as a formatter does: indentation changed and
                // trailing white space trimmed, the code the same.
                let text = &self.texts[doc];
                let indent = language.indent();
                let other = if indent == "\t" { "    " } else { "\t" };
                let formatted = text
                    .split('\n')
                    .map(|l| {
                        let cr = l.ends_with('\r');
                        let l = l.trim_end();
                        let body = l.trim_start();
                        let depth = (l.len() - body.len()) / indent.len().max(1);
                        format!(
                            "{}{body}{}",
                            other.repeat(depth),
                            if cr { "\r" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let len = text.len();
                self.replace(doc, 0, len, &formatted);
                self.notes.push("reformatted the whole document".into());
            }
            12 => {
                // A replacement by the same text.
                let same = self.texts[doc][start..end].to_owned();
                self.replace(doc, start, end, &same);
                self.notes.push(format!("replaced line {line} by itself"));
            }
            _ => {
                let text = format!(" {}", self.rng.pick(WORDS));
                self.type_text(doc, end, &text, false);
                self.notes
                    .push(format!("typed {text:?} at the end of line {line}"));
            }
        }
        let uri = &self.docs[doc].uri;
        let name = uri.rsplit('/').next().unwrap_or(uri).to_owned();
        for note in &mut self.notes[before..] {
            *note = format!("{name}: {note}");
        }
    }

    /// [`Gen::random_edit`] without notes, for cases of many edits.
    fn random_edit_quiet(&mut self, doc: usize) {
        let saved = std::mem::take(&mut self.notes);
        self.random_edit(doc);
        self.notes = saved;
    }

    /// Renames a word of the line, or types at its end when it has none.
    fn edit_on_line(&mut self, doc: usize, line: usize) {
        let (start, end) = lines_of(&self.texts[doc])[line];
        let spans = words(&self.texts[doc][start..end]);
        if spans.is_empty() || self.rng.chance(30) {
            let text = format!(" {}", self.rng.pick(WORDS));
            let typos = self.rng.chance(30);
            self.type_text(doc, end, &text, typos);
        } else {
            let (s, e) = spans[self.rng.below(spans.len())];
            let new = format!(
                "{}{}",
                &self.texts[doc][start + s..start + e],
                cap(self.rng.pick(WORDS))
            );
            self.replace(doc, start + s, start + e, &new);
        }
    }

    // ---- The cursor and viewed ranges.

    fn cursor_on_line(&mut self, doc: usize, line: usize, at: At) {
        let lines = lines_of(&self.texts[doc]);
        let (start, end) = lines[line.min(lines.len() - 1)];
        let offset = match at {
            At::Start => start,
            At::End => end,
            At::Anywhere => self.boundary_in(doc, start, end),
        };
        self.cursor = Some((doc, offset));
    }

    fn random_cursor(&mut self, doc: usize) {
        let lines = lines_of(&self.texts[doc]).len();
        let line = self.rng.below(lines);
        let at = self
            .rng
            .pick(&[At::Start, At::End, At::Anywhere, At::Anywhere]);
        self.cursor_on_line(doc, line, at);
    }

    /// A random cursor, but not at offset 0 (which Copilot reads as no cursor at all); that
    /// case has its own kind.
    fn random_cursor_not_zero(&mut self, doc: usize) {
        self.random_cursor(doc);
        if self.cursor == Some((doc, 0)) {
            let len = self.texts[doc].len();
            let at = if len == 0 {
                0
            } else {
                lines_of(&self.texts[doc])[0].1
            };
            self.cursor = Some((doc, at));
        }
    }

    fn cursor_after_last_edit(&mut self, doc: usize) {
        let at = self.last_edit_end(doc).unwrap_or(0);
        self.cursor = Some((doc, at));
        self.notes.push("cursor after the last edit".into());
    }

    /// The byte offset just after the last edit of `doc`, in its text now.
    fn last_edit_end(&self, doc: usize) -> Option<usize> {
        let uri = &self.docs[doc].uri;
        let e = self.edits.iter().rev().find(|e| &e.uri == uri)?;
        let units = e.start + e.text.encode_utf16().count();
        nes::history::byte_offset(&self.texts[doc], units).ok()
    }

    /// The line of the last edit of `doc`, and its byte offset.
    fn edit_line(&self, doc: usize) -> (usize, usize) {
        let at = self.last_edit_end(doc).unwrap_or(0);
        let line = self.texts[doc][..at].matches('\n').count();
        (line, at)
    }

    /// A line with text that is not ASCII, or any line when there is none.
    fn multibyte_line(&mut self, doc: usize) -> usize {
        let text = &self.texts[doc];
        let lines = lines_of(text);
        let candidates: Vec<usize> = (0..lines.len())
            .filter(|&i| !text[lines[i].0..lines[i].1].is_ascii())
            .collect();
        if candidates.is_empty() {
            self.rng.below(lines.len())
        } else {
            candidates[self.rng.below(candidates.len())]
        }
    }

    /// A viewed range of the document as it is before the edits.
    fn view(&mut self, doc: usize) {
        let text = self.docs[doc].text.clone();
        let a = self.boundary_in_text(&text, 0, text.len());
        let b = self.boundary_in_text(&text, a, text.len());
        self.viewed.push(RangeJson {
            uri: self.docs[doc].uri.clone(),
            start: utf16_offset(&text, a),
            end: utf16_offset(&text, b),
        });
    }

    fn boundary_in(&mut self, doc: usize, start: usize, end: usize) -> usize {
        let text = std::mem::take(&mut self.texts[doc]);
        let at = self.boundary_in_text(&text, start, end);
        self.texts[doc] = text;
        at
    }

    /// A character boundary in `[start, end]`, never between `\r` and `\n`.
    fn boundary_in_text(&mut self, text: &str, start: usize, end: usize) -> usize {
        let mut at = start + self.rng.below(end - start + 1);
        while !text.is_char_boundary(at)
            || (text[..at].ends_with('\r') && text[at..].starts_with('\n'))
        {
            at -= 1;
        }
        at.max(start)
    }

    fn random_boundary(&mut self, doc: usize) -> usize {
        let len = self.texts[doc].len();
        self.boundary_in(doc, 0, len)
    }

    fn language_of(&self, doc: usize) -> Language {
        self.langs[doc]
    }

    fn finish(self, kind: Kind, seed: u64) -> Case {
        let (doc, at) = self.cursor.unwrap_or((0, 0));
        let text = &self.texts[doc];
        let before = &text[..at];
        let line = before.matches('\n').count();
        let column = utf16_offset(before, before.len())
            - before
                .rfind('\n')
                .map_or(0, |i| utf16_offset(before, i + 1));
        let offset = utf16_offset(text, at);
        let language = self.language_of(doc);
        let mut description = format!(
            "{} #{seed} ({} as {:?}, {} docs, {} edits): {}; cursor at {line}:{column} (offset {offset}) of {}",
            kind.name(),
            language.id(),
            self.docs[doc].language_id,
            self.docs.len(),
            self.edits.len(),
            self.notes.join("; "),
            self.docs[doc].uri,
        );
        if !self.viewed.is_empty() {
            description.push_str(&format!("; {} viewed ranges", self.viewed.len()));
        }
        // Every other case is in a workspace folder, as a file open in VS Code usually is: the
        // current file's path is then relative to it (or not, for a file outside it).
        let workspace_root = match seed % 4 {
            1 => Some("file:///ws".to_owned()),
            3 => Some("file:///ws/lib/".to_owned()),
            _ => None,
        };
        if let Some(root) = &workspace_root {
            description.push_str(&format!("; workspace folder {root}"));
        }
        let texts_now = self
            .docs
            .iter()
            .zip(&self.texts)
            .map(|(d, t)| (d.uri.clone(), t.clone()))
            .collect();
        Case {
            kind,
            seed,
            description,
            language,
            request: Request {
                cursor: CursorJson {
                    uri: self.docs[doc].uri.clone(),
                    offset,
                },
                documents: self.docs,
                edits: self.edits,
                viewed: self.viewed,
                options: Default::default(),
                workspace_root,
            },
            texts_now,
        }
    }
}
