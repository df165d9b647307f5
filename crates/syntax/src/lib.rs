//! What a source file imports and what it declares, for the imported-context part of a
//! prompt: parse the current file's imports, resolve them to workspace files, and give the
//! declarations of the imported names with their bodies left out.
//!
//! Parsing uses tree-sitter grammars compiled into the binary. Reading files is the caller's:
//! resolution asks a `read` function for candidate paths, so this crate does no I/O.
//!
//! ```
//! use syntax::{Lang, imports};
//! let found = imports(Lang::Python, "from .cart import Cart, total\nimport os\n");
//! assert_eq!(found[0].module, ".cart");
//! assert_eq!(found[0].names, ["Cart", "total"]);
//! ```

pub mod blocks;
pub mod outline;
mod resolve;

pub use resolve::{
    ImportedDeclarations, WorkspaceFiles, imported_declarations, resolve_candidates,
};
use tree_sitter::{Node, Parser, Tree};

/// The languages whose imports pilotfish follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Rust,
    Go,
    Java,
}

impl Lang {
    /// The language for a VS Code language id, if imports are followed for it.
    pub fn from_language_id(id: &str) -> Option<Lang> {
        Some(match id {
            "typescript" => Lang::TypeScript,
            "typescriptreact" => Lang::Tsx,
            "javascript" | "javascriptreact" | "jsx" => Lang::JavaScript,
            "python" => Lang::Python,
            "rust" => Lang::Rust,
            "go" => Lang::Go,
            "java" => Lang::Java,
            _ => return None,
        })
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }
}

/// One import statement's module and the names it brings in (empty: the module as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// As written: `./cart`, `.cart`, `crate::cart`, `example.com/shop/cart`, `com.shop.Cart`.
    pub module: String,
    /// The names imported from it, as declared there (not their local aliases).
    pub names: Vec<String>,
    /// The name the module is used under in the importing file (Go package names, Python
    /// module imports), when that is how its members are reached.
    pub alias: Option<String>,
}

/// A top-level declaration with its body left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub name: String,
    /// The declaration's text, function bodies replaced by an ellipsis.
    pub text: String,
}

fn parse(lang: Lang, source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(source, None)
}

fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    node.utf8_text(source.as_bytes()).unwrap_or_default()
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The imports of `source`, in order. Unparsable text gives what could be read.
pub fn imports(lang: Lang, source: &str) -> Vec<Import> {
    let Some(tree) = parse(lang, source) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut out = Vec::new();
    for node in children(root) {
        match (lang, node.kind()) {
            (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "import_statement") => {
                if let Some(import) = js_import(node, source) {
                    out.push(import);
                }
            }
            (Lang::Python, "import_from_statement") => {
                let module = node
                    .child_by_field_name("module_name")
                    .map(|m| text(m, source).to_owned())
                    .unwrap_or_default();
                let mut names = Vec::new();
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let declared = match name.kind() {
                        "aliased_import" => {
                            name.child_by_field_name("name").map(|n| text(n, source))
                        }
                        _ => Some(text(name, source)),
                    };
                    names.extend(declared.map(str::to_owned));
                }
                out.push(Import {
                    module,
                    names,
                    alias: None,
                });
            }
            (Lang::Python, "import_statement") => {
                for name in children(node) {
                    let (module, alias) = match name.kind() {
                        "aliased_import" => (
                            name.child_by_field_name("name")
                                .map(|n| text(n, source).to_owned())
                                .unwrap_or_default(),
                            name.child_by_field_name("alias")
                                .map(|n| text(n, source).to_owned()),
                        ),
                        _ => (text(name, source).to_owned(), None),
                    };
                    let alias = alias.or_else(|| Some(module.clone()));
                    out.push(Import {
                        module,
                        names: Vec::new(),
                        alias,
                    });
                }
            }
            (Lang::Rust, "use_declaration") => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    rust_use_paths(arg, source, String::new(), &mut out);
                }
            }
            (Lang::Go, "import_declaration") => go_imports(node, source, &mut out),
            (Lang::Java, "import_declaration") => {
                let path = children(node)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"));
                if let Some(path) = path {
                    let full = text(path, source);
                    let wildcard = children(node).iter().any(|c| c.kind() == "asterisk");
                    let (module, name) = match full.rsplit_once('.') {
                        Some((m, n)) if !wildcard => (m.to_owned(), vec![n.to_owned()]),
                        _ => (full.to_owned(), Vec::new()),
                    };
                    out.push(Import {
                        module,
                        names: name,
                        alias: None,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

fn js_import(node: Node<'_>, source: &str) -> Option<Import> {
    let module = unquote(text(node.child_by_field_name("source")?, source));
    let mut names = Vec::new();
    let mut alias = None;
    for child in children(node) {
        if child.kind() != "import_clause" {
            continue;
        }
        for part in children(child) {
            match part.kind() {
                "named_imports" => {
                    for spec in children(part) {
                        if spec.kind() == "import_specifier"
                            && let Some(name) = spec.child_by_field_name("name")
                        {
                            names.push(unquote(text(name, source)));
                        }
                    }
                }
                "identifier" => names.push("default".to_owned()),
                "namespace_import" => {
                    alias = children(part).first().map(|n| text(*n, source).to_owned());
                }
                _ => {}
            }
        }
    }
    Some(Import {
        module,
        names,
        alias,
    })
}

/// Flattens a Rust `use` tree into one import per path, the last segment being the name.
fn rust_use_paths(node: Node<'_>, source: &str, prefix: String, out: &mut Vec<Import>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_owned()
        } else {
            format!("{a}::{b}")
        }
    };
    match node.kind() {
        "scoped_use_list" => {
            let base = node
                .child_by_field_name("path")
                .map(|p| join(&prefix, text(p, source)))
                .unwrap_or(prefix.clone());
            if let Some(list) = node.child_by_field_name("list") {
                for item in children(list) {
                    rust_use_paths(item, source, base.clone(), out);
                }
            }
        }
        "use_list" => {
            for item in children(node) {
                rust_use_paths(item, source, prefix.clone(), out);
            }
        }
        "use_as_clause" => {
            if let Some(path) = node.child_by_field_name("path") {
                rust_use_paths(path, source, prefix, out);
            }
        }
        "use_wildcard" => {
            let path = text(node, source)
                .trim_end_matches("::*")
                .trim_end_matches('*');
            out.push(Import {
                module: join(&prefix, path),
                names: Vec::new(),
                alias: None,
            });
        }
        "self" => out.push(Import {
            module: prefix,
            names: Vec::new(),
            alias: None,
        }),
        _ => {
            let full = join(&prefix, text(node, source));
            match full.rsplit_once("::") {
                Some((module, name)) => out.push(Import {
                    module: module.to_owned(),
                    names: vec![name.to_owned()],
                    alias: None,
                }),
                None => out.push(Import {
                    module: full,
                    names: Vec::new(),
                    alias: None,
                }),
            }
        }
    }
}

fn go_imports(node: Node<'_>, source: &str, out: &mut Vec<Import>) {
    let mut specs = Vec::new();
    for child in children(node) {
        match child.kind() {
            "import_spec" => specs.push(child),
            "import_spec_list" => specs.extend(
                children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "import_spec"),
            ),
            _ => {}
        }
    }
    for spec in specs {
        let Some(path) = spec.child_by_field_name("path") else {
            continue;
        };
        let module = unquote(text(path, source));
        let alias = spec
            .child_by_field_name("name")
            .map(|n| text(n, source).to_owned())
            .or_else(|| module.rsplit('/').next().map(str::to_owned));
        out.push(Import {
            module,
            names: Vec::new(),
            alias,
        });
    }
}

/// The top-level declarations of `source` that other files can import, with bodies elided.
pub fn declarations(lang: Lang, source: &str) -> Vec<Declaration> {
    let Some(tree) = parse(lang, source) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for node in children(tree.root_node()) {
        collect_declarations(lang, node, source, &mut out);
    }
    out
}

/// The declarations one top-level node gives, by each language's rule of what other files
/// can import.
fn collect_declarations(lang: Lang, node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            script_declarations(lang, node, source, out);
        }
        Lang::Python => python_declarations(node, source, out),
        Lang::Rust => rust_declarations(node, source, out),
        Lang::Go => go_declarations(node, source, out),
        Lang::Java => java_declarations(node, source, out),
    }
}

