//! `logical` and `conditional`: an expression statement that only chooses what runs is an
//! `if`. `a && b;` → `if (a) b;`, `a || b;` → `if (!a) b;` (the seed wrote `if (a) b;`,
//! inverting it), `a ?? b;` → `if (a == null) b;`, and `a ? b : c;` → `if (a) b; else c;`.
//! The value each produced was thrown away, so nothing else changes.

use oxc_allocator::Vec as ArenaVec;
use oxc_ast::ast::{
    BinaryOperator, ConditionalExpression, Expression, LogicalExpression, LogicalOperator,
    Statement, UnaryOperator,
};
use oxc_span::SPAN;

use super::Readable;

impl<'a> Readable<'a> {
    /// `a && b;` and its kin as an `if`.
    pub(super) fn logical_statement(
        &mut self,
        l: LogicalExpression<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
    ) {
        self.changes.logical += 1;
        let span = l.span;
        let test = match l.operator {
            LogicalOperator::And => l.left,
            LogicalOperator::Or => {
                Expression::new_unary_expression(span, UnaryOperator::LogicalNot, l.left, &self.ast)
            }
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

    /// `a ? b : c;` as an `if` and its `else`.
    pub(super) fn conditional_statement(
        &mut self,
        c: ConditionalExpression<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
    ) {
        self.changes.conditional += 1;
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
}

#[cfg(test)]
mod tests {
    use super::super::only;

    #[test]
    fn choices_become_ifs_with_the_test_the_operator_meant() {
        for (name, text, expected) in [
            ("logical", "a&&b();", "if (a) b();\n"),
            ("logical", "a||b();", "if (!a) b();\n"),
            ("logical", "a??b();", "if (a == null) b();\n"),
            ("conditional", "a?b():c();", "if (a) b();\nelse c();\n"),
            // Only statements: a value that is used stays an expression.
            ("logical", "x=a&&b();", "x = a && b();\n"),
            ("conditional", "x=a?b():c();", "x = a ? b() : c();\n"),
        ] {
            assert_eq!(only(name, text), expected, "{name}: {text}");
        }
    }
}
