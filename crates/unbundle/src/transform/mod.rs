//! The minifier's syntax undone where that keeps the meaning (seed 001's transforms, made
//! safe). Each transform can be switched off; each says below when it is safe and what the
//! seed's version got wrong.
//!
//! - `sequences` ([`sequences`]): `a, b, c;` becomes `a; b; c;`, and a sequence leading what
//!   a statement evaluates first moves out in front of it (`return a, b;` → `a; return b;`).
//!   Safe because the parts ran in that order anyway; an assignment to a property
//!   (`x.y = (a, b)`) is left alone, since `x` is evaluated before `a` there.
//! - `logical` ([`branches`]): `a && b;` → `if (a) b;`, `a || b;` → `if (!a) b;`, `a ?? b;` →
//!   `if (a == null) b;`. The seed turned `a || b;` into `if (a) b;`, inverting it.
//! - `conditional` ([`branches`]): `a ? b : c;` → `if (a) b; else c;`.
//! - `declarations` ([`declarations`]): `var a = 1, b = 2;` → one declaration each, in statement lists only: a
//!   `for` head keeps its declarations (the seed split `for (let i = 0, n = x.length; ...)`
//!   and broke the loop).
//! - `booleans` ([`literals`]): `!0` → `true`, `!1` → `false`.
//! - `void0` ([`literals`]): `void 0` → `undefined`, unless the module binds a name
//!   `undefined` anywhere.
//! - `export-names`: `exports.Name = a` renames `a` to `Name` (done in `name/` with the
//!   other renames, under the same rule: only to a name nothing in the module has or uses).
//! - `calls`: `(0, x.f)(...)` → `x.f(...)` where the receiver cannot matter, and
//!   `plain-exports`: webpack's `require.d` getters of function declarations → `exports.f =
//!   f;`. Both depend on other modules (done in `exports/`, where their conditions are).
//! - `helpers`: webpack's `require.d(exports, {...})` as `Object.defineProperty` getters, and
//!   `require.r(exports)` dropped where nothing sees its mark (`exports/helpers.rs`).
//!
//! A string literal left alone as a statement by a split is dropped (it does nothing), so
//! that none can become a `"use strict"` directive at the top of a function.

mod branches;
mod declarations;
pub(crate) mod exports;
mod literals;
mod sequences;

use oxc_allocator::{Allocator, Vec as ArenaVec};
use oxc_ast::ast::{Expression, Statement};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_span::GetSpan;

/// Which transforms run. All do by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transforms {
    pub sequences: bool,
    pub logical: bool,
    pub conditional: bool,
    pub declarations: bool,
    pub booleans: bool,
    pub void0: bool,
    /// `exports.Name = a` renames `a` to `Name` (see `name/` for when).
    pub export_names: bool,
    /// `(0, x.f)(...)` → `x.f(...)` (see `exports/` for when).
    pub calls: bool,
    /// `require.d` getters of functions → plain exports (see `exports/` for when).
    pub plain_exports: bool,
    /// webpack's `require.d` and `require.r` written as what they do (see
    /// `exports/helpers.rs`).
    pub helpers: bool,
    /// esbuild's `require_x()` and `(init_x(), __toCommonJS(x_exports))` in a module file →
    /// `require("./x.js")` (see `requires/`).
    pub requires: bool,
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
        requires: true,
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
        requires: false,
    };
    /// The transforms' names, as `--no-transform` takes them.
    pub const NAMES: [&'static str; 11] = [
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
        "requires",
    ];

    /// Switches off the transform called `name`; `false` for a name that is none.
    pub fn switch_off(&mut self, name: &str) -> bool {
        self.switch(name, false)
    }

    /// Switches on the transform called `name`; `false` for a name that is none.
    pub fn switch_on(&mut self, name: &str) -> bool {
        self.switch(name, true)
    }

    fn switch(&mut self, name: &str, on: bool) -> bool {
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
            "requires" => &mut self.requires,
            _ => return false,
        };
        *flag = on;
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
    /// Calls of esbuild's CommonJS wrappers written as `require`s of their files.
    pub requires: usize,
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
        self.requires += o.requires;
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
                self.expression_statements(es.unbox().expression, out);
            }
            Statement::VariableDeclaration(d)
                if self.transforms.declarations && d.declarations.len() > 1 =>
            {
                self.split_declaration(d, out, in_list);
            }
            stmt if self.transforms.sequences => self.lead_out_of(stmt, out, in_list),
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
                self.logical_statement(l.unbox(), out);
            }
            Expression::ConditionalExpression(c) if self.transforms.conditional => {
                self.conditional_statement(c.unbox(), out);
            }
            Expression::AssignmentExpression(a)
                if self.transforms.sequences && sequences::assigns_a_sequence(&a) =>
            {
                self.assignment_statements(a, out);
            }
            // A lone string does nothing; as the first statement of a body it would read as a
            // directive.
            Expression::StringLiteral(_) if out.is_empty() => {}
            mut other => {
                if self.transforms.sequences {
                    self.lead_out(&mut other, out);
                }
                let span = other.span();
                out.push(Statement::new_expression_statement(span, other, &self.ast));
            }
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
    fn visit_arrow_function_expression(
        &mut self,
        it: &mut oxc_ast::ast::ArrowFunctionExpression<'a>,
    ) {
        if self.transforms.sequences {
            self.arrow_body(it);
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
        self.literal(it);
    }
}

/// A bundle file's own code (webpack's runtime, esbuild's helpers and the code it joined)
/// with `transforms` applied and formatted, as the module files are; the text unchanged when
/// it does not parse as a script (it did before the unbundler's edits, which keep that).
pub(crate) fn clean_file(text: &str, transforms: Transforms) -> String {
    let allocator = Allocator::default();
    let parse = |source_type: oxc_span::SourceType| {
        oxc_parser::Parser::new(&allocator, text, source_type)
            .with_options(oxc_parser::ParseOptions {
                allow_return_outside_function: source_type.is_script(),
                preserve_parens: false,
                ..oxc_parser::ParseOptions::default()
            })
            .parse()
    };
    // A script, or else an ES module.
    let mut parsed = parse(oxc_span::SourceType::script());
    if parsed.diagnostics.errors().next().is_some() {
        parsed = parse(oxc_span::SourceType::mjs());
    }
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

/// Runs one transform on a snippet, for the transforms' own tests.
#[cfg(test)]
fn only(name: &str, text: &str) -> String {
    let mut transforms = Transforms::NONE;
    assert!(transforms.switch_on(name), "{name} is a transform");
    clean_file(text, transforms)
}
