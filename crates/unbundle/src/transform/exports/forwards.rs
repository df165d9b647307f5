//! A module that only hands on another module's exports as its own, as React's `index.js`
//! does: `module.exports = require_x()`, or one of two by a test
//! (`if (process.env.NODE_ENV === "production") module.exports = require_a(); else
//! module.exports = require_b();`), beside `"use strict"` and calls of other modules whose
//! value is dropped (`require_c();`). Whenever its exports are read after it ran, they are
//! one of those modules' exports objects (before, while it runs in a cycle, its first exports
//! object, which holds nothing: a call throws either way), so a call of its export `f` needs
//! no receiver when every such module's `f` needs none, and what is done with its exports is
//! done with theirs.

use oxc_ast::ast::{AssignmentOperator, AssignmentTarget, Expression, Statement};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::Scoping;

use crate::refs::Wrapper;

/// The modules whose exports module `program` (its function's scope and parameters in
/// `wrapper`) hands on as its own, when that is all it does with its exports.
pub(super) fn targets(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Vec<String> {
    let Some(module) = wrapper.module else {
        return Vec::new();
    };
    if wrapper
        .exports
        .is_some_and(|e| !scoping.get_resolved_reference_ids(e).is_empty())
    {
        return Vec::new();
    }
    let mut targets = Vec::new();
    let mut assignments = 0;
    for statement in super::interop::module_body(program) {
        match statement {
            Statement::ExpressionStatement(s) => {
                if let Some(id) = assigned(&s.expression, scoping, wrapper) {
                    targets.push(id);
                    assignments += 1;
                } else if let Expression::ConditionalExpression(c) =
                    s.expression.without_parentheses()
                    && let Some(both) =
                        either(&c.test, &c.consequent, &c.alternate, scoping, wrapper)
                {
                    targets.extend(both);
                    assignments += 2;
                } else if !discarded_require(&s.expression, scoping, wrapper) {
                    return Vec::new();
                }
            }
            Statement::IfStatement(s) => {
                let (Statement::ExpressionStatement(yes), Some(Statement::ExpressionStatement(no))) =
                    (&s.consequent, &s.alternate)
                else {
                    return Vec::new();
                };
                let Some(both) = either(&s.test, &yes.expression, &no.expression, scoping, wrapper)
                else {
                    return Vec::new();
                };
                targets.extend(both);
                assignments += 2;
            }
            _ => return Vec::new(),
        }
    }
    // `module` is used nowhere but in those assignments.
    if assignments == 0 || scoping.get_resolved_reference_ids(module).len() != assignments {
        return Vec::new();
    }
    targets.sort();
    targets.dedup();
    targets
}

/// The modules `if (test) yes; else no` (or `test ? yes : no`) hands on, when the test calls
/// and assigns nothing and each branch is `module.exports = require_x()`.
fn either(
    test: &Expression<'_>,
    yes: &Expression<'_>,
    no: &Expression<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Option<[String; 2]> {
    let a = assigned(yes, scoping, wrapper)?;
    let b = assigned(no, scoping, wrapper)?;
    runs_nothing(test).then_some([a, b])
}

/// The module `expr` hands on: `module.exports = require_x()`.
fn assigned(expr: &Expression<'_>, scoping: &Scoping, wrapper: Wrapper) -> Option<String> {
    let Expression::AssignmentExpression(a) = expr.without_parentheses() else {
        return None;
    };
    let AssignmentTarget::StaticMemberExpression(target) = &a.left else {
        return None;
    };
    let Expression::Identifier(object) = &target.object else {
        return None;
    };
    if a.operator != AssignmentOperator::Assign
        || target.property.name != "exports"
        || crate::refs::symbol_of(scoping, object) != wrapper.module
    {
        return None;
    }
    required(&a.right, scoping, wrapper)
}

/// The module `expr` requires: `require_x()` (or `require(ID)`).
fn required(expr: &Expression<'_>, scoping: &Scoping, wrapper: Wrapper) -> Option<String> {
    let Expression::CallExpression(call) = expr.without_parentheses() else {
        return None;
    };
    let Expression::Identifier(callee) = &call.callee else {
        return None;
    };
    crate::name::module_id(scoping, wrapper, callee, &call.arguments)
}

/// `require_c();` or `"use strict";`: nothing done with anyone's exports.
fn discarded_require(expr: &Expression<'_>, scoping: &Scoping, wrapper: Wrapper) -> bool {
    matches!(expr, Expression::StringLiteral(_)) || required(expr, scoping, wrapper).is_some()
}

/// Whether evaluating the test `expr` calls and assigns nothing.
fn runs_nothing(expr: &Expression<'_>) -> bool {
    struct Runs(bool);
    impl<'a> Visit<'a> for Runs {
        fn visit_expression(&mut self, it: &Expression<'a>) {
            if matches!(
                it,
                Expression::CallExpression(_)
                    | Expression::NewExpression(_)
                    | Expression::AssignmentExpression(_)
                    | Expression::UpdateExpression(_)
                    | Expression::TaggedTemplateExpression(_)
                    | Expression::AwaitExpression(_)
                    | Expression::YieldExpression(_)
                    | Expression::ImportExpression(_)
                    | Expression::FunctionExpression(_)
                    | Expression::ArrowFunctionExpression(_)
                    | Expression::ClassExpression(_)
            ) {
                self.0 = true;
            }
            walk::walk_expression(self, it);
        }
    }
    let mut runs = Runs(false);
    runs.visit_expression(expr);
    !runs.0
}
