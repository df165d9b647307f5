//! What the code that stays in an esbuild bundle file (its own code, outside every module
//! file) does with its modules' exports: the modules it uses other than by reading or calling
//! a named export escape, so that the plan never lets a module file's call lose its `0,` on
//! an export the bundle's own code may replace (`require_x().f = g`) or hand on.
//!
//! A use of module `require_x` is harmless only as `require_x();` (a statement),
//! `require_x().f` read or called, or as the value of a top-level variable `y`
//! (`var y = require_x()`, `__toESM(require_x())`, or `y`'s one assignment when declared
//! without a value) every reference of which is a read of `y.f` or a call of it; through
//! `__toESM`, `y.default` (the exports object itself in node's mode) only called or with a
//! property read (`y.default.g`, not `y.default.g = h`).

use oxc_ast::ast::{
    Argument, AssignmentExpression, AssignmentOperator, AssignmentTarget, CallExpression,
    Expression, ExpressionStatement, Function, IdentifierReference, Statement, UnaryExpression,
    UnaryOperator, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::{GetSpan, Span};
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::{FxHashMap, FxHashSet};

use super::tsc::last_of_sequence;

/// A call of the bundle's own code: (`y`, `f`, the plan's key of `(0, y.f)(...)`).
pub(crate) type OwnCall = (String, String, (String, String));

/// What the bundle's own code does with its modules.
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnUses {
    /// The modules whose exports it uses other than by name.
    pub(crate) escapes: Vec<String>,
    /// Its `(0, y.f)(...)` calls, `y` a top-level variable bound to a module whose every
    /// reference is harmless: (`y`, `f`, the plan's key of the call).
    pub(crate) calls: Vec<OwnCall>,
    /// The (module id, name) pairs of named exports it reads other than as a callee (for an
    /// index's names, see `collects.rs`).
    pub(crate) named_handed: Vec<(String, String)>,
}

/// The modules among `ids` (the names esbuild bound them to) whose exports the bundle's own
/// code, `program` outside the spans `moved` (the code that went into module files), uses
/// other than by name. `to_esm` is the bundle's `__toESM` helper, when it has esbuild's shape.
pub(crate) fn escapes(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    ids: &[&str],
    moved: &[Span],
    to_esm: Option<&str>,
) -> OwnUses {
    let modules: FxHashMap<SymbolId, &str> = ids
        .iter()
        .filter_map(|id| Some((scoping.get_root_binding((*id).into())?, *id)))
        .collect();
    if modules.is_empty() {
        return OwnUses::default();
    }
    let to_esm = to_esm.and_then(|name| scoping.get_root_binding(name.into()));
    let moved = outermost(moved);
    let mut own = Own {
        scoping,
        modules: &modules,
        moved: &moved,
        to_esm,
        seen: FxHashMap::default(),
        good: FxHashMap::default(),
        bound: FxHashMap::default(),
        uninitialized: FxHashSet::default(),
        callees: FxHashSet::default(),
        objects: FxHashSet::default(),
        deleted: FxHashSet::default(),
        discarded: FxHashSet::default(),
        zero_calls: Vec::new(),
        handed: FxHashSet::default(),
    };
    own.visit_program(program);
    // A variable holding a module is harmless when every reference of it is.
    let mut harmless = FxHashSet::default();
    for (variable, (module, _, by_assignment)) in &own.bound {
        let all = scoping.get_resolved_reference_ids(*variable).len();
        let writes = usize::from(*by_assignment);
        if *by_assignment && !own.uninitialized.contains(variable) {
            continue;
        }
        if own.good.get(variable).copied().unwrap_or(0) + writes == all {
            *own.good.entry(*module).or_default() += 1;
            harmless.insert(*variable);
        }
    }
    let calls = own
        .zero_calls
        .iter()
        .filter(|(variable, _)| harmless.contains(variable))
        .filter_map(|(variable, name)| {
            let (module, wrapped, _) = own.bound.get(variable)?;
            let key = super::bindings::key_of(*wrapped, modules[module], name);
            Some((scoping.symbol_name(*variable).to_owned(), name.clone(), key))
        })
        .collect();
    let mut out: Vec<String> = modules
        .iter()
        .filter(|(symbol, _)| {
            own.seen.get(*symbol).copied().unwrap_or(0)
                > own.good.get(*symbol).copied().unwrap_or(0)
        })
        .map(|(_, id)| (*id).to_owned())
        .collect();
    out.sort();
    let mut named_handed: Vec<(String, String)> = own
        .handed
        .iter()
        .map(|(module, name)| (modules[module].to_owned(), name.clone()))
        .collect();
    named_handed.sort();
    OwnUses {
        escapes: out,
        calls,
        named_handed,
    }
}

/// The outermost of `spans`, sorted by their start: a span inside another is left out, so
/// that the one before a position is the only one that can hold it.
fn outermost(spans: &[Span]) -> Vec<Span> {
    let mut sorted = spans.to_vec();
    sorted.sort_unstable_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut kept: Vec<Span> = Vec::with_capacity(sorted.len());
    for span in sorted {
        match kept.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => kept.push(span),
        }
    }
    kept
}

