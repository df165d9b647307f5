//! Two transforms that depend on what other modules do with a module's exports, so they run
//! in two passes: the first pass gathers each module's [`Facts`], [`plan`] decides from all of
//! them, and the second rewrites the modules the plan touches.
//!
//! - `calls`: `(0, x.f)(...)` → `x.f(...)`. The `0,` calls `f` without a receiver; dropping it
//!   makes `x` the receiver, which cannot matter when `x` is bound once to `require(ID)` and
//!   module ID's export `f` is, whenever it is read, a function that does not use `this` (an
//!   arrow, or a function whose body has no `this` outside inner functions), or not set yet.
//!   That holds for a webpack getter (`require.d`), which nothing can replace, and for a plain
//!   `exports.f = ...` only when no module of the bundle does anything with module ID's
//!   exports but read a named export or call it.
//! - `plain_exports`: webpack's `require.d(exports, {f: () => f, ...})` at the top of a module
//!   becomes `exports.f = f;` for each `f` that is a function declaration of the module never
//!   assigned (hoisted, so the getter and the property give the same function at every
//!   moment), keeping the others in `require.d` calls in the original order (so the
//!   properties keep their order). It applies only when nothing in the bundle does anything
//!   with the module's exports but read or call named exports (a getter ignores a write that
//!   a plain property takes) and the module itself uses its `exports` only by name.

use oxc_allocator::{Allocator, CloneIn, TakeIn};
use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, AssignmentExpression, AssignmentOperator, AssignmentTarget,
    CallExpression, Expression, Function, IdentifierName, IdentifierReference, ObjectExpression,
    ObjectPropertyKind, PropertyKey, Statement, StaticMemberExpression, ThisExpression,
    UnaryExpression, UnaryOperator, UpdateExpression, VariableDeclarator,
};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{Visit, VisitMut, walk, walk_mut};
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::names::Wrapper;

/// What the first pass learns of one module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Exports that are, whenever read, one function that does not use `this` (or unset).
    pub(crate) receiver_free: Vec<String>,
    /// Exports defined by webpack getters (`require.d`).
    pub(crate) getters: Vec<String>,
    /// The module uses its own `exports` other than by name (passes it on, replaces it,
    /// indexes it): nothing is known of its exports.
    pub(crate) opaque: bool,
    /// Modules whose exports this module uses other than by reading or calling a named export.
    pub(crate) escapes: Vec<String>,
    /// `(0, x.f)(...)` calls into other modules: (module id, export name).
    pub(crate) calls: Vec<(String, String)>,
    /// The module has a `require.d` getter of a function declaration at its top level.
    pub(crate) defines: bool,
}

/// What the second pass may do.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// (module id, export name) whose `(0, x.f)(...)` calls can drop the `0`.
    pub(crate) calls: FxHashSet<(String, String)>,
    /// Modules whose `require.d` getters of function declarations become plain exports.
    pub(crate) plain_exports: FxHashSet<String>,
}

impl Plan {
    /// Whether module `id`, with `facts`, has anything to rewrite in the second pass.
    pub(crate) fn touches(&self, id: &str, facts: &Facts) -> bool {
        self.plain_exports.contains(id) || facts.calls.iter().any(|c| self.calls.contains(c))
    }
}

/// Decides from every module's facts what the second pass may do.
pub(crate) fn plan<'f>(
    modules: impl Iterator<Item = (&'f str, &'f Facts)> + Clone,
    calls: bool,
    plain_exports: bool,
) -> Plan {
    let escaped: FxHashSet<&str> = modules
        .clone()
        .flat_map(|(_, f)| f.escapes.iter().map(String::as_str))
        .collect();
    let mut plan = Plan::default();
    for (id, facts) in modules {
        if facts.opaque {
            continue;
        }
        let fixed = !escaped.contains(id);
        if calls {
            for name in &facts.receiver_free {
                if fixed || facts.getters.contains(name) {
                    plan.calls.insert((id.to_owned(), name.clone()));
                }
            }
        }
        if plain_exports && fixed && facts.defines {
            plan.plain_exports.insert(id.to_owned());
        }
    }
    plan
}

