//! Finds a bundle's module table by its shape, not by its names: an object literal whose keys
//! are module ids and whose values are functions of at most three simple parameters (webpack
//! 5, and webpack 4's object form), or an array literal of such functions with holes where a
//! chunk holds no module (webpack 4). Minifiers rename `__webpack_modules__` and the
//! parameters, but they cannot change that shape.

use oxc_ast::ast::{
    Argument, ArrayExpression, ArrayExpressionElement, ArrowFunctionExpression,
    AssignmentExpression, AssignmentOperator, AssignmentTarget, CallExpression, Expression,
    Function, FunctionBody, ObjectExpression, Program, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::{GetSpan, Span};
use oxc_syntax::reference::ReferenceId;
use oxc_syntax::scope::ScopeFlags;

use crate::syntax::number_key;

mod entries;

pub(crate) use entries::ModuleSource;
use entries::{array_modules, object_modules};

/// A module table found in one file.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The literal's place in the file: it is replaced by the loader's table.
    pub(crate) span: Span,
    pub(crate) kind: TableKind,
    /// Functions the table is nested in: the table is the outermost one found.
    depth: usize,
    pub(crate) modules: Vec<ModuleSource>,
    /// The require function the runtime passes modules (a reference to it), when the file
    /// has the runtime.
    pub(crate) require: Option<ReferenceId>,
    /// What the JSONP push holding the table says of its chunk, when a push holds it.
    pub(crate) chunk: Option<Chunk>,
    /// The chunks the runtime around the table waits for before it runs its entry (see
    /// [`deferred_chunks`]).
    pub(crate) waits_for: Vec<String>,
}

/// A JSONP chunk file's own account of itself: `push([[ids], {...}, entries])`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The chunk ids it installs.
    pub(crate) ids: Vec<String>,
    /// It starts the program: webpack 4 lists entry modules after the table
    /// (`[[22, 1, 2]]`: module 22, once chunks 1 and 2 are loaded), webpack 5 passes a
    /// function that runs them (`e => e.O(0, [216], () => e(e.s = 123))`).
    pub(crate) starts: bool,
    /// The chunks its entries wait for: the page loads them too.
    pub(crate) needs: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableKind {
    /// `{583: (e, t, r) => {...}, ...}`
    Object,
    /// `[function (t, e, n) {...}, , ...]`: ids are indices, holes are ids of other chunks.
    Array {
        /// One entry per element, holes included.
        len: usize,
    },
}

