//! What a value given to a bundle's top-level variable can do with a receiver: whether a
//! call of the variable made through an object (`__pilotfish_live.f()`) could differ from one
//! made without (`(0, __pilotfish_live.f)()`).
//!
//! A value *ignores its receiver* when it is a function that never reads its `this` (an arrow;
//! a class, which throws when called either way; a function or generator with no `this` or
//! direct `eval` outside its inner functions), or a value that is not callable at all (a
//! literal, an object or array literal, the result of an operator), so that a call of it
//! throws either way. A call of a *factory* ignores its receiver too: a top-level name, never
//! assigned, whose every declaration gives it an arrow with an expression body that is itself
//! such a function (esbuild's and Bun's `__esm` and `__commonJS`, `(fn, res) => () => ...`, and
//! minified tagged-template helpers `(J = x) => function (Q, ...Y) {...}`). The factory's
//! value when the call runs is that arrow, or it is not set yet and the call throws (and then
//! assigns nothing).

use oxc_ast::ast::{Expression, Function};
use oxc_semantic::{Scoping, SymbolId};

/// What one value given to a top-level name can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    /// Ignores its receiver; `factory` when it is an arrow whose result does too.
    Free { factory: bool },
    /// The result of calling this top-level name, ignoring its receiver when the name is a
    /// factory.
    CallOf(SymbolId),
    /// Anything else: not known.
    Other,
}

/// What `expr` gives the name it is assigned to.
pub(crate) fn classify(scoping: &Scoping, expr: &Expression<'_>) -> Value {
    match expr.without_parentheses() {
        Expression::ArrowFunctionExpression(arrow) => Value::Free {
            factory: arrow.is_expression()
                && arrow
                    .get_expression()
                    .is_some_and(|result| callable_free(result)),
        },
        Expression::FunctionExpression(f) => free_function(f),
        Expression::ClassExpression(_)
        | Expression::BooleanLiteral(_)
        | Expression::NullLiteral(_)
        | Expression::NumericLiteral(_)
        | Expression::BigIntLiteral(_)
        | Expression::StringLiteral(_)
        | Expression::RegExpLiteral(_)
        | Expression::TemplateLiteral(_)
        | Expression::ObjectExpression(_)
        | Expression::ArrayExpression(_)
        | Expression::UnaryExpression(_)
        | Expression::BinaryExpression(_) => Value::Free { factory: false },
        // One of two values: both must ignore their receiver.
        Expression::ConditionalExpression(c) => both(
            classify(scoping, &c.consequent),
            classify(scoping, &c.alternate),
        ),
        Expression::LogicalExpression(l) => {
            both(classify(scoping, &l.left), classify(scoping, &l.right))
        }
        Expression::CallExpression(call) if !call.optional => {
            match crate::refs::expression_symbol(scoping, &call.callee) {
                Some(callee) if scoping.symbol_scope_id(callee) == scoping.root_scope_id() => {
                    Value::CallOf(callee)
                }
                _ => Value::Other,
            }
        }
        _ => Value::Other,
    }
}

/// A value that is one of `a` and `b`: known only when each is a value known here.
fn both(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Free { .. }, Value::Free { .. }) => Value::Free { factory: false },
        _ => Value::Other,
    }
}

/// What a function (declared or an expression) gives its name.
pub(crate) fn free_function(f: &Function<'_>) -> Value {
    if crate::refs::function_uses_this(f) {
        Value::Other
    } else {
        Value::Free { factory: false }
    }
}

/// Whether `expr`, a factory's result, is a function that ignores its receiver: an arrow, a
/// class or a function without `this`.
fn callable_free(expr: &Expression<'_>) -> bool {
    match expr.without_parentheses() {
        Expression::ArrowFunctionExpression(_) | Expression::ClassExpression(_) => true,
        Expression::FunctionExpression(f) => !crate::refs::function_uses_this(f),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use oxc_allocator::Allocator;
    use oxc_parser::Parser;
    use oxc_semantic::SemanticBuilder;
    use oxc_span::SourceType;

    use crate::split::esm::uses::TopLevel;

    /// The top-level names of `text` whose every value ignores its receiver, sorted.
    fn receiver_free(text: &str) -> Vec<String> {
        let allocator = Allocator::default();
        let program = Parser::new(&allocator, text, SourceType::cjs())
            .parse()
            .program;
        let semantic = SemanticBuilder::new().build(&program).semantic;
        let scoping = semantic.scoping();
        let uses = TopLevel::collect(&program, scoping);
        let mut names: Vec<String> = scoping
            .symbol_ids()
            .filter(|&s| uses.receiver_free(s))
            .map(|s| scoping.symbol_name(s).to_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn values_that_ignore_their_receiver_are_known_and_others_are_not() {
        let text = "
            var U = (cb, mod) => () => (mod || cb((mod = {exports: {}}).exports, mod), mod.exports);
            var F = (f) => function () { return this; };
            var req = U(() => {});
            var tagged = F(1);
            var arrow; arrow = () => this;
            var plain; plain = function () { return 1; };
            var later; later = 0; later = null; later = class {};
            let either = 1 ? () => 1 : function () { return 2; };
            function decl() { return 1; }
            decl = () => 2;
            var reads; reads = function () { return this; };
            var counted = () => 1; counted += 1;
            var looped; for (looped of []) {}
            for (var head of []) {}
            var alias = decl;
            var unknown = U;
            var g; g = F;
            var computed = req();
            function own() { return this; }
        ";
        // `F` is an arrow, but a factory of functions that read `this`: `tagged` is not
        // known. `req` is given a factory's result, `computed` a call of a name that is not
        // a factory. A name given another name (`alias`, `unknown`, `g`), assigned by `+=`
        // or by a loop's head, or given a function that reads `this`, is not known.
        assert_eq!(
            receiver_free(text),
            ["F", "U", "arrow", "decl", "either", "later", "plain", "req"]
        );
    }
}
