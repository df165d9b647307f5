//! Finds the entry module a bundler did not put in its module table: webpack 5 inlines the
//! entry module into its runtime function, after the runtime's own set-up, and esbuild puts
//! the entry (with the ES modules it hoisted) at the bundle's top level, after its CommonJS
//! wrappers. Either way the entry is a run of statements at the end of one function body (or
//! of the program), and it can become a module file when moving it out changes nothing:
//!
//! - nothing before it uses a name it declares, and no name is declared on both sides;
//! - it reads no name declared before it that is assigned anywhere (the module file holds
//!   copies); for webpack it reads none at all besides the require function, so that the
//!   runtime's own set-up (which reads its tables) stays where it is;
//! - it does not set up the runtime (`require.x = ...`), `return` from the function, or use
//!   the function's `arguments`; it holds neither the module table nor the require function
//!   (webpack) and no CommonJS wrapper (esbuild).
//!
//! The body is cut into units (statements; the elements of a sequence statement; the
//! declarators of a declaration, since terser joins the runtime's last assignments and the
//! entry's first lines), and the entry is the longest run of units at the end that obeys all
//! of the above. A webpack entry that only calls the require function (`r(123)`, the entry
//! being in the table) is no module of its own and is left alone.

use oxc_ast::ast::{
    ArrowFunctionExpression, AssignmentExpression, Expression, Function, FunctionBody,
    IdentifierReference, Program, ReturnStatement, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use oxc_syntax::scope::{ScopeFlags, ScopeId};
use rustc_hash::FxHashMap;

use crate::split::units::{Node, Unit, units};

/// The entry module found at the end of a body.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// From the entry's first unit to the end of the body's last statement: replaced by a call
    /// of its module file.
    pub(crate) span: Span,
    /// The first unit is a declarator after others of its declaration, so the replacement
    /// must be a declarator too.
    pub(crate) in_declaration: bool,
    /// The entry as a module function: `function (PARAMS) {UNITS}`.
    pub(crate) source: String,
    /// Names of the surrounding scope the entry reads (esbuild: their values are passed in).
    pub(crate) outer: Vec<String>,
    /// The code around the entry is strict.
    pub(crate) strict: bool,
}

/// What the entry is found in.
pub(crate) enum Bundler<'s> {
    /// webpack: the function declaring this require function, with the module table there.
    Webpack { require: SymbolId, table: Span },
    /// esbuild: the program, whose CommonJS wrappers span these (sorted) spans, and whose
    /// wrapped ES modules move as `moved` says.
    Esbuild {
        modules: &'s [Span],
        moved: &'s crate::split::esm::Moved,
    },
}

/// The parameters given to a webpack entry's module function: webpack passes no module
/// object to an inlined entry, so the loader makes one.
pub(crate) const WEBPACK_MODULE: &str = "__pilotfish_module";
pub(crate) const WEBPACK_EXPORTS: &str = "__pilotfish_exports";

