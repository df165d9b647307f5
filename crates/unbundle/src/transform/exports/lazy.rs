//! Babel's lazy requires (`lazy: true` of its CommonJS transform): a function of the module's
//! own scope that requires a module once, replaces itself with one that hands back what it
//! got, and hands it back, so that `F()` is always that module's exports object:
//!
//! ```js
//! function F() { const D = require(ID); F = function () { return D; }; return D; }
//! function F() { const D = require(ID); return F = function () { return D; }, D; }
//! ```
//!
//! A call `(0, F().f)(...)` is then a call of module ID's export `f`, judged as
//! `(0, x.f)(...)` with `x` bound to `require(ID)` is (see the parent module). Found by
//! shape alone; `D` must be bound to the module as a variable is (see `bindings.rs`).

use oxc_ast::ast::{
    AssignmentOperator, AssignmentTarget, Expression, Function, Statement, VariableDeclaration,
};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::FxHashMap;

/// The lazy-require function `expr` calls, when it is `F()` with `F` one of `lazy` (each
/// function → the variable it keeps its module in), and that variable.
pub(super) fn call(
    scoping: &Scoping,
    lazy: &FxHashMap<SymbolId, SymbolId>,
    expr: &Expression<'_>,
) -> Option<(SymbolId, SymbolId)> {
    match expr.without_parentheses() {
        Expression::CallExpression(call) if call.arguments.is_empty() => {
            let function = crate::refs::expression_symbol(scoping, &call.callee)?;
            lazy.get(&function).map(|data| (function, *data))
        }
        _ => None,
    }
}

/// The symbol `expr` names, or for a call of one of `lazy`, the variable it keeps its module
/// in: what stands for the module's exports as a bound variable does.
pub(super) fn receiver(
    scoping: &Scoping,
    lazy: &FxHashMap<SymbolId, SymbolId>,
    expr: &Expression<'_>,
) -> Option<SymbolId> {
    call(scoping, lazy, expr)
        .map(|(_, data)| data)
        .or_else(|| crate::refs::expression_symbol(scoping, expr))
}

/// Counts every reference of each lazy function's variable as a use by name (`good`, see
/// `facts/`) when the function is only called for a named export (`named`: how often,
/// `F().f`), beside its own assignment: its two reads of the variable only hand it back.
/// Otherwise none counts, and the module's exports escape.
pub(super) fn credit(
    scoping: &Scoping,
    lazy: &FxHashMap<SymbolId, SymbolId>,
    named: &FxHashMap<SymbolId, usize>,
    good: &mut FxHashMap<SymbolId, usize>,
) {
    for (function, data) in lazy {
        let all = scoping.get_resolved_reference_ids(*function).len();
        let by_name = named.get(function).copied().unwrap_or(0);
        let uses = if by_name + 1 == all {
            scoping.get_resolved_reference_ids(*data).len()
        } else {
            0
        };
        good.insert(*data, uses);
    }
}

/// `(F, D)` when `f` has the shape above, `F` is written only by its own body's assignment
/// and never declared again (whether `D` holds a module is for the caller to see).
pub(super) fn of(f: &Function<'_>, scoping: &Scoping) -> Option<(SymbolId, SymbolId)> {
    let function = f.id.as_ref()?.symbol_id.get()?;
    if !f.params.items.is_empty()
        || f.params.rest.is_some()
        || f.r#async
        || f.generator
        || !scoping.symbol_redeclarations(function).is_empty()
    {
        return None;
    }
    let body = f.body.as_ref()?;
    let (data, assignment, returned) = match body.statements.as_slice() {
        [
            Statement::VariableDeclaration(d),
            Statement::ReturnStatement(r),
        ] => {
            let Some(Expression::SequenceExpression(s)) = r.argument.as_ref() else {
                return None;
            };
            let [assignment, returned] = s.expressions.as_slice() else {
                return None;
            };
            (declared(d)?, assignment, returned)
        }
        [
            Statement::VariableDeclaration(d),
            Statement::ExpressionStatement(e),
            Statement::ReturnStatement(r),
        ] => (declared(d)?, &e.expression, r.argument.as_ref()?),
        _ => return None,
    };
    let names = |e: &Expression<'_>, symbol: SymbolId| {
        crate::refs::expression_symbol(scoping, e) == Some(symbol)
    };
    let Expression::AssignmentExpression(a) = assignment.without_parentheses() else {
        return None;
    };
    let AssignmentTarget::AssignmentTargetIdentifier(target) = &a.left else {
        return None;
    };
    let writes = scoping
        .get_resolved_references(function)
        .filter(|r| r.is_write())
        .count();
    if a.operator != AssignmentOperator::Assign
        || crate::refs::symbol_of(scoping, target) != Some(function)
        || writes != 1
        || !names(returned, data)
        || !hands_back(&a.right, data, scoping)
    {
        return None;
    }
    Some((function, data))
}

/// The one variable `d` declares with a value, never written again.
fn declared(d: &VariableDeclaration<'_>) -> Option<SymbolId> {
    let [declarator] = d.declarations.as_slice() else {
        return None;
    };
    declarator.init.as_ref()?;
    declarator.id.get_binding_identifier()?.symbol_id.get()
}

/// Whether `e` is `function () { return D; }` or `() => D`.
fn hands_back(e: &Expression<'_>, data: SymbolId, scoping: &Scoping) -> bool {
    let returned = match e.without_parentheses() {
        Expression::FunctionExpression(f)
            if f.params.items.is_empty() && f.params.rest.is_none() && !f.generator =>
        {
            match f.body.as_ref().map(|b| b.statements.as_slice()) {
                Some([Statement::ReturnStatement(r)]) if !f.r#async => r.argument.as_ref(),
                _ => None,
            }
        }
        Expression::ArrowFunctionExpression(f)
            if !f.r#async && f.params.items.is_empty() && f.params.rest.is_none() =>
        {
            f.get_expression()
        }
        _ => None,
    };
    returned.is_some_and(|r| crate::refs::expression_symbol(scoping, r) == Some(data))
}
