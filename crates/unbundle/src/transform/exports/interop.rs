//! tsc's interop helper `__importDefault`, recognized by its shape (any name), so that a
//! variable bound to `__importDefault(require(ID))` counts as bound to module ID for the
//! `calls` transform:
//!
//! ```js
//! var __importDefault = (this && this.__importDefault) || function (mod) {
//!     return (mod && mod.__esModule) ? mod : { "default": mod };
//! };
//! ```
//!
//! It hands back the module's exports object itself, or an object whose only property,
//! `default`, holds that object. A named export read through it is the module's own
//! (`x.f` is `mod.f`), so a call of it needs no receiver exactly when a call of `mod.f` needs
//! none. `x.default` is either `mod.default` (the same argument) or the exports object,
//! which is never callable unless the module replaced it, and then nothing is known of its
//! exports anyway (the module is opaque): a call of it throws with or without a receiver.
//!
//! The `this && this.__importDefault` part reads the module's `this` at its start: the
//! module's fresh exports object under webpack, `undefined` in a strict esbuild module; in
//! neither can it hold a helper, so the function is what the variable holds. In a module
//! function that is an arrow, `this` is its surroundings': that form is not recognized there. A look-alike
//! (any other body) is not this helper.
//!
//! esbuild writes a CommonJS module's top-level `this` as `exports`: `exports &&
//! exports.__importDefault || function ...`. The module's exports object is fresh when its
//! function starts (`{exports: {}}`, made by the loader), and nothing but the module's own
//! code can write into it before the module hands it out. So the form is recognized only
//! among the module's *leading helpers* ([`leading_helpers`]): the declarations that open the
//! module's body, each `exports && exports.NAME || HELPER` where HELPER runs no code when
//! declared (a function, `Object.create ? function : function`, or tsc 5's
//! `(function () { var f = function ...; return function ...; })()`). Before them nothing
//! ran, so `exports.NAME` is unset and the variable holds HELPER. Nothing, or only the call of
//! a quiet ES module initializer (esbuild's `import.meta.url` shim, `p();`), which runs none of
//! the bundle's code (see `split/quiet.rs`), so nothing could write to the exports object.

use oxc_ast::ast::{
    Expression, LogicalOperator, ObjectPropertyKind, Program, PropertyKey, Statement,
    VariableDeclarator,
};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::FxHashSet;

use crate::refs::Wrapper;

/// What the variable `declarator` declares holds from its declaration on, when it is a
/// helper tsc writes at the top of a module: declared in the module function's scope, never
/// assigned again, its value HELPER or `this && this.NAME || HELPER` (where `this` at the
/// module's start holds no helper) or `exports && exports.NAME || HELPER` (one of the
/// module's leading helpers): HELPER (see the module documentation).
pub(super) fn helper_value<'b, 'a>(
    declarator: &'b VariableDeclarator<'a>,
    scoping: &Scoping,
    (wrapper, arrow, leading): (Wrapper, bool, bool),
) -> Option<&'b Expression<'a>> {
    let symbol = declarator.id.get_binding_identifier()?.symbol_id.get()?;
    if scoping.symbol_scope_id(symbol) != wrapper.scope
        || scoping
            .get_resolved_references(symbol)
            .any(|r| r.is_write())
        || !scoping.symbol_redeclarations(symbol).is_empty()
    {
        return None;
    }
    let init = declarator.init.as_ref()?.without_parentheses();
    // `this` at the module's start holds no helper: webpack's fresh exports (it calls a
    // module function with them as `this`), or undefined (esbuild calls it without a
    // receiver; strict). An arrow's `this` is its surroundings': anything.
    let this_holds_none = !arrow
        && (wrapper.require.is_some() || scoping.scope_flags(wrapper.scope).is_strict_mode());
    match init {
        Expression::LogicalExpression(l) if l.operator == LogicalOperator::Or => {
            let is_this = |e: &Expression<'_>| matches!(e, Expression::ThisExpression(_));
            let is_exports = |e: &Expression<'_>| {
                wrapper.exports.is_some()
                    && crate::refs::expression_symbol(scoping, e) == wrapper.exports
            };
            let own = (this_holds_none && reads_own_helper(&l.left, is_this))
                || (leading && reads_own_helper(&l.left, is_exports));
            own.then(|| l.right.without_parentheses())
        }
        other => Some(other),
    }
}