/// The entry of `program`, if it has one that can move out.
pub(crate) fn find<'a>(
    program: &Program<'a>,
    scoping: &Scoping,
    source: &str,
    bundler: &Bundler<'_>,
) -> Option<Entry> {
    let scope = match bundler {
        Bundler::Webpack { require, .. } => scoping.symbol_scope_id(*require),
        Bundler::Esbuild { .. } => scoping.root_scope_id(),
    };
    let (statements, strict) = body_of(program, scope)?;
    let mut units = units(statements);
    // An ES module bundle's last `export {};` (rspack's and rslib's ES module output) stays in
    // its file: it makes the file an ES module and reads no name.
    while units
        .last()
        .is_some_and(|u| matches!(u.node, Node::Statement(s) if is_empty_export(s)))
    {
        units.pop();
    }
    if units.is_empty() {
        return None;
    }
    let (require, moved) = match bundler {
        Bundler::Webpack { require, .. } => (Some(*require), None),
        Bundler::Esbuild { moved, .. } => (None, Some(*moved)),
    };
    let mut uses = Uses {
        scoping,
        scope,
        require,
        moved,
        namespaces: Vec::new(),
        unit: 0,
        depth: 0,
        arrows: 0,
        refs: Vec::new(),
        bad: vec![false; units.len()],
    };
    for (i, unit) in units.iter().enumerate() {
        uses.unit = i;
        unit.node.visit(&mut uses);
    }
    // The runtime's table and require function, and esbuild's wrappers, stay; so do an ES
    // module's imports and exports, which a module file cannot hold.
    mark_kept(&units, &mut uses.bad, &kept_spans(scoping, bundler));
    for (unit, bad) in units.iter().zip(uses.bad.iter_mut()) {
        if matches!(unit.node, Node::Statement(s) if s.is_module_declaration()) {
            *bad = true;
        }
    }
    let k = first_valid(&units, &uses, scoping, scope, require)?;
    let suffix = &units[k..];
    if require.is_some()
        && suffix
            .iter()
            .all(|u| u.node.only_requires(scoping, require))
    {
        return None;
    }
    let outer = outer_names(&uses, &units, k, require, moved);
    // The loader's own parameters cannot also be passed in.
    if outer
        .iter()
        .any(|n| crate::write::LOADER_PARAMETERS.contains(&n.as_str()))
    {
        return None;
    }
    let params = match require {
        Some(r) => format!(
            "{WEBPACK_MODULE}, {WEBPACK_EXPORTS}, {}",
            scoping.symbol_name(r)
        ),
        None => outer.join(", "),
    };
    if require.is_some() && (source.contains(WEBPACK_MODULE) || source.contains(WEBPACK_EXPORTS)) {
        return None;
    }
    let text = function_text(&params, suffix, source, moved);
    let end = units.last().expect("units are not empty").statement_end;
    Some(Entry {
        span: Span::new(suffix[0].start, end),
        in_declaration: suffix[0].after_declarator,
        source: text,
        outer,
        strict,
    })
}

/// `export {};`: no name, no source.
fn is_empty_export(statement: &Statement<'_>) -> bool {
    matches!(statement, Statement::ExportNamedDeclaration(e)
        if e.specifiers.is_empty())
}

/// What the entry must leave in place: webpack's table and require function, or esbuild's
/// wrappers and what moved into ES modules' files; sorted.
fn kept_spans(scoping: &Scoping, bundler: &Bundler<'_>) -> Vec<Span> {
    match bundler {
        Bundler::Webpack { require, table } => {
            let declared = scoping.symbol_span(*require);
            if declared.start < table.start {
                vec![declared, *table]
            } else {
                vec![*table, declared]
            }
        }
        Bundler::Esbuild { modules, moved } => {
            let mut spans: Vec<Span> = modules.iter().chain(&moved.taken).copied().collect();
            spans.sort_by_key(|s| s.start);
            spans
        }
    }
}

/// Marks the units that overlap a span of `keep` (sorted) as unable to move.
fn mark_kept(units: &[Unit<'_, '_>], bad: &mut [bool], keep: &[Span]) {
    for (i, unit) in units.iter().enumerate() {
        let span = unit.node.span();
        let after = keep.partition_point(|m| m.end <= span.start);
        if keep.get(after).is_some_and(|m| m.start < span.end) {
            bad[i] = true;
        }
    }
}

/// The names declared before unit `k` that the units from `k` on read, in first-use order
/// (esbuild: their values are passed in); names moved into ES modules' files are read
/// through their namespace objects.
fn outer_names(
    uses: &Uses<'_>,
    units: &[Unit<'_, '_>],
    k: usize,
    require: Option<SymbolId>,
    moved: Option<&crate::split::esm::Moved>,
) -> Vec<String> {
    let scoping = uses.scoping;
    let mut outer: Vec<String> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for &(unit, symbol, _) in &uses.refs {
        if unit >= k
            && declared_before(scoping, symbol, units, k)
            && Some(symbol) != require
            && seen.insert(symbol)
        {
            let name = moved
                .and_then(|m| m.name_of(symbol))
                .unwrap_or_else(|| scoping.symbol_name(symbol));
            if !outer.iter().any(|o| o == name) {
                outer.push(name.to_owned());
            }
        }
    }
    for (unit, name) in &uses.namespaces {
        if *unit >= k && !outer.contains(name) {
            outer.push(name.clone());
        }
    }
    outer
}