/// The module table of `program`: the outermost table, the largest of those equally deep.
/// A table counts only where a bundle puts one: in a file with webpack's runtime (a call of
/// `table[id].call(module.exports, module, module.exports, require)` or `table[id](...)`
/// with those three arguments), or as a chunk's `exports.modules = {...}` or
/// `push([[ids], {...}])`. An object of functions elsewhere is ordinary code.
///
/// When the runtime indexes a variable bound to a literal (`var e = {...}`, or the parameter
/// an IIFE receives it as), that literal is the table: an object of functions inside some
/// module cannot take its place. If pilotfish does not recognize that literal as a table and
/// it is not empty (a runtime whose chunks fill it), the error is its span: a bundle of a
/// shape pilotfish does not know, rather than a few modules taken for all.
pub(crate) fn find_table(program: &Program<'_>, scoping: &Scoping) -> Result<Option<Table>, Span> {
    let strict = has_use_strict(program.directives.iter().map(|d| d.directive.as_str()));
    let mut finder = Finder::new(strict);
    finder.visit_program(program);
    let found = std::mem::take(&mut finder.found);
    let calls = finder.runtime_calls();
    let runtime = !calls.is_empty();
    let require = calls.iter().find_map(|c| c.require);
    let chunk_tables = &finder.chunk_tables;
    let indexed: Vec<(Span, bool)> = calls
        .iter()
        .filter_map(|c| c.indexed)
        .filter_map(|r| scoping.get_reference(r).symbol_id())
        .flat_map(|symbol| {
            finder
                .bound_tables
                .iter()
                .filter(move |(s, ..)| *s == symbol)
                .map(|(_, span, empty)| (*span, *empty))
        })
        .collect();
    let by_place = |t: &Table| (t.depth, usize::MAX - t.modules.len());
    let found = found
        .into_iter()
        .filter(|t| runtime || chunk_tables.contains(&t.span));
    let table = if indexed.is_empty() {
        found.min_by_key(by_place)
    } else {
        // The literal the runtime indexes, or one handed to its `add` (rspack's ES module
        // output fills an empty `{}` so).
        let table = found
            .filter(|t| {
                indexed.iter().any(|(span, _)| *span == t.span)
                    || finder.added.iter().any(|(span, _)| *span == t.span)
            })
            .min_by_key(by_place);
        if table.is_none()
            && let Some((unknown, _)) = indexed.iter().find(|(_, empty)| !empty)
        {
            return Err(*unknown);
        }
        table
    };
    Ok(table.map(|mut table| {
        // The require function of the call that indexes this table: a module that is
        // itself a webpack bundle (esprima) has a runtime call of its own, met first when
        // the table comes before the runtime (webpack 5's `var e = {...}`).
        let bound_to = |c: &&&RuntimeCall| {
            c.indexed
                .and_then(|r| scoping.get_reference(r).symbol_id())
                .is_some_and(|symbol| {
                    finder
                        .bound_tables
                        .iter()
                        .any(|(s, span, _)| *s == symbol && *span == table.span)
                })
        };
        let symbol_of = |r: ReferenceId| scoping.get_reference(r).symbol_id();
        let requires: Vec<SymbolId> = calls
            .iter()
            .filter_map(|c| c.require.and_then(symbol_of))
            .collect();
        table.require = match finder.added.iter().find(|(span, _)| *span == table.span) {
            // Handed to a runtime's `add`: that runtime's require when it is this file's, else
            // none here (rslib's chunks import the runtime from another file; a runtime of
            // the file's own code, a package rspack built, has other modules).
            Some((_, on)) => on.filter(|r| symbol_of(*r).is_some_and(|s| requires.contains(&s))),
            None => calls
                .iter()
                .filter(bound_to)
                .find_map(|c| c.require)
                .or(require),
        };
        table.chunk = finder
            .jsonp
            .iter()
            .find(|(span, _)| *span == table.span)
            .map(|(_, chunk)| chunk.clone());
        if runtime {
            table.waits_for = finder
                .deferred
                .iter()
                .filter(|(call, _)| !(table.span.start <= call.start && call.end <= table.span.end))
                .flat_map(|(_, ids)| ids.iter().cloned())
                .collect();
        }
        table
    }))
}

/// The require function of a file that holds webpack's runtime but no modules (webpack 5's
/// `runtimeChunk`, whose table is empty until chunks fill it). Only the runtime's own shape
/// counts here: a function that calls `table[id].call(m.exports, m, m.exports, itself)` (or
/// `table[id](m, m.exports, itself)`).
pub(crate) fn find_runtime(program: &Program<'_>) -> Option<ReferenceId> {
    let mut finder = Finder::new(false);
    finder.visit_program(program);
    finder.runtime_calls().iter().find_map(|c| c.require)
}