/// `O && O.NAME`, `O` being what `object` accepts (`this`, or the module's `exports`).
fn reads_own_helper(expr: &Expression<'_>, object: impl Fn(&Expression<'_>) -> bool) -> bool {
    matches!(expr.without_parentheses(), Expression::LogicalExpression(l)
        if l.operator == LogicalOperator::And
            && object(l.left.without_parentheses())
            && matches!(l.right.without_parentheses(), Expression::StaticMemberExpression(m)
                if object(&m.object)))
}

/// The module's leading helpers (see the module documentation), by where each declarator
/// starts: the declarations that open the module function's body, each of whose declarators
/// is `exports && exports.NAME || HELPER`, HELPER running no code when declared.
pub(super) fn leading_helpers(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> FxHashSet<u32> {
    let mut starts = FxHashSet::default();
    let Some(exports) = wrapper.exports else {
        return starts;
    };
    let object = |e: &Expression<'_>| crate::refs::expression_symbol(scoping, e) == Some(exports);
    let body = module_body(program);
    // A quiet initializer's call first (`wrapper.quiet_init`) changes nothing they hold.
    let body = match body.split_first() {
        Some((Statement::ExpressionStatement(_), rest)) if wrapper.quiet_init.is_some() => rest,
        _ => body,
    };
    for statement in body {
        let Statement::VariableDeclaration(d) = statement else {
            break;
        };
        let helpers = d.declarations.iter().all(|declarator| {
            matches!(declarator.init.as_ref().map(Expression::without_parentheses),
                Some(Expression::LogicalExpression(l))
                    if l.operator == LogicalOperator::Or
                        && reads_own_helper(&l.left, object)
                        && runs_nothing(&l.right))
        });
        if !helpers {
            break;
        }
        starts.extend(d.declarations.iter().map(|d| d.span.start));
    }
    starts
}

/// The statements of the module function (the program's one expression).
pub(crate) fn module_body<'b, 'a>(program: &'b Program<'a>) -> &'b [Statement<'a>] {
    let Some(Statement::ExpressionStatement(s)) = program.body.first() else {
        return &[];
    };
    match s.expression.without_parentheses() {
        Expression::FunctionExpression(f) => f.body.as_ref().map_or(&[], |b| &b.statements),
        Expression::ArrowFunctionExpression(f) => arrow_statements(f),
        _ => &[],
    }
}

/// The statements of an arrow with a body in braces (none for an expression body).
fn arrow_statements<'b, 'a>(
    f: &'b oxc_ast::ast::ArrowFunctionExpression<'a>,
) -> &'b [Statement<'a>] {
    match &f.body {
        oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => &body.statements,
        _ => &[],
    }
}

