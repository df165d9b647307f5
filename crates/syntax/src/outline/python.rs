//! Python's definitions: functions, classes, methods, and assignments at module and class level.

use tree_sitter::Node;

use super::{DefKind, MAX_VALUE_LINES, Scope, Walker, first_lines, signature_to_body};
use crate::{children, text};

impl Walker<'_> {
    pub(super) fn python(&mut self, node: Node<'_>, scope: &Scope) {
        match node.kind() {
            "decorated_definition" => {
                if let Some(def) = node.child_by_field_name("definition") {
                    self.python(def, scope);
                }
            }
            "function_definition" | "class_definition" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let class = node.kind() == "class_definition";
                let kind = match (class, scope.in_type) {
                    (true, _) => DefKind::Type,
                    (false, true) => DefKind::Method,
                    (false, false) => DefKind::Function,
                };
                let private = name.starts_with('_') && !name.ends_with("__");
                let signature = signature_to_body(self.source, node, self.lang);
                let index = self.push(name, kind, node, node, signature, private, scope);
                if let Some(body) = node.child_by_field_name("body") {
                    let inner = self.inner(index, scope, !class, class);
                    self.visit_children(body, &inner);
                }
            }
            "expression_statement" if !scope.in_function => {
                let Some(assign) = children(node)
                    .into_iter()
                    .find(|c| c.kind() == "assignment")
                else {
                    return;
                };
                let Some(left) = assign.child_by_field_name("left") else {
                    return;
                };
                if left.kind() != "identifier" {
                    return;
                }
                let name = text(left, self.source).to_owned();
                // Error recovery can supply a missing, empty name.
                if name.is_empty() {
                    return;
                }
                let kind = if scope.in_type {
                    DefKind::Field
                } else {
                    DefKind::Value
                };
                let private = name.starts_with('_');
                let signature = first_lines(self.source, node, MAX_VALUE_LINES);
                self.push(name, kind, node, node, signature, private, scope);
            }
            // Definitions under `if TYPE_CHECKING:`, `try:` and the like are still the module's.
            "if_statement" | "try_statement" | "else_clause" | "except_clause" | "block"
                if !scope.in_function =>
            {
                self.visit_children(node, scope);
            }
            _ => {}
        }
    }
}
