//! `declarations`: `var a = 1, b = 2;` → one declaration each, in order, so that each
//! initializer still runs after the one before it. A `for` head keeps its declarations: the
//! seed split `for (let i = 0, n = x.length; ...)` and broke the loop.

use oxc_allocator::{Box as ArenaBox, Vec as ArenaVec};
use oxc_ast::ast::{Statement, VariableDeclaration};

use super::Readable;

impl<'a> Readable<'a> {
    /// One declaration per declarator of `d`, each expanded in turn (an initializer may hold a
    /// sequence).
    pub(super) fn split_declaration(
        &mut self,
        d: ArenaBox<'a, VariableDeclaration<'a>>,
        out: &mut ArenaVec<'a, Statement<'a>>,
        in_list: bool,
    ) {
        self.changes.declarations += 1;
        let VariableDeclaration {
            span,
            kind,
            declarations,
            declare,
            ..
        } = d.unbox();
        for declarator in declarations {
            let single = Statement::VariableDeclaration(ArenaBox::new_in(
                VariableDeclaration::new(
                    span,
                    kind,
                    ArenaVec::from_value_in(declarator, &self.allocator),
                    declare,
                    &self.ast,
                ),
                &self.allocator,
            ));
            self.expand(single, out, in_list);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::only;

    #[test]
    fn each_variable_gets_its_own_declaration_outside_for_heads() {
        for (text, expected) in [
            ("var a=1,b=a+1;", "var a = 1;\nvar b = a + 1;\n"),
            ("let a,b;", "let a;\nlet b;\n"),
            (
                "for(let i=0,n=x.length;i<n;i++)f(i);",
                "for (let i = 0, n = x.length; i < n; i++) f(i);\n",
            ),
        ] {
            assert_eq!(only("declarations", text), expected, "{text}");
        }
    }
}