/// The facts of one module, whose function's scope and parameters `wrapper` gives.
pub(crate) fn facts(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Facts {
    let bindings = Bindings::of(program, scoping, wrapper);
    let mut uses = Uses {
        scoping,
        wrapper,
        bound: &bindings.bound,
        functions: &bindings.functions,
        good: FxHashMap::default(),
        escapes: FxHashSet::default(),
        assigned: FxHashMap::default(),
        facts: Facts::default(),
        depth: 0,
        top: usize::from(!is_arrow_module(program)),
    };
    uses.visit_program(program);
    let Uses {
        good,
        mut escapes,
        assigned,
        mut facts,
        ..
    } = uses;
    // A binding used anywhere but by name lets its module's exports escape.
    for (symbol, id) in &bindings.bound {
        let all = scoping.get_resolved_reference_ids(*symbol).len();
        if good.get(symbol).copied().unwrap_or(0) < all {
            escapes.insert(id.clone());
        }
    }
    if let Some(exports) = wrapper.exports {
        let all = scoping.get_resolved_reference_ids(exports).len();
        if good.get(&exports).copied().unwrap_or(0) < all {
            facts.opaque = true;
        }
    }
    facts.escapes = escapes.into_iter().collect();
    facts.escapes.sort();
    let mut free: Vec<String> = assigned
        .into_iter()
        .filter_map(|(name, (any_free, all_ok))| (any_free && all_ok).then_some(name))
        .collect();
    free.sort();
    for name in free {
        if !facts.receiver_free.contains(&name) {
            facts.receiver_free.push(name);
        }
    }
    facts
}

/// Whether the module function (the program's one expression) is an arrow function.
fn is_arrow_module(program: &oxc_ast::ast::Program<'_>) -> bool {
    matches!(program.body.first(), Some(Statement::ExpressionStatement(s))
        if matches!(s.expression.without_parentheses(), Expression::ArrowFunctionExpression(_)))
}

/// Whether a function body (or any node) uses `this` outside inner functions (classes count:
/// conservative).
fn uses_this(visit: impl FnOnce(&mut ThisFinder)) -> bool {
    let mut finder = ThisFinder(false);
    visit(&mut finder);
    finder.0
}

struct ThisFinder(bool);

impl<'a> Visit<'a> for ThisFinder {
    fn visit_this_expression(&mut self, _: &ThisExpression) {
        self.0 = true;
    }
    fn visit_function(&mut self, _: &Function<'a>, _: ScopeFlags) {}
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        // A direct `eval` can read `this`.
        if matches!(&it.callee, Expression::Identifier(i) if i.name == "eval") {
            self.0 = true;
        }
        walk::walk_call_expression(self, it);
    }
}

/// Variables bound once to another module, and the module's function declarations.
struct Bindings<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    /// Variable → the id of the module it holds.
    bound: FxHashMap<SymbolId, String>,
    /// Function declarations of the module's scope never assigned → whether they use `this`.
    functions: FxHashMap<SymbolId, bool>,
    depth: usize,
}

impl<'s> Bindings<'s> {
    fn of(program: &oxc_ast::ast::Program<'_>, scoping: &'s Scoping, wrapper: Wrapper) -> Self {
        let mut bindings = Bindings {
            scoping,
            wrapper,
            bound: FxHashMap::default(),
            functions: FxHashMap::default(),
            depth: 0,
        };
        bindings.visit_program(program);
        bindings
    }
}

impl<'a> Visit<'a> for Bindings<'_> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(binding), Some(Expression::CallExpression(call))) =
            (it.id.get_binding_identifier(), &it.init)
            && let Some(symbol) = binding.symbol_id.get()
            && let Expression::Identifier(callee) = &call.callee
            && let Some(id) =
                crate::names::module_id(self.scoping, self.wrapper, callee, &call.arguments)
            && !self
                .scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
        {
            self.bound.insert(symbol, id);
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if self.depth == 1
            && it.is_declaration()
            && let Some(symbol) = it.id.as_ref().and_then(|id| id.symbol_id.get())
            && self.scoping.symbol_scope_id(symbol) == self.wrapper.scope
            && self
                .scoping
                .symbol_flags(symbol)
                .contains(SymbolFlags::Function)
            && !self
                .scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
            && self.scoping.symbol_redeclarations(symbol).is_empty()
        {
            let this = uses_this(|f| {
                if let Some(body) = &it.body {
                    f.visit_function_body(body);
                }
                f.visit_formal_parameters(&it.params);
            });
            self.functions.insert(symbol, this);
        }
        // The module function itself is depth 0.
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.depth += 1;
        walk::walk_arrow_function_expression(self, it);
        self.depth -= 1;
    }
}

