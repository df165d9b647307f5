//! esbuild's `__name` calls read for what they mean. With `keepNames` esbuild follows each
//! function declaration with `__name(f, "original")` (minified: `o(IOe, "toVLQSigned")`),
//! which sets the function's `name` to its name in the source. In a module file the function
//! can simply be called that: renamed `toVLQSigned`, its `name` is already the one the call
//! set, so the call goes. Only where the original name is free in the module (nothing
//! declared or used under it), the function is a declaration never assigned again, and the
//! call is a statement of its own naming it with a string.

use oxc_ast::ast::{Argument, Expression, Function, Statement};
use oxc_ast_visit::{Visit, VisitMut, walk, walk_mut};
use oxc_semantic::{Scoping, SymbolId};
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::FxHashSet;

use crate::syntax::is_identifier;

/// The function declarations of `program` that `helper` (the free name esbuild's `__name`
/// has in the module) names, with the names to give them (none already `taken`, which gains
/// them), and where the calls are (the start of each call's statement).
pub(crate) fn renames(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    helper: &str,
    taken: &mut FxHashSet<String>,
) -> (Vec<(SymbolId, String)>, FxHashSet<u32>) {
    let mut finder = Calls {
        scoping,
        helper,
        declarations: FxHashSet::default(),
        calls: Vec::new(),
    };
    finder.visit_program(program);
    let mut renames: Vec<(SymbolId, String)> = Vec::new();
    let mut statements = FxHashSet::default();
    for (at, symbol, name) in finder.calls {
        let assigned = scoping
            .get_resolved_references(symbol)
            .any(|r| r.is_write());
        if !finder.declarations.contains(&symbol)
            || assigned
            || !is_identifier(&name)
            || taken.contains(&name)
            || renames.iter().any(|(s, _)| *s == symbol)
        {
            continue;
        }
        taken.insert(name.clone());
        renames.push((symbol, name));
        statements.insert(at);
    }
    (renames, statements)
}

/// Drops the statements starting at `at`, wherever they are.
pub(crate) fn drop_calls(program: &mut oxc_ast::ast::Program<'_>, at: &FxHashSet<u32>) {
    if !at.is_empty() {
        Drop { at }.visit_program(program);
    }
}

struct Calls<'s> {
    scoping: &'s Scoping,
    helper: &'s str,
    declarations: FxHashSet<SymbolId>,
    /// (statement start, function, name)
    calls: Vec<(u32, SymbolId, String)>,
}

impl<'a> Visit<'a> for Calls<'_> {
    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if it.is_declaration()
            && let Some(symbol) = it.id.as_ref().and_then(|id| id.symbol_id.get())
        {
            self.declarations.insert(symbol);
        }
        walk::walk_function(self, it, flags);
    }

    fn visit_statement(&mut self, it: &Statement<'a>) {
        if let Statement::ExpressionStatement(s) = it
            && let Expression::CallExpression(call) = &s.expression
            && let Expression::Identifier(callee) = &call.callee
            && callee.name == self.helper
            && crate::refs::symbol_of(self.scoping, callee).is_none()
            && let [Argument::Identifier(f), Argument::StringLiteral(name)] =
                call.arguments.as_slice()
            && let Some(symbol) = crate::refs::symbol_of(self.scoping, f)
        {
            self.calls
                .push((s.span.start, symbol, name.value.to_string()));
        }
        walk::walk_statement(self, it);
    }
}

struct Drop<'d> {
    at: &'d FxHashSet<u32>,
}

impl<'a> VisitMut<'a> for Drop<'_> {
    fn visit_statements(&mut self, it: &mut oxc_allocator::Vec<'a, Statement<'a>>) {
        it.retain(
            |s| !matches!(s, Statement::ExpressionStatement(e) if self.at.contains(&e.span.start)),
        );
        walk_mut::walk_statements(self, it);
    }
}