/// Every module table a webpack runtime in `program` indexes, wherever it is (a bundle nested
/// in a module of another), with the runtime's require function: only a literal bound to the
/// variable (or parameter) that a call shaped as webpack's runtime makes indexes, and passed
/// the function making the call, counts.
pub(crate) fn runtimes(program: &Program<'_>, scoping: &Scoping) -> Vec<(Table, SymbolId)> {
    let strict = has_use_strict(program.directives.iter().map(|d| d.directive.as_str()));
    let mut finder = Finder::new(strict);
    finder.visit_program(program);
    let mut out: Vec<(Table, SymbolId)> = Vec::new();
    for call in &finder.calls {
        let symbol_of =
            |r: Option<ReferenceId>| r.and_then(|r| scoping.get_reference(r).symbol_id());
        let (Some(indexed), Some(require)) = (symbol_of(call.indexed), symbol_of(call.require))
        else {
            continue;
        };
        // A table assigned to a variable written nowhere else is as bound to it as one it
        // is declared with.
        let assigned = finder.assigned_tables.iter().filter_map(|(r, span)| {
            let symbol = symbol_of(Some(*r))?;
            let writes = scoping
                .get_resolved_reference_ids(symbol)
                .iter()
                .filter(|r| scoping.get_reference(**r).is_write())
                .count();
            (writes == 1).then_some((symbol, *span))
        });
        let bound = finder.bound_tables.iter().map(|(b, span, _)| (*b, *span));
        // A table handed to the require function's `add` (rspack) is the runtime's too.
        let added = finder
            .added
            .iter()
            .filter(|(_, on)| symbol_of(*on) == Some(require))
            .map(|(span, _)| (indexed, *span));
        for (bound, span) in bound.chain(assigned).chain(added).collect::<Vec<_>>() {
            let span = &span;
            if bound == indexed
                && !out.iter().any(|(t, _)| t.span == *span)
                && let Some(table) = finder.found.iter().find(|t| t.span == *span)
            {
                out.push((table.clone(), require));
            }
        }
    }
    out
}

/// A call of a module function the way webpack's runtime makes it.
struct RuntimeCall {
    span: Span,
    /// The require function it passes, when that is the function making the call.
    require: Option<ReferenceId>,
    /// The variable it indexes (`X[id].call(...)`).
    indexed: Option<ReferenceId>,
}

/// Whether `module` and `exports` are a name and that name's `exports`, as webpack's runtime
/// passes a module object and its exports (`m, m.exports`). A call with other arguments
/// (js-yaml's `handlers[name].call(state, state, name, args)`) is ordinary code.
fn module_and_exports(module: &Argument<'_>, exports: &Argument<'_>) -> bool {
    let Argument::Identifier(module) = module else {
        return false;
    };
    matches!(exports, Argument::StaticMemberExpression(m)
        if m.property.name == "exports"
            && matches!(&m.object, Expression::Identifier(i) if i.name == module.name))
}

fn has_use_strict<'s>(mut directives: impl Iterator<Item = &'s str>) -> bool {
    directives.any(|d| d == "use strict")
}

struct Finder {
    strict: Vec<bool>,
    depth: usize,
    found: Vec<Table>,
    /// Literals placed where chunks put their tables.
    chunk_tables: Vec<Span>,
    /// The JSONP pushes among them, by their table.
    jsonp: Vec<(Span, Chunk)>,
    /// Calls that defer the entry until chunks are loaded, and those chunks.
    deferred: Vec<(Span, Vec<String>)>,
    /// The calls of a module function made the way webpack's runtime makes them.
    calls: Vec<RuntimeCall>,
    /// The names of the functions being visited, innermost last.
    functions: Vec<Option<String>>,
    /// Literal tables, the variable or parameter each is bound to, and whether it is empty
    /// (holes aside).
    bound_tables: Vec<(SymbolId, Span, bool)>,
    /// Literal tables assigned to a variable (`var o,s,n;o={...}`, as terser joins a nested
    /// runtime's declarations), and the variable's reference there.
    assigned_tables: Vec<(ReferenceId, Span)>,
    /// Literal tables handed to a runtime's `add` at the file's top level (among
    /// `chunk_tables` too), and the reference to what `add` is called on: rspack's ES module
    /// output, `__webpack_require__.add({...})`, and rslib's chunks of a shared runtime,
    /// `moduleFactories.add({...})`.
    added: Vec<(Span, Option<ReferenceId>)>,
}

