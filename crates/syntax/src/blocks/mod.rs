//! Where blocks start and end, for the multi-line decision and for trimming a streamed answer:
//! is the cursor at the start of an empty block, and has the answer finished the block body it
//! is writing?
//!
//! Copilot answers both questions with tree-sitter for Python, JavaScript, TypeScript, TSX and
//! Go (and Ruby, which pilotfish has no grammar for). The rules below follow its behaviour,
//! quirks included, because they decide when ghost text spans several lines; the differential
//! tests compare them with Copilot's own on generated documents. Offsets in the interface are
//! byte offsets into UTF-8 text.
//!
//! Documents are parsed as UTF-16, as Copilot's web-tree-sitter parses JavaScript strings:
//! tree-sitter's error recovery weighs candidate trees by their size in bytes, so the same
//! broken document can parse differently in UTF-8 and UTF-16, and half-typed code is the
//! normal case here.

use tree_sitter::{Node, Parser, Tree};

use crate::Lang;

mod empty_start;

/// A document as tree-sitter sees it here: UTF-16 code units, nodes' byte ranges twice
/// their unit ranges.
struct Doc<'a> {
    text: &'a str,
    units: Vec<u16>,
}

impl<'a> Doc<'a> {
    fn new(text: &'a str) -> Doc<'a> {
        Doc {
            text,
            units: text.encode_utf16().collect(),
        }
    }

    /// The UTF-16 index of a byte offset on a character boundary.
    fn unit_of(&self, byte: usize) -> usize {
        self.text[..byte].encode_utf16().count()
    }

    fn text_of(&self, node: Node<'_>) -> String {
        let (start, end) = (start(node), end(node));
        String::from_utf16_lossy(self.units.get(start..end).unwrap_or_default())
    }
}

fn start(node: Node<'_>) -> usize {
    node.start_byte() / 2
}

fn end(node: Node<'_>) -> usize {
    node.end_byte() / 2
}

/// How one language's blocks are recognised.
struct BlockRules {
    lang: Lang,
    /// Node types that own a block, and the type of that block child.
    node_match: &'static [(&'static str, &'static str)],
    /// Node types whose body may be a single statement instead of a block, and the field that
    /// holds it (`""`: the first named child).
    block_or_statement: &'static [(&'static str, &'static str)],
    /// Keywords that open a block when they sit under an ERROR node.
    start_keywords: &'static [&'static str],
    block_type: &'static str,
    empty_statement_type: Option<&'static str>,
    curly: bool,
    /// Go is judged by its lines: a line that starts a block, and a body that is empty.
    by_line: Option<LineRules>,
}

struct LineRules {
    empty_body: &'static str,
    keywords: &'static [&'static str],
}

const JS_STATEMENT_BLOCKS: &[(&str, &str)] = &[
    ("arrow_function", "statement_block"),
    ("catch_clause", "statement_block"),
    ("do_statement", "statement_block"),
    ("else_clause", "statement_block"),
    ("finally_clause", "statement_block"),
    ("for_in_statement", "statement_block"),
    ("for_statement", "statement_block"),
    ("function", "statement_block"),
    ("function_expression", "statement_block"),
    ("function_declaration", "statement_block"),
    ("generator_function", "statement_block"),
    ("generator_function_declaration", "statement_block"),
    ("if_statement", "statement_block"),
    ("method_definition", "statement_block"),
    ("try_statement", "statement_block"),
    ("while_statement", "statement_block"),
    ("with_statement", "statement_block"),
    ("class", "class_body"),
    ("class_declaration", "class_body"),
];

const TS_STATEMENT_BLOCKS: &[(&str, &str)] = &[
    ("ambient_declaration", "statement_block"),
    ("arrow_function", "statement_block"),
    ("catch_clause", "statement_block"),
    ("do_statement", "statement_block"),
    ("else_clause", "statement_block"),
    ("finally_clause", "statement_block"),
    ("for_in_statement", "statement_block"),
    ("for_statement", "statement_block"),
    ("function", "statement_block"),
    ("function_expression", "statement_block"),
    ("function_declaration", "statement_block"),
    ("generator_function", "statement_block"),
    ("generator_function_declaration", "statement_block"),
    ("if_statement", "statement_block"),
    ("internal_module", "statement_block"),
    ("method_definition", "statement_block"),
    ("module", "statement_block"),
    ("try_statement", "statement_block"),
    ("while_statement", "statement_block"),
    ("abstract_class_declaration", "class_body"),
    ("class", "class_body"),
    ("class_declaration", "class_body"),
];

