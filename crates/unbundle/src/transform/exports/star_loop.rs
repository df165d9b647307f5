//! Babel's `export * from "m"` in CommonJS: a loop over the other module's keys that only
//! reads its properties, to define getters of the module's own exports that read them:
//!
//! ```js
//! var x = require(ID);
//! Object.keys(x).forEach(function (k) {
//!   if (k === "default" || k === "__esModule") return;
//!   if (k in exports && exports[k] === x[k]) return;
//!   Object.defineProperty(exports, k, { enumerable: true, get: function () { return x[k]; } });
//! });
//! ```
//!
//! `Object.keys(x)` and `x[k]` compared or handed back read module ID's exports and hand on
//! only their values: the object itself neither leaves the module nor changes, as when a
//! named export is read (see `facts/`). Found by shape alone.

use oxc_ast::ast::{
    Argument, BinaryExpression, CallExpression, Expression, IdentifierReference, ReturnStatement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};

/// When `call` is `Object.keys(x).forEach(CALLBACK)` with a callback of one parameter `k` in
/// which `x` appears only as `x[k]` compared (`===`, `!==`, `==`, `!=`) or returned: `x`, and
/// how many references of it the call holds (all of them reads).
pub(super) fn reads(call: &CallExpression<'_>, scoping: &Scoping) -> Option<(SymbolId, usize)> {
    let Expression::StaticMemberExpression(each) = call.callee.without_parentheses() else {
        return None;
    };
    let Expression::CallExpression(keys) = each.object.without_parentheses() else {
        return None;
    };
    let Expression::StaticMemberExpression(object_keys) = keys.callee.without_parentheses() else {
        return None;
    };
    let global_object = matches!(&object_keys.object, Expression::Identifier(o)
        if o.name == "Object" && crate::refs::symbol_of(scoping, o).is_none());
    let ([Argument::Identifier(x)], [callback]) =
        (keys.arguments.as_slice(), call.arguments.as_slice())
    else {
        return None;
    };
    if each.property.name != "forEach" || object_keys.property.name != "keys" || !global_object {
        return None;
    }
    let x = crate::refs::symbol_of(scoping, x)?;
    let (params, body) = match callback.as_expression()?.without_parentheses() {
        Expression::FunctionExpression(f) => (&f.params, f.body.as_deref()?),
        Expression::ArrowFunctionExpression(f) => (&f.params, f.get_function_body()?),
        _ => return None,
    };
    let [param] = params.items.as_slice() else {
        return None;
    };
    let key = param.pattern.get_binding_identifier()?.symbol_id.get()?;
    if params.rest.is_some() {
        return None;
    }
    let mut uses = Uses {
        scoping,
        x,
        key,
        all: 0,
        read: 0,
    };
    uses.visit_function_body(body);
    (uses.all == uses.read).then_some((x, uses.all + 1))
}

/// Counts the references of `x` in a callback, and those that are `x[key]` compared or
/// returned.
struct Uses<'s> {
    scoping: &'s Scoping,
    x: SymbolId,
    key: SymbolId,
    all: usize,
    read: usize,
}

impl Uses<'_> {
    /// Notes `e` when it is `x[key]`.
    fn read(&mut self, e: &Expression<'_>) {
        if let Expression::ComputedMemberExpression(m) = e.without_parentheses()
            && crate::refs::expression_symbol(self.scoping, &m.object) == Some(self.x)
            && crate::refs::expression_symbol(self.scoping, &m.expression) == Some(self.key)
        {
            self.read += 1;
        }
    }
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if crate::refs::symbol_of(self.scoping, it) == Some(self.x) {
            self.all += 1;
        }
    }

    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        if it.operator.is_equality() {
            self.read(&it.left);
            self.read(&it.right);
        }
        walk::walk_binary_expression(self, it);
    }

    fn visit_return_statement(&mut self, it: &ReturnStatement<'a>) {
        if let Some(argument) = &it.argument {
            self.read(argument);
        }
        walk::walk_return_statement(self, it);
    }
}