impl Finder {
    fn new(strict: bool) -> Self {
        Finder {
            strict: vec![strict],
            depth: 0,
            found: Vec::new(),
            chunk_tables: Vec::new(),
            jsonp: Vec::new(),
            deferred: Vec::new(),
            calls: Vec::new(),
            functions: Vec::new(),
            bound_tables: Vec::new(),
            assigned_tables: Vec::new(),
            added: Vec::new(),
        }
    }

    fn strict(&self) -> bool {
        *self
            .strict
            .last()
            .expect("the program's strictness is at the bottom")
    }

    fn enter(&mut self, body: Option<&FunctionBody<'_>>) {
        let own =
            body.is_some_and(|b| has_use_strict(b.directives.iter().map(|d| d.directive.as_str())));
        self.strict.push(self.strict() || own);
        self.depth += 1;
    }

    /// The reference `argument` makes when it names a function being visited.
    fn itself(&self, argument: &Argument<'_>) -> Option<ReferenceId> {
        match argument {
            Argument::Identifier(i)
                if self
                    .functions
                    .iter()
                    .any(|f| f.as_deref() == Some(i.name.as_str())) =>
            {
                i.reference_id.get()
            }
            _ => None,
        }
    }

    fn leave(&mut self) {
        self.strict.pop();
        self.depth -= 1;
    }

    /// The runtime's calls of this file: those outside every chunk's table. A call inside
    /// a chunk's table is a module's own code (a package that is itself a webpack bundle,
    /// as esprima is), not the runtime of the file.
    fn runtime_calls(&self) -> Vec<&RuntimeCall> {
        self.calls
            .iter()
            .filter(|c| {
                !self
                    .chunk_tables
                    .iter()
                    .any(|t| t.start <= c.span.start && c.span.end <= t.end)
            })
            .collect()
    }
}

impl<'a> Visit<'a> for Finder {
    fn visit_object_expression(&mut self, it: &ObjectExpression<'a>) {
        if let Some(modules) = object_modules(it, self.strict()) {
            self.found.push(Table {
                span: it.span,
                kind: TableKind::Object,
                depth: self.depth,
                modules,
                require: None,
                chunk: None,
                waits_for: Vec::new(),
            });
        }
        walk::walk_object_expression(self, it);
    }

