//! Is the cursor at the start of an empty block? The tree-sitter half of the question, for the
//! languages judged by parsing (Go is judged by its lines in `mod.rs`).
//!
//! This mirrors `TreeSitterBasedBlockParser.isEmptyBlockStart` in Copilot's block parser and is
//! split along that method's own steps: the cursor at the end of its line, the node before it,
//! the JavaScript empty object and the TypeScript signature shortcuts, then a walk up to the
//! first block, block owner or `ERROR` node, and one judgement for each of the three.

use tree_sitter::Node;

use super::{
    BlockRules, Doc, all_children, end, is_blank, rewind_to_non_white_space, start, trim_js,
};
use crate::Lang;

/// What the walk up from the node before the cursor meets first.
enum Enclosing<'t> {
    /// A node of the language's block type (`block`, `statement_block`).
    Block(Node<'t>),
    /// A node that owns a block (a function, an `if`, a class).
    Owner(Node<'t>),
    /// An `ERROR` node: the construct around the cursor is half typed.
    Error(Node<'t>),
}

impl BlockRules {
    pub(super) fn is_empty_block_start(&self, text: &str, offset: usize) -> bool {
        // The cursor must be at the end of its line, white space aside.
        let rest = &text[offset..];
        let rest_of_line = rest.split('\n').next().unwrap_or_default();
        if !is_blank(rest_of_line) {
            return false;
        }
        let doc = Doc::new(text);
        let offset = doc.unit_of(rewind_to_non_white_space(text, offset));
        let Some(tree) = self.parse(&doc) else {
            return false;
        };
        // Copilot asks for the node at the UTF-16 unit before the cursor.
        let index = offset.saturating_sub(1) * 2;
        let Some(at) = tree.root_node().descendant_for_byte_range(index, index) else {
            return false;
        };
        if self.curly && at.kind() == "}" {
            return false;
        }
        if self.opens_empty_object(at, &doc) {
            return true;
        }
        if let Some(answer) = self.typescript_signature(at, offset, &doc) {
            return answer;
        }
        match self.enclosing(at) {
            Some(Enclosing::Block(block)) => self.block_is_empty_start(block, &doc),
            Some(Enclosing::Error(error)) => self.error_is_empty_start(error, at, &doc),
            Some(Enclosing::Owner(owner)) => self.owner_is_empty_start(owner, &doc),
            None => false,
        }
    }

    /// JavaScript and TypeScript: the cursor just after the `{` of an object literal that
    /// holds nothing yet.
    fn opens_empty_object(&self, at: Node<'_>, doc: &Doc<'_>) -> bool {
        matches!(self.lang, Lang::JavaScript | Lang::TypeScript)
            && at
                .parent()
                .is_some_and(|p| p.kind() == "object" && trim_js(&doc.text_of(p)) == "{")
    }

    /// TypeScript: inside a function or method signature, the answer is settled there: empty
    /// when the signature has no `;` and ends before the cursor, or when it is broken and the
    /// next line is outdented. `None` outside a signature.
    fn typescript_signature(&self, at: Node<'_>, offset: usize, doc: &Doc<'_>) -> Option<bool> {
        if self.lang != Lang::TypeScript {
            return None;
        }
        let mut current = at;
        while let Some(parent) = current.parent() {
            if matches!(current.kind(), "function_signature" | "method_signature") {
                if let Some(next) = at.next_sibling()
                    && current.has_error()
                    && outdented(current, next, doc)
                {
                    return Some(true);
                }
                let semicolon = all_children(current).iter().any(|c| c.kind() == ";");
                return Some(!semicolon && end(current) <= offset);
            }
            current = parent;
        }
        None
    }

    /// The first block, block owner or `ERROR` node at or above `at`.
    fn enclosing<'t>(&self, at: Node<'t>) -> Option<Enclosing<'t>> {
        let mut current = Some(at);
        while let Some(n) = current {
            if n.kind() == self.block_type {
                return Some(Enclosing::Block(n));
            }
            if self.block_type_for(n.kind()).is_some() {
                return Some(Enclosing::Owner(n));
            }
            if n.kind() == "ERROR" {
                return Some(Enclosing::Error(n));
            }
            current = n.parent();
        }
        None
    }

    /// Inside a block: empty when the block is, or (Python) when an unfinished docstring
    /// stands just before it. A block whose parent owns no block is no block start.
    fn block_is_empty_start(&self, block: Node<'_>, doc: &Doc<'_>) -> bool {
        if block
            .parent()
            .is_none_or(|p| self.block_type_for(p.kind()).is_none())
        {
            return false;
        }
        if self.lang == Lang::Python
            && let Some(prev) = block.prev_sibling()
            && prev.has_error()
            && (doc.text_of(prev).starts_with("\"\"\"") || doc.text_of(prev).starts_with("'''"))
        {
            return true;
        }
        self.is_block_empty(block, doc)
    }

    /// Inside an `ERROR` node: a block start when a block-opening keyword stands in it and
    /// the language's own checks do not rule it out, and the block after the keyword, if
    /// any, is empty.
    fn error_is_empty_start(&self, error: Node<'_>, at: Node<'_>, doc: &Doc<'_>) -> bool {
        if error
            .prev_sibling()
            .is_some_and(|p| matches!(p.kind(), "module" | "internal_module" | "def"))
        {
            return true;
        }
        if self.lang == Lang::Python && opens_python_string(error, doc) {
            return true;
        }
        let children = all_children(error);
        let Some(keyword) = children
            .iter()
            .rev()
            .find(|c| self.start_keywords.contains(&c.kind()))
            .copied()
        else {
            return false;
        };
        let mut block = children
            .iter()
            .rev()
            .find(|c| c.kind() == self.block_type)
            .copied();
        match self.lang {
            Lang::Python => {
                if keyword.kind() == "try" && at.kind() == "identifier" && end(at) - start(at) > 4 {
                    block =
                        children.iter().rev().find(|c| c.has_error()).and_then(|c| {
                            all_children(*c).into_iter().find(|g| g.kind() == "block")
                        });
                }
                if let Some(answer) = python_after_colon(&children, keyword, doc) {
                    return answer;
                }
            }
            Lang::JavaScript | Lang::TypeScript => {
                if let Some(answer) = self.script_keyword(&children, keyword) {
                    return answer;
                }
            }
            _ => {}
        }
        if let Some(block) = block
            && start(block) > end(keyword)
        {
            return self.is_block_empty(block, doc);
        }
        true
    }

    /// JavaScript and TypeScript's checks on a keyword in an `ERROR` node; `None` when they
    /// leave the question open. `children` are the `ERROR` node's children.
    fn script_keyword(&self, children: &[Node<'_>], keyword: Node<'_>) -> Option<bool> {
        if self.lang == Lang::JavaScript && keyword.kind() == "class" {
            // The grammars pilotfish ships are newer than version 13.
            if let Some(i) = children
                .iter()
                .position(|c| c.kind() == "formal_parameters")
            {
                return Some(
                    i + 1 == children.len()
                        || (children.get(i + 1).is_some_and(|c| c.kind() == "{")
                            && i + 2 == children.len()),
                );
            }
        }
        let brace = children.iter().rev().find(|c| c.kind() == "{");
        if let Some(brace) = brace
            && start(*brace) > end(keyword)
            && brace.next_sibling().is_some()
        {
            return Some(false);
        }
        if keyword.kind() == "while" && children.iter().any(|c| c.kind() == "do") {
            return Some(false);
        }
        if keyword.kind() == "=>" && keyword.next_sibling().is_some_and(|n| n.kind() != "{") {
            return Some(false);
        }
        None
    }

    /// Inside a node that owns a block: empty when its block is, and when it has none yet,
    /// unless its body is a single statement that is no block.
    fn owner_is_empty_start(&self, owner: Node<'_>, doc: &Doc<'_>) -> bool {
        let expected = self.block_type_for(owner.kind()).unwrap_or_default();
        let block = all_children(owner)
            .into_iter()
            .rev()
            .find(|c| c.kind() == expected);
        if let Some(block) = block {
            return self.is_block_empty(block, doc);
        }
        if let Some(field) = self.block_or_statement_field(owner.kind()) {
            let child = if field.is_empty() {
                owner.child(0)
            } else {
                owner.child_by_field_name(field)
            };
            if let Some(child) = child
                && child.kind() != self.block_type
                && Some(child.kind()) != self.empty_statement_type
            {
                return false;
            }
        }
        true
    }
}

/// Python: an `ERROR` node that starts a string under a definition or the module, a
/// docstring being typed.
fn opens_python_string(error: Node<'_>, doc: &Doc<'_>) -> bool {
    let t = doc.text_of(error);
    error.has_error()
        && (t.starts_with('"') || t.starts_with('\''))
        && error.parent().is_some_and(|p| {
            matches!(
                p.kind(),
                "function_definition" | "class_definition" | "module"
            )
        })
}

/// Python: the first `:` outside parentheses after the keyword settles the answer: a block
/// start only after `def ...:` followed by an opening docstring. `None` without such a colon.
fn python_after_colon(children: &[Node<'_>], keyword: Node<'_>, doc: &Doc<'_>) -> Option<bool> {
    let mut depth = 0i32;
    let mut colon = None;
    for child in children {
        match child.kind() {
            ":" if depth == 0 => {
                colon = Some(*child);
                break;
            }
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
    }
    let colon = colon?;
    if end(keyword) > start(colon) {
        return None;
    }
    let sibling = colon.next_sibling()?;
    if keyword.kind() == "def" {
        if matches!(sibling.kind(), "\"" | "'") {
            return Some(true);
        }
        let t = doc.text_of(sibling);
        if sibling.kind() == "ERROR" && (t == "\"\"\"" || t == "'''") {
            return Some(true);
        }
    }
    Some(false)
}

/// The white space before `node` on its line, when only white space precedes it there.
fn indent_of(node: Node<'_>, doc: &Doc<'_>) -> Option<String> {
    let at = start(node);
    let column = node.start_position().column / 2;
    let before = String::from_utf16_lossy(doc.units.get(at - column..at)?);
    is_blank(&before).then_some(before)
}

/// Whether `second` starts on a later line than `first`, indented no deeper.
fn outdented(first: Node<'_>, second: Node<'_>, doc: &Doc<'_>) -> bool {
    if second.start_position().row <= first.start_position().row {
        return false;
    }
    match (indent_of(first, doc), indent_of(second, doc)) {
        (Some(a), Some(b)) => a.starts_with(&b),
        _ => false,
    }
}
