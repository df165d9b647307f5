//! What names in a module refer to, asked the same way everywhere: the symbol a reference (or
//! a plain-name expression) resolves to, webpack's require helpers (`require.d`, ...) and the
//! variable a `require.d` getter returns.

use oxc_ast::ast::{Expression, IdentifierReference, Statement};
use oxc_semantic::{Scoping, SymbolId};

/// The symbol `reference` resolves to; `None` for a global.
pub(crate) fn symbol_of(
    scoping: &Scoping,
    reference: &IdentifierReference<'_>,
) -> Option<SymbolId> {
    reference
        .reference_id
        .get()
        .and_then(|r| scoping.get_reference(r).symbol_id())
}

/// The symbol `expr` names, when it is a plain name (parentheses aside).
pub(crate) fn expression_symbol(scoping: &Scoping, expr: &Expression<'_>) -> Option<SymbolId> {
    match expr.without_parentheses() {
        Expression::Identifier(i) => symbol_of(scoping, i),
        _ => None,
    }
}

/// Whether `expr` is `require.NAME` with the module's require parameter `require`.
pub(crate) fn is_require_helper(
    scoping: &Scoping,
    require: Option<SymbolId>,
    expr: &Expression<'_>,
    name: &str,
) -> bool {
    matches!(expr.without_parentheses(), Expression::StaticMemberExpression(m)
        if m.property.name == name
            && require.is_some()
            && expression_symbol(scoping, &m.object) == require)
}

/// The variable a getter returns: `() => x` (webpack 5), `function () { return x; }`
/// (webpack 4).
pub(crate) fn getter_value<'o, 'a>(
    getter: &'o Expression<'a>,
) -> Option<&'o IdentifierReference<'a>> {
    let returned = match getter.without_parentheses() {
        Expression::ArrowFunctionExpression(f) if f.is_expression() => f.get_expression(),
        Expression::FunctionExpression(f) if f.params.items.is_empty() => {
            match f.body.as_ref()?.statements.as_slice() {
                [Statement::ReturnStatement(r)] => r.argument.as_ref(),
                _ => None,
            }
        }
        _ => None,
    }?;
    match returned {
        Expression::Identifier(i) => Some(i),
        _ => None,
    }
}
