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
use rustc_hash::FxHashSet;

use super::Plan;
use super::bindings::Bindings;
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
        bindings,
        plan,
        changed: 0,
    };
    calls.visit_program(program);
    calls.changed
}

/// Every `(0, x.f)` callee of the program with `x` bound to a module: where its sequence
/// starts, the module and the name (what [`rewrite_calls`] would drop, given a plan).
pub(crate) fn receiverless_calls(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Vec<(u32, String, String)> {
    let bindings = Bindings::of(program, scoping, wrapper);
    let mut found = Found {
        bindings,
        calls: Vec::new(),
    };
    oxc_ast_visit::Visit::visit_program(&mut found, program);
    found.calls
}

struct Found<'s> {
    bindings: Bindings<'s>,
    calls: Vec<(u32, String, String)>,
}

impl Found<'_> {
    fn note(&mut self, callee: &Expression<'_>) {
        if let Expression::SequenceExpression(s) = callee.without_parentheses()
            && let [first, Expression::StaticMemberExpression(m)] = s.expressions.as_slice()
            && first.is_number_literal()
            && let Some(symbol) = self.bindings.receiver(&m.object)
            && let Some(id) = self.bindings.bound.get(&symbol)
        {
            let (id, name) = self.bindings.key(symbol, id, &m.property.name);
            self.calls.push((s.span.start, id, name));
        }
    }
}

impl<'a> oxc_ast_visit::Visit<'a> for Found<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.note(&it.callee);
        oxc_ast_visit::walk::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(
        &mut self,
        it: &oxc_ast::ast::TaggedTemplateExpression<'a>,
    ) {
        self.note(&it.tag);
        oxc_ast_visit::walk::walk_tagged_template_expression(self, it);
    }
}

struct Calls<'s, 'a> {
    allocator: &'a Allocator,
    bindings: Bindings<'s>,
    plan: &'s Plan,
    changed: usize,
}

impl<'a> Calls<'_, 'a> {
    /// The plan's key of a call of `m`: `x.f` with `x` bound to a module, or `require(ID).f`.
    fn key(&self, m: &StaticMemberExpression<'_>) -> Option<(String, String)> {
        // `require(ID).f` itself; any other call (babel's lazy `F().f`) is a receiver below.
        if let Expression::CallExpression(call) = m.object.without_parentheses()
            && let Expression::Identifier(callee) = &call.callee
            && let Some(id) = crate::name::module_id(
                self.bindings.scoping,
                self.bindings.wrapper,
                callee,
                &call.arguments,
            )
        {
            return Some((id, m.property.name.to_string()));
        }
        let symbol = self.bindings.receiver(&m.object)?;
        let id = self.bindings.bound.get(&symbol)?;
        Some(self.bindings.key(symbol, id, &m.property.name))
    }

    /// `(0, x.f)` → `x.f` where the plan allows.
    fn drop_zero(&mut self, callee: &mut Expression<'a>) {
        let mut callee = callee;
        while let Expression::ParenthesizedExpression(p) = callee {
            callee = &mut p.expression;
        }
        if let Expression::SequenceExpression(s) = callee
            && let [first, Expression::StaticMemberExpression(m)] = s.expressions.as_slice()
            && first.is_number_literal()
            && let Some(key) = self.key(m)
            && self.plan.calls.contains(&key)
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
    let cx = Plain {
        ast: AstBuilder::new(allocator),
        allocator,
        scoping,
        wrapper,
        functions,
    };
    let mut changed = 0;
    let old = std::mem::replace(statements, oxc_allocator::Vec::new_in(&allocator));
    for statement in old {
        let Statement::ExpressionStatement(mut es) = statement else {
            statements.push(statement);
            continue;
        };
        if let Some(plain) = cx.one_getter(&es.expression) {
            statements.push(plain);
            changed += 1;
        } else if cx.defines_object(&es.expression) {
            let Expression::CallExpression(call) = &mut es.expression else {
                unreachable!("checked by defines_object");
            };
            changed += cx.split_object(call, statements);
        } else {
            statements.push(Statement::ExpressionStatement(es));
        }
    }
    changed
}

/// What turning getters into plain exports reads.
struct Plain<'s, 'a> {
    ast: AstBuilder<'a>,
    allocator: &'a Allocator,
    scoping: &'s Scoping,
    wrapper: Wrapper,
    /// The function declarations whose getters may become plain exports.
    functions: &'s FxHashSet<SymbolId>,
}

