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
//! - `helpers`: webpack's `require.d(exports, {...})` as `Object.defineProperty` getters, and
//!   `require.r(exports)` dropped where nothing sees its mark (`exports/helpers.rs`).
//!
//! A string literal left alone as a statement by a split is dropped (it does nothing), so
//! that none can become a `"use strict"` directive at the top of a function.

use oxc_allocator::{Allocator, Box as ArenaBox, CloneIn, TakeIn, Vec as ArenaVec};
use oxc_ast::ast::{
    BinaryOperator, Expression, LogicalOperator, Statement, UnaryOperator, VariableDeclaration,
};
use oxc_ast::builder::AstBuilder;

pub(crate) mod exports;
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
    /// webpack's `require.d` and `require.r` written as what they do (see
    /// `exports/helpers.rs`).
    pub helpers: bool,
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
        helpers: true,
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
        helpers: false,
    };
    /// The transforms' names, as `--no-transform` takes them.
    pub const NAMES: [&'static str; 10] = [
        "sequences",
        "logical",
        "conditional",
        "declarations",
        "booleans",
        "void0",
        "export-names",
        "calls",
        "plain-exports",
        "helpers",
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
            "helpers" => &mut self.helpers,
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
    /// webpack's `require.d` and `require.r` calls written out or dropped.
    pub helpers: usize,
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
        self.helpers += o.helpers;
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
    /// The statements `stmt` becomes (itself, when nothing applies). `in_list` when it stands
    /// in a list of statements, where a loop may gain statements in front of it (elsewhere
    /// they would need a block, and a label on the loop would then name the block).
    fn expand(
        &mut self,
        stmt: Statement<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
        in_list: bool,
    ) {
        match stmt {
            Statement::ExpressionStatement(es) => {
                let es = es.unbox();
                self.expression_statements(es.expression, out);
            }
            Statement::ReturnStatement(mut r) if self.transforms.sequences => {
                if let Some(argument) = &mut r.argument {
                    self.lead_out(argument, out);
                }
                // `return c ? (a, b) : d` → `if (c) { a; return b; } else return d;`
                if r.argument.as_ref().is_some_and(has_sequence_branch) {
                    let Some(Expression::ConditionalExpression(c)) = r.argument.take() else {
                        unreachable!("checked above")
                    };
                    let c = c.unbox();
                    let then = self.returning(c.consequent);
                    let otherwise = self.returning(c.alternate);
                    self.changes.sequences += 1;
                    out.push(Statement::new_if_statement(
                        r.span,
                        c.test,
                        then,
                        Some(otherwise),
                        &self.ast,
                    ));
                    return;
                }
                out.push(Statement::ReturnStatement(r));
            }
            Statement::IfStatement(mut i) if self.transforms.sequences => {
                self.lead_out(&mut i.test, out);
                out.push(Statement::IfStatement(i));
            }
            Statement::ThrowStatement(mut t) if self.transforms.sequences => {
                self.lead_out(&mut t.argument, out);
                out.push(Statement::ThrowStatement(t));
            }
            Statement::SwitchStatement(mut s) if self.transforms.sequences => {
                self.lead_out(&mut s.discriminant, out);
                out.push(Statement::SwitchStatement(s));
            }
            Statement::ForStatement(mut f) if self.transforms.sequences && in_list => {
                if let Some(init) = &mut f.init
                    && let Some(expr) = init.as_expression_mut()
                {
                    self.lead_out(expr, out);
                }
                out.push(Statement::ForStatement(f));
            }
            Statement::ForInStatement(mut f) if self.transforms.sequences && in_list => {
                self.lead_out(&mut f.right, out);
                out.push(Statement::ForInStatement(f));
            }
            Statement::VariableDeclaration(mut d)
                if self.transforms.sequences
                    && d.declarations.len() == 1
                    && matches!(
                        d.declarations[0].init,
                        Some(Expression::SequenceExpression(_))
                    ) =>
            {
                // `var x = (a, b)` → `a; var x = b;`: `a` ran before the binding was set
                // either way.
                if let Some(init) = &mut d.declarations[0].init {
                    self.lead_out(init, out);
                }
                out.push(Statement::VariableDeclaration(d));
            }
            Statement::VariableDeclaration(d)
                if self.transforms.declarations && d.declarations.len() > 1 =>
            {
                let mut split = ArenaVec::new_in(&self.allocator);
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
                    split.push(Statement::VariableDeclaration(ArenaBox::new_in(
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
                for declaration in split {
                    self.expand(declaration, out, in_list);
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
            // `x = c ? (a, b) : d` → `if (c) { a; x = b; } else x = d;` (a plain name: nothing
            // on the left is evaluated before the right).
            Expression::AssignmentExpression(a)
                if self.transforms.sequences
                    && a.operator == oxc_ast::ast::AssignmentOperator::Assign
                    && matches!(
                        a.left,
                        oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(_)
                    )
                    && has_sequence_branch(&a.right) =>
            {
                let a = a.unbox();
                let Expression::ConditionalExpression(c) = a.right else {
                    unreachable!("checked above")
                };
                let c = c.unbox();
                let oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(name) = a.left
                else {
                    unreachable!("checked above")
                };
                let assign = |this: &mut Self, value: Expression<'a>| {
                    let target = oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(
                        name.clone_in(this.allocator),
                    );
                    let span = value.span();
                    this.single(Expression::new_assignment_expression(
                        span,
                        oxc_ast::ast::AssignmentOperator::Assign,
                        target,
                        value,
                        &this.ast,
                    ))
                };
                self.changes.sequences += 1;
                let then = assign(self, c.consequent);
                let otherwise = assign(self, c.alternate);
                out.push(Statement::new_if_statement(
                    a.span,
                    c.test,
                    then,
                    Some(otherwise),
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

    /// `return expr;` as one statement (an `if` branch), the sequences in it led out.
    fn returning(&mut self, expr: Expression<'a>) -> Statement<'a> {
        let span = expr.span();
        let mut out = ArenaVec::new_in(&self.allocator);
        self.expand(
            Statement::new_return_statement(span, Some(expr), &self.ast),
            &mut out,
            false,
        );
        self.one_of(span, out)
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

/// `c ? (a, b) : d`, or a conditional whose branch is one of those: the branches hold
/// sequences that statements could take apart.
fn has_sequence_branch(expr: &Expression<'_>) -> bool {
    match expr {
        Expression::ConditionalExpression(c) => [&c.consequent, &c.alternate]
            .iter()
            .any(|b| matches!(b, Expression::SequenceExpression(_)) || has_sequence_branch(b)),
        _ => false,
    }
}

impl<'a> VisitMut<'a> for Readable<'a> {
    /// `() => (a, b)` → `() => { a; return b; }`, and the same for a conditional body whose
    /// branches hold sequences.
    fn visit_arrow_function_expression(
        &mut self,
        it: &mut oxc_ast::ast::ArrowFunctionExpression<'a>,
    ) {
        if self.transforms.sequences
            && it.get_expression().is_some_and(|e| {
                matches!(e, Expression::SequenceExpression(_)) || has_sequence_branch(e)
            })
        {
            let span = it.body.span();
            let expr = it
                .get_expression_mut()
                .expect("checked above")
                .take_in(&self.allocator);
            let statements = ArenaVec::from_value_in(
                Statement::new_return_statement(span, Some(expr), &self.ast),
                &self.allocator,
            );
            it.body = oxc_ast::ast::ArrowFunctionBody::new_function_body(
                span,
                ArenaVec::new_in(&self.allocator),
                statements,
                &self.ast,
            );
        }
        walk_mut::walk_arrow_function_expression(self, it);
    }

    fn visit_statements(&mut self, it: &mut ArenaVec<'a, Statement<'a>>) {
        let old = std::mem::replace(it, ArenaVec::new_in(&self.allocator));
        for mut stmt in old {
            walk_mut::walk_statement(self, &mut stmt);
            self.expand(stmt, it, true);
        }
    }

    /// A statement where only one fits (an `if` branch, a loop body): expanded into a block.
    fn visit_statement(&mut self, it: &mut Statement<'a>) {
        walk_mut::walk_statement(self, it);
        let span = it.span();
        let stmt = std::mem::replace(it, Statement::new_empty_statement(span, &self.ast));
        let mut out = ArenaVec::new_in(&self.allocator);
        self.expand(stmt, &mut out, false);
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

/// A bundle file's own code (webpack's runtime, esbuild's helpers and the code it joined)
/// with `transforms` applied and formatted, as the module files are; the text unchanged when
/// it does not parse as a script (it did before the unbundler's edits, which keep that).
pub(crate) fn clean_file(text: &str, transforms: Transforms) -> String {
    let allocator = Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, text, oxc_span::SourceType::script())
        .with_options(oxc_parser::ParseOptions {
            allow_return_outside_function: true,
            preserve_parens: false,
            ..oxc_parser::ParseOptions::default()
        })
        .parse();
    if parsed.diagnostics.errors().next().is_some() {
        return text.to_owned();
    }
    let mut program = parsed.program;
    let binds_undefined = oxc_semantic::SemanticBuilder::new()
        .build(&program)
        .semantic
        .scoping()
        .symbol_names()
        .any(|n| n == "undefined");
    apply(&mut program.body, &allocator, transforms, binds_undefined);
    oxc_codegen::Codegen::new().build(&program).code
}
