//! The minifier's syntax undone where that keeps the meaning (seed 001's transforms, made
//! safe). Each transform can be switched off; each says below when it is safe and what the
//! seed's version got wrong.
//!
//! - `sequences`: `a, b, c;` becomes `a; b; c;`, and a sequence leading a `return`, an `if`
//!   test or a plain-name assignment moves out in front of it (`return a, b;` →
//!   `a; return b;`). Safe because the parts ran in that order anyway; an assignment to a
//!   property (`x.y = (a, b)`) is left alone, since `x` is evaluated before `a` there.
//! - `logical`: `a && b;` → `if (a) b;`, `a || b;` → `if (!a) b;`, `a ?? b;` →
//!   `if (a == null) b;`. The seed turned `a || b;` into `if (a) b;`, inverting it.
//! - `conditional`: `a ? b : c;` → `if (a) b; else c;`.
//! - `declarations`: `var a = 1, b = 2;` → one declaration each, in statement lists only: a
//!   `for` head keeps its declarations (the seed split `for (let i = 0, n = x.length; ...)`
//!   and broke the loop).
//! - `booleans`: `!0` → `true`, `!1` → `false`.
//! - `void0`: `void 0` → `undefined`, unless the module binds a name `undefined` anywhere.
//! - `export-names`: `exports.Name = a` renames `a` to `Name` (done in `names.rs` with the
//!   other renames, under the same rule: only to a name nothing in the module has or uses).
//! - `calls`: `(0, x.f)(...)` → `x.f(...)` where the receiver cannot matter, and
//!   `plain-exports`: webpack's `require.d` getters of function declarations → `exports.f =
//!   f;`. Both depend on other modules (done in `exports/`, where their conditions are).
//!
//! A string literal left alone as a statement by a split is dropped (it does nothing), so
//! that none can become a `"use strict"` directive at the top of a function.

use oxc_allocator::{Allocator, Box as ArenaBox, TakeIn, Vec as ArenaVec};
use oxc_ast::ast::{
    BinaryOperator, Expression, LogicalOperator, Statement, UnaryOperator, VariableDeclaration,
};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_span::{GetSpan, SPAN};

/// Which transforms run. All do by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transforms {
    pub sequences: bool,
    pub logical: bool,
    pub conditional: bool,
    pub declarations: bool,
    pub booleans: bool,
    pub void0: bool,
    /// `exports.Name = a` renames `a` to `Name` (see `names.rs` for when).
    pub export_names: bool,
    /// `(0, x.f)(...)` → `x.f(...)` (see `exports/` for when).
    pub calls: bool,
    /// `require.d` getters of functions → plain exports (see `exports/` for when).
    pub plain_exports: bool,
}

impl Default for Transforms {
    fn default() -> Self {
        Transforms::ALL
    }
}

impl Transforms {
    pub const ALL: Transforms = Transforms {
        sequences: true,
        logical: true,
        conditional: true,
        declarations: true,
        booleans: true,
        void0: true,
        export_names: true,
        calls: true,
        plain_exports: true,
    };
    pub const NONE: Transforms = Transforms {
        sequences: false,
        logical: false,
        conditional: false,
        declarations: false,
        booleans: false,
        void0: false,
        export_names: false,
        calls: false,
        plain_exports: false,
    };
    /// The transforms' names, as `--no-transform` takes them.
    pub const NAMES: [&'static str; 9] = [
        "sequences",
        "logical",
        "conditional",
        "declarations",
        "booleans",
        "void0",
        "export-names",
        "calls",
        "plain-exports",
    ];

    /// Switches off the transform called `name`; `false` for a name that is none.
    pub fn switch_off(&mut self, name: &str) -> bool {
        let flag = match name {
            "sequences" => &mut self.sequences,
            "logical" => &mut self.logical,
            "conditional" => &mut self.conditional,
            "declarations" => &mut self.declarations,
            "booleans" => &mut self.booleans,
            "void0" => &mut self.void0,
            "export-names" => &mut self.export_names,
            "calls" => &mut self.calls,
            "plain-exports" => &mut self.plain_exports,
            _ => return false,
        };
        *flag = false;
        true
    }
}

