//! A body's statements cut into units, the places where code from two modules may meet:
//! terser joins the runtime's last assignments and the entry's first lines into one
//! statement, so a sequence statement is cut into its elements and a declaration into its
//! declarators. The entry ([`crate::split::entry`]) and esbuild's ES modules
//! ([`crate::split::esm`]) are both found among units.

use oxc_ast::ast::{Expression, Statement, VariableDeclarator};
use oxc_span::{GetSpan, Span};

/// One unit of the body.
pub(crate) struct Unit<'n, 'a> {
    pub(crate) node: Node<'n, 'a>,
    /// A declarator that follows another in its declaration.
    pub(crate) after_declarator: bool,
    /// Where replacing the units from this one on starts: the statement's start for its
    /// first unit (taking the declaration's keyword along).
    pub(crate) start: u32,
    /// The end of the statement holding the unit.
    pub(crate) statement_end: u32,
}

pub(crate) enum Node<'n, 'a> {
    Statement(&'n Statement<'a>),
    /// An element of a sequence statement.
    Element(&'n Expression<'a>),
    /// A declarator and its declaration's keyword.
    Declarator(&'n VariableDeclarator<'a>, &'static str),
}

impl Node<'_, '_> {
    pub(crate) fn span(&self) -> Span {
        match self {
            Node::Statement(s) => s.span(),
            Node::Element(e) => e.span(),
            Node::Declarator(d, _) => d.span,
        }
    }
}

/// The units of `statements`, in order.
pub(crate) fn units<'n, 'a>(statements: &'n [Statement<'a>]) -> Vec<Unit<'n, 'a>> {
    let mut units = Vec::new();
    for statement in statements {
        let statement_end = statement.span().end;
        match statement {
            Statement::ExpressionStatement(s) => {
                if let Expression::SequenceExpression(seq) = &s.expression {
                    for (i, e) in seq.expressions.iter().enumerate() {
                        units.push(Unit {
                            node: Node::Element(e),
                            after_declarator: false,
                            start: if i == 0 {
                                statement.span().start
                            } else {
                                e.span().start
                            },
                            statement_end,
                        });
                    }
                    continue;
                }
            }
            Statement::VariableDeclaration(d) => {
                let keyword = match d.kind {
                    oxc_ast::ast::VariableDeclarationKind::Var => Some("var"),
                    oxc_ast::ast::VariableDeclarationKind::Let => Some("let"),
                    oxc_ast::ast::VariableDeclarationKind::Const => Some("const"),
                    _ => None,
                };
                if let Some(keyword) = keyword {
                    for (i, declarator) in d.declarations.iter().enumerate() {
                        units.push(Unit {
                            node: Node::Declarator(declarator, keyword),
                            after_declarator: i > 0,
                            start: if i == 0 {
                                statement.span().start
                            } else {
                                declarator.span.start
                            },
                            statement_end,
                        });
                    }
                    continue;
                }
            }
            _ => {}
        }
        units.push(Unit {
            node: Node::Statement(statement),
            after_declarator: false,
            start: statement.span().start,
            statement_end,
        });
    }
    units
}