/// Whether one of the `outermost` spans holds `span`.
fn holds(outermost: &[Span], span: Span) -> bool {
    let after = outermost.partition_point(|m| m.start <= span.start);
    after > 0 && span.end <= outermost[after - 1].end
}

/// The walk over the bundle's own code.
struct Own<'s> {
    scoping: &'s Scoping,
    modules: &'s FxHashMap<SymbolId, &'s str>,
    moved: &'s [Span],
    to_esm: Option<SymbolId>,
    /// References of each module's variable in the own code.
    seen: FxHashMap<SymbolId, usize>,
    /// Harmless references of each module's variable, and of each variable of `bound`.
    good: FxHashMap<SymbolId, usize>,
    /// Variable → (the module's variable it holds, through `__toESM`, by its one assignment).
    bound: FxHashMap<SymbolId, (SymbolId, bool, bool)>,
    /// Variables declared without a value.
    uninitialized: FxHashSet<SymbolId>,
    /// Spans of member expressions that are called (also as `(0, y.f)`).
    callees: FxHashSet<Span>,
    /// Spans of member expressions whose property another member expression reads.
    objects: FxHashSet<Span>,
    /// Spans of member expressions `delete` removes.
    deleted: FxHashSet<Span>,
    /// Spans of calls whose value a statement discards.
    discarded: FxHashSet<Span>,
    /// `(0, y.f)(...)` calls: (`y`, `f`).
    zero_calls: Vec<(SymbolId, String)>,
    /// Named exports read other than as a callee: (module's variable, name).
    handed: FxHashSet<(SymbolId, String)>,
}

impl Own<'_> {
    /// Whether `span` lies in a moved span: a binary search, since every node of the own code
    /// asks (a scan of the moved spans per node made Copilot CLI's unbundling take twice as
    /// long).
    fn in_moved(&self, span: Span) -> bool {
        holds(self.moved, span)
    }

    fn symbol(&self, id: &IdentifierReference<'_>) -> Option<SymbolId> {
        crate::refs::symbol_of(self.scoping, id)
    }

    /// The module variable `call` calls with no arguments (`require_x()`).
    fn module_call(&self, call: &CallExpression<'_>) -> Option<SymbolId> {
        match &call.callee {
            Expression::Identifier(callee) if call.arguments.is_empty() => {
                self.symbol(callee).filter(|s| self.modules.contains_key(s))
            }
            _ => None,
        }
    }

    /// The module variable `value` requires, and whether through `__toESM`.
    fn module_value(&self, value: &Expression<'_>) -> Option<(SymbolId, bool)> {
        let Expression::CallExpression(call) = value.without_parentheses() else {
            return None;
        };
        if let Some(module) = self.module_call(call) {
            return Some((module, false));
        }
        let Expression::Identifier(helper) = &call.callee else {
            return None;
        };
        if self.to_esm.is_none() || self.symbol(helper) != self.to_esm {
            return None;
        }
        match call.arguments.as_slice() {
            [Argument::CallExpression(inner)]
            | [Argument::CallExpression(inner), Argument::NumericLiteral(_)] => {
                self.module_call(inner).map(|m| (m, true))
            }
            _ => None,
        }
    }

    fn bind(&mut self, variable: SymbolId, value: &Expression<'_>, by_assignment: bool) {
        if self.scoping.symbol_scope_id(variable) != self.scoping.root_scope_id()
            || !self.scoping.symbol_redeclarations(variable).is_empty()
        {
            return;
        }
        if let Some((module, wrapped)) = self.module_value(value) {
            self.bound
                .insert(variable, (module, wrapped, by_assignment));
        }
    }

    /// Counts `member`'s object as harmless when it is a module's variable, its call, or a
    /// variable holding a module.
    fn member(&mut self, member: &oxc_ast::ast::StaticMemberExpression<'_>) {
        if self.deleted.contains(&member.span) {
            return;
        }
        if let Expression::StaticMemberExpression(inner) = member.object.without_parentheses() {
            self.objects.insert(inner.span);
        }
        self.note_handed(member);
        match member.object.without_parentheses() {
            Expression::CallExpression(call) => {
                if let Some(module) = self.module_call(call) {
                    *self.good.entry(module).or_default() += 1;
                }
            }
            Expression::Identifier(object) => {
                let Some(variable) = self.symbol(object) else {
                    return;
                };
                if let Some((_, wrapped, _)) = self.bound.get(&variable) {
                    // Through `__toESM`, `default` may be the exports object itself: it may
                    // be called or its properties read, nothing more.
                    if *wrapped
                        && member.property.name == "default"
                        && !self.callees.contains(&member.span)
                        && !self.objects.contains(&member.span)
                    {
                        return;
                    }
                    *self.good.entry(variable).or_default() += 1;
                }
            }
            _ => {}
        }
    }
}