const JS_BLOCK_OR_STATEMENT: &[(&str, &str)] = &[
    ("arrow_function", "body"),
    ("do_statement", "body"),
    ("else_clause", ""),
    ("for_in_statement", "body"),
    ("for_statement", "body"),
    ("if_statement", "consequence"),
    ("while_statement", "body"),
    ("with_statement", "body"),
];

const JS_KEYWORDS: &[&str] = &[
    "=>",
    "try",
    "catch",
    "finally",
    "do",
    "for",
    "if",
    "else",
    "while",
    "with",
    "function",
    "function*",
    "class",
];

const TS_KEYWORDS: &[&str] = &[
    "declare",
    "=>",
    "try",
    "catch",
    "finally",
    "do",
    "for",
    "if",
    "else",
    "while",
    "with",
    "function",
    "function*",
    "class",
];

const PYTHON: BlockRules = BlockRules {
    lang: Lang::Python,
    node_match: &[
        ("class_definition", "block"),
        ("elif_clause", "block"),
        ("else_clause", "block"),
        ("except_clause", "block"),
        ("finally_clause", "block"),
        ("for_statement", "block"),
        ("function_definition", "block"),
        ("if_statement", "block"),
        ("try_statement", "block"),
        ("while_statement", "block"),
        ("with_statement", "block"),
    ],
    block_or_statement: &[],
    start_keywords: &[
        "def", "class", "if", "elif", "else", "for", "while", "try", "except", "finally", "with",
    ],
    block_type: "block",
    empty_statement_type: None,
    curly: false,
    by_line: None,
};

const JAVASCRIPT: BlockRules = BlockRules {
    lang: Lang::JavaScript,
    node_match: JS_STATEMENT_BLOCKS,
    block_or_statement: JS_BLOCK_OR_STATEMENT,
    start_keywords: JS_KEYWORDS,
    block_type: "statement_block",
    empty_statement_type: Some("empty_statement"),
    curly: true,
    by_line: None,
};

const TYPESCRIPT: BlockRules = BlockRules {
    lang: Lang::TypeScript,
    node_match: TS_STATEMENT_BLOCKS,
    block_or_statement: JS_BLOCK_OR_STATEMENT,
    start_keywords: TS_KEYWORDS,
    block_type: "statement_block",
    empty_statement_type: Some("empty_statement"),
    curly: true,
    by_line: None,
};

const TSX: BlockRules = BlockRules {
    lang: Lang::Tsx,
    ..TYPESCRIPT
};

const GO: BlockRules = BlockRules {
    lang: Lang::Go,
    node_match: &[
        ("communication_case", "block"),
        ("default_case", "block"),
        ("expression_case", "block"),
        ("for_statement", "block"),
        ("func_literal", "block"),
        ("function_declaration", "block"),
        ("if_statement", "block"),
        ("labeled_statement", "block"),
        ("method_declaration", "block"),
        ("type_case", "block"),
    ],
    block_or_statement: &[],
    start_keywords: &[],
    block_type: "block",
    empty_statement_type: None,
    curly: true,
    by_line: Some(LineRules {
        empty_body: "{}",
        keywords: &["func", "if", "else", "for"],
    }),
};

/// The block rules for a VS Code language id, when pilotfish can parse its blocks.
fn rules(language_id: &str) -> Option<&'static BlockRules> {
    Some(match language_id {
        "python" => &PYTHON,
        "javascript" | "javascriptreact" | "jsx" => &JAVASCRIPT,
        "typescript" => &TYPESCRIPT,
        "typescriptreact" => &TSX,
        "go" => &GO,
        _ => return None,
    })
}

/// Whether blocks of this language are judged by parsing (otherwise by indentation).
pub fn parses_blocks(language_id: &str) -> bool {
    rules(language_id).is_some()
}

/// Whether the cursor at `offset` sits at the start of an empty block (after `def f():`, on
/// the empty line inside a fresh `{ }`), where Copilot asks for several lines.
///
/// False for languages without block rules and for offsets outside the text or inside a
/// character.
pub fn is_empty_block_start(language_id: &str, text: &str, offset: usize) -> bool {
    let Some(rules) = rules(language_id) else {
        return false;
    };
    if offset > text.len() || !text.is_char_boundary(offset) {
        return false;
    }
    match &rules.by_line {
        Some(lines) => rules.is_empty_block_start_by_line(lines, text, offset),
        None => rules.is_empty_block_start(text, offset),
    }
}

