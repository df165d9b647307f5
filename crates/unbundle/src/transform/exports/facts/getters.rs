//! The facts of exports defined by getters: `Object.defineProperty(exports, ...)`, webpack's
//! `require.d` and swc's `_export`, each a re-export or one of the module's own functions.

use oxc_ast::ast::{
    Argument, CallExpression, Expression, ObjectExpression, ObjectPropertyKind, PropertyKey,
};

use crate::refs::{self, getter_value};

use super::Uses;

impl Uses<'_> {
    /// `Object.defineProperty(exports, "name", {enumerable: true, get: GETTER})` with only
    /// those two properties: the name and the getter (seen through esbuild's `__name`).
    pub(super) fn defined_getter<'a, 'c>(
        &self,
        it: &'c CallExpression<'a>,
    ) -> Option<(&'c str, &'c Expression<'a>)> {
        let Expression::StaticMemberExpression(m) = it.callee.without_parentheses() else {
            return None;
        };
        let [
            Argument::Identifier(target),
            Argument::StringLiteral(key),
            Argument::ObjectExpression(descriptor),
        ] = it.arguments.as_slice()
        else {
            return None;
        };
        let is_object = matches!(&m.object, Expression::Identifier(o) if o.name == "Object" && self.reference_symbol(o).is_none());
        if m.property.name != "defineProperty"
            || !is_object
            || self.wrapper.exports.is_none()
            || self.reference_symbol(target) != self.wrapper.exports
            || descriptor.properties.len() != 2
        {
            return None;
        }
        let mut getter = None;
        for property in &descriptor.properties {
            let ObjectPropertyKind::ObjectProperty(p) = property else {
                return None;
            };
            match p.key.static_name().as_deref() {
                Some("enumerable") if !p.computed => {}
                Some("get") if !p.computed && !p.method => {
                    getter = Some(self.wrapper.unnamed(self.scoping, &p.value));
                }
                _ => return None,
            }
        }
        Some((key.value.as_str(), getter?))
    }

    /// A getter that returns `x.theirs`, `x` bound to a module: a re-export.
    pub(super) fn reexport(&mut self, name: &str, getter: &Expression<'_>) {
        if let Some(m) = refs::getter_member(getter)
            && let Some(from) = self.bound_module(&m.object)
        {
            self.facts
                .reexports
                .push((name.to_owned(), from.clone(), m.property.name.to_string()));
        }
    }

    /// What export `name`, defined by `getter` (which nothing can replace), is: a re-export,
    /// or one of the module's own functions, which the getter returns the same at every
    /// moment (or nothing callable yet). `webpack` for webpack's `require.d`, whose getters
    /// of function declarations `plain_exports` may turn into plain exports.
    pub(super) fn getter(&mut self, name: &str, getter: &Expression<'_>, webpack: bool) {
        self.define(name);
        self.facts.getters.push(name.to_owned());
        self.reexport(name, getter);
        let Some(value) = getter_value(getter).and_then(|v| self.reference_symbol(v)) else {
            return;
        };
        if let Some(&this) = self.functions.get(&value) {
            // Only those at the top level become plain exports; webpack puts them nowhere
            // else.
            self.facts.defines |= webpack;
            if !this {
                self.facts.receiver_free.push(name.to_owned());
            }
        } else if self.values.get(&value) == Some(&false) {
            self.facts.receiver_free.push(name.to_owned());
        }
    }

    /// `_export(exports, {name: function () { return value; }, ...})`: swc's getters.
    pub(super) fn swc_export(&mut self, it: &CallExpression<'_>) {
        if let Expression::Identifier(callee) = &it.callee
            && self
                .reference_symbol(callee)
                .is_some_and(|s| self.exporters.contains(&s))
            && let [Argument::Identifier(target), Argument::ObjectExpression(o)] =
                it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(target)
            && Some(symbol) == self.wrapper.exports
        {
            self.good_use(symbol);
            self.swc_getters(o);
        }
    }

    /// The getters swc's `_export` defines from `o`; a property it cannot name (computed,
    /// spread, an accessor) makes nothing known of the module's exports.
    pub(super) fn swc_getters(&mut self, o: &ObjectExpression<'_>) {
        for property in &o.properties {
            let ObjectPropertyKind::ObjectProperty(p) = property else {
                self.facts.opaque = true;
                return;
            };
            let name = match &p.key {
                PropertyKey::StaticIdentifier(k) if !p.computed => k.name.as_str(),
                PropertyKey::StringLiteral(s) if !p.computed => s.value.as_str(),
                _ => {
                    self.facts.opaque = true;
                    return;
                }
            };
            if p.kind != oxc_ast::ast::PropertyKind::Init {
                self.facts.opaque = true;
                return;
            }
            self.getter(name, &p.value, false);
        }
    }
}