    fn visit_array_expression(&mut self, it: &ArrayExpression<'a>) {
        if let Some(modules) = array_modules(it, self.strict()) {
            self.found.push(Table {
                span: it.span,
                kind: TableKind::Array {
                    len: it.elements.len(),
                },
                depth: self.depth,
                modules,
                require: None,
                chunk: None,
                waits_for: Vec::new(),
            });
        }
        walk::walk_array_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        // `exports.modules = {...}`: a chunk for node.
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && m.property.name == "modules"
            && is_literal_table(&it.right)
        {
            self.chunk_tables.push(it.right.span());
        }
        if let AssignmentTarget::AssignmentTargetIdentifier(id) = &it.left
            && it.operator == AssignmentOperator::Assign
            && let Some(reference) = id.reference_id.get()
            && is_literal_table(&it.right)
        {
            self.assigned_tables
                .push((reference, it.right.without_parentheses().span()));
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Some(ids) = deferred_chunks(it) {
            self.deferred.push((it.span, ids));
        }
        match &it.callee {
            // `require.add({...})`: rspack's runtime merges the table into its own, which it
            // indexes (`Object.assign(require.m, modules)`). Only a call at the file's top
            // level, of one literal, counts: code in a function that adds an object of
            // functions to a set is the program's own.
            Expression::StaticMemberExpression(m)
                if m.property.name == "add"
                    && self.depth == 0
                    && matches!(m.object, Expression::Identifier(_))
                    && it.arguments.len() == 1
                    && it.arguments[0].as_expression().is_some_and(|a| {
                        matches!(a.without_parentheses(), Expression::ObjectExpression(_))
                    }) =>
            {
                let span = it.arguments[0].span();
                let span = it.arguments[0]
                    .as_expression()
                    .map_or(span, |a| a.without_parentheses().span());
                let on = match &m.object {
                    Expression::Identifier(i) => i.reference_id.get(),
                    _ => None,
                };
                self.chunk_tables.push(span);
                self.added.push((span, on));
            }
            // `(self.webpackChunk = ...).push([[ids], {...}])`: a JSONP chunk, when the push
            // has a chunk's shape (see [`super::push`]).
            Expression::StaticMemberExpression(m) if m.property.name == "push" => {
                if let Some(Argument::ArrayExpression(a)) = it.arguments.first()
                    && let Some(table) = a.elements.get(1).and_then(|e| e.as_expression())
                    && is_literal_table(table)
                    && super::push::is_chunk(a, table)
                {
                    self.chunk_tables.push(table.span());
                    self.jsonp.push((table.span(), jsonp_chunk(a)));
                }
                // `table[id].call(module.exports, module, module.exports, require)`
            }
            Expression::StaticMemberExpression(m)
                if m.property.name == "call"
                    && it.arguments.len() == 4
                    && module_and_exports(&it.arguments[1], &it.arguments[2])
                    && is_computed_member_of_name(&m.object) =>
            {
                self.calls.push(RuntimeCall {
                    span: it.span,
                    require: self.itself(&it.arguments[3]),
                    indexed: indexed_name(&m.object),
                });
            }
            // `table[id](module, module.exports, require)`
            callee
                if it.arguments.len() == 3
                    && module_and_exports(&it.arguments[0], &it.arguments[1])
                    && is_computed_member_of_name(callee) =>
            {
                self.calls.push(RuntimeCall {
                    span: it.span,
                    require: self.itself(&it.arguments[2]),
                    indexed: indexed_name(callee),
                });
            }
            _ => {}
        }
        // `(function (e) {...})([...])`: webpack 4 passes its table to the runtime.
        let params = match it.callee.without_parentheses() {
            Expression::FunctionExpression(f) => Some(&f.params),
            Expression::ArrowFunctionExpression(f) => Some(&f.params),
            _ => None,
        };
        if let Some(params) = params {
            for (param, argument) in params.items.iter().zip(&it.arguments) {
                if let Some(binding) = param.pattern.get_binding_identifier()
                    && let Some(symbol) = binding.symbol_id.get()
                    && let Some(argument) = argument.as_expression()
                    && is_literal_table(argument)
                {
                    self.bound_tables.push(bound_table(symbol, argument));
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(binding), Some(init)) = (it.id.get_binding_identifier(), &it.init)
            && let Some(symbol) = binding.symbol_id.get()
            && is_literal_table(init)
        {
            self.bound_tables.push(bound_table(symbol, init));
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.enter(it.body.as_deref());
        self.functions
            .push(it.id.as_ref().map(|id| id.name.to_string()));
        walk::walk_function(self, it, flags);
        self.functions.pop();
        self.leave();
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        let body = match &it.body {
            oxc_ast::ast::ArrowFunctionBody::FunctionBody(b) => Some(&**b),
            _ => None,
        };
        self.enter(body);
        self.functions.push(None);
        walk::walk_arrow_function_expression(self, it);
        self.functions.pop();
        self.leave();
    }
}

/// A literal table bound to `symbol`: its span, and whether it holds nothing but holes.
fn bound_table(symbol: SymbolId, literal: &Expression<'_>) -> (SymbolId, Span, bool) {
    let empty = match literal.without_parentheses() {
        Expression::ObjectExpression(o) => o.properties.is_empty(),
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .all(|e| matches!(e, ArrayExpressionElement::Elision(_))),
        _ => false,
    };
    (symbol, literal.without_parentheses().span(), empty)
}

fn is_literal_table(expr: &Expression<'_>) -> bool {
    matches!(
        expr.without_parentheses(),
        Expression::ObjectExpression(_) | Expression::ArrayExpression(_)
    )
}

/// The variable `name[...]` indexes.
fn indexed_name(expr: &Expression<'_>) -> Option<ReferenceId> {
    match expr.without_parentheses() {
        Expression::ComputedMemberExpression(m) => match &m.object {
            Expression::Identifier(i) => i.reference_id.get(),
            _ => None,
        },
        _ => None,
    }
}

/// `name[...]`
fn is_computed_member_of_name(expr: &Expression<'_>) -> bool {
    matches!(
        expr.without_parentheses(),
        Expression::ComputedMemberExpression(m) if matches!(m.object, Expression::Identifier(_))
    )
}

/// What a JSONP push's array says of its chunk (see [`Chunk`]).
fn jsonp_chunk(push: &ArrayExpression<'_>) -> Chunk {
    let mut chunk = Chunk {
        ids: push
            .elements
            .first()
            .and_then(|e| e.as_expression())
            .map(literal_ids)
            .unwrap_or_default(),
        ..Chunk::default()
    };
    match push.elements.get(2).and_then(|e| e.as_expression()) {
        // webpack 4: `[[entry, chunk, chunk], ...]`.
        Some(Expression::ArrayExpression(entries)) => {
            for entry in entries.elements.iter().filter_map(|e| e.as_expression()) {
                chunk.starts = true;
                if let Expression::ArrayExpression(entry) = entry {
                    let ids = literal_ids_of(entry);
                    chunk.needs.extend(ids.into_iter().skip(1));
                }
            }
        }
        // webpack 5: a function; the chunks it waits for are the arrays of ids in it.
        Some(f @ (Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_))) => {
            chunk.starts = true;
            let mut arrays = IdArrays::default();
            arrays.visit_expression(f);
            chunk.needs = arrays.ids;
        }
        _ => {}
    }
    chunk
}

/// The chunks a runtime that holds its own entry waits for, from the call that defers the
/// entry: webpack 5's `r.O(void 0, [96], () => r(123))` and webpack 4's `i.push([22, 1, 2])`
/// (module 22 once chunks 1 and 2 are loaded). Only calls outside the module table count (a
/// module may push arrays of numbers too).
fn deferred_chunks(it: &CallExpression<'_>) -> Option<Vec<String>> {
    let Expression::StaticMemberExpression(m) = it.callee.without_parentheses() else {
        return None;
    };
    let arguments: Vec<&Expression<'_>> = it
        .arguments
        .iter()
        .filter_map(|a| a.as_expression())
        .collect();
    match (m.property.name.as_str(), arguments.as_slice()) {
        ("O", [first, ids, ..]) if first.is_undefined() || first.is_void_0() => {
            let ids = literal_ids(ids);
            (!ids.is_empty()).then_some(ids)
        }
        ("push", [Expression::ArrayExpression(a)]) if a.elements.len() >= 2 => {
            let ids = literal_ids_of(a);
            (ids.len() >= 2).then(|| ids[1..].to_vec())
        }
        _ => None,
    }
}

/// The numbers and strings of an array literal of nothing else, as ids.
fn literal_ids(expr: &Expression<'_>) -> Vec<String> {
    match expr {
        Expression::ArrayExpression(a) => literal_ids_of(a),
        _ => Vec::new(),
    }
}

fn literal_ids_of(a: &ArrayExpression<'_>) -> Vec<String> {
    let mut ids = Vec::new();
    for element in &a.elements {
        match element.as_expression() {
            Some(Expression::NumericLiteral(n)) => ids.extend(number_key(n.value)),
            Some(Expression::StringLiteral(s)) => ids.push(s.value.to_string()),
            _ => return Vec::new(),
        }
    }
    ids
}

/// The ids in every non-empty array literal of numbers and strings under an expression.
#[derive(Default)]
struct IdArrays {
    ids: Vec<String>,
}

impl<'a> Visit<'a> for IdArrays {
    fn visit_array_expression(&mut self, it: &ArrayExpression<'a>) {
        let ids = literal_ids_of(it);
        self.ids.extend(ids);
        walk::walk_array_expression(self, it);
    }
}
