//! swc's `_export` helper, recognized by its shape (any name), so that the getters it defines
//! count as `Object.defineProperty` getters for the `calls` transform:
//!
//! ```js
//! function _export(target, all) {
//!     for (var name in all) Object.defineProperty(target, name, { enumerable: true, get: all[name] });
//! }
//! _export(exports, { f: function () { return f; }, default: function () { return g; } });
//! ```
//!
//! Each property of the object literal becomes a getter of `target`, neither writable nor
//! configurable: nothing can replace it, exactly as `Object.defineProperty(exports, "f",
//! {enumerable: true, get})` written out once per name. Only a function declaration at the top
//! of the module's body (hoisted: it holds the function from the module's start), never
//! assigned nor declared again, with that body and nothing else, is the helper.

use oxc_ast::ast::{
    Expression, ForStatementLeft, Function, ObjectPropertyKind, Program, PropertyKey, Statement,
};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::FxHashSet;

use crate::refs::{self, Wrapper};

/// The module's `_export` helpers (see the module documentation).
pub(super) fn exporters(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> FxHashSet<SymbolId> {
    let mut found = FxHashSet::default();
    for statement in super::interop::module_body(program) {
        if let Statement::FunctionDeclaration(f) = statement
            && let Some(symbol) = f.id.as_ref().and_then(|id| id.symbol_id.get())
            && scoping.symbol_scope_id(symbol) == wrapper.scope
            && !scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
            && scoping.symbol_redeclarations(symbol).is_empty()
            && defines_getters(f, scoping)
        {
            found.insert(symbol);
        }
    }
    found
}

/// `function (t, all) { for (var n in all) Object.defineProperty(t, n, {enumerable: true,
/// get: all[n]}); }`, the loop's body bare or in a block.
fn defines_getters(f: &Function<'_>, scoping: &Scoping) -> bool {
    if f.r#async || f.generator || f.params.rest.is_some() {
        return false;
    }
    let [target, all] = f.params.items.as_slice() else {
        return false;
    };
    let (Some(target), Some(all)) = (
        target.pattern.get_binding_identifier(),
        all.pattern.get_binding_identifier(),
    ) else {
        return false;
    };
    let Some(body) = &f.body else {
        return false;
    };
    let [Statement::ForInStatement(each)] = body.statements.as_slice() else {
        return false;
    };
    let ForStatementLeft::VariableDeclaration(d) = &each.left else {
        return false;
    };
    let [name] = d.declarations.as_slice() else {
        return false;
    };
    let Some(name) = name.id.get_binding_identifier() else {
        return false;
    };
    let is = |e: &Expression<'_>, b: &oxc_ast::ast::BindingIdentifier<'_>| {
        b.symbol_id.get().is_some() && refs::expression_symbol(scoping, e) == b.symbol_id.get()
    };
    let call = match &each.body {
        Statement::ExpressionStatement(s) => &s.expression,
        Statement::BlockStatement(b) => match b.body.as_slice() {
            [Statement::ExpressionStatement(s)] => &s.expression,
            _ => return false,
        },
        _ => return false,
    };
    let Expression::CallExpression(call) = call.without_parentheses() else {
        return false;
    };
    let Expression::StaticMemberExpression(callee) = &call.callee else {
        return false;
    };
    let object_global = matches!(&callee.object, Expression::Identifier(o)
        if o.name == "Object" && refs::symbol_of(scoping, o).is_none());
    let [t, n, descriptor] = call.arguments.as_slice() else {
        return false;
    };
    let (Some(t), Some(n), Some(Expression::ObjectExpression(descriptor))) = (
        t.as_expression(),
        n.as_expression(),
        descriptor.as_expression(),
    ) else {
        return false;
    };
    object_global
        && callee.property.name == "defineProperty"
        && is(&each.right, all)
        && is(t, target)
        && is(n, name)
        && descriptor.properties.len() == 2
        && descriptor.properties.iter().all(|p| {
            let ObjectPropertyKind::ObjectProperty(p) = p else {
                return false;
            };
            let key = match &p.key {
                PropertyKey::StaticIdentifier(k) if !p.computed && !p.method => k.name.as_str(),
                _ => return false,
            };
            match (key, p.value.without_parentheses()) {
                ("enumerable", Expression::BooleanLiteral(b)) => b.value,
                ("enumerable", Expression::UnaryExpression(u)) => {
                    u.operator == oxc_ast::ast::UnaryOperator::LogicalNot
                        && matches!(&u.argument, Expression::NumericLiteral(z) if z.value == 0.0)
                }
                ("get", Expression::ComputedMemberExpression(m)) => {
                    is(&m.object, all) && is(&m.expression, name)
                }
                _ => false,
            }
        })
}
