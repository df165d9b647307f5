//! The rewrite itself, on a module file's body after the readability transforms: a call
//! `require_ms()` becomes `require("./ms.js")`; `(init_shapes(), __toCommonJS(shapes_exports))`,
//! or the same split into `init_shapes(); var s = __toCommonJS(shapes_exports);` by the
//! `sequences` transform, becomes `require("./shapes.js")` (`var s = require("./shapes.js");`).

use oxc_allocator::Allocator;
use oxc_ast::ast::{Argument, CallExpression, Expression, Program, Statement, VariableDeclarator};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::{SPAN, Span};
use oxc_str::Ident;
use rustc_hash::FxHashSet;

use super::Link;

/// Rewrites the calls `links` allows in a module's body (`params`: its function's parameters,
/// which are the bundle's names for an entry); how many.
pub(crate) fn rewrite<'a>(
    program: &mut Program<'a>,
    (scoping, params): (&Scoping, &[SymbolId]),
    links: &[Link],
    allocator: &'a Allocator,
) -> usize {
    // Its free `require` must be the loader's: nothing of it, not even a parameter, is
    // called so.
    if links.is_empty() || scoping.symbol_names().any(|n| n == "require") {
        return 0;
    }
    // A name the file binds nowhere (or only as its function's parameter, as the entry's
    // function takes the bundle's names) is the one the bundle passes. Transforms copy nodes
    // without their references, so this is asked of the names.
    let params: FxHashSet<SymbolId> = params.iter().copied().collect();
    let bound: FxHashSet<&str> = scoping
        .symbol_ids()
        .filter(|s| !params.contains(s))
        .map(|s| scoping.symbol_name(s))
        .collect();
    let free = |name: &str| !bound.contains(name);
    let links: Vec<&Link> = links
        .iter()
        .filter(|l| {
            free(&l.name)
                && l.esm
                    .as_ref()
                    .is_none_or(|(helper, ns)| free(helper) && free(ns))
        })
        .collect();
    let mut calls = Calls {
        links: &links,
        allocator,
        ast: AstBuilder::new(allocator),
        count: 0,
    };
    calls.visit_program(program);
    calls.count
}

struct Calls<'s, 'a> {
    links: &'s [&'s Link],
    allocator: &'a Allocator,
    ast: AstBuilder<'a>,
    count: usize,
}

impl<'s, 'a> Calls<'s, 'a> {
    /// `require("specifier")`, its callee bound to nothing (the printer names a bound
    /// reference by its symbol): the loader's `require`.
    fn require(&self, span: Span, specifier: &str) -> Expression<'a> {
        let arguments =
            oxc_allocator::Vec::from_value_in(self.specifier(specifier), &self.allocator);
        Expression::new_call_expression(span, self.callee(span), None, arguments, false, &self.ast)
    }

    fn callee(&self, span: Span) -> Expression<'a> {
        Expression::new_identifier(
            span,
            Ident::from_str_in("require", &self.allocator),
            &self.ast,
        )
    }

    fn specifier(&self, specifier: &str) -> Argument<'a> {
        let value = oxc_str::Str::from_str_in(specifier, &self.allocator);
        Argument::new_string_literal(SPAN, value, None, &self.ast)
    }

    /// The CommonJS link `call` (`require_ms()`) calls.
    fn commonjs(&self, call: &CallExpression<'_>) -> Option<&'s Link> {
        let name = plain_call(call)?;
        self.links
            .iter()
            .copied()
            .find(|l| l.esm.is_none() && l.name == name)
    }

    /// The ES module link whose initializer `first` calls (`init_shapes()`), when `second`
    /// is its helper's call on its namespace (`__toCommonJS(shapes_exports)`).
    fn esm(&self, first: &Expression<'_>, second: &Expression<'_>) -> Option<&'s Link> {
        let (Expression::CallExpression(init), Expression::CallExpression(helper)) =
            (first.without_parentheses(), second.without_parentheses())
        else {
            return None;
        };
        let init = plain_call(init)?;
        let (Expression::Identifier(h), [Argument::Identifier(ns)], false) =
            (&helper.callee, &helper.arguments[..], helper.optional)
        else {
            return None;
        };
        self.links.iter().copied().find(|l| {
            l.name == init
                && l.esm
                    .as_ref()
                    .is_some_and(|(lh, lns)| lh == h.name.as_str() && lns == ns.name.as_str())
        })
    }
}

/// The name `call` calls with no arguments (`name()`).
fn plain_call<'c>(call: &'c CallExpression<'_>) -> Option<&'c str> {
    match (&call.callee, call.arguments.is_empty(), call.optional) {
        (Expression::Identifier(callee), true, false) => Some(callee.name.as_str()),
        _ => None,
    }
}

impl<'a> VisitMut<'a> for Calls<'_, 'a> {
    fn visit_expression(&mut self, it: &mut Expression<'a>) {
        walk_mut::walk_expression(self, it);
        let found = match it {
            Expression::SequenceExpression(s) => match &s.expressions[..] {
                [first, second] => self.esm(first, second),
                _ => None,
            },
            _ => None,
        };
        if let Some(link) = found {
            *it = self.require(oxc_span::GetSpan::span(it), &link.specifier);
            self.count += 1;
        }
    }

    fn visit_call_expression(&mut self, call: &mut CallExpression<'a>) {
        walk_mut::walk_call_expression(self, call);
        if let Some(link) = self.commonjs(call) {
            call.callee = self.callee(oxc_span::GetSpan::span(&call.callee));
            call.arguments.push(self.specifier(&link.specifier));
            self.count += 1;
        }
    }

    fn visit_statements(&mut self, it: &mut oxc_allocator::Vec<'a, Statement<'a>>) {
        walk_mut::walk_statements(self, it);
        let mut i = 0;
        while i + 1 < it.len() {
            if let Some(link) = self.split_pair(&it[i], &it[i + 1]) {
                let made = self.require(SPAN, &link.specifier);
                if let Statement::VariableDeclaration(d) = &mut it[i + 1] {
                    d.declarations[0].init = Some(made);
                }
                it.remove(i);
                self.count += 1;
            }
            i += 1;
        }
    }
}

impl<'s> Calls<'s, '_> {
    /// `init_shapes();` followed by `var s = __toCommonJS(shapes_exports);` (one declarator:
    /// nothing runs between the two calls; a pattern, `var { f } = ...`, reads the result
    /// after both, as it reads the required module's).
    fn split_pair(&self, first: &Statement<'_>, second: &Statement<'_>) -> Option<&'s Link> {
        let Statement::ExpressionStatement(first) = first else {
            return None;
        };
        let Statement::VariableDeclaration(d) = second else {
            return None;
        };
        let [
            VariableDeclarator {
                init: Some(init), ..
            },
        ] = &d.declarations[..]
        else {
            return None;
        };
        self.esm(&first.expression, init)
    }
}