/// The text of a node's `name` field.
fn name_of(node: Node<'_>, source: &str) -> Option<String> {
    node.child_by_field_name("name")
        .map(|x| text(x, source).to_owned())
}

/// TypeScript and JavaScript: what an `export` statement declares (each variable of an
/// exported `const`), and `default` for a default export.
fn script_declarations(lang: Lang, node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    if node.kind() != "export_statement" {
        return;
    }
    let default = children(node).is_empty() || text(node, source).starts_with("export default");
    let Some(decl) = node.child_by_field_name("declaration") else {
        return;
    };
    let names: Vec<String> = match decl.kind() {
        "lexical_declaration" | "variable_declaration" => children(decl)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
            .filter_map(|d| name_of(d, source))
            .collect(),
        _ => name_of(decl, source).into_iter().collect(),
    };
    let body = elide_bodies(lang, node, source);
    for name in names {
        out.push(Declaration {
            name,
            text: body.clone(),
        });
    }
    if default {
        out.push(Declaration {
            name: "default".to_owned(),
            text: body,
        });
    }
}

/// Python: functions and classes (decorated or not) with bodies elided, and assignments to
/// a plain name whole.
fn python_declarations(node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    let defined = match node.kind() {
        "function_definition" | "class_definition" => Some(node),
        "decorated_definition" => node.child_by_field_name("definition"),
        "expression_statement" => {
            if let Some(assign) = children(node)
                .into_iter()
                .find(|c| c.kind() == "assignment")
                && let Some(left) = assign.child_by_field_name("left")
                && left.kind() == "identifier"
            {
                out.push(Declaration {
                    name: text(left, source).to_owned(),
                    text: text(node, source).to_owned(),
                });
            }
            return;
        }
        _ => return,
    };
    if let Some(name) = defined.and_then(|d| name_of(d, source)) {
        out.push(Declaration {
            name,
            text: elide_bodies(Lang::Python, node, source),
        });
    }
}

/// Rust: `pub` items with bodies elided.
fn rust_declarations(node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    let kind = node.kind();
    if !kind.ends_with("_item") || kind == "use_declaration" {
        return;
    }
    let public = children(node)
        .iter()
        .any(|c| c.kind() == "visibility_modifier");
    if public && let Some(name) = name_of(node, source) {
        out.push(Declaration {
            name,
            text: elide_bodies(Lang::Rust, node, source),
        });
    }
}

/// Go: exported (capitalised) functions and methods with bodies elided, and exported types,
/// constants and variables with their whole declaration.
fn go_declarations(node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    match node.kind() {
        "function_declaration" | "method_declaration" => {
            if let Some(name) = name_of(node, source)
                && name.starts_with(char::is_uppercase)
            {
                out.push(Declaration {
                    name,
                    text: elide_bodies(Lang::Go, node, source),
                });
            }
        }
        "type_declaration" | "const_declaration" | "var_declaration" => {
            for spec in children(node) {
                if let Some(name) = name_of(spec, source)
                    .or_else(|| children(spec).first().map(|n| text(*n, source).to_owned()))
                    && name.starts_with(char::is_uppercase)
                {
                    out.push(Declaration {
                        name,
                        text: text(node, source).to_owned(),
                    });
                }
            }
        }
        _ => {}
    }
}

