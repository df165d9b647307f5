//! Outlines of source files: every definition with its name, kind, container and signature (its
//! lines up to where the body opens), so that a prompt can show a model the API a file offers
//! without its bodies.
//!
//! Signatures keep the file's own lines whole, indentation included: a model reads them as the
//! code it will call, and a line that is in the prompt is a line the model has seen verbatim.
//! Languages without a grammar here get a line-based fallback ([`outline_by_lines`]).

use tree_sitter::Node;

mod fallback;
mod go;
mod java;
mod python;
mod rust;
mod script;
#[cfg(test)]
mod tests;

pub use fallback::outline_by_lines;

use crate::{Lang, children, parse, text};

/// What a definition is, as far as a caller of it cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DefKind {
    Function,
    Method,
    /// Classes, structs, enums, interfaces, traits, type aliases.
    Type,
    /// Constants and variables.
    Value,
    /// Fields and properties of a type.
    Field,
    Macro,
    /// A container that is not itself called or named in code: an `impl` block, a module.
    Block,
}

/// One definition of a file's outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub kind: DefKind,
    /// The definition that contains this one (an index into the outline), if any.
    pub container: Option<usize>,
    /// The name of the type this belongs to: the class, the `impl`'s type, a Go receiver.
    pub owner: Option<String>,
    /// The definition's lines up to where its body opens, whole, with the body elided; short
    /// record-like types (structs, enums, small interfaces) whole.
    pub signature: String,
    /// 0-based line of the signature's first line.
    pub line: usize,
    /// 0-based last line of the whole definition, body included.
    pub end_line: usize,
    /// Not reachable from other files under the language's rules (a leading underscore in
    /// Python, no `pub` in Rust, a lower-case name in Go, `private` in Java/TypeScript).
    pub private: bool,
    /// Defined inside a function's body.
    pub local: bool,
    /// A test, or inside a test module.
    pub test: bool,
}

/// Lines of a signature kept at most; longer ones are cut with an ellipsis.
const MAX_SIGNATURE_LINES: usize = 12;
/// Record-like types up to this many lines are shown whole (their fields are their API).
const MAX_WHOLE_TYPE_LINES: usize = 8;
/// Lines of a value's definition shown.
const MAX_VALUE_LINES: usize = 3;

/// The outline of `source`, definitions in file order. Text that does not parse gives what
/// could be read.
pub fn outline(lang: Lang, source: &str) -> Vec<Definition> {
    let Some(tree) = parse(lang, source) else {
        return outline_by_lines(source);
    };
    let mut walker = Walker {
        lang,
        source,
        out: Vec::new(),
    };
    walker.visit_children(tree.root_node(), &Scope::default());
    let mut out = walker.out;
    if tree.root_node().has_error() {
        // Where the grammar lost its way (syntax newer than the grammar, a half-typed line),
        // definitions it missed are found line by line.
        let known: std::collections::HashSet<usize> = out.iter().map(|d| d.line).collect();
        let missed: Vec<Definition> = outline_by_lines(source)
            .into_iter()
            .filter(|d| !known.contains(&d.line))
            .collect();
        if !missed.is_empty() {
            // Containers are indices: keep them valid by appending, then order by line.
            let mut all: Vec<(usize, Definition)> = out.into_iter().enumerate().collect();
            let base = all.len();
            all.extend(missed.into_iter().enumerate().map(|(i, d)| (base + i, d)));
            all.sort_by_key(|(_, d)| d.line);
            let position: std::collections::HashMap<usize, usize> = all
                .iter()
                .enumerate()
                .map(|(new, (old, _))| (*old, new))
                .collect();
            out = all
                .into_iter()
                .map(|(_, mut d)| {
                    d.container = d.container.and_then(|c| position.get(&c).copied());
                    d
                })
                .collect();
        }
    }
    out
}

/// Words that are never a definition's name, whatever a confused parse says.
const RESERVED: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "return",
    "break",
    "continue",
    "try",
    "catch",
    "finally",
    "throw",
    "typeof",
    "instanceof",
    "await",
    "yield",
    "function",
    "const",
    "let",
    "var",
    "class",
    "import",
    "export",
];

/// Where the walk is: the containing definition and what it implies for those inside.
#[derive(Debug, Clone, Default)]
struct Scope {
    container: Option<usize>,
    owner: Option<String>,
    in_function: bool,
    in_test: bool,
    /// Directly inside a class or interface body (members are methods and fields there).
    in_type: bool,
}

struct Walker<'s> {
    lang: Lang,
    source: &'s str,
    out: Vec<Definition>,
}

impl<'s> Walker<'s> {
    fn visit_children(&mut self, node: Node<'_>, scope: &Scope) {
        for child in children(node) {
            self.visit(child, scope);
        }
    }

    fn name_of(&self, node: Node<'_>) -> Option<String> {
        node.child_by_field_name("name")
            .map(|n| text(n, self.source).to_owned())
            // Error recovery misreads keywords as names (`switch (x) {` as a method).
            .filter(|n| !n.is_empty() && !RESERVED.contains(&n.as_str()))
    }