/// How many times each transform changed something.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Changes {
    pub sequences: usize,
    pub logical: usize,
    pub conditional: usize,
    pub declarations: usize,
    pub booleans: usize,
    pub void0: usize,
    /// Variables renamed after their export name (`export_names`).
    pub export_names: usize,
    /// Variables renamed after the named module they are bound to.
    pub module_names: usize,
    /// `(0, x.f)(...)` calls given their receiver.
    pub calls: usize,
    /// `require.d` getters made plain exports.
    pub plain_exports: usize,
}

impl std::ops::AddAssign for Changes {
    fn add_assign(&mut self, o: Changes) {
        self.sequences += o.sequences;
        self.logical += o.logical;
        self.conditional += o.conditional;
        self.declarations += o.declarations;
        self.booleans += o.booleans;
        self.void0 += o.void0;
        self.export_names += o.export_names;
        self.module_names += o.module_names;
        self.calls += o.calls;
        self.plain_exports += o.plain_exports;
    }
}

/// Applies `transforms` to `statements` (a module's body); `binds_undefined` when the module
/// declares something named `undefined`.
pub(crate) fn apply<'a>(
    statements: &mut ArenaVec<'a, Statement<'a>>,
    allocator: &'a Allocator,
    transforms: Transforms,
    binds_undefined: bool,
) -> Changes {
    let mut t = Readable {
        ast: AstBuilder::new(allocator),
        allocator,
        transforms,
        binds_undefined,
        changes: Changes::default(),
    };
    t.visit_statements(statements);
    t.changes
}

struct Readable<'a> {
    ast: AstBuilder<'a>,
    allocator: &'a Allocator,
    transforms: Transforms,
    binds_undefined: bool,
    changes: Changes,
}

impl<'a> Readable<'a> {
    /// The statements `stmt` becomes (itself, when nothing applies).
    fn expand(&mut self, stmt: Statement<'a>, out: &mut ArenaVec<'a, Statement<'a>>) {
        match stmt {
            Statement::ExpressionStatement(es) => {
                let es = es.unbox();
                self.expression_statements(es.expression, out);
            }
            Statement::ReturnStatement(mut r) if self.transforms.sequences => {
                if let Some(argument) = &mut r.argument {
                    self.lead_out(argument, out);
                }
                out.push(Statement::ReturnStatement(r));
            }
            Statement::IfStatement(mut i) if self.transforms.sequences => {
                self.lead_out(&mut i.test, out);
                out.push(Statement::IfStatement(i));
            }
            Statement::VariableDeclaration(d)
                if self.transforms.declarations && d.declarations.len() > 1 =>
            {
                self.changes.declarations += 1;
                let d = d.unbox();
                let VariableDeclaration {
                    span,
                    kind,
                    declarations,
                    declare,
                    ..
                } = d;
                for declarator in declarations {
                    out.push(Statement::VariableDeclaration(ArenaBox::new_in(
                        VariableDeclaration::new(
                            span,
                            kind,
                            ArenaVec::from_value_in(declarator, &self.allocator),
                            declare,
                            &self.ast,
                        ),
                        &self.allocator,
                    )));
                }
            }
            other => out.push(other),
        }
    }

    /// The statements an expression statement of `expr` becomes.
    fn expression_statements(
        &mut self,
        expr: Expression<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
    ) {
        match expr {
            Expression::SequenceExpression(seq) if self.transforms.sequences => {
                self.changes.sequences += 1;
                for part in seq.unbox().expressions {
                    self.expression_statements(part, out);
                }
            }
            Expression::LogicalExpression(l) if self.transforms.logical => {
                self.changes.logical += 1;
                let l = l.unbox();
                let span = l.span;
                let test = match l.operator {
                    LogicalOperator::And => l.left,
                    LogicalOperator::Or => Expression::new_unary_expression(
                        span,
                        UnaryOperator::LogicalNot,
                        l.left,
                        &self.ast,
                    ),
                    LogicalOperator::Coalesce => Expression::new_binary_expression(
                        span,
                        l.left,
                        BinaryOperator::Equality,
                        Expression::new_null_literal(SPAN, &self.ast),
                        &self.ast,
                    ),
                };
                let then = self.single(l.right);
                out.push(Statement::new_if_statement(
                    span, test, then, None, &self.ast,
                ));
            }
            Expression::ConditionalExpression(c) if self.transforms.conditional => {
                self.changes.conditional += 1;
                let c = c.unbox();
                let then = self.single(c.consequent);
                let otherwise = self.single(c.alternate);
                out.push(Statement::new_if_statement(
                    c.span,
                    c.test,
                    then,
                    Some(otherwise),
                    &self.ast,
                ));
            }
            Expression::AssignmentExpression(mut a)
                if self.transforms.sequences
                    && a.left.is_simple_assignment_target()
                    && matches!(
                        a.left,
                        oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(_)
                    )
                    && matches!(a.right, Expression::SequenceExpression(_)) =>
            {
                self.lead_out(&mut a.right, out);
                let span = a.span;
                out.push(Statement::new_expression_statement(
                    span,
                    Expression::AssignmentExpression(a),
                    &self.ast,
                ));
            }
            // A lone string does nothing; as the first statement of a body it would read as a
            // directive.
            Expression::StringLiteral(_) if out.is_empty() => {}
            other => {
                let span = other.span();
                out.push(Statement::new_expression_statement(span, other, &self.ast));
            }
        }
    }