impl Own<'_> {
    /// Notes `member` (`require_x().f`, `y.f`, or `y.default.f` through `__toESM`) when it
    /// reads a named export other than as a callee.
    fn note_handed(&mut self, member: &oxc_ast::ast::StaticMemberExpression<'_>) {
        if self.callees.contains(&member.span) {
            return;
        }
        let module = match member.object.without_parentheses() {
            Expression::CallExpression(call) => self.module_call(call),
            Expression::Identifier(object) => self
                .symbol(object)
                .and_then(|v| self.bound.get(&v))
                .map(|(module, ..)| *module),
            Expression::StaticMemberExpression(inner) if inner.property.name == "default" => {
                match &inner.object {
                    Expression::Identifier(object) => self
                        .symbol(object)
                        .and_then(|v| self.bound.get(&v))
                        .filter(|(_, wrapped, _)| *wrapped)
                        .map(|(module, ..)| *module),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(module) = module {
            self.handed
                .insert((module, member.property.name.to_string()));
        }
    }
}

impl<'a> Visit<'a> for Own<'_> {
    fn visit_statement(&mut self, it: &Statement<'a>) {
        if !self.in_moved(it.span()) {
            walk::walk_statement(self, it);
        }
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if !self.in_moved(it.span) {
            walk::walk_function(self, it, flags);
        }
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        if self.in_moved(it.span()) {
            return;
        }
        match it {
            Expression::StaticMemberExpression(member) => self.member(member),
            Expression::CallExpression(call) if self.discarded.contains(&call.span) => {
                if let Some(module) = self.module_call(call) {
                    *self.good.entry(module).or_default() += 1;
                }
            }
            _ => {}
        }
        walk::walk_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::StaticMemberExpression(m) = last_of_sequence(&it.callee) {
            self.callees.insert(m.span);
        }
        if let Some((object, name)) = zero_callee(&it.callee)
            && let Some(variable) = self.symbol(object)
        {
            self.zero_calls.push((variable, name.to_owned()));
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Delete
            && let Expression::StaticMemberExpression(m) = it.argument.without_parentheses()
        {
            self.deleted.insert(m.span);
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_expression_statement(&mut self, it: &ExpressionStatement<'a>) {
        if let Expression::CallExpression(call) = it.expression.without_parentheses() {
            self.discarded.insert(call.span);
        }
        walk::walk_expression_statement(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let Some(symbol) = it
            .id
            .get_binding_identifier()
            .and_then(|b| b.symbol_id.get())
        {
            match &it.init {
                Some(init)
                    if !self
                        .scoping
                        .get_resolved_references(symbol)
                        .any(|r| r.is_write()) =>
                {
                    self.bind(symbol, init, false);
                }
                None => {
                    self.uninitialized.insert(symbol);
                }
                Some(_) => {}
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if it.operator == AssignmentOperator::Assign
            && let AssignmentTarget::AssignmentTargetIdentifier(target) = &it.left
            && let Some(symbol) = self.symbol(target)
            && self
                .scoping
                .get_resolved_references(symbol)
                .filter(|r| r.is_write())
                .count()
                == 1
        {
            self.bind(symbol, &it.right, true);
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if let Some(symbol) = self.symbol(it)
            && self.modules.contains_key(&symbol)
        {
            *self.seen.entry(symbol).or_default() += 1;
        }
    }
}

/// `y` and `f` when `callee` is `(0, y.f)`.
fn zero_callee<'c, 'a>(
    callee: &'c Expression<'a>,
) -> Option<(&'c IdentifierReference<'a>, &'c str)> {
    let Expression::SequenceExpression(sequence) = callee.without_parentheses() else {
        return None;
    };
    let [
        Expression::NumericLiteral(zero),
        Expression::StaticMemberExpression(member),
    ] = sequence.expressions.as_slice()
    else {
        return None;
    };
    match &member.object {
        Expression::Identifier(object) if zero.value == 0.0 => {
            Some((&**object, member.property.name.as_str()))
        }
        _ => None,
    }
}

/// The bundle file's text `text` (as written, its top level the bundle's) with each
/// `(0, y.f)(...)` call whose (`y`, `f`) is in `allowed`, `y` the top-level variable, written
/// `y.f(...)`; how many. Text that does not parse is left as it is.
pub(crate) fn rewrite(text: &str, allowed: &FxHashSet<(String, String)>) -> (String, usize) {
    let allocator = oxc_allocator::Allocator::default();
    let parse = |source_type: oxc_span::SourceType| {
        oxc_parser::Parser::new(&allocator, text, source_type)
            .with_options(oxc_parser::ParseOptions {
                allow_return_outside_function: source_type.is_script(),
                ..oxc_parser::ParseOptions::default()
            })
            .parse()
    };
    let mut parsed = parse(oxc_span::SourceType::script());
    if parsed.diagnostics.errors().next().is_some() {
        parsed = parse(oxc_span::SourceType::mjs());
    }
    if parsed.diagnostics.errors().next().is_some() {
        return (text.to_owned(), 0);
    }
    let semantic = oxc_semantic::SemanticBuilder::new()
        .build(&parsed.program)
        .semantic;
    let mut calls = ZeroCalls {
        scoping: semantic.scoping(),
        allowed,
        edits: Vec::new(),
    };
    calls.visit_program(&parsed.program);
    let mut edits = calls.edits;
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, member) in &edits {
        out.push_str(&text[at..span.start as usize]);
        out.push_str(member);
        at = span.end as usize;
    }
    out.push_str(&text[at..]);
    (out, edits.len())
}

/// Finds the calls [`rewrite`] rewrites: (the callee's span with its parentheses, `y.f`).
struct ZeroCalls<'s> {
    scoping: &'s Scoping,
    allowed: &'s FxHashSet<(String, String)>,
    edits: Vec<(Span, String)>,
}

impl<'a> Visit<'a> for ZeroCalls<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::ParenthesizedExpression(callee) = &it.callee
            && let Some((object, name)) = zero_callee(&callee.expression)
            && let Some(symbol) = crate::refs::symbol_of(self.scoping, object)
            && self.scoping.symbol_scope_id(symbol) == self.scoping.root_scope_id()
            && self
                .allowed
                .contains(&(object.name.to_string(), name.to_owned()))
        {
            self.edits
                .push((callee.span, format!("{}.{name}", object.name)));
        }
        walk::walk_call_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_spans_hold_what_any_of_the_spans_holds() {
        // Nested and disjoint, as module functions' spans are, given out of order.
        let spans = [
            Span::new(50, 60),
            Span::new(10, 40),
            Span::new(12, 20),
            Span::new(40, 45),
            Span::new(22, 30),
        ];
        let outer = outermost(&spans);
        assert_eq!(
            outer,
            vec![Span::new(10, 40), Span::new(40, 45), Span::new(50, 60)]
        );
        for start in 0..65 {
            for end in start..66 {
                let span = Span::new(start, end);
                let scanned = spans
                    .iter()
                    .any(|m| m.start <= span.start && span.end <= m.end);
                assert_eq!(holds(&outer, span), scanned, "{span:?}");
            }
        }
    }
}