/// Whether evaluating `expr` runs no code but reading `Object.create`: a function, a
/// conditional between functions, or an arrow or function called at once whose body only
/// declares functions and returns one.
fn runs_nothing(expr: &Expression<'_>) -> bool {
    match expr.without_parentheses() {
        Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_) => true,
        Expression::ConditionalExpression(c) => {
            matches!(c.test.without_parentheses(), Expression::StaticMemberExpression(m)
                if matches!(&m.object, Expression::Identifier(o) if o.name == "Object")
                    && m.property.name == "create")
                && runs_nothing(&c.consequent)
                && runs_nothing(&c.alternate)
        }
        Expression::CallExpression(call) if call.arguments.is_empty() => {
            let statements = match call.callee.without_parentheses() {
                Expression::FunctionExpression(f) => match &f.body {
                    Some(b) => &b.statements,
                    None => return false,
                },
                Expression::ArrowFunctionExpression(f) => arrow_statements(f),
                _ => return false,
            };
            let declares = |s: &Statement<'_>| {
                matches!(s, Statement::VariableDeclaration(d)
                if d.declarations.iter().all(|d| d.init.as_ref().is_some_and(|i| matches!(
                    i.without_parentheses(),
                    Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_)))))
            };
            match statements.split_last() {
                Some((Statement::ReturnStatement(r), rest)) => {
                    rest.iter().all(declares)
                        && r.argument.as_ref().is_some_and(|a| {
                            matches!(
                                a.without_parentheses(),
                                Expression::FunctionExpression(_)
                                    | Expression::ArrowFunctionExpression(_)
                            )
                        })
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The module's function declarations, at the top of its body, that are `__importDefault`'s
/// function (swc's `_interop_require_default`, and babel's, write it so): hoisted, a name
/// never assigned nor declared again holds that function from the module's start.
pub(super) fn declared_helpers(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Vec<SymbolId> {
    let mut helpers = Vec::new();
    for statement in module_body(program) {
        if let Statement::FunctionDeclaration(f) = statement
            && let Some(symbol) = f.id.as_ref().and_then(|id| id.symbol_id.get())
            && scoping.symbol_scope_id(symbol) == wrapper.scope
            && !scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
            && scoping.symbol_redeclarations(symbol).is_empty()
            && !f.r#async
            && !f.generator
            && let Some(body) = &f.body
            && returns_module_or_default(&f.params, only_return(&body.statements))
        {
            helpers.push(symbol);
        }
    }
    helpers
}

/// `function (m) { return m && m.__esModule ? m : { default: m }; }`, or the same arrow.
/// Whether `expr` is `__importDefault`'s function (see the module documentation).
pub(super) fn hands_on_the_module(expr: &Expression<'_>) -> bool {
    let (params, returned) = match expr {
        Expression::FunctionExpression(f) if !f.r#async && !f.generator => {
            let Some(body) = &f.body else {
                return false;
            };
            (&f.params, only_return(&body.statements))
        }
        Expression::ArrowFunctionExpression(f) if !f.r#async => {
            let returned = match &f.body {
                oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => {
                    only_return(&body.statements)
                }
                body => body.as_expression(),
            };
            (&f.params, returned)
        }
        _ => return false,
    };
    returns_module_or_default(params, returned)
}

/// Whether a function of `params` returning `returned` gives back its one argument when it
/// is marked `__esModule`, else `{default: argument}`.
fn returns_module_or_default(
    params: &oxc_ast::ast::FormalParameters<'_>,
    returned: Option<&Expression<'_>>,
) -> bool {
    if params.rest.is_some() {
        return false;
    }
    let [param] = params.items.as_slice() else {
        return false;
    };
    let Some(name) = param
        .pattern
        .get_binding_identifier()
        .map(|b| b.name.as_str())
    else {
        return false;
    };
    let Some(Expression::ConditionalExpression(c)) = returned.map(|r| r.without_parentheses())
    else {
        return false;
    };
    let is_param = |e: &Expression<'_>| matches!(e.without_parentheses(), Expression::Identifier(i) if i.name == name);
    let test_ok = matches!(c.test.without_parentheses(), Expression::LogicalExpression(l)
        if l.operator == LogicalOperator::And
            && is_param(&l.left)
            && matches!(l.right.without_parentheses(), Expression::StaticMemberExpression(m)
                if m.property.name == "__esModule" && is_param(&m.object)));
    let default_ok = matches!(c.alternate.without_parentheses(), Expression::ObjectExpression(o)
        if matches!(o.properties.as_slice(), [ObjectPropertyKind::ObjectProperty(p)]
            if !p.computed
                && !p.method
                && is_default(&p.key)
                && is_param(&p.value)));
    test_ok && is_param(&c.consequent) && default_ok
}

/// `default` or `"default"` as a property key.
fn is_default(key: &PropertyKey<'_>) -> bool {
    match key {
        PropertyKey::StaticIdentifier(k) => k.name == "default",
        PropertyKey::StringLiteral(k) => k.value == "default",
        _ => false,
    }
}

/// What a body of one `return` statement returns.
fn only_return<'b, 'a>(statements: &'b [Statement<'a>]) -> Option<&'b Expression<'a>> {
    match statements {
        [Statement::ReturnStatement(r)] => r.argument.as_ref(),
        _ => None,
    }
}
