//! `booleans` and `void0`: the minifier's short spellings of constants. `!0` → `true`, `!1`
//! → `false`; `void 0` → `undefined`, unless the module binds a name `undefined` somewhere
//! (then `undefined` might not be undefined where it is written).

use oxc_ast::ast::{Expression, UnaryOperator};

use super::Readable;

impl<'a> Readable<'a> {
    /// `expr` spelled out, when it is one of those constants.
    pub(super) fn literal(&mut self, expr: &mut Expression<'a>) {
        let Expression::UnaryExpression(u) = expr else {
            return;
        };
        let Expression::NumericLiteral(n) = &u.argument else {
            return;
        };
        match u.operator {
            UnaryOperator::LogicalNot
                if self.transforms.booleans && (n.value == 0.0 || n.value == 1.0) =>
            {
                let value = n.value == 0.0;
                self.changes.booleans += 1;
                *expr = Expression::new_boolean_literal(u.span, value, &self.ast);
            }
            UnaryOperator::Void
                if self.transforms.void0 && !self.binds_undefined && n.value == 0.0 =>
            {
                self.changes.void0 += 1;
                *expr = Expression::new_identifier(u.span, "undefined", &self.ast);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::only;

    #[test]
    fn constants_are_spelled_out_unless_undefined_is_someone_s_name() {
        assert_eq!(
            only("booleans", "x=!0,y=!1,z=!2;"),
            "x = true, y = false, z = !2;\n"
        );
        assert_eq!(
            only("void0", "x=void 0,y=void 1;"),
            "x = undefined, y = void 1;\n"
        );
        assert_eq!(
            only("void0", "function f(){var undefined=1;return void 0}"),
            "function f() {\n\tvar undefined = 1;\n\treturn void 0;\n}\n"
        );
    }
}
