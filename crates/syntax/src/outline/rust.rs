//! Rust's items: functions, structs, enums, traits, `impl` blocks (containers of their methods),
//! modules, constants, macros, and items inside macro calls read line by line.

use tree_sitter::Node;

use super::{
    DefKind, MAX_VALUE_LINES, Scope, Walker, base_type_name, first_lines, has_test_attribute,
    outline_by_lines, signature_to_body, whole_or_header,
};
use crate::{children, text};

impl Walker<'_> {
    /// Rust; one method per kind of item that holds others or needs more than a line.
    pub(super) fn rust(&mut self, node: Node<'_>, scope: &Scope) {
        let public = children(node)
            .iter()
            .any(|c| c.kind() == "visibility_modifier");
        // Inside a trait or a trait's impl, items are as visible as the trait.
        let private = !public && !scope.in_type;
        match node.kind() {
            "function_item" | "function_signature_item" => {
                self.rust_function(node, scope, private);
            }
            "struct_item" | "enum_item" | "union_item" | "type_item" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let signature = whole_or_header(self.source, node, self.lang);
                self.push(name, DefKind::Type, node, node, signature, private, scope);
            }
            "trait_item" => self.rust_trait(node, scope, private),
            "impl_item" => self.rust_impl(node, scope),
            "mod_item" => self.rust_mod(node, scope, private),
            "const_item" | "static_item" => {
                let Some(name) = self.name_of(node) else {
                    return;
                };
                let signature = first_lines(self.source, node, MAX_VALUE_LINES);
                self.push(name, DefKind::Value, node, node, signature, private, scope);
            }
            "macro_definition" => self.rust_macro_definition(node, scope),
            "declaration_list" | "block" if !scope.in_function => {
                self.visit_children(node, scope);
            }
            "macro_invocation" if !scope.in_function => self.rust_macro_call(node, scope),
            "expression_statement" if !scope.in_function => self.visit_children(node, scope),
            _ => {}
        }
    }

    /// A function, a method when it sits in an `impl` or trait, and the items in its body.
    fn rust_function(&mut self, node: Node<'_>, scope: &Scope, private: bool) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let kind = if scope.owner.is_some() && !scope.in_function {
            DefKind::Method
        } else {
            DefKind::Function
        };
        let test = has_test_attribute(node, self.source);
        let signature = signature_to_body(self.source, node, self.lang);
        let index = self.push(name, kind, node, node, signature, private, scope);
        if test {
            self.out[index].test = true;
        }
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, true, false);
            let inner = Scope {
                owner: None,
                ..inner
            };
            self.visit_children(body, &inner);
        }
    }

    /// A trait, and the items it declares.
    fn rust_trait(&mut self, node: Node<'_>, scope: &Scope, private: bool) {
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

    /// An `impl` block, named by its type, and its methods as that type's.
    fn rust_impl(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(ty) = node.child_by_field_name("type") else {
            return;
        };
        let ty_name = base_type_name(text(ty, self.source));
        if ty_name.is_empty() {
            return;
        }
        let trait_impl = node.child_by_field_name("trait").is_some();
        let signature = signature_to_body(self.source, node, self.lang);
        let index = self.push(
            ty_name.clone(),
            DefKind::Block,
            node,
            node,
            signature,
            false,
            scope,
        );
        if let Some(body) = node.child_by_field_name("body") {
            let inner = Scope {
                container: Some(index),
                owner: Some(ty_name),
                in_function: scope.in_function,
                in_test: scope.in_test,
                // Methods of a trait's impl are as visible as the trait.
                in_type: trait_impl,
            };
            self.visit_children(body, &inner);
        }
    }

    /// A module, a test module when named or marked so, and its items.
    fn rust_mod(&mut self, node: Node<'_>, scope: &Scope, private: bool) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        let test = name == "tests" || name == "test" || has_test_attribute(node, self.source);
        let signature = signature_to_body(self.source, node, self.lang);
        let index = self.push(name, DefKind::Block, node, node, signature, private, scope);
        if test {
            self.out[index].test = true;
        }
        if let Some(body) = node.child_by_field_name("body") {
            let inner = self.inner(index, scope, false, false);
            let inner = Scope {
                owner: None,
                ..inner
            };
            self.visit_children(body, &inner);
        }
    }

    /// A `macro_rules!` definition, by its first line.
    fn rust_macro_definition(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = self.name_of(node) else {
            return;
        };
        // The rules are the macro's body; its first line is what callers need.
        let mut signature = first_lines(self.source, node, 1);
        if let Some(cut) = signature.strip_suffix(" ...") {
            signature = if cut.ends_with('{') {
                format!("{cut}...}}")
            } else {
                format!("{cut} ... }}")
            };
        }
        self.push(name, DefKind::Macro, node, node, signature, false, scope);
    }

    /// Items inside a macro call (`pin_project! { pub struct X {..} }`, `cfg_if!`) are token
    /// trees to the grammar: they are read line by line.
    fn rust_macro_call(&mut self, node: Node<'_>, scope: &Scope) {
        let first = node.start_position().row;
        let inner = &self.source[node.start_byte()..node.end_byte()];
        for mut d in outline_by_lines(inner)
            .into_iter()
            .skip_while(|d| d.line == 0)
        {
            d.line += first;
            d.end_line += first;
            d.container = scope.container;
            d.owner.clone_from(&scope.owner);
            d.test = d.test || scope.in_test;
            self.out.push(d);
        }
    }
}
