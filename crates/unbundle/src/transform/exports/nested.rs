//! `(0, x.f)(...)` calls inside a webpack bundle nested in a module (a package shipped as a
//! webpack bundle that another bundler took in whole, its runtime and table kept in place):
//! the nested bundle's modules are planned among themselves as a bundle's are (see the
//! parent module), and the calls the plan allows lose their `0,` where they are.
//!
//! The rule is the parent module's, with what lies outside the modules counted against it:
//! module ids can only be required through the runtime's require function, which is local
//! to the enclosing code. Every module the runtime itself requires (its entry) hands its
//! exports to code outside the nested bundle, so they count as escaped; and when anything
//! could reach a module's exports by other ways (the require function passed on or called
//! with an id that is not a literal, by the runtime or by a module; a module reading
//! `require.c` or `require.m`), every module of that bundle counts as escaped, and only
//! `require.d` getters, which nothing can replace, lose their `0,`.

use oxc_allocator::{Allocator, TakeIn};
use oxc_ast::ast::{
    Argument, CallExpression, Expression, Program, StaticMemberExpression, TaggedTemplateExpression,
};
use oxc_ast_visit::{Visit, VisitMut, walk, walk_mut};
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::{Scoping, SemanticBuilder, SymbolId};
use oxc_span::SourceType;
use rustc_hash::FxHashSet;

use super::Facts;
use crate::recognize::webpack::ModuleSource;
use crate::refs::Wrapper;

/// The helpers of webpack's require function a module may use without reaching another
/// module's exports by any way but a literal id: `d` (getters), `r` (the ES module mark),
/// `n` (the default export of a module the module holds), `o` (own property).
const HELPERS: [&str; 4] = ["d", "r", "n", "o"];

/// Not a module id webpack writes: stands for the code outside the nested modules.
const OUTSIDE: &str = "\u{0}outside";

/// Drops the `0,` of the calls the nested webpack bundles of `program` (parsed from `text`)
/// allow; how many it dropped.
pub(crate) fn rewrite_calls<'a>(
    program: &mut Program<'a>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    text: &str,
) -> usize {
    // webpack's runtime passes `m.exports` to every module it runs.
    if !text.contains(".exports,") {
        return 0;
    }
    let runtimes = crate::recognize::webpack::runtimes(program, scoping);
    let mut starts = FxHashSet::default();
    for (table, require) in &runtimes {
        let (entries, open) = outside_uses(program, scoping, *require);
        starts.extend(table_calls(&table.modules, text, (entries, open)));
    }
    if starts.is_empty() {
        return 0;
    }
    let mut drop = Drop {
        allocator,
        starts,
        dropped: 0,
    };
    drop.visit_program(program);
    drop.dropped
}

/// The modules of a nested table (`modules`, run by `require`) whose exports code other than
/// the modules' own can reach, by the rule of this module: those the code outside requires,
/// or all of them when anything reaches them by other ways (or a module does not parse on
/// its own). For the modules split into files of their own (`split/nested.rs`).
pub(crate) fn escaping(
    program: &Program<'_>,
    scoping: &Scoping,
    require: SymbolId,
    modules: &[ModuleSource],
    text: &str,
) -> Vec<String> {
    let (entries, mut open) = outside_uses(program, scoping, require);
    for m in modules {
        let closed = with_module(m, text, |program, scoping, wrapper, _| {
            reaches_only_by_literal_ids(program, scoping, wrapper)
        });
        open |= closed != Some(true);
    }
    if open {
        modules.iter().map(|m| m.id.clone()).collect()
    } else {
        entries
    }
}

/// Where the calls to rewrite start in `text`, among the modules of one table.
fn table_calls(modules: &[ModuleSource], text: &str, outside: (Vec<String>, bool)) -> Vec<u32> {
    let (entries, mut open) = outside;
    let mut all: Vec<(String, Facts)> = Vec::with_capacity(modules.len() + 1);
    let mut candidates = Vec::new();
    for m in modules {
        let Some(closed) = with_module(m, text, |program, scoping, wrapper, shift| {
            all.push((m.id.clone(), super::facts(program, scoping, wrapper)));
            let calls = super::rewrite::receiverless_calls(program, scoping, wrapper);
            candidates.extend(
                calls
                    .into_iter()
                    .map(|(at, id, name)| ((i64::from(at) + shift) as u32, id, name)),
            );
            reaches_only_by_literal_ids(program, scoping, wrapper)
        }) else {
            // A module that does not parse on its own: nothing is known of what it does.
            return Vec::new();
        };
        open |= !closed;
    }
    let escapes = if open {
        modules.iter().map(|m| m.id.clone()).collect()
    } else {
        entries
    };
    all.push((
        OUTSIDE.to_owned(),
        Facts {
            escapes,
            ..Facts::default()
        },
    ));
    let plan = super::plan(
        all.iter().map(|(id, f)| (id.as_str(), f)),
        true,
        false,
        false,
    );
    candidates
        .into_iter()
        .filter(|(_, id, name)| plan.calls.contains(&(id.clone(), name.clone())))
        .map(|(at, ..)| at)
        .collect()
}

