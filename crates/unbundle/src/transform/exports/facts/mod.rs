//! The first pass: what one module exports, how it uses other modules' exports, and its
//! `(0, x.f)` calls (see the parent module for what the facts are for).

use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, AssignmentExpression, AssignmentOperator, AssignmentTarget,
    CallExpression, Expression, Function, IdentifierReference, LogicalExpression, LogicalOperator,
    StaticMemberExpression, TaggedTemplateExpression, UnaryExpression, UnaryOperator,
    UpdateExpression, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::GetSpan;
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::{FxHashMap, FxHashSet};

mod getters;

use super::Facts;
use super::bindings::{Bindings, is_arrow_module};
use super::tsc::last_of_sequence;
use crate::refs;
use crate::refs::Wrapper;

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
        wrapped: &bindings.wrapped,
        exporters: &bindings.exporters,
        defaults: FxHashMap::default(),
        functions: &bindings.functions,
        values: &bindings.values,
        lazy: &bindings.lazy,
        lazy_good: FxHashMap::default(),
        good: FxHashMap::default(),
        read_only: FxHashSet::default(),
        escapes: FxHashSet::default(),
        assigned: FxHashMap::default(),
        facts: Facts::default(),
        depth: 0,
        top: usize::from(!is_arrow_module(program)),
        export_star: &bindings.tsc.export_star,
        nested: 0,
        defined: FxHashSet::default(),
        first_star: None,
    };
    uses.visit_program(program);
    let Uses {
        mut good,
        lazy_good,
        defaults,
        mut escapes,
        assigned,
        mut facts,
        defined,
        first_star,
        ..
    } = uses;
    super::lazy::credit(scoping, &bindings.lazy, &lazy_good, &mut good);
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
    // A wrapper's `default` read but not called: the function it may hold is handed on.
    facts.defaults_handed = defaults
        .into_iter()
        .filter(|(_, (read, called))| read > called)
        .filter_map(|(symbol, _)| bindings.bound.get(&symbol).cloned())
        .collect();
    facts.defaults_handed.sort();
    facts.replaced_by_receiver_free =
        super::replaced::by_receiver_free(program, scoping, wrapper, &bindings);
    facts.replaced_by_call_of = super::replaced::by_call_of(program, scoping, wrapper, &bindings);
    facts.factory = super::replaced::factory(program, scoping, wrapper);
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
    // A star re-export defines, for good, the names the module has not defined yet: only a
    // name defined before the first one is surely the module's own.
    if let (Some(first), Some(exports)) = (first_star, wrapper.exports) {
        let body = super::interop::module_body(program);
        let early = super::tsc::defined_before(body, scoping, exports, first);
        facts.receiver_free.retain(|n| early.contains(n));
        facts.getters.retain(|n| early.contains(n));
        facts.reexports.retain(|(n, ..)| early.contains(n));
    }
    // What a module that hands on others' exports does with them is what is done with its
    // own (see `plan`).
    facts.forwards = super::forwards::targets(program, scoping, wrapper);
    let (bound, wrapped) = (&bindings.bound, &bindings.wrapped);
    super::collects::note(&mut facts, program, scoping, wrapper, bound, wrapped);
    facts.escapes.retain(|id| !facts.forwards.contains(id));
    facts.exported = defined.into_iter().collect();
    facts.exported.sort();
    facts
}