/// The entry as a module function: `function (PARAMS) {UNITS}`, each unit made a statement
/// again (a sequence's element in parentheses, a declarator with its declaration's kind).
fn function_text(
    params: &str,
    suffix: &[Unit<'_, '_>],
    source: &str,
    moved: Option<&crate::split::esm::Moved>,
) -> String {
    let mut text = format!("function ({params}) {{\n");
    for unit in suffix {
        let span = unit.node.span();
        let code = match moved {
            Some(moved) => moved.splice(source, span),
            None => std::borrow::Cow::Borrowed(&source[span.start as usize..span.end as usize]),
        };
        let code = code.as_ref();
        match &unit.node {
            Node::Statement(_) => text.push_str(code),
            Node::Element(_) => {
                text.push('(');
                text.push_str(code);
                text.push_str(");");
            }
            Node::Declarator(_, kind) => {
                text.push_str(kind);
                text.push(' ');
                text.push_str(code);
                text.push(';');
            }
        }
        text.push('\n');
    }
    text.push('}');
    text
}

impl<'a> Node<'_, 'a> {
    fn visit(&self, v: &mut Uses<'_>) {
        match self {
            Node::Statement(s) => v.visit_statement(s),
            Node::Element(e) => v.visit_expression(e),
            Node::Declarator(d, _) => v.visit_variable_declarator(d),
        }
    }

    /// Start-up that only runs modules of the table: `r(1)`, `var x = r(1)`,
    /// `module.exports = x`.
    fn only_requires(&self, scoping: &Scoping, require: Option<SymbolId>) -> bool {
        let is_require = |e: &Expression<'_>| {
            let mut callee = e.without_parentheses();
            while let Some(m) = callee.as_member_expression() {
                callee = m.object();
            }
            crate::refs::expression_symbol(scoping, callee).is_some_and(|s| Some(s) == require)
        };
        let runs_modules = |e: &Expression<'_>| match e.without_parentheses() {
            Expression::CallExpression(c) => is_require(&c.callee),
            Expression::AssignmentExpression(a) => match a.right.without_parentheses() {
                Expression::CallExpression(c) => is_require(&c.callee),
                Expression::Identifier(_) => true,
                _ => false,
            },
            _ => false,
        };
        match self {
            Node::Element(e) => runs_modules(e),
            Node::Declarator(d, _) => d.init.as_ref().is_some_and(runs_modules),
            Node::Statement(Statement::ExpressionStatement(s)) => runs_modules(&s.expression),
            Node::Statement(Statement::VariableDeclaration(d)) => d
                .declarations
                .iter()
                .all(|d| d.init.as_ref().is_some_and(runs_modules)),
            Node::Statement(_) => false,
        }
    }
}