/// How the module uses other modules and its own exports.
struct Uses<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    bound: &'s FxHashMap<SymbolId, String>,
    functions: &'s FxHashMap<SymbolId, bool>,
    /// References of a bound variable (or of `exports`) that only name an export.
    good: FxHashMap<SymbolId, usize>,
    escapes: FxHashSet<String>,
    /// Export name → (some value is a receiver-free function, every value is one or unset).
    assigned: FxHashMap<String, (bool, bool)>,
    facts: Facts,
    /// Functions (not arrows) entered: 1 inside a module function that is not an arrow.
    depth: usize,
    /// The depth of the module's own body (0 for an arrow module function).
    top: usize,
}

impl Uses<'_> {
    fn symbol(&self, expr: &Expression<'_>) -> Option<SymbolId> {
        let Expression::Identifier(i) = expr.without_parentheses() else {
            return None;
        };
        self.reference_symbol(i)
    }

    fn reference_symbol(&self, i: &IdentifierReference<'_>) -> Option<SymbolId> {
        i.reference_id
            .get()
            .and_then(|r| self.scoping.get_reference(r).symbol_id())
    }

    fn good_use(&mut self, symbol: SymbolId) {
        *self.good.entry(symbol).or_default() += 1;
    }

    /// The module a bound variable holds, when `expr` is one.
    fn bound_module(&self, expr: &Expression<'_>) -> Option<&String> {
        self.symbol(expr).and_then(|s| self.bound.get(&s))
    }

    fn is_exports(&self, expr: &Expression<'_>) -> bool {
        self.wrapper.exports.is_some() && self.symbol(expr) == self.wrapper.exports
    }

    /// `require.NAME` with the module's require parameter.
    fn is_require_helper(&self, expr: &Expression<'_>, name: &str) -> bool {
        matches!(expr.without_parentheses(), Expression::StaticMemberExpression(m)
            if m.property.name == name
                && self.wrapper.require.is_some()
                && self.symbol(&m.object) == self.wrapper.require)
    }

    /// Whether `value` is, when assigned to an export, a receiver-free function (`Some(true)`),
    /// nothing yet (`Some(false)`: `void 0`), or something else (`None`).
    fn value_kind(&self, value: &Expression<'_>) -> Option<bool> {
        match value.without_parentheses() {
            Expression::ArrowFunctionExpression(_) => Some(true),
            Expression::FunctionExpression(f) => {
                let this = uses_this(|t| {
                    if let Some(body) = &f.body {
                        t.visit_function_body(body);
                    }
                    t.visit_formal_parameters(&f.params);
                });
                (!this).then_some(true)
            }
            Expression::UnaryExpression(u)
                if u.operator == UnaryOperator::Void && u.argument.is_number_literal() =>
            {
                Some(false)
            }
            Expression::Identifier(i)
                if i.name == "undefined" && self.reference_symbol(i).is_none() =>
            {
                Some(false)
            }
            Expression::Identifier(i) => {
                let symbol = self.reference_symbol(i)?;
                (self.functions.get(&symbol) == Some(&false)).then_some(true)
            }
            Expression::AssignmentExpression(a) => self.value_kind(&a.right),
            _ => None,
        }
    }

    fn record_export(&mut self, name: &str, value: &Expression<'_>) {
        let kind = self.value_kind(value);
        let entry = self
            .assigned
            .entry(name.to_owned())
            .or_insert((false, true));
        match kind {
            Some(true) => entry.0 = true,
            Some(false) => {}
            None => entry.1 = false,
        }
    }
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        // `x.name` (read, called, or assigned: assignments are judged below).
        if let Some(symbol) = self.symbol(&it.object)
            && (self.bound.contains_key(&symbol) || Some(symbol) == self.wrapper.exports)
        {
            self.good_use(symbol);
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left {
            if let Some(id) = self.bound_module(&m.object) {
                // Another module's export written.
                self.escapes.insert(id.clone());
            } else if self.is_exports(&m.object) {
                if it.operator == AssignmentOperator::Assign {
                    self.record_export(&m.property.name, &it.right);
                } else {
                    self.assigned
                        .insert(m.property.name.to_string(), (false, false));
                }
            } else if let Expression::StaticMemberExpression(inner) = &m.object
                && inner.property.name == "exports"
                && self.wrapper.module.is_some()
                && self.symbol(&inner.object) == self.wrapper.module
            {
                // `module.exports.NAME = ...`
                if it.operator == AssignmentOperator::Assign {
                    self.record_export(&m.property.name, &it.right);
                } else {
                    self.assigned
                        .insert(m.property.name.to_string(), (false, false));
                }
            } else if matches!(m.object, Expression::ThisExpression(_)) && self.depth == self.top {
                // `this` at the top of a webpack module is its exports.
                self.facts.opaque = true;
            }
        }
        // `module.exports = ...` replaces the exports object.
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && m.property.name == "exports"
            && self.wrapper.module.is_some()
            && self.symbol(&m.object) == self.wrapper.module
        {
            self.facts.opaque = true;
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_update_expression(&mut self, it: &UpdateExpression<'a>) {
        if let Some(m) = it.argument.as_member_expression()
            && let Some(id) = self.bound_module(m.object())
        {
            self.escapes.insert(id.clone());
        }
        walk::walk_update_expression(self, it);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Delete
            && let Some(m) = it.argument.as_member_expression()
            && let Some(id) = self.bound_module(m.object())
        {
            self.escapes.insert(id.clone());
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        // `(0, x.f)(...)`
        if let Expression::SequenceExpression(s) = it.callee.without_parentheses()
            && let [first, Expression::StaticMemberExpression(m)] = s.expressions.as_slice()
            && first.is_number_literal()
            && let Some(id) = self.bound_module(&m.object)
        {
            self.facts
                .calls
                .push((id.clone(), m.property.name.to_string()));
        }
        // `require.n(x)` reads `x.default` or `x`; `require.r(exports)` marks it an ES module.
        if (self.is_require_helper(&it.callee, "n") || self.is_require_helper(&it.callee, "r"))
            && let [Argument::Identifier(i)] = it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(i)
            && (self.bound.contains_key(&symbol) || Some(symbol) == self.wrapper.exports)
        {
            self.good_use(symbol);
        }
        // `Object.defineProperty(exports, "__esModule", {value: true})`, as tsc writes it.
        if let Expression::StaticMemberExpression(m) = it.callee.without_parentheses()
            && m.property.name == "defineProperty"
            && matches!(&m.object, Expression::Identifier(o) if o.name == "Object" && self.reference_symbol(o).is_none())
            && let [
                Argument::Identifier(target),
                Argument::StringLiteral(key),
                ..,
            ] = it.arguments.as_slice()
            && key.value == "__esModule"
            && let Some(symbol) = self.reference_symbol(target)
            && Some(symbol) == self.wrapper.exports
        {
            self.good_use(symbol);
        }
        // `require.d(exports, {name: () => value, ...})`
        if self.is_require_helper(&it.callee, "d")
            && let [Argument::Identifier(target), Argument::ObjectExpression(o)] =
                it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(target)
            && Some(symbol) == self.wrapper.exports
        {
            self.good_use(symbol);
            for (name, value) in getters(o) {
                self.facts.getters.push(name.to_owned());
                if let Some(value) = value.and_then(|v| self.reference_symbol(v))
                    && let Some(&this) = self.functions.get(&value)
                {
                    // Only those at the top level become plain exports; webpack puts them
                    // nowhere else.
                    self.facts.defines = true;
                    if !this {
                        self.facts.receiver_free.push(name.to_owned());
                    }
                }
            }
        }
        // webpack 4: `require.d(exports, "name", function () { return value; })`
        if self.is_require_helper(&it.callee, "d")
            && let [
                Argument::Identifier(target),
                Argument::StringLiteral(name),
                getter,
            ] = it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(target)
            && Some(symbol) == self.wrapper.exports
        {
            self.good_use(symbol);
            self.facts.getters.push(name.value.to_string());
            if let Some(value) = getter
                .as_expression()
                .and_then(getter_value)
                .and_then(|v| self.reference_symbol(v))
                && let Some(&this) = self.functions.get(&value)
            {
                self.facts.defines = true;
                if !this {
                    self.facts.receiver_free.push(name.value.to_string());
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }
}

/// The getters of a `require.d` object: each name, and the variable its arrow returns.
fn getters<'o, 'a>(
    o: &'o ObjectExpression<'a>,
) -> impl Iterator<Item = (&'o str, Option<&'o IdentifierReference<'a>>)> {
    o.properties.iter().filter_map(|p| {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            return None;
        };
        let name = match &p.key {
            PropertyKey::StaticIdentifier(k) => k.name.as_str(),
            PropertyKey::StringLiteral(s) => s.value.as_str(),
            _ => return None,
        };
        Some((name, getter_value(&p.value)))
    })
}

/// The variable a getter returns: `() => x` (webpack 5), `function () { return x; }`
/// (webpack 4).
fn getter_value<'o, 'a>(getter: &'o Expression<'a>) -> Option<&'o IdentifierReference<'a>> {
    let returned = match getter.without_parentheses() {
        Expression::ArrowFunctionExpression(f) if f.is_expression() => f.get_expression(),
        Expression::FunctionExpression(f) if f.params.items.is_empty() => {
            match f.body.as_ref()?.statements.as_slice() {
                [Statement::ReturnStatement(r)] => r.argument.as_ref(),
                _ => None,
            }
        }
        _ => None,
    }?;
    match returned {
        Expression::Identifier(i) => Some(i),
        _ => None,
    }
}

/// The module's function declarations that are never assigned (what `plain_exports` may
/// export plainly).
pub(crate) fn function_declarations(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> FxHashSet<SymbolId> {
    let bindings = Bindings::of(program, scoping, wrapper);
    bindings.functions.into_keys().collect()
}

/// Drops the `0,` of `(0, x.f)(...)` calls the plan allows; how many it dropped.
pub(crate) fn rewrite_calls<'a>(
    program: &mut oxc_ast::ast::Program<'a>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    wrapper: Wrapper,
    plan: &Plan,
) -> usize {
    let bindings = Bindings::of(program, scoping, wrapper);
    let mut calls = Calls {
        allocator,
        scoping,
        bound: bindings.bound,
        plan,
        changed: 0,
    };
    calls.visit_program(program);
    calls.changed
}

struct Calls<'s, 'a> {
    allocator: &'a Allocator,
    scoping: &'s Scoping,
    bound: FxHashMap<SymbolId, String>,
    plan: &'s Plan,
    changed: usize,
}

impl<'a> VisitMut<'a> for Calls<'_, 'a> {
    fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
        let mut callee = &mut it.callee;
        while let Expression::ParenthesizedExpression(p) = callee {
            callee = &mut p.expression;
        }
        if let Expression::SequenceExpression(s) = callee
            && let [first, Expression::StaticMemberExpression(m)] = s.expressions.as_slice()
            && first.is_number_literal()
            && let Expression::Identifier(object) = &m.object
            && let Some(symbol) = object
                .reference_id
                .get()
                .and_then(|r| self.scoping.get_reference(r).symbol_id())
            && let Some(id) = self.bound.get(&symbol)
            && self
                .plan
                .calls
                .contains(&(id.clone(), m.property.name.to_string()))
        {
            let member = s.expressions[1].take_in(&self.allocator);
            *callee = member;
            self.changed += 1;
        }
        walk_mut::walk_call_expression(self, it);
    }
}

/// Turns the top-level `require.d` getters of function declarations in `statements` into plain
/// exports; how many it turned.
pub(crate) fn plain_exports<'a>(
    statements: &mut oxc_allocator::Vec<'a, Statement<'a>>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    wrapper: Wrapper,
    functions: &FxHashSet<SymbolId>,
) -> usize {
    let ast = AstBuilder::new(allocator);
    let mut changed = 0;
    let old = std::mem::replace(statements, oxc_allocator::Vec::new_in(&allocator));
    for statement in old {
        let Statement::ExpressionStatement(mut es) = statement else {
            statements.push(statement);
            continue;
        };
        let symbol = |e: &Expression<'_>| match e.without_parentheses() {
            Expression::Identifier(i) => i
                .reference_id
                .get()
                .and_then(|r| scoping.get_reference(r).symbol_id()),
            _ => None,
        };
        // webpack 4's one getter per call.
        if let Expression::CallExpression(call) = &es.expression
            && matches!(call.callee.without_parentheses(), Expression::StaticMemberExpression(m)
                if m.property.name == "d" && wrapper.require.is_some() && symbol(&m.object) == wrapper.require)
            && let [
                Argument::Identifier(target),
                Argument::StringLiteral(name),
                getter,
            ] = call.arguments.as_slice()
            && wrapper.exports.is_some()
            && target
                .reference_id
                .get()
                .and_then(|r| scoping.get_reference(r).symbol_id())
                == wrapper.exports
            && crate::names::is_identifier_name(name.value.as_str())
            && let Some(value) = getter.as_expression().and_then(getter_value)
            && value
                .reference_id
                .get()
                .and_then(|r| scoping.get_reference(r).symbol_id())
                .is_some_and(|s| functions.contains(&s))
        {
            let target = Expression::Identifier(target.clone_in_with_semantic_ids(allocator));
            let value =
                oxc_allocator::Box::new_in(value.clone_in_with_semantic_ids(allocator), &allocator);
            let name = name.value.to_string();
            statements.push(plain_assignment(
                &ast, allocator, call.span, target, &name, value,
            ));
            changed += 1;
            continue;
        }
        let is_define = match &es.expression {
            Expression::CallExpression(call) => {
                matches!(call.callee.without_parentheses(), Expression::StaticMemberExpression(m)
                    if m.property.name == "d" && wrapper.require.is_some() && symbol(&m.object) == wrapper.require)
                    && matches!(
                        call.arguments.as_slice(),
                        [Argument::Identifier(_), Argument::ObjectExpression(_)]
                    )
                    && call.arguments[0].as_expression().and_then(symbol) == wrapper.exports
                    && wrapper.exports.is_some()
            }
            _ => false,
        };
        if !is_define {
            statements.push(Statement::ExpressionStatement(es));
            continue;
        }
        let Expression::CallExpression(call) = &mut es.expression else {
            unreachable!("checked above");
        };
        let span = call.span;
        let callee = call.callee.clone_in_with_semantic_ids(allocator);
        let target = call.arguments[0]
            .as_expression()
            .expect("checked above")
            .clone_in_with_semantic_ids(allocator);
        let Argument::ObjectExpression(o) = &mut call.arguments[1] else {
            unreachable!("checked above");
        };
        // Runs of getters kept, and plain exports, in the object's order.
        let mut kept: oxc_allocator::Vec<'a, ObjectPropertyKind<'a>> =
            oxc_allocator::Vec::new_in(&allocator);
        let flush = |kept: &mut oxc_allocator::Vec<'a, ObjectPropertyKind<'a>>,
                     out: &mut oxc_allocator::Vec<'a, Statement<'a>>| {
            if kept.is_empty() {
                return;
            }
            let properties = std::mem::replace(kept, oxc_allocator::Vec::new_in(&allocator));
            let object = Expression::new_object_expression(span, properties, &ast);
            let arguments = oxc_allocator::Vec::from_iter_in(
                [
                    Argument::from(target.clone_in_with_semantic_ids(allocator)),
                    Argument::from(object),
                ],
                &allocator,
            );
            let call = Expression::new_call_expression(
                span,
                callee.clone_in_with_semantic_ids(allocator),
                None::<oxc_allocator::Box<'a, _>>,
                arguments,
                false,
                &ast,
            );
            out.push(Statement::new_expression_statement(span, call, &ast));
        };
        for property in o.properties.take_in(&allocator) {
            let plain = match &property {
                ObjectPropertyKind::ObjectProperty(p) => {
                    let name = match &p.key {
                        PropertyKey::StaticIdentifier(k) => Some(k.name.as_str()),
                        PropertyKey::StringLiteral(s)
                            if crate::names::is_identifier_name(s.value.as_str()) =>
                        {
                            Some(s.value.as_str())
                        }
                        _ => None,
                    };
                    let value = match &p.value {
                        Expression::ArrowFunctionExpression(f) if f.is_expression() => {
                            match f.get_expression() {
                                Some(Expression::Identifier(i)) => i
                                    .reference_id
                                    .get()
                                    .and_then(|r| scoping.get_reference(r).symbol_id())
                                    .filter(|s| functions.contains(s))
                                    .map(|_| i.clone_in_with_semantic_ids(allocator)),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    name.zip(value).map(|(n, v)| (n.to_owned(), v))
                }
                _ => None,
            };
            match plain {
                Some((name, value)) => {
                    flush(&mut kept, statements);
                    statements.push(plain_assignment(
                        &ast,
                        allocator,
                        span,
                        target.clone_in_with_semantic_ids(allocator),
                        &name,
                        value,
                    ));
                    changed += 1;
                }
                None => kept.push(property),
            }
        }
        flush(&mut kept, statements);
    }
    changed
}

/// `target.name = value;`
fn plain_assignment<'a>(
    ast: &AstBuilder<'a>,
    allocator: &'a Allocator,
    span: oxc_span::Span,
    target: Expression<'a>,
    name: &str,
    value: oxc_allocator::Box<'a, IdentifierReference<'a>>,
) -> Statement<'a> {
    let member = StaticMemberExpression::boxed(
        span,
        target,
        IdentifierName::new(span, oxc_str::Ident::from_str_in(name, &allocator), ast),
        false,
        ast,
    );
    let assignment = Expression::new_assignment_expression(
        span,
        AssignmentOperator::Assign,
        AssignmentTarget::StaticMemberExpression(member),
        Expression::Identifier(value),
        ast,
    );
    Statement::new_expression_statement(span, assignment, ast)
}
