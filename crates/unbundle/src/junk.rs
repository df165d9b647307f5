//! Counts what a minifier leaves behind that a reader has to undo in their head: the figure the
//! unbundler's readability is judged by (per 1,000 statements), for pilotfish's output and a
//! peer's alike.
//!
//! ```
//! let junk = unbundle::junk::count("var a = 1, b = !0; a && (b = 2, a = 3);").unwrap();
//! assert_eq!((junk.sequences, junk.booleans, junk.declarations), (1, 1, 1));
//! assert_eq!(junk.statements, 2);
//! ```

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    CallExpression, Expression, ForStatementInit, SequenceExpression, Statement,
    TaggedTemplateExpression, UnaryExpression, UnaryOperator, VariableDeclaration,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::{ParseOptions, Parser};
use oxc_span::SourceType;
use serde::Serialize;

/// Minifier constructs in one file or many (added up with `+=`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Junk {
    /// Statements of every kind but blocks and empty ones: the denominator.
    pub statements: usize,
    /// `a, b` anywhere but in a `(0, x.f)` callee.
    pub sequences: usize,
    /// `(0, x.f)(...)` (or a template tagged so): a call made without a receiver.
    pub receiverless_calls: usize,
    /// Calls of webpack's helpers: `require.d(...)`, `.r`, `.n`, `.t` on a name.
    pub helper_calls: usize,
    /// `!0` and `!1`.
    pub booleans: usize,
    /// Declarations of more than one variable outside a `for` head.
    pub declarations: usize,
    /// `void 0`.
    pub void0: usize,
}

impl Junk {
    /// Everything counted but the statements.
    pub fn total(&self) -> usize {
        self.sequences
            + self.receiverless_calls
            + self.helper_calls
            + self.booleans
            + self.declarations
            + self.void0
    }

    /// Junk per 1,000 statements.
    pub fn per_thousand(&self) -> f64 {
        if self.statements == 0 {
            return 0.0;
        }
        self.total() as f64 * 1000.0 / self.statements as f64
    }
}

impl std::ops::AddAssign for Junk {
    fn add_assign(&mut self, o: Junk) {
        self.statements += o.statements;
        self.sequences += o.sequences;
        self.receiverless_calls += o.receiverless_calls;
        self.helper_calls += o.helper_calls;
        self.booleans += o.booleans;
        self.declarations += o.declarations;
        self.void0 += o.void0;
    }
}

/// Counts the junk in `source`, a script or an ES module; the parser's first error when it
/// is neither.
pub fn count(source: &str) -> Result<Junk, String> {
    let allocator = Allocator::default();
    let options = ParseOptions {
        allow_return_outside_function: true,
        ..ParseOptions::default()
    };
    let mut parsed = Parser::new(&allocator, source, SourceType::script())
        .with_options(options)
        .parse();
    if parsed.diagnostics.errors().next().is_some() {
        parsed = Parser::new(&allocator, source, SourceType::mjs())
            .with_options(options)
            .parse();
    }
    if let Some(e) = parsed.diagnostics.errors().next() {
        return Err(e.to_string());
    }
    let mut counter = Counter::default();
    counter.visit_program(&parsed.program);
    Ok(counter.junk)
}

#[derive(Default)]
struct Counter {
    junk: Junk,
}

impl Counter {
    /// Counts `callee` when it is `(0, x.f)`, and visits its parts (not the sequence itself,
    /// which is not counted twice); whether it was.
    fn receiverless(&mut self, callee: &Expression<'_>) -> bool {
        if !is_receiverless(callee) {
            return false;
        }
        self.junk.receiverless_calls += 1;
        if let Expression::SequenceExpression(s) = callee.without_parentheses() {
            for e in &s.expressions {
                self.visit_expression(e);
            }
        }
        true
    }
}

/// `(0, x.f)`: the callee of a call without a receiver.
fn is_receiverless(expr: &Expression<'_>) -> bool {
    match expr.without_parentheses() {
        Expression::SequenceExpression(s) => {
            s.expressions.len() == 2
                && matches!(&s.expressions[0], Expression::NumericLiteral(n) if n.value == 0.0)
                && s.expressions[1].is_member_expression()
        }
        _ => false,
    }
}

impl<'a> Visit<'a> for Counter {
    fn visit_statement(&mut self, it: &Statement<'a>) {
        if !matches!(
            it,
            Statement::BlockStatement(_) | Statement::EmptyStatement(_)
        ) {
            self.junk.statements += 1;
        }
        walk::walk_statement(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        if self.receiverless(&it.tag) {
            self.visit_template_literal(&it.quasi);
            return;
        }
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_sequence_expression(&mut self, it: &SequenceExpression<'a>) {
        self.junk.sequences += 1;
        walk::walk_sequence_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if self.receiverless(&it.callee) {
            for argument in &it.arguments {
                self.visit_argument(argument);
            }
            return;
        }
        if let Expression::StaticMemberExpression(m) = it.callee.without_parentheses()
            && matches!(m.object, Expression::Identifier(_))
            && matches!(m.property.name.as_str(), "d" | "r" | "n" | "t")
        {
            self.junk.helper_calls += 1;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if let Expression::NumericLiteral(n) = &it.argument {
            match it.operator {
                UnaryOperator::LogicalNot if n.value == 0.0 || n.value == 1.0 => {
                    self.junk.booleans += 1
                }
                UnaryOperator::Void if n.value == 0.0 => self.junk.void0 += 1,
                _ => {}
            }
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.declarations.len() > 1 {
            self.junk.declarations += 1;
        }
        walk::walk_variable_declaration(self, it);
    }

    fn visit_for_statement_init(&mut self, it: &ForStatementInit<'a>) {
        // A `for` head's declarations are one statement's, and stay together.
        if let ForStatementInit::VariableDeclaration(d) = it {
            for declarator in &d.declarations {
                self.visit_variable_declarator(declarator);
            }
            return;
        }
        walk::walk_for_statement_init(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_construct_is_counted_once() {
        let junk = count(
            "for (var i = 0, n = 2; i < n; i++, n--) (0, a.f)(i, void 0);\n\
             r.d(t, {a: () => 1}); r.r(t); var x = r.n(y), z = !1;",
        )
        .unwrap();
        assert_eq!(
            junk,
            Junk {
                statements: 5,
                sequences: 1,
                receiverless_calls: 1,
                helper_calls: 3,
                booleans: 1,
                declarations: 1,
                void0: 1,
            }
        );
    }

    #[test]
    fn es_modules_are_counted_and_broken_text_is_an_error() {
        assert_eq!(count("export const a = !0;").unwrap().booleans, 1);
        assert!(count("var = ;").is_err());
    }
}
