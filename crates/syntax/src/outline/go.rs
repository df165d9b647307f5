//! Go's declarations: functions, methods (owned by their receiver's type), types, constants and
//! variables.

use tree_sitter::Node;

use super::{
    DefKind, MAX_VALUE_LINES, Scope, Walker, base_type_name, first_lines, signature_to_body,
    whole_or_header,
};
use crate::{children, text};

impl Walker<'_> {
    pub(super) fn go(&mut self, node: Node<'_>, scope: &Scope) {
        let go_private = |name: &str| !name.starts_with(char::is_uppercase);
        match node.kind() {
            "function_declaration" | "method_declaration" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let method = node.kind() == "method_declaration";
                let owner = method
                    .then(|| node.child_by_field_name("receiver"))
                    .flatten()
                    .map(|r| {
                        let t = text(r, self.source);
                        let last = t
                            .trim_matches(|c| c == '(' || c == ')')
                            .rsplit(' ')
                            .next()
                            .unwrap_or_default();
                        base_type_name(last.trim_start_matches('*'))
                    });
                let private = go_private(&name);
                let signature = signature_to_body(self.source, node, self.lang);
                let inner = Scope {
                    owner,
                    ..scope.clone()
                };
                let kind = if method {
                    DefKind::Method
                } else {
                    DefKind::Function
                };
                self.push(name, kind, node, node, signature, private, &inner);
            }
            "type_declaration" => {
                for spec in children(node) {
                    let Some(name) = self.name_of(spec) else {
                        continue;
                    };
                    let private = go_private(&name);
                    let signature = whole_or_header(self.source, node, self.lang);
                    self.push(name, DefKind::Type, node, node, signature, private, scope);
                }
            }
            "const_declaration" | "var_declaration" => {
                for spec in children(node) {
                    let Some(name) = spec
                        .child_by_field_name("name")
                        .or_else(|| children(spec).into_iter().next())
                        .map(|n| text(n, self.source).to_owned())
                        .filter(|n| !n.is_empty())
                    else {
                        continue;
                    };
                    let private = go_private(&name);
                    let signature = first_lines(self.source, spec, MAX_VALUE_LINES);
                    self.push(name, DefKind::Value, spec, spec, signature, private, scope);
                }
            }
            _ => {}
        }
    }
}
