//! TypeScript's and JavaScript's definitions: functions, classes, interfaces, type aliases,
//! enums, methods, fields, and `const`/`let` declarations (arrow functions as functions).

use tree_sitter::Node;

use super::{
    DefKind, MAX_VALUE_LINES, MAX_WHOLE_TYPE_LINES, Scope, Walker, first_lines, is_script_private,
    signature_from,
};
use crate::{children, text};

impl Walker<'_> {
    /// TypeScript and JavaScript; `export` is the export statement wrapping the node, whose
    /// first line is the definition's first line. One method per kind of definition.
    pub(super) fn script(&mut self, node: Node<'_>, scope: &Scope, export: Option<Node<'_>>) {
        let start = export.unwrap_or(node);
        match node.kind() {
            "export_statement" => {
                if let Some(decl) = node.child_by_field_name("declaration") {
                    self.script(decl, scope, Some(node));
                }
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                self.script_function(node, scope, export);
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.script_class(node, scope, start);
            }
            "interface_declaration" | "enum_declaration" | "type_alias_declaration" => {
                self.script_type(node, scope, start);
            }
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                self.script_method(node, scope, start);
            }
            "public_field_definition" | "property_signature" | "field_definition" => {
                self.script_field(node, scope, start);
            }
            "lexical_declaration" | "variable_declaration" => {
                self.script_variables(node, scope, start);
            }
            "internal_module" | "module" => self.script_namespace(node, scope, start),
            "expression_statement" => {
                // `namespace X {}` parses as an expression statement holding the module.
                for child in children(node) {
                    if child.kind() == "internal_module" {
                        self.script(child, scope, None);
                    }
                }
            }
            "ambient_declaration" => {
                for child in children(node) {
                    self.script(child, scope, Some(start));
                }
            }
            "statement_block" if !scope.in_function => self.visit_children(node, scope),
            _ => {}
        }
    }

    /// A function declaration or signature, and the definitions in its body.
    fn script_function(&mut self, node: Node<'_>, scope: &Scope, export: Option<Node<'_>>) {
        let start = export.unwrap_or(node);
        let Some(name) = self.name_of(node) else {
            return;
        };
        let signature = signature_from(self.source, start, node, self.lang);
        // Unexported top-level code is the module's own.
        let private = export.is_none() && scope.container.is_none();
        let index = self.push(
            name,
            DefKind::Function,
            start,
            node,
            signature,
            private,
            scope,
        );
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, true, false);
            self.visit_children(body, &inner);
        }
    }

    /// A class, and its members.
    fn script_class(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let signature = signature_from(self.source, start, node, self.lang);
        let index = self.push(name, DefKind::Type, start, node, signature, false, scope);
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, false, true);
            self.visit_children(body, &inner);
        }
    }

    /// An interface, enum or type alias: whole when short (and a type alias always), else its
    /// header and its members one by one.
    fn script_type(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let lines = node.end_position().row - start.start_position().row + 1;
        if lines <= MAX_WHOLE_TYPE_LINES || node.kind() == "type_alias_declaration" {
            let signature = first_lines(self.source, start, MAX_WHOLE_TYPE_LINES);
            self.push(name, DefKind::Type, start, node, signature, false, scope);
            return;
        }
        // A long one is outlined as a class is: its header, then its members.
        self.script_class(node, scope, start);
    }

    /// A method or method signature, and the definitions in its body.
    fn script_method(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let private = is_script_private(node, self.source, &name);
        let signature = signature_from(self.source, start, node, self.lang);
        let index = self.push(
            name,
            DefKind::Method,
            start,
            node,
            signature,
            private,
            scope,
        );
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, true, false);
            self.visit_children(body, &inner);
        }
    }

    /// A field or property of a class or interface.
    fn script_field(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        let Some(name) = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"))
            .map(|n| text(n, self.source).to_owned())
            .filter(|n| !n.is_empty())
        else {
            return;
        };
        let private = is_script_private(node, self.source, &name);
        let signature = first_lines(self.source, node, MAX_VALUE_LINES);
        self.push(name, DefKind::Field, start, node, signature, private, scope);
    }

    /// `const`, `let` and `var`: a function when the value is one (arrow functions included),
    /// else a value, unless it is a function's local variable.
    fn script_variables(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        for declarator in children(node)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
        {
            let Some(name) = declarator
                .child_by_field_name("name")
                .filter(|n| n.kind() == "identifier")
                .map(|n| text(n, self.source).to_owned())
                .filter(|n| !n.is_empty())
            else {
                continue;
            };
            let value = declarator.child_by_field_name("value");
            let function = value.filter(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            });
            if let Some(f) = function {
                let signature = signature_from(self.source, start, f, self.lang);
                let index = self.push(
                    name,
                    DefKind::Function,
                    start,
                    node,
                    signature,
                    false,
                    scope,
                );
                if let Some(body) = f.child_by_field_name("body") {
                    let inner = self.inner(index, scope, true, false);
                    self.visit_children(body, &inner);
                }
            } else if !scope.in_function {
                // A function's local variables are its own business.
                let signature = first_lines(self.source, start, MAX_VALUE_LINES);
                self.push(name, DefKind::Value, start, node, signature, false, scope);
            }
        }
    }

    /// A TypeScript namespace or module, and its definitions.
    fn script_namespace(&mut self, node: Node<'_>, scope: &Scope, start: Node<'_>) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let signature = signature_from(self.source, start, node, self.lang);
        let index = self.push(name, DefKind::Block, start, node, signature, false, scope);
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, false, false);
            self.visit_children(body, &inner);
        }
    }
}