/// Runs `f` on module `m` parsed on its own as webpack's runtime runs it, with what to add to
/// an offset in that parse to find it in `text`. `None` when it does not parse so.
fn with_module<T>(
    m: &ModuleSource,
    text: &str,
    f: impl FnOnce(&Program<'_>, &Scoping, Wrapper, i64) -> T,
) -> Option<T> {
    let source = text.get(m.span.start as usize..m.span.end as usize)?;
    let strict = if m.strict { "\"use strict\";" } else { "" };
    let function = if m.method { "function" } else { "" };
    let prefix = format!("{strict}({function}");
    let wrapped = format!("{prefix}{source});");
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, &wrapped, SourceType::script())
        .with_options(ParseOptions {
            preserve_parens: false,
            ..ParseOptions::default()
        })
        .parse();
    if parsed.diagnostics.errors().next().is_some() {
        return None;
    }
    let program = parsed.program;
    let semantic = SemanticBuilder::new().build(&program).semantic;
    let (scope, params) = crate::refs::function_of(&program)?;
    let at = |i: usize| params.get(i).copied();
    let wrapper = Wrapper {
        module: at(0),
        exports: at(1),
        require: at(2),
        scope,
        to_esm: None,
        namer: None,
        quiet_init: None,
        given: None,
    };
    let shift = i64::from(m.span.start) - prefix.len() as i64;
    Some(f(&program, semantic.scoping(), wrapper, shift))
}

/// Whether a module uses its require parameter only to call it with a literal id or to use
/// one of [`HELPERS`].
fn reaches_only_by_literal_ids(program: &Program<'_>, scoping: &Scoping, wrapper: Wrapper) -> bool {
    let Some(require) = wrapper.require else {
        return true;
    };
    let mut uses = RequireUses {
        scoping,
        require,
        accounted: 0,
        entries: Vec::new(),
        helpers: true,
    };
    uses.visit_program(program);
    uses.accounted == scoping.get_resolved_reference_ids(require).len()
}

/// The modules the code outside the table requires (its entries), and whether anything uses
/// the require function in another way than calling it with a literal id, using its helpers
/// (the runtime defines them) or passing it to the modules.
fn outside_uses(
    program: &Program<'_>,
    scoping: &Scoping,
    require: SymbolId,
) -> (Vec<String>, bool) {
    let mut uses = RequireUses {
        scoping,
        require,
        accounted: 0,
        entries: Vec::new(),
        helpers: false,
    };
    uses.visit_program(program);
    let total = scoping.get_resolved_reference_ids(require).len();
    (uses.entries, uses.accounted < total)
}

/// Counts the references of a require function that are calls with a literal id (noting the
/// id), uses of its helpers (any member, outside the modules: the runtime defines them), and
/// the runtime passing it to a module.
struct RequireUses<'s> {
    scoping: &'s Scoping,
    require: SymbolId,
    accounted: usize,
    entries: Vec<String>,
    /// Only [`HELPERS`] count as members (a module's view).
    helpers: bool,
}

impl RequireUses<'_> {
    fn is_require(&self, expr: &Expression<'_>) -> bool {
        crate::refs::expression_symbol(self.scoping, expr) == Some(self.require)
    }

    /// The id a call's arguments give: a literal, or `require.s = LITERAL` (webpack 4's
    /// entry).
    fn literal_id(arguments: &[Argument<'_>]) -> Option<String> {
        let [argument] = arguments else {
            return None;
        };
        let value = match argument.as_expression()?.without_parentheses() {
            Expression::AssignmentExpression(a) => &a.right,
            other => other,
        };
        match value.without_parentheses() {
            Expression::NumericLiteral(n) => crate::syntax::number_key(n.value),
            Expression::StringLiteral(s) => Some(s.value.to_string()),
            _ => None,
        }
    }
}

impl<'a> Visit<'a> for RequireUses<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let runtime = matches!(it.callee.without_parentheses(),
            Expression::FunctionExpression(f) if f.id.as_ref().and_then(|i| i.symbol_id.get()) == Some(self.require));
        if (runtime || self.is_require(&it.callee))
            && let Some(id) = Self::literal_id(&it.arguments)
        {
            self.accounted += usize::from(!runtime);
            self.entries.push(id);
        }
        // The runtime passes itself last: `table[id].call(m.exports, m, m.exports, r)`.
        if !self.helpers
            && let Some(last) = it.arguments.last().and_then(Argument::as_expression)
            && self.is_require(last)
            && it.arguments.len() >= 3
        {
            self.accounted += 1;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if self.is_require(&it.object)
            && (!self.helpers || HELPERS.contains(&it.property.name.as_str()))
        {
            self.accounted += 1;
        }
        walk::walk_static_member_expression(self, it);
    }
}

/// Drops the `0,` of the callees whose sequence starts where `starts` says.
struct Drop<'a> {
    allocator: &'a Allocator,
    starts: FxHashSet<u32>,
    dropped: usize,
}

impl<'a> Drop<'a> {
    fn drop_zero(&mut self, callee: &mut Expression<'a>) {
        let mut callee = callee;
        while let Expression::ParenthesizedExpression(p) = callee {
            callee = &mut p.expression;
        }
        if let Expression::SequenceExpression(s) = callee
            && self.starts.contains(&s.span.start)
            && let [first, Expression::StaticMemberExpression(_)] = s.expressions.as_slice()
            && first.is_number_literal()
        {
            let member = s.expressions[1].take_in(&self.allocator);
            *callee = member;
            self.dropped += 1;
        }
    }
}

impl<'a> VisitMut<'a> for Drop<'a> {
    fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
        self.drop_zero(&mut it.callee);
        walk_mut::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &mut TaggedTemplateExpression<'a>) {
        self.drop_zero(&mut it.tag);
        walk_mut::walk_tagged_template_expression(self, it);
    }
}
