//! `sequences`: a comma sequence is statements a minifier joined; it comes apart wherever the
//! parts ran one after the other before the rest of the statement: as a statement of its
//! own (`a, b;`), leading what a statement evaluates first (a `return` or `throw` argument, an
//! `if` test, a `switch` discriminant, a declaration's only initializer, a `for` loop's
//! initializer and a `for-in` object, the loops only where statements can go in front of them
//! without a block, since a label on the loop would then name the block), on the right of an
//! assignment to a plain name (nothing on the left is evaluated first), and in the branches of
//! a conditional that is returned or so assigned (`return c ? (a, b) : d` → `if (c) { a;
//! return b; } else return d;`). An arrow function whose body is such an expression gets a
//! block body first. An assignment to a property (`x.y = (a, b)`) keeps its sequence: `x` is
//! evaluated before `a`.

use oxc_allocator::{CloneIn, TakeIn, Vec as ArenaVec};
use oxc_ast::ast::{
    ArrowFunctionBody, ArrowFunctionExpression, AssignmentExpression, AssignmentOperator,
    AssignmentTarget, Expression, LogicalOperator, Statement, UnaryOperator,
};
use oxc_span::GetSpan;

use super::Readable;

impl<'a> Readable<'a> {
    /// The sequences leading what `stmt` evaluates first, moved out in front of it; `stmt`
    /// itself when none does.
    pub(super) fn lead_out_of(
        &mut self,
        stmt: Statement<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
        in_list: bool,
    ) {
        match stmt {
            Statement::ReturnStatement(mut r) => {
                if let Some(argument) = &mut r.argument {
                    self.lead_out(argument, out);
                }
                if let Some(Expression::ConditionalExpression(c)) =
                    r.argument.take_if(|a| has_sequence_branch(a))
                {
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
            Statement::IfStatement(mut i) => {
                self.lead_out(&mut i.test, out);
                // `if (a && (b, c)) S` → `if (a) { b; if (c) S }`: `b` ran exactly when `a`
                // held. With an `else`, the `else` would need writing twice: it stays.
                let and_then_sequence = matches!(&i.test, Expression::LogicalExpression(l)
                    if l.operator == LogicalOperator::And
                        && matches!(l.right, Expression::SequenceExpression(_)));
                if i.alternate.is_none() && and_then_sequence {
                    let i = i.unbox();
                    let Expression::LogicalExpression(l) = i.test else {
                        unreachable!("checked above")
                    };
                    let l = l.unbox();
                    let inner =
                        Statement::new_if_statement(i.span, l.right, i.consequent, None, &self.ast);
                    let mut then = ArenaVec::new_in(&self.allocator);
                    self.expand(inner, &mut then, true);
                    let then = Statement::new_block_statement(i.span, then, &self.ast);
                    out.push(Statement::new_if_statement(
                        i.span, l.left, then, None, &self.ast,
                    ));
                    return;
                }
                out.push(Statement::IfStatement(i));
            }
            Statement::ThrowStatement(mut t) => {
                self.lead_out(&mut t.argument, out);
                out.push(Statement::ThrowStatement(t));
            }
            Statement::SwitchStatement(mut s) => {
                self.lead_out(&mut s.discriminant, out);
                out.push(Statement::SwitchStatement(s));
            }
            Statement::ForStatement(mut f) if in_list => {
                if let Some(init) = &mut f.init
                    && let Some(expr) = init.as_expression_mut()
                {
                    self.lead_out(expr, out);
                }
                out.push(Statement::ForStatement(f));
            }
            Statement::ForInStatement(mut f) if in_list => {
                self.lead_out(&mut f.right, out);
                out.push(Statement::ForInStatement(f));
            }
            // `var x = (a, b)` → `a; var x = b;`: `a` ran before the binding was set either
            // way (and a `let` or `const` is in its dead zone for `a` either way).
            Statement::VariableDeclaration(mut d) if d.declarations.len() == 1 => {
                if let Some(init) = &mut d.declarations[0].init {
                    self.lead_out(init, out);
                }
                out.push(Statement::VariableDeclaration(d));
            }
            other => out.push(other),
        }
    }

    /// `x = (a, b)` → `a; x = b;`, and `x = c ? (a, b) : d` → `if (c) { a; x = b; } else x =
    /// d;`, for an assignment [`assigns_a_sequence`] accepts.
    pub(super) fn assignment_statements(
        &mut self,
        mut a: oxc_allocator::Box<'a, AssignmentExpression<'a>>,
        out: &mut ArenaVec<'a, Statement<'a>>,
    ) {
        if matches!(a.right, Expression::SequenceExpression(_)) {
            self.lead_out(&mut a.right, out);
            let span = a.span;
            out.push(Statement::new_expression_statement(
                span,
                Expression::AssignmentExpression(a),
                &self.ast,
            ));
            return;
        }
        let a = a.unbox();
        let (
            Expression::ConditionalExpression(c),
            AssignmentTarget::AssignmentTargetIdentifier(name),
        ) = (a.right, a.left)
        else {
            unreachable!("assigns_a_sequence checked both")
        };
        let c = c.unbox();
        let assign = |this: &mut Self, value: Expression<'a>| {
            let target =
                AssignmentTarget::AssignmentTargetIdentifier(name.clone_in(this.allocator));
            let span = value.span();
            this.single(Expression::new_assignment_expression(
                span,
                AssignmentOperator::Assign,
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

    /// `() => (a, b)` → `() => { return (a, b); }`, which the statements then take apart; the
    /// same for a conditional body whose branches hold sequences.
    pub(super) fn arrow_body(&mut self, it: &mut ArrowFunctionExpression<'a>) {
        let takes_apart = it.get_expression().is_some_and(|e| {
            matches!(e, Expression::SequenceExpression(_)) || has_sequence_branch(e)
        });
        if !takes_apart {
            return;
        }
        let span = it.body.span();
        let expr = it
            .get_expression_mut()
            .expect("checked above")
            .take_in(&self.allocator);
        let statements = ArenaVec::from_value_in(
            Statement::new_return_statement(span, Some(expr), &self.ast),
            &self.allocator,
        );
        it.body = ArrowFunctionBody::new_function_body(
            span,
            ArenaVec::new_in(&self.allocator),
            statements,
            &self.ast,
        );
    }

    /// Moves a sequence that `expr` evaluates before anything else (`expr` itself, or the
    /// first operand down a chain of them: `!(a, b)`, `(a, b) === c`, `(a, b).f()`) out in
    /// front, as statements of its own, leaving its last part in its place; again while one
    /// leads.
    pub(super) fn lead_out(
        &mut self,
        expr: &mut Expression<'a>,
        out: &mut ArenaVec<'a, Statement<'a>>,
    ) {
        while let Some(first) = first_evaluated_sequence(expr) {
            let Expression::SequenceExpression(seq) = first.take_in(&self.allocator) else {
                unreachable!("found a sequence")
            };
            let mut parts = seq.unbox().expressions;
            *first = parts.pop().expect("a sequence has parts");
            self.changes.sequences += 1;
            for part in parts {
                self.expression_statements(part, out);
            }
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
}

/// An assignment to a plain name (`=` only, for the conditional) of a sequence, or of a
/// conditional whose branches hold one: what [`Readable::assignment_statements`] takes apart.
pub(super) fn assigns_a_sequence(a: &AssignmentExpression<'_>) -> bool {
    matches!(a.left, AssignmentTarget::AssignmentTargetIdentifier(_))
        && (matches!(a.right, Expression::SequenceExpression(_))
            || a.operator == AssignmentOperator::Assign && has_sequence_branch(&a.right))
}

/// The sequence `expr` evaluates before anything else, if any: `expr` itself, or down the
/// operand each expression evaluates first (a unary operand, but not `delete`'s, which a
/// sequence keeps from deleting; a binary or logical left side; a conditional's test; a
/// member's object, also as a callee). A callee that is itself a sequence stays: `(0, x.f)()`
/// calls without a receiver, `x.f()` would not.
fn first_evaluated_sequence<'e, 'a>(
    expr: &'e mut Expression<'a>,
) -> Option<&'e mut Expression<'a>> {
    if matches!(expr, Expression::SequenceExpression(_)) {
        return Some(expr);
    }
    let first = match expr {
        Expression::UnaryExpression(u) if u.operator != UnaryOperator::Delete => &mut u.argument,
        Expression::BinaryExpression(b) => &mut b.left,
        Expression::LogicalExpression(l) => &mut l.left,
        Expression::ConditionalExpression(c) => &mut c.test,
        Expression::StaticMemberExpression(m) => &mut m.object,
        Expression::ComputedMemberExpression(m) => &mut m.object,
        Expression::CallExpression(c) if c.callee.is_member_expression() => &mut c.callee,
        _ => return None,
    };
    first_evaluated_sequence(first)
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

#[cfg(test)]
mod tests {
    use super::super::only;

    #[test]
    fn sequences_come_apart_where_their_parts_ran_first() {
        for (text, expected) in [
            ("a(),b(),c();", "a();\nb();\nc();\n"),
            (
                "function f(){return a(),b()}",
                "function f() {\n\ta();\n\treturn b();\n}\n",
            ),
            ("if(a(),b())c();", "a();\nif (b()) c();\n"),
            ("x=(a(),b());", "a();\nx = b();\n"),
            ("throw a(),b();", "a();\nthrow b();\n"),
            ("switch(a(),b){}", "a();\nswitch (b) {}\n"),
            ("var x=(a(),b);", "a();\nvar x = b;\n"),
            ("for(a(),i=0;i<1;i++);", "a();\nfor (i = 0; i < 1; i++);\n"),
            ("for(k in a(),o);", "a();\nfor (k in o);\n"),
            (
                "function f(){return c?(a(),1):2}",
                "function f() {\n\tif (c) {\n\t\ta();\n\t\treturn 1;\n\t} else return 2;\n}\n",
            ),
            (
                "x=c?(a(),1):2;",
                "if (c) {\n\ta();\n\tx = 1;\n} else x = 2;\n",
            ),
            ("f=()=>(a(),b);", "f = () => {\n\ta();\n\treturn b;\n};\n"),
            ("if(!(a(),b))c();", "a();\nif (!b) c();\n"),
            ("return (a(),b).f(),1;", "a();\nb.f();\nreturn 1;\n"),
            ("if((a(),b)===c&&d)e();", "a();\nif (b === c && d) e();\n"),
            ("if(a&&(b(),c))d();", "if (a) {\n\tb();\n\tif (c) d();\n}\n"),
        ] {
            assert_eq!(only("sequences", text), expected, "{text}");
        }
    }

    #[test]
    fn sequences_stay_where_taking_them_apart_would_change_the_order_or_a_label() {
        for (text, expected) in [
            // `x` is evaluated before `a()`.
            ("x.y=(a(),b());", "x.y = (a(), b());\n"),
            // A block in front of the loop would take the label.
            (
                "l:for(a(),i=0;;)continue l;",
                "l: for (a(), i = 0;;) continue l;\n",
            ),
            // A loop's test and update run again and again.
            ("for(;a(),b;)c();", "for (; a(), b;) c();\n"),
            // `+=` reads `x` first.
            ("x+=c?(a(),1):2;", "x += c ? (a(), 1) : 2;\n"),
            // Without a receiver, and a delete that deletes nothing.
            ("if((0,x.f)())a();", "if ((0, x.f)()) a();\n"),
            ("if(delete(a(),b.c))d();", "if (delete (a(), b.c)) d();\n"),
            // An `else` would have to be written twice.
            (
                "if(a&&(b(),c))d();else e();",
                "if (a && (b(), c)) d();\nelse e();\n",
            ),
        ] {
            assert_eq!(only("sequences", text), expected, "{text}");
        }
    }
}
