//! Java's declarations: classes, interfaces, enums, records, methods, constructors and fields.

use tree_sitter::Node;

use super::{DefKind, MAX_VALUE_LINES, Scope, Walker, first_lines, signature_to_body};
use crate::{children, text};

impl Walker<'_> {
    pub(super) fn java(&mut self, node: Node<'_>, scope: &Scope) {
        let private = children(node).iter().any(|c| {
            c.kind() == "modifiers"
                && text(*c, self.source)
                    .split_whitespace()
                    .any(|w| w == "private")
        });
        match node.kind() {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let signature = signature_to_body(self.source, node, self.lang);
                let index = self.push(name, DefKind::Type, node, node, signature, private, scope);
                if let Some(body) = node.child_by_field_name("body") {
                    let inner = self.inner(index, scope, false, true);
                    self.visit_children(body, &inner);
                }
            }
            "method_declaration" | "constructor_declaration" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let signature = signature_to_body(self.source, node, self.lang);
                self.push(name, DefKind::Method, node, node, signature, private, scope);
            }
            "field_declaration" | "constant_declaration" => {
                for declarator in children(node)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                {
                    let Some(name) = self.name_of(declarator) else {
                        continue;
                    };
                    let signature = first_lines(self.source, node, MAX_VALUE_LINES);
                    self.push(name, DefKind::Field, node, node, signature, private, scope);
                }
            }
            "enum_body_declarations" => self.visit_children(node, scope),
            _ => {}
        }
    }
}