/// How the module uses other modules and its own exports.
struct Uses<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    bound: &'s FxHashMap<SymbolId, String>,
    /// The variables of `bound` that hold an interop helper's wrapper.
    wrapped: &'s FxHashSet<SymbolId>,
    /// swc's `_export` helpers the module declares.
    exporters: &'s FxHashSet<SymbolId>,
    /// For each of `wrapped`: how often its `default` is read, and how often as a callee.
    defaults: FxHashMap<SymbolId, (usize, usize)>,
    functions: &'s FxHashMap<SymbolId, bool>,
    values: &'s FxHashMap<SymbolId, bool>,
    /// Babel's lazy-require functions → the variable of `bound` each keeps its module in.
    lazy: &'s FxHashMap<SymbolId, SymbolId>,
    /// For each of `lazy`: how often it is called for a named export (`F().f`).
    lazy_good: FxHashMap<SymbolId, usize>,
    /// References of a bound variable (or of `exports`) that only name an export.
    good: FxHashMap<SymbolId, usize>,
    /// Where `require(ID)` calls start whose value is only bound (see [`Bindings`]), read
    /// by name (`require(ID).f`, `const {f: g} = require(ID)`) or dropped (`require(ID);`):
    /// any other call lets module ID's exports escape (`require(ID).f = g` writes one,
    /// `h(require(ID))` hands them on).
    read_only: FxHashSet<u32>,
    escapes: FxHashSet<String>,
    /// Export name → (some value is a receiver-free function, every value is one or unset).
    assigned: FxHashMap<String, (bool, bool)>,
    facts: Facts,
    /// Functions (not arrows) entered: 1 inside a module function that is not an arrow.
    depth: usize,
    /// The depth of the module's own body (0 for an arrow module function).
    top: usize,
    /// tsc's `__exportStar` helpers the module declares.
    export_star: &'s FxHashSet<SymbolId>,
    /// Functions and arrows entered, the module function included: 1 in its own body.
    nested: usize,
    /// Every name the module defines on its exports.
    defined: FxHashSet<String>,
    /// Where its first star re-export starts.
    first_star: Option<u32>,
}

