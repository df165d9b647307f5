//! The second pass: `(0, x.f)` calls the plan allows lose their `0,`, and `require.d` getters
//! of function declarations become plain exports.

use oxc_allocator::{Allocator, CloneIn, TakeIn};
use oxc_ast::ast::{
    Argument, AssignmentOperator, AssignmentTarget, CallExpression, Expression, IdentifierName,
    IdentifierReference, ObjectPropertyKind, PropertyKey, Statement, StaticMemberExpression,
};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::{FxHashMap, FxHashSet};

use super::Plan;
use super::facts::Bindings;
use crate::refs::Wrapper;
use crate::refs::{self, getter_value};

/// Drops the `0,` of `(0, x.f)(...)` calls the plan allows; how many it dropped.
pub(crate) fn rewrite_calls<'a>(
    program: &mut oxc_ast::ast::Program<'a>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    wrapper: Wrapper,
    plan: &Plan,
) -> usize {
    let bindings = Bindings::of(program, scoping, wrapper);
    let mut calls = Calls {
        allocator,
        scoping,
        bound: bindings.bound,
        plan,
        changed: 0,
    };
    calls.visit_program(program);
    calls.changed
}

struct Calls<'s, 'a> {
    allocator: &'a Allocator,
    scoping: &'s Scoping,
    bound: FxHashMap<SymbolId, String>,
    plan: &'s Plan,
    changed: usize,
}

impl<'a> Calls<'_, 'a> {
    /// `(0, x.f)` → `x.f` where the plan allows.
    fn drop_zero(&mut self, callee: &mut Expression<'a>) {
        let mut callee = callee;
        while let Expression::ParenthesizedExpression(p) = callee {
            callee = &mut p.expression;
        }
        if let Expression::SequenceExpression(s) = callee
            && let [first, Expression::StaticMemberExpression(m)] = s.expressions.as_slice()
            && first.is_number_literal()
            && let Some(symbol) = refs::expression_symbol(self.scoping, &m.object)
            && let Some(id) = self.bound.get(&symbol)
            && self
                .plan
                .calls
                .contains(&(id.clone(), m.property.name.to_string()))
        {
            let member = s.expressions[1].take_in(&self.allocator);
            *callee = member;
            self.changed += 1;
        }
    }
}

impl<'a> VisitMut<'a> for Calls<'_, 'a> {
    fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
        self.drop_zero(&mut it.callee);
        walk_mut::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(
        &mut self,
        it: &mut oxc_ast::ast::TaggedTemplateExpression<'a>,
    ) {
        self.drop_zero(&mut it.tag);
        walk_mut::walk_tagged_template_expression(self, it);
    }
}