/// Whether `completion`, written after `prefix`, has finished the body of the block the cursor
/// is in; if so, the length in bytes of the completion up to the end of that block.
pub fn block_body_finished(language_id: &str, prefix: &str, completion: &str) -> Option<usize> {
    let rules = rules(language_id)?;
    let mut solution = String::with_capacity(prefix.len() + completion.len());
    solution.push_str(prefix);
    solution.push_str(completion);
    let solution = Doc::new(trim_js_end(&solution));
    // The cursor is at the end of the prefix, or at the end of the trimmed text if the trim
    // reached into the prefix.
    let cursor = solution.unit_of(prefix.len().min(solution.text.len()));
    let prefix_units = prefix.encode_utf16().count();
    let block_end = rules.next_block_at(&solution, cursor, end)?;
    if block_end >= solution.units.len() || block_end <= prefix_units {
        return None;
    }
    // Back to bytes of the completion; a cut inside a surrogate pair keeps the whole character.
    let completion_units = block_end - prefix_units;
    let mut seen = 0;
    for (i, c) in completion.char_indices() {
        if seen >= completion_units {
            return Some(i);
        }
        seen += c.len_utf16();
    }
    Some(completion.len())
}

fn trim_js_end(s: &str) -> &str {
    s.trim_end_matches(languages::is_js_whitespace)
}

fn trim_js(s: &str) -> &str {
    s.trim_matches(languages::is_js_whitespace)
}

fn is_blank(s: &str) -> bool {
    s.chars().all(languages::is_js_whitespace)
}

/// The offset just after the nearest non-white-space character before `offset` (0 if none).
fn rewind_to_non_white_space(text: &str, offset: usize) -> usize {
    trim_js_end(&text[..offset]).len()
}

fn all_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn first_named_child(node: Node<'_>) -> Option<Node<'_>> {
    node.named_child(0)
}

impl BlockRules {
    fn block_type_for(&self, kind: &str) -> Option<&'static str> {
        self.node_match
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, b)| *b)
    }

    fn block_or_statement_field(&self, kind: &str) -> Option<&'static str> {
        self.block_or_statement
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, f)| *f)
    }

    fn parse(&self, doc: &Doc<'_>) -> Option<Tree> {
        let mut parser = Parser::new();
        parser.set_language(&self.lang.grammar()).ok()?;
        parser.parse_utf16(&doc.units, None)
    }

    /// The node that owns the block the cursor is in: the nearest ancestor of the node at
    /// `offset` whose type owns a block, skipping `if (x) y;`-style nodes whose body is not a
    /// block in this tree.
    fn node_to_complete<'t>(&self, tree: &'t Tree, unit: usize) -> Option<Node<'t>> {
        let mut node = Some(
            tree.root_node()
                .descendant_for_byte_range(unit * 2, unit * 2)?,
        );
        while let Some(n) = node {
            if let Some(block_type) = self.block_type_for(n.kind()) {
                let Some(field) = self.block_or_statement_field(n.kind()) else {
                    return Some(n);
                };
                let child = if field.is_empty() {
                    first_named_child(n)
                } else {
                    n.child_by_field_name(field)
                };
                if child.is_some_and(|c| c.kind() == block_type) {
                    return Some(n);
                }
            }
            node = n.parent();
        }
        None
    }

    /// Finds the block below the node to complete and hands it to `f`, as Copilot does:
    /// the last child of the owner's block type, Python's trailing comments taken into the
    /// block, and nothing when the block runs to the end of a document with errors.
    fn next_block_at<R>(
        &self,
        doc: &Doc<'_>,
        unit: usize,
        f: impl FnOnce(Node<'_>) -> R,
    ) -> Option<R> {
        let tree = self.parse(doc)?;
        let owner = self.node_to_complete(&tree, unit)?;
        let block_type = self.block_type_for(owner.kind())?;
        let mut block = all_children(owner)
            .into_iter()
            .rev()
            .find(|c| c.kind() == block_type)?;
        if self.lang == Lang::Python
            && let Some(block_parent) = block.parent()
        {
            let parent = if block_parent.kind() == ":" {
                block_parent.parent()
            } else {
                Some(block_parent)
            };
            if let Some(parent) = parent {
                let mut next = parent.next_sibling();
                while let Some(comment) = next.filter(|n| n.kind() == "comment") {
                    let inline = comment.start_position().row == block.end_position().row
                        && comment.start_position().column >= block.end_position().column;
                    let after = comment.start_position().row > parent.end_position().row
                        && comment.start_position().column > parent.start_position().column;
                    if !(inline || after) {
                        break;
                    }
                    block = comment;
                    next = comment.next_sibling();
                }
            }
        }
        let root_end = end(tree.root_node());
        if end(block) + 1 >= root_end
            && (block.has_error() || block.parent().is_some_and(|p| p.has_error()))
        {
            return None;
        }
        Some(f(block))
    }

    fn is_block_empty(&self, block: Node<'_>, doc: &Doc<'_>) -> bool {
        let text = doc.text_of(block);
        let mut trimmed = trim_js(&text);
        if self.curly {
            trimmed = trimmed.strip_prefix('{').unwrap_or(trimmed);
            trimmed = trimmed.strip_suffix('}').unwrap_or(trimmed);
            trimmed = trim_js(trimmed);
        }
        if trimmed.is_empty() {
            return true;
        }
        self.lang == Lang::Python
            && block.parent().is_some_and(|p| {
                matches!(p.kind(), "class_definition" | "function_definition")
                    && block.child_count() == 1
                    && has_single_docstring(p)
            })
    }

    fn is_empty_block_start_by_line(&self, lines: &LineRules, text: &str, offset: usize) -> bool {
        let offset = rewind_to_non_white_space(text, offset);
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[line_start..line_end].trim_start_matches(languages::is_js_whitespace);
        if !lines.keywords.iter().any(|k| contains_word(line, k)) {
            return false;
        }
        let doc = Doc::new(text);
        let unit = doc.unit_of(offset);
        let empty = self.next_block_at(&doc, unit, |block| {
            let from = start(block).min(unit);
            let body =
                String::from_utf16_lossy(doc.units.get(from..end(block)).unwrap_or_default());
            let body = trim_js(&body);
            body.is_empty()
                || body
                    .chars()
                    .filter(|c| !languages::is_js_whitespace(*c))
                    .eq(lines.empty_body.chars())
        });
        empty.unwrap_or(true)
    }
}