/// Java: classes, interfaces, enums and records with bodies elided.
fn java_declarations(node: Node<'_>, source: &str, out: &mut Vec<Declaration>) {
    if matches!(
        node.kind(),
        "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration"
    ) && let Some(name) = name_of(node, source)
    {
        out.push(Declaration {
            name,
            text: elide_bodies(Lang::Java, node, source),
        });
    }
}

/// The node's text with the bodies of functions and methods replaced by an ellipsis.
fn elide_bodies(lang: Lang, node: Node<'_>, source: &str) -> String {
    let mut bodies: Vec<(usize, usize)> = Vec::new();
    collect_bodies(lang, node, &mut bodies);
    let (start, end) = (node.start_byte(), node.end_byte());
    let mut out = String::new();
    let mut at = start;
    for (s, e) in bodies {
        if s < at {
            continue;
        }
        out.push_str(&source[at..s]);
        out.push_str(match lang {
            Lang::Python => "...",
            _ => "{ ... }",
        });
        at = e;
    }
    out.push_str(&source[at..end]);
    out
}

fn collect_bodies(lang: Lang, node: Node<'_>, out: &mut Vec<(usize, usize)>) {
    let is_function = matches!(
        node.kind(),
        "function_declaration"
            | "function_definition"
            | "function_item"
            | "method_definition"
            | "method_declaration"
            | "constructor_declaration"
            | "arrow_function"
            | "function_expression"
    );
    if is_function && let Some(body) = node.child_by_field_name("body") {
        // Python keeps a docstring when the body opens with one.
        if lang == Lang::Python
            && let Some(first) = children(body).first()
            && first.kind() == "expression_statement"
            && children(*first)
                .first()
                .is_some_and(|s| s.kind() == "string")
        {
            let after_doc = first.end_byte();
            if after_doc < body.end_byte() {
                out.push((after_doc, body.end_byte()));
            }
            return;
        }
        out.push((body.start_byte(), body.end_byte()));
        return;
    }
    for child in children(node) {
        collect_bodies(lang, child, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads() {
        // A grammar of an ABI the runtime does not know fails to load, and parsing then
        // silently finds nothing; pinned versions must stay compatible.
        for lang in [
            Lang::TypeScript,
            Lang::Tsx,
            Lang::JavaScript,
            Lang::Python,
            Lang::Rust,
            Lang::Go,
            Lang::Java,
        ] {
            assert!(parse(lang, "x").is_some(), "{lang:?} grammar does not load");
        }
    }

    #[test]
    fn typescript() {
        let src = "import { Cart, total as sum } from './cart';\nimport * as money from \"../money\";\nimport React from 'react';\n";
        let i = imports(Lang::TypeScript, src);
        assert_eq!(
            i[0],
            Import {
                module: "./cart".into(),
                names: vec!["Cart".into(), "total".into()],
                alias: None
            }
        );
        assert_eq!(i[1].alias.as_deref(), Some("money"));
        assert_eq!(i[2].names, ["default"]);
        let d = declarations(
            Lang::TypeScript,
            "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\nexport const RATE = 0.2;\nfunction hidden() {}\n",
        );
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0].text,
            "export function total(xs: number[]): number { ... }"
        );
        assert_eq!(d[1].name, "RATE");
    }

    #[test]
    fn python() {
        let d = declarations(
            Lang::Python,
            "import os\n\ndef total(xs):\n    \"\"\"Sum.\"\"\"\n    return sum(xs)\n\nclass Cart:\n    def add(self, x):\n        self.x = x\n\nRATE = 2\n",
        );
        let names: Vec<_> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["total", "Cart", "RATE"]);
        assert_eq!(d[0].text, "def total(xs):\n    \"\"\"Sum.\"\"\"...");
        assert_eq!(d[1].text, "class Cart:\n    def add(self, x):\n        ...");
        let i = imports(
            Lang::Python,
            "import numpy as np\nfrom ..a.b import c as d\n",
        );
        assert_eq!(i[0].alias.as_deref(), Some("np"));
        assert_eq!(
            i[1],
            Import {
                module: "..a.b".into(),
                names: vec!["c".into()],
                alias: None
            }
        );
    }

    #[test]
    fn rust() {
        let i = imports(
            Lang::Rust,
            "use crate::cart::{Cart, total as sum, money::Money};\nuse std::fmt;\n",
        );
        let flat: Vec<_> = i
            .iter()
            .map(|i| format!("{}:{}", i.module, i.names.join(",")))
            .collect();
        assert_eq!(
            flat,
            [
                "crate::cart:Cart",
                "crate::cart:total",
                "crate::cart::money:Money",
                "std:fmt"
            ]
        );
        let d = declarations(
            Lang::Rust,
            "pub fn total(xs: &[u32]) -> u32 {\n    xs.iter().sum()\n}\nfn private() {}\npub struct Cart { pub lines: Vec<u32> }\n",
        );
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].text, "pub fn total(xs: &[u32]) -> u32 { ... }");
    }

    #[test]
    fn go_and_java() {
        let i = imports(
            Lang::Go,
            "package main\nimport (\n  \"fmt\"\n  m \"example.com/shop/money\"\n)\n",
        );
        assert_eq!(
            i[1],
            Import {
                module: "example.com/shop/money".into(),
                names: vec![],
                alias: Some("m".into())
            }
        );
        let d = declarations(
            Lang::Go,
            "package money\nfunc Round(x float64) float64 {\n\treturn x\n}\nfunc private() {}\ntype Amount struct{ Cents int }\n",
        );
        let names: Vec<_> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["Round", "Amount"]);
        let i = imports(Lang::Java, "import com.shop.Cart;\nimport java.util.*;\n");
        assert_eq!(
            i[0],
            Import {
                module: "com.shop".into(),
                names: vec!["Cart".into()],
                alias: None
            }
        );
        let d = declarations(
            Lang::Java,
            "package com.shop;\npublic class Cart {\n  public int total() {\n    return 1;\n  }\n}\n",
        );
        assert_eq!(
            d[0].text,
            "public class Cart {\n  public int total() { ... }\n}"
        );
    }
}