impl Uses<'_> {
    fn symbol(&self, expr: &Expression<'_>) -> Option<SymbolId> {
        refs::expression_symbol(self.scoping, expr)
    }

    fn reference_symbol(&self, i: &IdentifierReference<'_>) -> Option<SymbolId> {
        refs::symbol_of(self.scoping, i)
    }

    fn good_use(&mut self, symbol: SymbolId) {
        *self.good.entry(symbol).or_default() += 1;
    }

    /// The module a bound variable holds, when `expr` is one (or a lazy-require call).
    fn bound_module(&self, expr: &Expression<'_>) -> Option<&String> {
        self.receiver(expr).and_then(|s| self.bound.get(&s))
    }

    /// The symbol `expr` names, or for a lazy-require call, the variable holding its module.
    fn receiver(&self, expr: &Expression<'_>) -> Option<SymbolId> {
        super::lazy::receiver(self.scoping, self.lazy, expr)
    }

    /// The module `expr` requires, when it is a `require(ID)` call (`require_x()` in
    /// esbuild's modules).
    fn required(&self, expr: &Expression<'_>) -> Option<String> {
        match expr.without_parentheses() {
            Expression::CallExpression(call) => self.required_by(call),
            _ => None,
        }
    }

    fn required_by(&self, call: &CallExpression<'_>) -> Option<String> {
        match &call.callee {
            Expression::Identifier(callee) => {
                crate::name::module_id(self.scoping, self.wrapper, callee, &call.arguments)
            }
            _ => None,
        }
    }

    /// Notes `expr`, when it is a `require(ID)` call, as one whose value is only read.
    fn read_only(&mut self, expr: &Expression<'_>) {
        if self.required(expr).is_some() {
            self.read_only
                .insert(expr.without_parentheses().span().start);
        }
    }

    /// A member of `object` written in place (`x.f++`, `delete x.f`): a wrapper's `default`
    /// written, and the module `object` is bound to (or `require(ID)` itself) escapes.
    fn written_in_place(&mut self, object: &Expression<'_>) {
        self.writes_default(object);
        if let Some(id) = self
            .bound_module(object)
            .cloned()
            .or_else(|| self.required(object))
        {
            self.escapes.insert(id);
        }
    }

    fn is_exports(&self, expr: &Expression<'_>) -> bool {
        self.wrapper.exports.is_some() && self.symbol(expr) == self.wrapper.exports
    }

    /// Notes a callee `(0, x.f)` with `x` bound to a module, and a wrapper's `default` called
    /// (`y.default(...)` or `(0, y.default)(...)`).
    fn receiverless(&mut self, callee: &Expression<'_>) {
        let member = match callee.without_parentheses() {
            Expression::SequenceExpression(s) => match s.expressions.as_slice() {
                [first, Expression::StaticMemberExpression(m)] if first.is_number_literal() => {
                    Some((m, true))
                }
                _ => None,
            },
            Expression::StaticMemberExpression(m) => Some((m, false)),
            _ => None,
        };
        let Some((m, zero)) = member else {
            return;
        };
        // `(0, require(ID).f)`: webpack's call of an export of a module it did not bind.
        if zero && let Some(id) = self.required(&m.object) {
            self.facts.calls.push((id, m.property.name.to_string()));
            return;
        }
        let Some(symbol) = self.receiver(&m.object) else {
            return;
        };
        if m.property.name == "default" && self.wrapped.contains(&symbol) {
            self.defaults.entry(symbol).or_default().1 += 1;
        }
        if zero && let Some(id) = self.bound.get(&symbol) {
            let key = match (m.property.name == "default", self.wrapped.contains(&symbol)) {
                (true, true) => super::WRAPPED_DEFAULT.to_owned(),
                _ => m.property.name.to_string(),
            };
            self.facts.calls.push((id.clone(), key));
        }
    }

    /// The wrapper `y` when `expr` is `y.default`.
    fn wrapped_default(&self, expr: &Expression<'_>) -> Option<SymbolId> {
        match expr.without_parentheses() {
            Expression::StaticMemberExpression(m) if m.property.name == "default" => self
                .receiver(&m.object)
                .filter(|s| self.wrapped.contains(s)),
            _ => None,
        }
    }

    /// Notes a write to a property of `object` (`y.default.f = 1`, `delete y.default.f`):
    /// when it is a wrapper's `default`, its value is changed, as if handed on.
    fn writes_default(&mut self, object: &Expression<'_>) {
        if let Some(symbol) = self.wrapped_default(object) {
            self.defaults.entry(symbol).or_default().0 += 2;
        }
    }

    /// `require.NAME` with the module's require parameter.
    fn is_require_helper(&self, expr: &Expression<'_>, name: &str) -> bool {
        refs::is_require_helper(self.scoping, self.wrapper.require, expr, name)
    }

    /// Whether `value` is, when assigned to an export, a receiver-free function (`Some(true)`),
    /// nothing yet (`Some(false)`: `void 0`), or something else (`None`).
    fn value_kind(&self, value: &Expression<'_>) -> Option<bool> {
        match value.without_parentheses() {
            Expression::ArrowFunctionExpression(_) => Some(true),
            Expression::FunctionExpression(f) => (!refs::function_uses_this(f)).then_some(true),
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
                (self.functions.get(&symbol) == Some(&false)
                    || self.values.get(&symbol) == Some(&false))
                .then_some(true)
            }
            Expression::AssignmentExpression(a) => self.value_kind(&a.right),
            _ => None,
        }
    }

    /// Notes that the module defines export `name` here.
    fn define(&mut self, name: &str) {
        self.defined.insert(name.to_owned());
    }

    /// `__exportStar(SOURCE, exports)` with one of the module's tsc helpers: the exports
    /// object is only read by name through it, and SOURCE's exports only read.
    fn star(&mut self, it: &CallExpression<'_>) {
        let Some(exports) = self.wrapper.exports else {
            return;
        };
        let Expression::Identifier(callee) = &it.callee else {
            return;
        };
        if !self
            .reference_symbol(callee)
            .is_some_and(|s| self.export_star.contains(&s))
        {
            return;
        }
        let [source, Argument::Identifier(target)] = it.arguments.as_slice() else {
            return;
        };
        if self.reference_symbol(target) != Some(exports) {
            return;
        }
        self.good_use(exports);
        let source = source.as_expression();
        let from = source.and_then(|e| self.required(e).or_else(|| self.bound_module(e).cloned()));
        if let Some(e) = source {
            self.read_only(e);
            if let Some(symbol) = self.symbol(e)
                && self.bound.contains_key(&symbol)
            {
                self.good_use(symbol);
            }
        }
        // A star anywhere but in the module's own body could run at any moment.
        if self.nested != 1 {
            self.facts.opaque = true;
        }
        self.first_star.get_or_insert(it.span.start);
        self.facts.stars.push(from);
    }

    fn record_export(&mut self, name: &str, value: &Expression<'_>) {
        self.define(name);
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
    fn visit_expression_statement(&mut self, it: &oxc_ast::ast::ExpressionStatement<'a>) {
        // A value dropped.
        match it.expression.without_parentheses() {
            Expression::SequenceExpression(s) => {
                for e in &s.expressions {
                    self.read_only(e);
                }
            }
            e => self.read_only(e),
        }
        walk::walk_expression_statement(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let Some(init) = &it.init {
            let bound = it
                .id
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get())
                .is_some_and(|s| self.bound.contains_key(&s));
            if bound {
                // `require(ID)`, or an interop helper's call of it, after values dropped.
                if let Expression::SequenceExpression(q) = init.without_parentheses() {
                    q.expressions.iter().for_each(|e| self.read_only(e));
                }
                let init = last_of_sequence(init);
                self.read_only(init);
                if let Expression::CallExpression(call) = init.without_parentheses()
                    && let [Argument::CallExpression(inner)]
                    | [Argument::CallExpression(inner), Argument::NumericLiteral(_)] =
                        call.arguments.as_slice()
                    && let Some(id) = self.required_by(inner)
                {
                    self.read_only.insert(inner.span.start);
                    // The helper reads the module's mark (`mod.__esModule`) to choose what it
                    // hands back (Babel's `_interopRequireDefault`, tsc's `__importDefault`).
                    self.facts.marks_read.push(id);
                }
            } else if reads_by_name(&it.id) {
                self.read_only(init);
                // `const {f: g} = x`, `x` bound to a module: named exports read, no more.
                if let Some(symbol) = self.symbol(init)
                    && self.bound.contains_key(&symbol)
                {
                    self.good_use(symbol);
                }
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        // `y.default.NAME`, `y` a wrapper: a property of what `default` holds, read or called
        // (a write is judged below).
        if let Some(symbol) = self.wrapped_default(&it.object)
            && !matches!(it.property.name.as_str(), "__esModule" | "default")
        {
            self.defaults.entry(symbol).or_default().1 += 1;
        }
        // `require(ID).name`: read or called (a write is judged below).
        self.read_only(&it.object);
        // `x.name` (read, called, or assigned: assignments are judged below), or `F().name`.
        let lazy = super::lazy::call(self.scoping, self.lazy, &it.object);
        if let Some((function, _)) = lazy {
            *self.lazy_good.entry(function).or_default() += 1;
        }
        if let Some(symbol) = lazy
            .map(|(_, data)| data)
            .or_else(|| self.symbol(&it.object))
            && (self.bound.contains_key(&symbol) || Some(symbol) == self.wrapper.exports)
        {
            if lazy.is_none() {
                self.good_use(symbol);
            }
            if it.property.name == "default" && self.wrapped.contains(&symbol) {
                self.defaults.entry(symbol).or_default().0 += 1;
            }
            // Whether a module is an ES module is read from this mark.
            if it.property.name == "__esModule" {
                match self.bound.get(&symbol) {
                    Some(id) => self.facts.marks_read.push(id.clone()),
                    None => self.facts.reads_own_mark = true,
                }
            }
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        // `x && x.name` (tsc's `exports && exports.__importDefault`, written by esbuild for
        // `this && this.__importDefault`): the bare `x` only tests that the object is there,
        // which neither hands it on nor changes it.
        if it.operator == LogicalOperator::And
            && let Some(symbol) = self.symbol(&it.left)
            && (self.bound.contains_key(&symbol) || Some(symbol) == self.wrapper.exports)
            && matches!(it.right.without_parentheses(), Expression::StaticMemberExpression(m)
                if self.symbol(&m.object) == Some(symbol))
        {
            self.good_use(symbol);
        }
        walk::walk_logical_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        // `x = __toESM(require_x())`, the one write of a bound variable: it only binds.
        if let AssignmentTarget::AssignmentTargetIdentifier(target) = &it.left
            && let Some(symbol) = crate::refs::symbol_of(self.scoping, target)
            && self.bound.contains_key(&symbol)
        {
            self.good_use(symbol);
            self.read_only(&it.right);
            if let Expression::CallExpression(call) = it.right.without_parentheses()
                && let [Argument::CallExpression(inner)]
                | [Argument::CallExpression(inner), Argument::NumericLiteral(_)] =
                    call.arguments.as_slice()
                && self.required_by(inner).is_some()
            {
                self.read_only.insert(inner.span.start);
            }
        }
        if let Some(m) = it.left.as_member_expression() {
            self.writes_default(m.object());
        }
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && let Some(id) = self.required(&m.object)
        {
            // `require(ID).f = ...`
            self.escapes.insert(id);
        }
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left {
            if let Some(id) = self.bound_module(&m.object) {
                // Another module's export written.
                self.escapes.insert(id.clone());
            } else if self.is_exports(&m.object) {
                if it.operator == AssignmentOperator::Assign {
                    self.record_export(&m.property.name, &it.right);
                } else {
                    self.define(&m.property.name);
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
                    self.define(&m.property.name);
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
        if let Some(m) = it.argument.as_member_expression() {
            self.written_in_place(m.object());
        }
        walk::walk_update_expression(self, it);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Delete
            && let Some(m) = it.argument.as_member_expression()
        {
            self.written_in_place(m.object());
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        // ``(0, x.f)`...` ``: a call without a receiver, as below.
        self.receiverless(&it.tag);
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.star(it);
        // Babel's star re-export of a bound module: its keys and values read, no more.
        if let Some((symbol, reads)) = super::star_loop::reads(it, self.scoping)
            && self.bound.contains_key(&symbol)
        {
            *self.good.entry(symbol).or_default() += reads;
        }
        if !self.read_only.contains(&it.span.start)
            && let Some(id) = self.required_by(it)
        {
            self.escapes.insert(id);
        }
        self.receiverless(&it.callee);
        // `x(...)`, `x` bound to a module: a module that replaced its exports with a function
        // is called; that hands nothing on (a plain object throws).
        if let Expression::Identifier(callee) = it.callee.without_parentheses()
            && let Some(symbol) = self.reference_symbol(callee)
            && self.bound.contains_key(&symbol)
        {
            self.good_use(symbol);
        }
        // `require.n(x)` reads `x.default` or `x`; `require.r(exports)` marks it an ES module.
        if (self.is_require_helper(&it.callee, "n") || self.is_require_helper(&it.callee, "r"))
            && let [Argument::Identifier(i)] = it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(i)
            && (self.bound.contains_key(&symbol) || Some(symbol) == self.wrapper.exports)
        {
            self.good_use(symbol);
            if let Some(id) = self.bound.get(&symbol)
                && self.is_require_helper(&it.callee, "n")
            {
                self.facts.marks_read.push(id.clone());
            }
            if Some(symbol) == self.wrapper.exports && self.depth == self.top {
                self.facts.marks = true;
            }
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
        // `Object.defineProperty(exports, "f", {enumerable: true, get: function () { return
        // x.f; }})`: tsc's re-export, a getter nothing can replace.
        if let Some((name, getter)) = self.defined_getter(it) {
            if let Some(exports) = self.wrapper.exports {
                self.good_use(exports);
            }
            self.getter(name, getter, false);
        }
        self.swc_export(it);
        // `require.d(exports, {name: () => value, ...})`
        if self.is_require_helper(&it.callee, "d")
            && let [Argument::Identifier(target), Argument::ObjectExpression(o)] =
                it.arguments.as_slice()
            && let Some(symbol) = self.reference_symbol(target)
            && Some(symbol) == self.wrapper.exports
        {
            self.good_use(symbol);
            for (name, getter) in super::bindings::getters(o) {
                self.getter(name, getter, true);
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
            match getter.as_expression() {
                Some(getter) => self.getter(&name.value, getter, true),
                None => {
                    self.define(&name.value);
                    self.facts.getters.push(name.value.to_string());
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        self.nested += 1;
        walk::walk_function(self, it, flags);
        self.nested -= 1;
        self.depth -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.nested += 1;
        walk::walk_arrow_function_expression(self, it);
        self.nested -= 1;
    }
}

/// Whether the pattern `const PATTERN = require(ID)` binds only named exports' values:
/// `{f, g: h, k = 1}`, without a rest element or a computed key.
fn reads_by_name(pattern: &oxc_ast::ast::BindingPattern<'_>) -> bool {
    match pattern {
        oxc_ast::ast::BindingPattern::ObjectPattern(o) => {
            o.rest.is_none() && o.properties.iter().all(|p| !p.computed)
        }
        _ => false,
    }
}