/// Whether `word` occurs in `line` between word boundaries, as a regular expression's `\b`
/// sees them (ASCII word characters).
fn contains_word(line: &str, word: &str) -> bool {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = line.as_bytes();
    line.match_indices(word).any(|(i, _)| {
        let before = i == 0 || !is_word(bytes[i - 1]);
        let end = i + word.len();
        let after = end == bytes.len() || !is_word(bytes[end]);
        before && after
    })
}

/// A Python class or function whose block holds exactly one docstring, as Copilot's query
/// `(function_definition (block (expression_statement (string))))` counts them.
fn has_single_docstring(definition: Node<'_>) -> bool {
    fn count(node: Node<'_>) -> usize {
        let mut n = 0;
        if matches!(node.kind(), "class_definition" | "function_definition") {
            for block in all_children(node)
                .into_iter()
                .filter(|c| c.kind() == "block")
            {
                n += all_children(block)
                    .into_iter()
                    .filter(|s| {
                        s.kind() == "expression_statement"
                            && all_children(*s).iter().any(|c| c.kind() == "string")
                    })
                    .count();
            }
        }
        n + all_children(node).into_iter().map(count).sum::<usize>()
    }
    count(definition) == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_end(lang: &str, text: &str) -> bool {
        is_empty_block_start(lang, text, text.len())
    }

    #[test]
    fn empty_block_starts() {
        assert!(at_end("python", "def foo():\n    "));
        assert!(at_end("python", "class A:\n    def f(self):\n        "));
        assert!(!at_end("python", "x = 1\n"));
        assert!(at_end("typescript", "function f() {\n  "));
        assert!(at_end("javascript", "if (x) {\n  "));
        assert!(!at_end("javascript", "const x = 1;\n"));
        assert!(at_end("go", "func f() {\n\t"));
        assert!(!at_end("go", "x := 1\n"));
        assert!(!at_end("rust", "fn main() {\n    "));
        // Text after the cursor on its line means "not here".
        let t = "def foo():\n    pass";
        assert!(!is_empty_block_start("python", t, t.len() - 4));
    }

    #[test]
    fn finished_bodies() {
        let prefix = "def foo():\n    ";
        assert_eq!(
            block_body_finished("python", prefix, "return 1\n\nx = 2\n"),
            Some(8)
        );
        assert_eq!(block_body_finished("python", prefix, "return 1\n"), None);
        let prefix = "function f() {\n  ";
        let done = block_body_finished("javascript", prefix, "return 1;\n}\n\nconst y = 2;\n");
        assert_eq!(done, Some("return 1;\n}".len()));
    }

    #[test]
    fn offsets_never_panic() {
        for text in ["", "é", "def é():\n  ", "{\n\u{2028}"] {
            for offset in 0..=text.len() + 1 {
                for lang in [
                    "python",
                    "javascript",
                    "typescript",
                    "typescriptreact",
                    "go",
                ] {
                    let _ = is_empty_block_start(lang, text, offset);
                }
            }
        }
    }
}