/// A syntax error: where (0-based line and column in bytes) and what the parser found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The syntax errors tree-sitter finds in `source`: nodes it could not parse, and tokens it had
/// to assume were there. At most 20, in order.
pub fn syntax_errors(lang: Lang, source: &str) -> Vec<SyntaxError> {
    let Some(tree) = parse(lang, source) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if out.len() >= 20 {
            break;
        }
        if !node.has_error() && !node.is_missing() {
            continue;
        }
        let at = node.start_position();
        if node.is_missing() {
            out.push(SyntaxError {
                line: at.row,
                column: at.column,
                message: format!("missing `{}`", node.kind()),
            });
            continue;
        }
        if node.is_error() {
            let text: String = source
                .get(node.start_byte()..node.end_byte())
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect();
            out.push(SyntaxError {
                line: at.row,
                column: at.column,
                message: format!("syntax error at `{}`", text.trim()),
            });
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|e| (e.line, e.column));
    out
}

/// The last line (0-based) of the largest syntax node that starts at the first character of
/// line `line` and ends on a later line: the function, class or block that line opens. `None`
/// when no such node starts there (or the text does not parse there).
pub fn block_end_line(lang: Lang, source: &str, line: usize) -> Option<usize> {
    let tree = parse(lang, source)?;
    let text_line = source.lines().nth(line)?;
    let column = text_line.len() - text_line.trim_start().len();
    let point = tree_sitter::Point::new(line, column);
    let mut node = tree.root_node().descendant_for_point_range(point, point)?;
    let mut best = None;
    // Climb while the ancestor still starts at that very point.
    loop {
        // The whole file is no block of its own.
        if node.parent().is_some()
            && node.start_position() == point
            && node.end_position().row > line
            && !node.has_error()
        {
            best = Some(node.end_position().row);
        }
        match node.parent() {
            Some(p) if p.start_position() == point => node = p,
            _ => break,
        }
    }
    best
}