/// The statements of the body whose scope is `scope`, and whether they are strict.
fn body_of<'n, 'a>(
    program: &'n Program<'a>,
    scope: ScopeId,
) -> Option<(&'n [Statement<'a>], bool)> {
    let program_strict = program
        .directives
        .iter()
        .any(|d| d.directive == "use strict");
    if program.scope_id.get() == Some(scope) {
        return Some((&program.body, program_strict));
    }
    struct Find<'n, 'a> {
        scope: ScopeId,
        found: Option<&'n FunctionBody<'a>>,
    }
    impl<'n, 'a> Find<'n, 'a> {
        fn check(&mut self, scope: Option<ScopeId>, body: Option<&'n FunctionBody<'a>>) {
            if scope == Some(self.scope) && self.found.is_none() {
                self.found = body;
            }
        }
    }
    // Written by hand rather than with `Visit`, whose callbacks cannot hand out references
    // that outlive the call.
    fn walk_statements<'n, 'a>(f: &mut Find<'n, 'a>, statements: &'n [Statement<'a>]) {
        for s in statements {
            if f.found.is_some() {
                return;
            }
            match s {
                Statement::ExpressionStatement(e) => walk_expression(f, &e.expression),
                Statement::FunctionDeclaration(func) => walk_function(f, func),
                Statement::VariableDeclaration(d) => {
                    for d in &d.declarations {
                        if let Some(init) = &d.init {
                            walk_expression(f, init);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    fn walk_function<'n, 'a>(f: &mut Find<'n, 'a>, func: &'n Function<'a>) {
        f.check(func.scope_id.get(), func.body.as_deref());
        if f.found.is_none()
            && let Some(body) = &func.body
        {
            walk_statements(f, &body.statements);
        }
    }
    fn walk_arrow<'n, 'a>(f: &mut Find<'n, 'a>, func: &'n ArrowFunctionExpression<'a>) {
        if let oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) = &func.body {
            f.check(func.scope_id.get(), Some(body));
            if f.found.is_none() {
                walk_statements(f, &body.statements);
            }
        }
    }
    // The runtime function is the program's IIFE (`(() => {...})()`, `!function (e) {...}(...)`)
    // or a function it declares; deeper nesting is not a bundler's.
    fn walk_expression<'n, 'a>(f: &mut Find<'n, 'a>, e: &'n Expression<'a>) {
        match e.without_parentheses() {
            Expression::CallExpression(c) => walk_expression(f, &c.callee),
            Expression::UnaryExpression(u) => walk_expression(f, &u.argument),
            Expression::SequenceExpression(s) => {
                for e in &s.expressions {
                    walk_expression(f, e);
                }
            }
            Expression::FunctionExpression(func) => walk_function(f, func),
            Expression::ArrowFunctionExpression(func) => walk_arrow(f, func),
            _ => {}
        }
    }
    let mut find = Find { scope, found: None };
    walk_statements(&mut find, &program.body);
    let body = find.found?;
    let strict = program_strict || body.directives.iter().any(|d| d.directive == "use strict");
    Some((&body.statements, strict))
}

/// References from each unit to names of the body's scope, and units that cannot be in the
/// entry.
struct Uses<'s> {
    scoping: &'s Scoping,
    scope: ScopeId,
    require: Option<SymbolId>,
    moved: Option<&'s crate::split::esm::Moved>,
    /// (unit, namespace) for each use of a name moved into an ES module's file.
    namespaces: Vec<(usize, String)>,
    unit: usize,
    /// Functions (not arrows) entered within the unit.
    depth: usize,
    /// Arrow functions entered within the unit (a `return` there is theirs).
    arrows: usize,
    /// (unit, symbol, is a write)
    refs: Vec<(usize, SymbolId, bool)>,
    bad: Vec<bool>,
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        let Some(r) = it.reference_id.get() else {
            return;
        };
        let reference = self.scoping.get_reference(r);
        match reference.symbol_id() {
            Some(symbol) if self.moved.is_some_and(|m| m.is_member(symbol)) => {
                let moved = self.moved.expect("checked");
                let name = moved.name_of(symbol).expect("moved names have a namespace");
                self.namespaces.push((self.unit, name.to_owned()));
            }
            Some(symbol) if self.scoping.symbol_scope_id(symbol) == self.scope => {
                self.refs.push((self.unit, symbol, reference.is_write()));
            }
            None if self.depth == 0 && it.name == "arguments" => self.bad[self.unit] = true,
            _ => {}
        }
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        // `require.x = ...`, `require.f.x = ...`: the runtime setting itself up.
        if let Some(require) = self.require
            && let Some(member) = it.left.as_member_expression()
        {
            let mut object = member.object();
            while let Some(m) = object.as_member_expression() {
                object = m.object();
            }
            if crate::refs::expression_symbol(self.scoping, object) == Some(require) {
                self.bad[self.unit] = true;
            }
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_return_statement(&mut self, it: &ReturnStatement<'a>) {
        if self.depth == 0 && self.arrows == 0 {
            self.bad[self.unit] = true;
        }
        walk::walk_return_statement(self, it);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.arrows += 1;
        walk::walk_arrow_function_expression(self, it);
        self.arrows -= 1;
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }
}

/// The unit holding position `at`, if any.
fn unit_at(units: &[Unit<'_, '_>], at: u32) -> Option<usize> {
    let i = units.partition_point(|u| u.node.span().start <= at);
    i.checked_sub(1)
        .filter(|&i| at < units[i].node.span().end.max(units[i].node.span().start + 1))
}

/// Whether `symbol` is declared before unit `k` (or outside the units: a parameter).
fn declared_before(scoping: &Scoping, symbol: SymbolId, units: &[Unit<'_, '_>], k: usize) -> bool {
    declarations(scoping, symbol, units)
        .first()
        .is_none_or(|d| d.is_none_or(|d| d < k))
}

/// The units declaring `symbol` (`None` for a declaration outside them), sorted.
fn declarations(scoping: &Scoping, symbol: SymbolId, units: &[Unit<'_, '_>]) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = std::iter::once(scoping.symbol_span(symbol))
        .chain(scoping.symbol_redeclarations(symbol).iter().map(|r| r.span))
        .map(|span| unit_at(units, span.start))
        .collect();
    out.sort();
    out
}

/// The first unit the entry can start at, if any but the end.
fn first_valid(
    units: &[Unit<'_, '_>],
    uses: &Uses<'_>,
    scoping: &Scoping,
    scope: ScopeId,
    require: Option<SymbolId>,
) -> Option<usize> {
    let n = units.len();
    // invalid[k] > 0: the entry cannot start at unit k. Intervals are marked as differences.
    let mut diff = vec![0i64; n + 2];
    let mut forbid = |from: usize, to: usize| {
        // k in from..=to
        if from <= to && from <= n {
            diff[from] += 1;
            diff[to.min(n) + 1] -= 1;
        }
    };
    if let Some(last_bad) = uses.bad.iter().rposition(|&b| b) {
        forbid(0, last_bad);
    }
    let mut by_symbol: FxHashMap<SymbolId, (usize, usize, Option<usize>)> = FxHashMap::default();
    for &(unit, symbol, write) in &uses.refs {
        let entry = by_symbol.entry(symbol).or_insert((usize::MAX, 0, None));
        entry.0 = entry.0.min(unit);
        entry.1 = entry.1.max(unit);
        if write {
            entry.2 = Some(entry.2.map_or(unit, |w: usize| w.max(unit)));
        }
    }
    for symbol in scoping.get_bindings(scope).values().copied() {
        let declared = declarations(scoping, symbol, units);
        let (first_ref, last_ref, last_write) =
            by_symbol
                .get(&symbol)
                .copied()
                .unwrap_or((usize::MAX, 0, None));
        // A declaration outside the units (a parameter, the function's own name) is before
        // every cut; `None` sorts first.
        let outside = declared.first().is_some_and(Option::is_none);
        let last = declared.iter().flatten().max().copied();
        match (outside, declared.first().copied().flatten(), last) {
            (false, Some(first), Some(last)) => {
                // Declared on both sides of the cut.
                forbid(first + 1, last);
                // Declared after the cut but used before it.
                if first_ref < first {
                    forbid(first_ref + 1, first);
                }
            }
            (true, _, Some(last)) => forbid(0, last),
            _ => {}
        }
        // Declared before the cut, used after it.
        let after_declaration = if outside {
            0
        } else {
            last.map_or(0, |l| l + 1)
        };
        if Some(symbol) != require {
            // webpack: the runtime's own names stay with it. esbuild: names are passed in as
            // values, so none may be assigned, before or after (an `__esm` initializer assigns
            // the variables of its ES module when the entry calls it).
            let assigned = last_write.is_some()
                || scoping
                    .get_resolved_references(symbol)
                    .any(|r| r.is_write());
            let used_after = if require.is_some() || assigned {
                (first_ref != usize::MAX).then_some(last_ref)
            } else {
                None
            };
            if let Some(used) = used_after {
                forbid(after_declaration, used);
            }
        }
    }
    let mut invalid = 0i64;
    for (k, d) in diff.iter().enumerate().take(n) {
        invalid += d;
        if invalid == 0 {
            return Some(k);
        }
    }
    None
}