/// Turns the top-level `require.d` getters of function declarations in `statements` into plain
/// exports; how many it turned.
pub(crate) fn plain_exports<'a>(
    statements: &mut oxc_allocator::Vec<'a, Statement<'a>>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    wrapper: Wrapper,
    functions: &FxHashSet<SymbolId>,
) -> usize {
    let ast = AstBuilder::new(allocator);
    let mut changed = 0;
    let old = std::mem::replace(statements, oxc_allocator::Vec::new_in(&allocator));
    for statement in old {
        let Statement::ExpressionStatement(mut es) = statement else {
            statements.push(statement);
            continue;
        };
        let symbol = |e: &Expression<'_>| refs::expression_symbol(scoping, e);
        let is_define = |callee: &Expression<'_>| {
            refs::is_require_helper(scoping, wrapper.require, callee, "d")
        };
        // webpack 4's one getter per call.
        if let Expression::CallExpression(call) = &es.expression
            && is_define(&call.callee)
            && let [
                Argument::Identifier(target),
                Argument::StringLiteral(name),
                getter,
            ] = call.arguments.as_slice()
            && wrapper.exports.is_some()
            && refs::symbol_of(scoping, target) == wrapper.exports
            && crate::syntax::is_identifier_name(name.value.as_str())
            && let Some(value) = getter.as_expression().and_then(getter_value)
            && refs::symbol_of(scoping, value).is_some_and(|s| functions.contains(&s))
        {
            let target = Expression::Identifier(target.clone_in_with_semantic_ids(allocator));
            let value =
                oxc_allocator::Box::new_in(value.clone_in_with_semantic_ids(allocator), &allocator);
            let name = name.value.to_string();
            statements.push(plain_assignment(
                &ast, allocator, call.span, target, &name, value,
            ));
            changed += 1;
            continue;
        }
        let defines_object = match &es.expression {
            Expression::CallExpression(call) => {
                is_define(&call.callee)
                    && matches!(
                        call.arguments.as_slice(),
                        [Argument::Identifier(_), Argument::ObjectExpression(_)]
                    )
                    && call.arguments[0].as_expression().and_then(symbol) == wrapper.exports
                    && wrapper.exports.is_some()
            }
            _ => false,
        };
        if !defines_object {
            statements.push(Statement::ExpressionStatement(es));
            continue;
        }
        let Expression::CallExpression(call) = &mut es.expression else {
            unreachable!("checked above");
        };
        let span = call.span;
        let callee = call.callee.clone_in_with_semantic_ids(allocator);
        let target = call.arguments[0]
            .as_expression()
            .expect("checked above")
            .clone_in_with_semantic_ids(allocator);
        let Argument::ObjectExpression(o) = &mut call.arguments[1] else {
            unreachable!("checked above");
        };
        // Runs of getters kept, and plain exports, in the object's order.
        let mut kept: oxc_allocator::Vec<'a, ObjectPropertyKind<'a>> =
            oxc_allocator::Vec::new_in(&allocator);
        let flush = |kept: &mut oxc_allocator::Vec<'a, ObjectPropertyKind<'a>>,
                     out: &mut oxc_allocator::Vec<'a, Statement<'a>>| {
            if kept.is_empty() {
                return;
            }
            let properties = std::mem::replace(kept, oxc_allocator::Vec::new_in(&allocator));
            let object = Expression::new_object_expression(span, properties, &ast);
            let arguments = oxc_allocator::Vec::from_iter_in(
                [
                    Argument::from(target.clone_in_with_semantic_ids(allocator)),
                    Argument::from(object),
                ],
                &allocator,
            );
            let call = Expression::new_call_expression(
                span,
                callee.clone_in_with_semantic_ids(allocator),
                None::<oxc_allocator::Box<'a, _>>,
                arguments,
                false,
                &ast,
            );
            out.push(Statement::new_expression_statement(span, call, &ast));
        };
        for property in o.properties.take_in(&allocator) {
            let plain = match &property {
                ObjectPropertyKind::ObjectProperty(p) => {
                    let name = match &p.key {
                        PropertyKey::StaticIdentifier(k) => Some(k.name.as_str()),
                        PropertyKey::StringLiteral(s)
                            if crate::syntax::is_identifier_name(s.value.as_str()) =>
                        {
                            Some(s.value.as_str())
                        }
                        _ => None,
                    };
                    let value = match &p.value {
                        Expression::ArrowFunctionExpression(f) if f.is_expression() => {
                            match f.get_expression() {
                                Some(Expression::Identifier(i))
                                    if refs::symbol_of(scoping, i)
                                        .is_some_and(|s| functions.contains(&s)) =>
                                {
                                    Some(i.clone_in_with_semantic_ids(allocator))
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    name.zip(value).map(|(n, v)| (n.to_owned(), v))
                }
                _ => None,
            };
            match plain {
                Some((name, value)) => {
                    flush(&mut kept, statements);
                    statements.push(plain_assignment(
                        &ast,
                        allocator,
                        span,
                        target.clone_in_with_semantic_ids(allocator),
                        &name,
                        value,
                    ));
                    changed += 1;
                }
                None => kept.push(property),
            }
        }
        flush(&mut kept, statements);
    }
    changed
}

/// `target.name = value;`
fn plain_assignment<'a>(
    ast: &AstBuilder<'a>,
    allocator: &'a Allocator,
    span: oxc_span::Span,
    target: Expression<'a>,
    name: &str,
    value: oxc_allocator::Box<'a, IdentifierReference<'a>>,
) -> Statement<'a> {
    let member = StaticMemberExpression::boxed(
        span,
        target,
        IdentifierName::new(span, oxc_str::Ident::from_str_in(name, &allocator), ast),
        false,
        ast,
    );
    let assignment = Expression::new_assignment_expression(
        span,
        AssignmentOperator::Assign,
        AssignmentTarget::StaticMemberExpression(member),
        Expression::Identifier(value),
        ast,
    );
    Statement::new_expression_statement(span, assignment, ast)
}