    fn visit(&mut self, node: Node<'_>, scope: &Scope) {
        // Error recovery can wrap the rest of a file in one error node; definitions inside it
        // still parse as definitions.
        if node.kind() == "ERROR" {
            self.visit_children(node, scope);
            return;
        }
        match self.lang {
            Lang::Python => self.python(node, scope),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => self.script(node, scope, None),
            Lang::Rust => self.rust(node, scope),
            Lang::Go => self.go(node, scope),
            Lang::Java => self.java(node, scope),
        }
    }

    /// Records a definition and returns its index.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: String,
        kind: DefKind,
        start: Node<'_>,
        node: Node<'_>,
        signature: String,
        private: bool,
        scope: &Scope,
    ) -> usize {
        let test = scope.in_test || is_test_name(&name);
        self.out.push(Definition {
            name,
            kind,
            container: scope.container,
            owner: scope.owner.clone(),
            signature,
            line: start.start_position().row,
            end_line: node.end_position().row,
            private,
            local: scope.in_function,
            test,
        });
        self.out.len() - 1
    }

    /// The scope inside definition `index`.
    fn inner(&self, index: usize, scope: &Scope, function: bool, ty: bool) -> Scope {
        let def = &self.out[index];
        Scope {
            container: Some(index),
            owner: if ty {
                Some(def.name.clone())
            } else {
                scope.owner.clone()
            },
            in_function: scope.in_function || function,
            in_test: def.test,
            in_type: ty,
        }
    }
}

/// `Foo<T>` → `Foo`, `crate::a::Foo` → `Foo`, `&mut Foo` → `Foo`.
fn base_type_name(ty: &str) -> String {
    let ty = ty
        .trim()
        .trim_start_matches('&')
        .trim_start_matches("mut ")
        .trim();
    let ty = ty.split('<').next().unwrap_or(ty);
    ty.rsplit("::").next().unwrap_or(ty).trim().to_owned()
}

fn is_test_name(name: &str) -> bool {
    name.starts_with("test_") || name.starts_with("Test") && name.len() > 4
}

fn is_script_private(node: Node<'_>, source: &str, name: &str) -> bool {
    name.starts_with('#')
        || name.starts_with('_')
        || children(node).iter().any(|c| {
            c.kind() == "accessibility_modifier"
                && matches!(text(*c, source), "private" | "protected")
        })
}

/// Whether a Rust item carries `#[test]` or `#[cfg(test)]` just above it.
fn has_test_attribute(node: Node<'_>, source: &str) -> bool {
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        if p.kind() != "attribute_item" {
            break;
        }
        let t = text(p, source);
        if t.contains("test") {
            return true;
        }
        prev = p.prev_sibling();
    }
    false
}

