//! Small facts about JavaScript's syntax the unbundler's stages share: which strings are
//! names, and which numbers are module ids.

/// Whether `name` can follow a dot (`exports.NAME`): ASCII identifier characters; reserved
/// words are allowed there.
pub(crate) fn is_identifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Whether `name` can be a variable name (ASCII identifiers, no reserved words).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !RESERVED.contains(&name)
}

const RESERVED: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
];

/// The property name a numeric key stands for, as the runtime looks it up: terser writes
/// `3e3:` for the module the runtime asks for as `3000`. Ids are whole numbers; another number
/// is not a module id.
pub(crate) fn number_key(value: f64) -> Option<String> {
    (value.fract() == 0.0 && (0.0..9.007_199_254_740_992e15).contains(&value))
        .then(|| format!("{}", value as u64))
}