    /// When `expr` is a sequence, moves all but its last part out in front, as statements of
    /// their own, and leaves the last part in its place.
    fn lead_out(&mut self, expr: &mut Expression<'a>, out: &mut ArenaVec<'a, Statement<'a>>) {
        if !matches!(expr, Expression::SequenceExpression(_)) {
            return;
        }
        let Expression::SequenceExpression(seq) = expr.take_in(&self.allocator) else {
            unreachable!("matched above")
        };
        let mut parts = seq.unbox().expressions;
        *expr = parts.pop().expect("a sequence has parts");
        self.changes.sequences += 1;
        for part in parts {
            self.expression_statements(part, out);
        }
    }

    /// One statement for `expr` where only one fits (an `if` branch): a block when the
    /// expression becomes several.
    fn single(&mut self, expr: Expression<'a>) -> Statement<'a> {
        let span = expr.span();
        let mut out = ArenaVec::new_in(&self.allocator);
        self.expression_statements(expr, &mut out);
        self.one_of(span, out)
    }

    fn one_of(&self, span: oxc_span::Span, mut out: ArenaVec<'a, Statement<'a>>) -> Statement<'a> {
        if out.len() == 1 {
            return out.pop().expect("one statement");
        }
        Statement::new_block_statement(span, out, &self.ast)
    }
}

impl<'a> VisitMut<'a> for Readable<'a> {
    fn visit_statements(&mut self, it: &mut ArenaVec<'a, Statement<'a>>) {
        let old = std::mem::replace(it, ArenaVec::new_in(&self.allocator));
        for mut stmt in old {
            walk_mut::walk_statement(self, &mut stmt);
            self.expand(stmt, it);
        }
    }

    /// A statement where only one fits (an `if` branch, a loop body): expanded into a block.
    fn visit_statement(&mut self, it: &mut Statement<'a>) {
        walk_mut::walk_statement(self, it);
        let span = it.span();
        let stmt = std::mem::replace(it, Statement::new_empty_statement(span, &self.ast));
        let mut out = ArenaVec::new_in(&self.allocator);
        self.expand(stmt, &mut out);
        *it = self.one_of(span, out);
    }

    fn visit_expression(&mut self, it: &mut Expression<'a>) {
        walk_mut::walk_expression(self, it);
        match it {
            Expression::UnaryExpression(u)
                if self.transforms.booleans && u.operator == UnaryOperator::LogicalNot =>
            {
                if let Expression::NumericLiteral(n) = &u.argument
                    && (n.value == 0.0 || n.value == 1.0)
                {
                    let value = n.value == 0.0;
                    self.changes.booleans += 1;
                    *it = Expression::new_boolean_literal(u.span, value, &self.ast);
                }
            }
            Expression::UnaryExpression(u)
                if self.transforms.void0
                    && !self.binds_undefined
                    && u.operator == UnaryOperator::Void =>
            {
                if let Expression::NumericLiteral(n) = &u.argument
                    && n.value == 0.0
                {
                    self.changes.void0 += 1;
                    *it = Expression::new_identifier(u.span, "undefined", &self.ast);
                }
            }
            _ => {}
        }
    }
}
