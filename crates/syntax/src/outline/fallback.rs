//! The line-based outline, for languages without a grammar here and for what a grammar could
//! not parse: lines that open a definition by a common keyword.

use super::{DefKind, Definition, is_test_name};

/// Keywords that open a definition in most languages, for the fallback outline.
const DEFINITION_WORDS: &[&str] = &[
    "def",
    "class",
    "function",
    "fn",
    "func",
    "fun",
    "struct",
    "enum",
    "trait",
    "interface",
    "type",
    "module",
    "sub",
    "proc",
    "procedure",
    "object",
    "record",
    "protocol",
    "extension",
    "impl",
    "macro",
    "defn",
    "defmodule",
    "let",
    "const",
    "val",
    "var",
];
/// Words that may come before the keyword.
const MODIFIER_WORDS: &[&str] = &[
    "pub",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "export",
    "async",
    "abstract",
    "final",
    "open",
    "override",
    "inline",
    "extern",
    "virtual",
    "sealed",
    "data",
    "local",
    "crate",
    "super",
    "unsafe",
    "default",
    "readonly",
    "declare",
];

/// An outline for languages without a grammar here: lines that open a definition by a common
/// keyword (`def`, `function`, `class`, ...), at the shallowest indentation they occur at or
/// one level in.
pub fn outline_by_lines(source: &str) -> Vec<Definition> {
    let mut out = Vec::new();
    for (row, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        // Comments, closing brackets and the like do not open definitions.
        if indent > 8
            || !trimmed
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        {
            continue;
        }
        let mut words = trimmed
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '!'))
            .filter(|w| !w.is_empty());
        let mut word = words.next();
        while word.is_some_and(|w| MODIFIER_WORDS.contains(&w)) {
            word = words.next();
        }
        let Some(mut keyword) = word.filter(|w| DEFINITION_WORDS.contains(w)) else {
            continue;
        };
        let Some(mut name) = words.next() else {
            continue;
        };
        // `type: string` is a property named `type`, not a type.
        if !trimmed.contains(&format!("{keyword} ")) {
            continue;
        }
        // `const fn`, `async function`: the second word is the keyword.
        while DEFINITION_WORDS.contains(&name) || MODIFIER_WORDS.contains(&name) {
            if DEFINITION_WORDS.contains(&name) {
                keyword = name;
            }
            match words.next() {
                Some(next) => name = next,
                None => break,
            }
        }
        let kind = match keyword {
            "class" | "struct" | "enum" | "trait" | "interface" | "type" | "object" | "record"
            | "protocol" => DefKind::Type,
            "let" | "const" | "val" | "var" => DefKind::Value,
            "module" | "impl" | "extension" | "defmodule" => DefKind::Block,
            _ => DefKind::Function,
        };
        if kind == DefKind::Value && indent > 0 {
            continue;
        }
        out.push(Definition {
            name: name.to_owned(),
            kind,
            container: None,
            owner: None,
            signature: line.trim_end().to_owned(),
            line: row,
            end_line: row,
            private: name.starts_with('_'),
            local: false,
            test: is_test_name(name),
        });
    }
    out
}