impl<'a> Plain<'_, 'a> {
    fn is_define(&self, callee: &Expression<'_>) -> bool {
        refs::is_require_helper(self.scoping, self.wrapper.require, callee, "d")
    }

    fn is_function(&self, value: &IdentifierReference<'_>) -> bool {
        refs::symbol_of(self.scoping, value).is_some_and(|s| self.functions.contains(&s))
    }

    /// webpack 4's one getter per call, `require.d(exports, "f", function () { return f; })`,
    /// as `exports.f = f;`.
    fn one_getter(&self, expression: &Expression<'a>) -> Option<Statement<'a>> {
        let Expression::CallExpression(call) = expression else {
            return None;
        };
        let [
            Argument::Identifier(target),
            Argument::StringLiteral(name),
            getter,
        ] = call.arguments.as_slice()
        else {
            return None;
        };
        let value = getter.as_expression().and_then(getter_value)?;
        let plain = self.is_define(&call.callee)
            && self.wrapper.exports.is_some()
            && refs::symbol_of(self.scoping, target) == self.wrapper.exports
            && crate::syntax::is_identifier_name(name.value.as_str())
            && self.is_function(value);
        if !plain {
            return None;
        }
        let allocator = self.allocator;
        let target = Expression::Identifier(target.clone_in_with_semantic_ids(allocator));
        let value =
            oxc_allocator::Box::new_in(value.clone_in_with_semantic_ids(allocator), &allocator);
        Some(plain_assignment(
            &self.ast,
            allocator,
            call.span,
            target,
            name.value.as_str(),
            value,
        ))
    }

    /// `require.d(exports, {...})` on the module's own exports.
    fn defines_object(&self, expression: &Expression<'_>) -> bool {
        match expression {
            Expression::CallExpression(call) => {
                self.is_define(&call.callee)
                    && matches!(
                        call.arguments.as_slice(),
                        [Argument::Identifier(_), Argument::ObjectExpression(_)]
                    )
                    && call.arguments[0]
                        .as_expression()
                        .and_then(|e| refs::expression_symbol(self.scoping, e))
                        == self.wrapper.exports
                    && self.wrapper.exports.is_some()
            }
            _ => false,
        }
    }

    /// `require.d(exports, {f: () => f, C: () => C})` as `exports.f = f;` and
    /// `require.d(exports, {C: () => C});`: runs of getters kept, and plain exports, in the
    /// object's order, pushed to `out`; how many became plain.
    fn split_object(
        &self,
        call: &mut CallExpression<'a>,
        out: &mut oxc_allocator::Vec<'a, Statement<'a>>,
    ) -> usize {
        let allocator = self.allocator;
        let span = call.span;
        let callee = call.callee.clone_in_with_semantic_ids(allocator);
        let target = call.arguments[0]
            .as_expression()
            .expect("checked by defines_object")
            .clone_in_with_semantic_ids(allocator);
        let Argument::ObjectExpression(o) = &mut call.arguments[1] else {
            unreachable!("checked by defines_object");
        };
        let mut kept: oxc_allocator::Vec<'a, ObjectPropertyKind<'a>> =
            oxc_allocator::Vec::new_in(&allocator);
        let flush = |kept: &mut oxc_allocator::Vec<'a, ObjectPropertyKind<'a>>,
                     out: &mut oxc_allocator::Vec<'a, Statement<'a>>| {
            if kept.is_empty() {
                return;
            }
            let properties = std::mem::replace(kept, oxc_allocator::Vec::new_in(&allocator));
            let object = Expression::new_object_expression(span, properties, &self.ast);
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
                &self.ast,
            );
            out.push(Statement::new_expression_statement(span, call, &self.ast));
        };
        let mut changed = 0;
        for property in o.properties.take_in(&allocator) {
            match self.plain_property(&property) {
                Some((name, value)) => {
                    flush(&mut kept, out);
                    out.push(plain_assignment(
                        &self.ast,
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
        flush(&mut kept, out);
        changed
    }

    /// A getter `name: () => f` of a function declaration `f`, as the name and `f`.
    fn plain_property(
        &self,
        property: &ObjectPropertyKind<'a>,
    ) -> Option<(String, oxc_allocator::Box<'a, IdentifierReference<'a>>)> {
        let ObjectPropertyKind::ObjectProperty(p) = property else {
            return None;
        };
        let name = match &p.key {
            PropertyKey::StaticIdentifier(k) => k.name.as_str(),
            PropertyKey::StringLiteral(s)
                if crate::syntax::is_identifier_name(s.value.as_str()) =>
            {
                s.value.as_str()
            }
            _ => return None,
        };
        let Expression::ArrowFunctionExpression(f) = &p.value else {
            return None;
        };
        match f.get_expression() {
            Some(Expression::Identifier(i)) if f.is_expression() && self.is_function(i) => Some((
                name.to_owned(),
                i.clone_in_with_semantic_ids(self.allocator),
            )),
            _ => None,
        }
    }
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