/// `at`, or the start of the character it falls inside (offsets such as "the byte before a
/// node's end" can land inside a character).
fn char_floor(source: &str, at: usize) -> usize {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte offset where the line holding `at` starts.
fn line_start(source: &str, at: usize) -> usize {
    let at = char_floor(source, at);
    source[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Byte offset where the line holding `at` ends (before its `\r\n` or `\n`).
fn line_end(source: &str, at: usize) -> usize {
    let at = char_floor(source, at);
    let end = source[at..].find('\n').map_or(source.len(), |i| at + i);
    if end > at && source.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The whole lines from `node`'s first line, at most `max` of them, with an ellipsis line
/// when cut.
fn first_lines(source: &str, node: Node<'_>, max: usize) -> String {
    let start = line_start(source, node.start_byte());
    let end = line_end(
        source,
        node.end_byte().saturating_sub(1).max(node.start_byte()),
    );
    let whole = &source[start..end.max(start)];
    let mut lines: Vec<&str> = kept_lines(whole);
    if lines.len() > max {
        lines.truncate(max);
        let mut out = lines.join("\n");
        out.push_str(" ...");
        return out;
    }
    lines.join("\n")
}

/// A record-like type whole when short, else its header with the body elided.
fn whole_or_header(source: &str, node: Node<'_>, lang: Lang) -> String {
    let lines = node.end_position().row - node.start_position().row + 1;
    if lines <= MAX_WHOLE_TYPE_LINES {
        first_lines(source, node, MAX_WHOLE_TYPE_LINES)
    } else {
        signature_to_body(source, node, lang)
    }
}

/// [`signature_from`] for a node that is its own first line.
fn signature_to_body(source: &str, node: Node<'_>, lang: Lang) -> String {
    signature_from(source, node, node, lang)
}

/// The signature from `start`'s first line to where `node`'s body opens, as one line (see
/// [`one_line`]); the body elided (`{...}` for braces; nothing after Python's colon). Rust's
/// `where` clauses on lines of their own are left out, and an `impl`'s own type parameters. A
/// node without a body, or one on a single line, is given whole up to a limit.
fn signature_from(source: &str, start: Node<'_>, node: Node<'_>, lang: Lang) -> String {
    let from = line_start(source, start.start_byte());
    let body = node.child_by_field_name("body").or_else(|| {
        // Rust's `impl` and `trait` keep their items in a `declaration_list`, not `body`, in
        // some grammar versions; structs their fields.
        children(node)
            .into_iter()
            .find(|c| matches!(c.kind(), "declaration_list" | "field_declaration_list"))
    });
    let Some(body) = body else {
        let end = line_end(
            source,
            node.end_byte().saturating_sub(1).max(node.start_byte()),
        );
        return one_line(&source[from..end], lang);
    };
    if body.start_position().row == body.end_position().row
        && body.end_position().row == start.start_position().row
    {
        // One line: short enough to show as written.
        return one_line(
            &source[from..line_end(source, body.end_byte().saturating_sub(1))],
            lang,
        );
    }
    if lang == Lang::Python {
        // The body starts on the line after the colon; the signature ends with the colon's
        // line (which may carry a comment).
        let colon = body
            .prev_sibling()
            .map_or(body.start_byte(), |p| p.end_byte().saturating_sub(1));
        return one_line(&source[from..line_end(source, colon)], lang);
    }
    let open = body.start_byte();
    let end_of_line = line_end(source, open);
    let rest_of_line = source[open..end_of_line].trim();
    if !rest_of_line.starts_with('{') {
        // An expression body (`=> x`): keep its line as written.
        return one_line(&source[from..end_of_line], lang);
    }
    let head = without_rust_noise(source, from, open, start, node, lang);
    let mut out = one_line(head.trim_end(), lang);
    if out.ends_with(" ...") {
        out.push_str(" }");
    } else {
        out.push_str(" {...}");
    }
    out
}

/// `source[from..to]` less what a caller of a Rust item does not need: a `where` clause that
/// starts on a later line than the item, and an `impl`'s own type parameters (`impl<T>`).
fn without_rust_noise<'s>(
    source: &'s str,
    from: usize,
    to: usize,
    start: Node<'_>,
    node: Node<'_>,
    lang: Lang,
) -> std::borrow::Cow<'s, str> {
    if lang != Lang::Rust {
        return source[from..to].into();
    }
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for c in children(node) {
        let later_where =
            c.kind() == "where_clause" && c.start_position().row > start.start_position().row;
        // Only `<...>` right after the `impl` keyword: error recovery can call other text
        // type parameters.
        let impl_params = node.kind() == "impl_item"
            && c.kind() == "type_parameters"
            && source[node.start_byte()..c.start_byte()]
                .trim_end()
                .ends_with("impl")
            && !source[c.start_byte()..c.end_byte()].contains('\n');
        if (later_where || impl_params) && c.start_byte() >= from && c.end_byte() <= to {
            cuts.push((c.start_byte(), c.end_byte()));
        }
    }
    if cuts.is_empty() {
        return source[from..to].into();
    }
    let mut out = String::new();
    let mut at = from;
    for (s, e) in cuts {
        out.push_str(&source[at..s]);
        at = e;
    }
    out.push_str(&source[at..to]);
    out.into()
}

/// A signature's lines as one line: the first line as written (a model has seen it verbatim),
/// each later line trimmed and joined with a space, none after an opening bracket or before a
/// closing one, a trailing comma before a closing bracket dropped. Comment and attribute lines
/// are left out, and so are comments at the end of a line that another line follows (they would
/// comment the rest out). Past [`MAX_SIGNATURE_LINES`] lines the signature is cut with `...`.
fn one_line(text: &str, lang: Lang) -> String {
    let lines = kept_lines(text);
    let cut = lines.len() > MAX_SIGNATURE_LINES;
    let lines = &lines[..lines.len().min(MAX_SIGNATURE_LINES)];
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let piece = if last && !cut {
            *line
        } else {
            without_line_comment(line, lang)
        };
        if i == 0 {
            out.push_str(piece.trim_end());
            continue;
        }
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let closing = piece.starts_with([')', ']', '}', '>']);
        if closing && out.ends_with(',') {
            out.pop();
        }
        let glued = out.ends_with(['(', '[', '{', '<']) || closing || piece.starts_with([',', ';']);
        if !glued && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(piece);
    }
    if cut {
        out.push_str(" ...");
    }
    out
}

/// `line` without a comment at its end (`# ...` in Python, `// ...` elsewhere), where the
/// marker is outside quotes.
fn without_line_comment(line: &str, lang: Lang) -> &str {
    let marker = if lang == Lang::Python { "#" } else { "//" };
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if matches!(c, '"' | '\'' | '`') {
            quote = Some(c);
        } else if line[i..].starts_with(marker) {
            return line[..i].trim_end();
        }
    }
    line
}

/// Whether a line inside a signature is only a comment or an attribute, which a model does not
/// need to write a call and which would cost tokens.
fn noise_line(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty()
        || t.starts_with("//")
        || t.starts_with("/*")
        || t == "*"
        || t.starts_with("* ")
        || t.starts_with("*/")
        || t.starts_with("#[")
        || (t.starts_with('#') && !t.starts_with("#!"))
}

/// The lines of `text`, the first always and the others unless they are [`noise_line`]s.
fn kept_lines(text: &str) -> Vec<&str> {
    text.lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || !noise_line(l))
        .map(|(_, l)| l)
        .collect()
}
