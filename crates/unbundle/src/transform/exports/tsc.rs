//! tsc's helpers for ES module interop, recognized by what their code can do (any names, any
//! minifier's form), so that the `calls` transform can see through them:
//!
//! - `__createBinding(o, m, k, k2)`: makes `o[k2 ?? k]` read `m[k]` (a getter returning it,
//!   `m`'s own property descriptor copied, or the value copied). esbuild's `__name` around
//!   the getter (`get: __name(function () {...}, "get")`, with `keepNames`) hands back the
//!   getter itself, its `name` set, and is seen through. Recognized when it does
//!   nothing else: its only calls are `Object.getOwnPropertyDescriptor(m, k)` and
//!   `Object.defineProperty(o, k or k2, D)` (D a descriptor got so, or `{enumerable: ...,
//!   get: function () { return m[k]; }}`), its only writes `k2 = k`, `D = {...}` as above and
//!   `o[k or k2] = m[k]`.
//! - `__setModuleDefault(o, v)`: only ever writes `o`'s `default` (by `defineProperty` or an
//!   assignment).
//! - `__importStar(mod)`: hands back `mod`, or a fresh `{}` that only `__createBinding` (with
//!   three arguments) and `__setModuleDefault` write, `mod` as their source. So a named export
//!   other than `default` read through it is `mod`'s own, or missing (a call of it throws
//!   with or without a receiver), as with `__importDefault` (see `interop.rs`). tsc 5's form
//!   finds the keys with an `ownKeys` function of its own, declared in an arrow or function
//!   called at once: every call in the helper is of a recognized helper, of
//!   `Object.prototype.hasOwnProperty.call`, or of a function declared in the helper; nothing
//!   in it writes a property but of an array it made itself, nor assigns `mod`.
//! - `__exportStar(m, exports)`: for keys of `m` the target lacks, `__createBinding(exports,
//!   m, key)`: the target's only uses are that and `Object.prototype.hasOwnProperty.call`, and
//!   the helper writes no property and calls nothing else. So each property it adds reads the
//!   same as `m`'s.

use oxc_ast::ast::{
    Argument, AssignmentTarget, CallExpression, Expression, ObjectExpression, ObjectPropertyKind,
    SimpleAssignmentTarget, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::GetSpan;
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::refs::Wrapper;

/// The tsc helpers a module declares, by symbol.
#[derive(Default)]
pub(super) struct TscHelpers {
    pub(super) create_binding: FxHashSet<SymbolId>,
    pub(super) set_default: FxHashSet<SymbolId>,
    pub(super) import_star: FxHashSet<SymbolId>,
    pub(super) export_star: FxHashSet<SymbolId>,
}

impl TscHelpers {
    /// Notes `symbol` when `helper` (its value) is one of tsc's helpers; helpers that use
    /// others must come after them, as tsc writes them.
    pub(super) fn note(
        &mut self,
        symbol: SymbolId,
        helper: &Expression<'_>,
        (scoping, wrapper): (&Scoping, Wrapper),
    ) {
        let branches: Vec<&Expression<'_>> = match helper.without_parentheses() {
            // `Object.create ? function ... : function ...`
            Expression::ConditionalExpression(c) => vec![&c.consequent, &c.alternate],
            other => vec![other],
        };
        if branches
            .iter()
            .all(|f| creates_binding(f, scoping, wrapper))
        {
            self.create_binding.insert(symbol);
        } else if branches.iter().all(|f| sets_default(f, scoping)) {
            self.set_default.insert(symbol);
        } else if imports_star(helper, scoping, self) {
            self.import_star.insert(symbol);
        } else if exports_star(helper, scoping, self) {
            self.export_star.insert(symbol);
        }
    }

    fn is(&self, set: &FxHashSet<SymbolId>, scoping: &Scoping, callee: &Expression<'_>) -> bool {
        crate::refs::expression_symbol(scoping, callee).is_some_and(|s| set.contains(&s))
    }
}

/// A function expression or arrow: its parameters' symbols and its body's statements.
fn parts<'b, 'a>(expr: &'b Expression<'a>) -> Option<(Vec<Option<SymbolId>>, &'b [Statement<'a>])> {
    let (params, statements) = match expr.without_parentheses() {
        Expression::FunctionExpression(f) if !f.r#async && !f.generator => {
            (&f.params, &f.body.as_ref()?.statements[..])
        }
        Expression::ArrowFunctionExpression(f) if !f.r#async => match &f.body {
            oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => {
                (&f.params, &body.statements[..])
            }
            _ => return None,
        },
        _ => return None,
    };
    if params.rest.is_some() {
        return None;
    }
    let symbols = params
        .items
        .iter()
        .map(|p| {
            p.pattern
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get())
        })
        .collect();
    Some((symbols, statements))
}

fn symbol(scoping: &Scoping, expr: &Expression<'_>) -> Option<SymbolId> {
    crate::refs::expression_symbol(scoping, expr)
}

fn argument_symbol(scoping: &Scoping, a: &Argument<'_>) -> Option<SymbolId> {
    a.as_expression().and_then(|e| symbol(scoping, e))
}

/// `Object.NAME` with the global `Object`.
fn is_object_member(scoping: &Scoping, expr: &Expression<'_>, name: &str) -> bool {
    matches!(expr.without_parentheses(), Expression::StaticMemberExpression(m)
        if m.property.name == name
            && matches!(&m.object, Expression::Identifier(o)
                if o.name == "Object" && crate::refs::symbol_of(scoping, o).is_none()))
}

/// `Object.prototype.hasOwnProperty.call`.
fn is_has_own_call(scoping: &Scoping, expr: &Expression<'_>) -> bool {
    matches!(expr.without_parentheses(), Expression::StaticMemberExpression(call)
        if call.property.name == "call"
            && matches!(&call.object, Expression::StaticMemberExpression(has)
                if has.property.name == "hasOwnProperty"
                    && is_object_member(scoping, &has.object, "prototype")))
}

/// `m[k]`.
fn reads_key(scoping: &Scoping, expr: &Expression<'_>, m: SymbolId, k: SymbolId) -> bool {
    matches!(expr.without_parentheses(), Expression::ComputedMemberExpression(c)
        if symbol(scoping, &c.object) == Some(m) && symbol(scoping, &c.expression) == Some(k))
}

/// `{enumerable: ..., get: function () { return m[k]; }}` (or an arrow, or either named by
/// esbuild's `__name`: `get: __name(function () {...}, "get")`).
fn getter_descriptor(
    (scoping, wrapper): (&Scoping, Wrapper),
    o: &ObjectExpression<'_>,
    m: SymbolId,
    k: SymbolId,
) -> bool {
    o.properties.iter().all(|p| match p {
        ObjectPropertyKind::ObjectProperty(p) if !p.computed => {
            match p.key.static_name().as_deref() {
                Some("enumerable") => matches!(
                    p.value.without_parentheses(),
                    Expression::BooleanLiteral(_) | Expression::UnaryExpression(_)
                ),
                Some("get") => {
                    let returned = match wrapper.unnamed(scoping, &p.value).without_parentheses() {
                        Expression::ArrowFunctionExpression(f) if f.params.items.is_empty() => {
                            match &f.body {
                                oxc_ast::ast::ArrowFunctionBody::FunctionBody(b) => {
                                    only_return(&b.statements)
                                }
                                body => body.as_expression(),
                            }
                        }
                        Expression::FunctionExpression(f) if f.params.items.is_empty() => {
                            f.body.as_ref().and_then(|b| only_return(&b.statements))
                        }
                        _ => None,
                    };
                    returned.is_some_and(|r| reads_key(scoping, r, m, k))
                }
                _ => false,
            }
        }
        _ => false,
    })
}

fn only_return<'b, 'a>(statements: &'b [Statement<'a>]) -> Option<&'b Expression<'a>> {
    match statements {
        [Statement::ReturnStatement(r)] => r.argument.as_ref(),
        _ => None,
    }
}

/// Whether `f` is `__createBinding` (see the module documentation).
fn creates_binding(f: &Expression<'_>, scoping: &Scoping, wrapper: Wrapper) -> bool {
    let Some((params, statements)) = parts(f) else {
        return false;
    };
    let (Some(Some(o)), Some(Some(m)), Some(Some(k))) =
        (params.first(), params.get(1), params.get(2))
    else {
        return false;
    };
    let k2 = params.get(3).copied().flatten();
    if params.len() > 4 || [Some(*o), Some(*m), Some(*k)].contains(&k2) && k2.is_some() {
        return false;
    }
    let mut check = Binding {
        scoping,
        wrapper,
        o: *o,
        m: *m,
        k: *k,
        k2,
        descriptors: FxHashSet::default(),
        ok: true,
    };
    for s in statements {
        check.visit_statement(s);
    }
    check.ok
}

struct Binding<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    o: SymbolId,
    m: SymbolId,
    k: SymbolId,
    k2: Option<SymbolId>,
    /// Local variables holding a descriptor (`Object.getOwnPropertyDescriptor(m, k)` or a
    /// getter of `m[k]`).
    descriptors: FxHashSet<SymbolId>,
    ok: bool,
}

impl Binding<'_> {
    fn is_key(&self, expr: &Expression<'_>) -> bool {
        let s = symbol(self.scoping, expr);
        s == Some(self.k) || (s.is_some() && s == self.k2)
    }

    /// A descriptor of `m[k]`: a call `Object.getOwnPropertyDescriptor(m, k)` or a getter.
    fn is_descriptor(&self, expr: &Expression<'_>) -> bool {
        match expr.without_parentheses() {
            Expression::CallExpression(c) => self.reads_descriptor(c),
            Expression::ObjectExpression(o) => {
                getter_descriptor((self.scoping, self.wrapper), o, self.m, self.k)
            }
            e => symbol(self.scoping, e).is_some_and(|s| self.descriptors.contains(&s)),
        }
    }

    fn reads_descriptor(&self, c: &CallExpression<'_>) -> bool {
        is_object_member(self.scoping, &c.callee, "getOwnPropertyDescriptor")
            && matches!(c.arguments.as_slice(), [m, k]
                if argument_symbol(self.scoping, m) == Some(self.m)
                    && argument_symbol(self.scoping, k) == Some(self.k))
    }
}

impl<'a> Visit<'a> for Binding<'_> {
    fn visit_variable_declarator(&mut self, it: &oxc_ast::ast::VariableDeclarator<'a>) {
        match (
            it.id
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get()),
            &it.init,
        ) {
            (Some(s), Some(init)) if self.is_descriptor(init) => {
                self.descriptors.insert(s);
            }
            _ => self.ok = false,
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let defines = is_object_member(self.scoping, &it.callee, "defineProperty")
            && matches!(it.arguments.as_slice(), [o, key, d]
                if argument_symbol(self.scoping, o) == Some(self.o)
                    && key.as_expression().is_some_and(|e| self.is_key(e))
                    && d.as_expression().is_some_and(|e| self.is_descriptor(e)));
        self.ok &= defines || self.reads_descriptor(it);
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &oxc_ast::ast::AssignmentExpression<'a>) {
        let ok = match &it.left {
            AssignmentTarget::AssignmentTargetIdentifier(i) => {
                let s = crate::refs::symbol_of(self.scoping, i);
                (s.is_some() && s == self.k2 && symbol(self.scoping, &it.right) == Some(self.k))
                    || (s.is_some_and(|s| self.descriptors.contains(&s))
                        && self.is_descriptor(&it.right))
            }
            AssignmentTarget::ComputedMemberExpression(c) => {
                symbol(self.scoping, &c.object) == Some(self.o)
                    && self.is_key(&c.expression)
                    && reads_key(self.scoping, &it.right, self.m, self.k)
            }
            _ => false,
        };
        self.ok &= ok && it.operator == oxc_ast::ast::AssignmentOperator::Assign;
        walk::walk_assignment_expression(self, it);
    }

    fn visit_object_expression(&mut self, it: &ObjectExpression<'a>) {
        // Checked where it is used; its getter's body is not a function of the helper's.
        self.ok &= getter_descriptor((self.scoping, self.wrapper), it, self.m, self.k);
    }

    fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: ScopeFlags) {
        self.ok = false;
    }

    fn visit_arrow_function_expression(&mut self, _: &oxc_ast::ast::ArrowFunctionExpression<'a>) {
        self.ok = false;
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        if matches!(
            it,
            Expression::NewExpression(_)
                | Expression::UpdateExpression(_)
                | Expression::ThisExpression(_)
                | Expression::TaggedTemplateExpression(_)
                | Expression::AwaitExpression(_)
                | Expression::YieldExpression(_)
        ) || matches!(it, Expression::UnaryExpression(u) if u.operator == oxc_ast::ast::UnaryOperator::Delete)
        {
            self.ok = false;
        }
        walk::walk_expression(self, it);
    }
}

/// Whether `f` is `__setModuleDefault`: its only writes are `o`'s `default`.
fn sets_default(f: &Expression<'_>, scoping: &Scoping) -> bool {
    let Some((params, statements)) = parts(f) else {
        return false;
    };
    let [Some(o), Some(_v)] = params.as_slice() else {
        return false;
    };
    let is_default = |e: &Expression<'_>| matches!(e.without_parentheses(), Expression::StringLiteral(s) if s.value == "default");
    statements.iter().all(|s| {
        let Statement::ExpressionStatement(s) = s else {
            return false;
        };
        match s.expression.without_parentheses() {
            Expression::CallExpression(c) => {
                is_object_member(scoping, &c.callee, "defineProperty")
                    && matches!(c.arguments.as_slice(), [target, key, Argument::ObjectExpression(d)]
                        if argument_symbol(scoping, target) == Some(*o)
                            && key.as_expression().is_some_and(is_default)
                            && d.properties.iter().all(|p| matches!(p,
                                ObjectPropertyKind::ObjectProperty(p) if !p.computed && matches!(p.value.without_parentheses(),
                                    Expression::Identifier(_) | Expression::BooleanLiteral(_) | Expression::UnaryExpression(_)))))
            }
            Expression::AssignmentExpression(a) => match &a.left {
                AssignmentTarget::ComputedMemberExpression(c) => {
                    symbol(scoping, &c.object) == Some(*o) && is_default(&c.expression)
                }
                AssignmentTarget::StaticMemberExpression(m) => {
                    symbol(scoping, &m.object) == Some(*o) && m.property.name == "default"
                }
                _ => false,
            },
            _ => false,
        }
    })
}

/// Whether `helper` is `__importStar` (see the module documentation).
fn imports_star(helper: &Expression<'_>, scoping: &Scoping, known: &TscHelpers) -> bool {
    // tsc 5: `(function () { var ownKeys = ...; return function (mod) {...}; })()`, which
    // terser writes `(ownKeys = function ..., function (mod) {...})`.
    let (outer, main, head) = match helper.without_parentheses() {
        Expression::CallExpression(c) if c.arguments.is_empty() => {
            let Some((_, statements)) = parts(&c.callee) else {
                return false;
            };
            let Some(Statement::ReturnStatement(r)) = statements.last() else {
                return false;
            };
            let Some(main) = r.argument.as_ref() else {
                return false;
            };
            (Some(helper), main, None)
        }
        Expression::SequenceExpression(q) => match q.expressions.as_slice() {
            [Expression::AssignmentExpression(a), main] if is_function(&a.right) => {
                let AssignmentTarget::AssignmentTargetIdentifier(i) = &a.left else {
                    return false;
                };
                (Some(helper), main, crate::refs::symbol_of(scoping, i))
            }
            _ => return false,
        },
        f => (None, f, None),
    };
    let Some((params, statements)) = parts(main) else {
        return false;
    };
    let [Some(module)] = params.as_slice() else {
        return false;
    };
    let mut check = Star::new(scoping, known, None, *module);
    // The object handed back: the one `return` of something other than `mod`.
    check.find_target(statements);
    let Some(target) = check.target else {
        return false;
    };
    if scoping
        .get_resolved_references(*module)
        .any(|r| r.is_write())
        || scoping
            .get_resolved_references(target)
            .any(|r| r.is_write())
    {
        return false;
    }
    // tsc 5's outer part holds the inner function: visited once.
    match outer {
        Some(outer) => check.visit_expression(outer),
        None => statements.iter().for_each(|s| check.visit_statement(s)),
    }
    // Every use of the object is one the check allowed.
    check.ok
        && check.target_uses == scoping.get_resolved_reference_ids(target).len()
        && check.locals_ok(helper.span(), head)
}

/// The value of `e`: the last expression of a sequence.
pub(super) fn last_of_sequence<'b, 'a>(e: &'b Expression<'a>) -> &'b Expression<'a> {
    match e.without_parentheses() {
        Expression::SequenceExpression(q) => q.expressions.last().map_or(e, last_of_sequence),
        e => e,
    }
}

/// A function expression or arrow.
fn is_function(e: &Expression<'_>) -> bool {
    matches!(
        e.without_parentheses(),
        Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_)
    )
}

/// A value a helper's own function variable may take: a function, or tsc's
/// `Object.getOwnPropertyNames || function ...`.
fn function_value(scoping: &Scoping, e: &Expression<'_>) -> bool {
    match e.without_parentheses() {
        Expression::LogicalExpression(l) => {
            is_object_member(scoping, &l.left, "getOwnPropertyNames") && is_function(&l.right)
        }
        e => is_function(e),
    }
}

/// Whether `helper` is `__exportStar(m, exports)` (see the module documentation).
fn exports_star(helper: &Expression<'_>, scoping: &Scoping, known: &TscHelpers) -> bool {
    let Some((params, statements)) = parts(helper) else {
        return false;
    };
    let [Some(source), Some(target)] = params.as_slice() else {
        return false;
    };
    if scoping
        .get_resolved_references(*target)
        .any(|r| r.is_write())
    {
        return false;
    }
    let mut check = Star::new(scoping, known, Some(*target), *source);
    for s in statements {
        check.visit_statement(s);
    }
    check.ok
        && check.target_uses == scoping.get_resolved_reference_ids(*target).len()
        && check.locals_ok(helper.span(), None)
}

/// What `__importStar` and `__exportStar` may do: call the known helpers with the target
/// first (and the source second), `Object.prototype.hasOwnProperty.call`, and functions of
/// their own; write only arrays of their own.
struct Star<'s> {
    scoping: &'s Scoping,
    known: &'s TscHelpers,
    /// The object written: `__importStar`'s `{}`, `__exportStar`'s second parameter.
    target: Option<SymbolId>,
    source: SymbolId,
    /// Local variables holding an array the helper made (`var ar = []`).
    arrays: FxHashSet<SymbolId>,
    /// Uses of the target the check allowed.
    target_uses: usize,
    /// Variables called as the helper's own functions.
    calls: Vec<SymbolId>,
    /// Writes of variables seen in the helper, and those given anything but a function.
    writes: FxHashMap<SymbolId, usize>,
    not_functions: FxHashSet<SymbolId>,
    ok: bool,
}

impl<'s> Star<'s> {
    fn new(
        scoping: &'s Scoping,
        known: &'s TscHelpers,
        target: Option<SymbolId>,
        source: SymbolId,
    ) -> Self {
        Star {
            scoping,
            known,
            target,
            source,
            arrays: FxHashSet::default(),
            target_uses: 0,
            calls: Vec::new(),
            writes: FxHashMap::default(),
            not_functions: FxHashSet::default(),
            ok: true,
        }
    }

    /// Whether every variable the helper calls holds one of its own functions whenever
    /// called: given only functions, every write of it inside the helper (at `span`), and
    /// declared there too, or `head`, which the helper sets before handing on anything that
    /// could call it.
    fn locals_ok(&self, span: oxc_span::Span, head: Option<SymbolId>) -> bool {
        self.calls.iter().all(|&s| {
            let writes = self
                .scoping
                .get_resolved_references(s)
                .filter(|r| r.is_write())
                .count();
            let declared = self.scoping.symbol_span(s);
            !self.not_functions.contains(&s)
                && self.writes.get(&s).copied().unwrap_or(0) == writes
                && (Some(s) == head || (span.start <= declared.start && declared.end <= span.end))
        })
    }

    /// The object `__importStar`'s function (`statements`) hands back besides `mod`: every
    /// `return` of it (outside inner functions) gives `mod` or one variable, declared there as
    /// `{}`.
    fn find_target(&mut self, statements: &[Statement<'_>]) {
        struct Returns<'s> {
            scoping: &'s Scoping,
            returned: Vec<Option<SymbolId>>,
            empty_objects: FxHashSet<SymbolId>,
        }
        impl<'a> Visit<'a> for Returns<'_> {
            fn visit_return_statement(&mut self, it: &oxc_ast::ast::ReturnStatement<'a>) {
                let s = it
                    .argument
                    .as_ref()
                    .and_then(|e| symbol(self.scoping, last_of_sequence(e)));
                self.returned.push(s);
            }
            fn visit_variable_declarator(&mut self, it: &oxc_ast::ast::VariableDeclarator<'a>) {
                if let (Some(s), Some(Expression::ObjectExpression(o))) = (
                    it.id
                        .get_binding_identifier()
                        .and_then(|b| b.symbol_id.get()),
                    it.init.as_ref().map(Expression::without_parentheses),
                ) && o.properties.is_empty()
                {
                    self.empty_objects.insert(s);
                }
            }
            fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: ScopeFlags) {}
            fn visit_arrow_function_expression(
                &mut self,
                _: &oxc_ast::ast::ArrowFunctionExpression<'a>,
            ) {
            }
        }
        let mut returns = Returns {
            scoping: self.scoping,
            returned: Vec::new(),
            empty_objects: FxHashSet::default(),
        };
        for s in statements {
            returns.visit_statement(s);
        }
        let mut target = None;
        for r in returns.returned {
            match r {
                Some(s) if s == self.source => {}
                Some(s) if returns.empty_objects.contains(&s) && target.is_none_or(|t| t == s) => {
                    target = Some(s);
                }
                _ => return,
            }
        }
        self.target = target;
    }

    fn is_target(&self, e: Option<&Expression<'_>>) -> bool {
        self.target.is_some() && e.and_then(|e| symbol(self.scoping, e)) == self.target
    }
}

impl<'a> Visit<'a> for Star<'_> {
    fn visit_variable_declarator(&mut self, it: &oxc_ast::ast::VariableDeclarator<'a>) {
        if let (Some(s), Some(Expression::ArrayExpression(a))) = (
            it.id
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get()),
            it.init.as_ref().map(Expression::without_parentheses),
        ) && a.elements.is_empty()
        {
            self.arrays.insert(s);
        }
        if let Some(s) = it
            .id
            .get_binding_identifier()
            .and_then(|b| b.symbol_id.get())
            && it
                .init
                .as_ref()
                .is_some_and(|i| !function_value(self.scoping, i))
        {
            self.not_functions.insert(s);
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let first = it.arguments.first().and_then(Argument::as_expression);
        let second = it.arguments.get(1).and_then(Argument::as_expression);
        let from_source = second.and_then(|e| symbol(self.scoping, e)) == Some(self.source);
        let helper = self
            .known
            .is(&self.known.create_binding, self.scoping, &it.callee)
            && it.arguments.len() == 3
            || self
                .known
                .is(&self.known.set_default, self.scoping, &it.callee)
                && it.arguments.len() == 2;
        let ok = if helper {
            self.is_target(first) && from_source
        } else if is_has_own_call(self.scoping, &it.callee) {
            !self.is_target(second)
        } else if is_function(&it.callee) {
            // tsc 5's outer function, called at once (its body is checked as part of it).
            it.arguments.is_empty()
        } else {
            // A function of the helper's own (tsc 5's `ownKeys`), checked as part of it.
            // `f(...)`, or terser's `(f = g)(...)` (the write is checked below).
            let callee = match it.callee.without_parentheses() {
                Expression::AssignmentExpression(a) => match &a.left {
                    AssignmentTarget::AssignmentTargetIdentifier(i) => {
                        crate::refs::symbol_of(self.scoping, i)
                    }
                    _ => None,
                },
                callee => symbol(self.scoping, callee),
            };
            self.calls.extend(callee);
            callee.is_some()
                && callee != Some(self.source)
                && callee != self.target
                && !it
                    .arguments
                    .iter()
                    .any(|a| self.is_target(a.as_expression()))
        };
        if ok && self.is_target(first) && (helper || is_has_own_call(self.scoping, &it.callee)) {
            self.target_uses += 1;
        }
        self.ok &= ok;
        walk::walk_call_expression(self, it);
    }

    fn visit_return_statement(&mut self, it: &oxc_ast::ast::ReturnStatement<'a>) {
        // `return f(result), result` (terser's) hands back the last.
        if self.is_target(it.argument.as_ref().map(last_of_sequence)) {
            self.target_uses += 1;
        }
        walk::walk_return_statement(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &oxc_ast::ast::AssignmentExpression<'a>) {
        let ok = match &it.left {
            AssignmentTarget::AssignmentTargetIdentifier(i) => {
                let s = crate::refs::symbol_of(self.scoping, i);
                if let Some(s) = s {
                    *self.writes.entry(s).or_default() += 1;
                    if !function_value(self.scoping, &it.right) {
                        self.not_functions.insert(s);
                    }
                }
                s.is_some() && s != Some(self.source) && s != self.target
            }
            AssignmentTarget::ComputedMemberExpression(c) => {
                symbol(self.scoping, &c.object).is_some_and(|s| self.arrays.contains(&s))
            }
            _ => false,
        };
        self.ok &= ok;
        walk::walk_assignment_expression(self, it);
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        let counter = |u: &oxc_ast::ast::UpdateExpression<'_>| {
            matches!(&u.argument, SimpleAssignmentTarget::AssignmentTargetIdentifier(i)
                if crate::refs::symbol_of(self.scoping, i)
                    .is_some_and(|s| s != self.source && Some(s) != self.target))
        };
        if matches!(
            it,
            Expression::NewExpression(_)
                | Expression::TaggedTemplateExpression(_)
                | Expression::AwaitExpression(_)
                | Expression::YieldExpression(_)
        ) || matches!(it, Expression::UpdateExpression(u) if !counter(u))
            || matches!(it, Expression::UnaryExpression(u) if u.operator == oxc_ast::ast::UnaryOperator::Delete)
        {
            self.ok = false;
        }
        walk::walk_expression(self, it);
    }
}

/// The names a module surely defines on its exports (symbol `exports`) before its first star
/// re-export (which starts at `first_star`): those its top-level statements before it define
/// whatever happens, each an expression statement of `exports.NAME = ...` (chains and
/// sequences of them) or `Object.defineProperty(exports, "NAME", ...)`. A definition under a
/// condition, in a loop or in a function may come after the star, which would have defined
/// the name for good.
pub(super) fn defined_before(
    body: &[Statement<'_>],
    scoping: &Scoping,
    exports: SymbolId,
    first_star: u32,
) -> FxHashSet<String> {
    let mut names = FxHashSet::default();
    for statement in body {
        if statement.span().end > first_star {
            break;
        }
        let Statement::ExpressionStatement(s) = statement else {
            continue;
        };
        let parts = match s.expression.without_parentheses() {
            Expression::SequenceExpression(q) => q.expressions.iter().collect(),
            e => vec![e],
        };
        for part in parts {
            defines(part, scoping, exports, &mut names);
        }
    }
    names
}

/// Adds what `expr`, evaluated whole, surely defines on `exports`.
fn defines(
    expr: &Expression<'_>,
    scoping: &Scoping,
    exports: SymbolId,
    names: &mut FxHashSet<String>,
) {
    match expr.without_parentheses() {
        Expression::AssignmentExpression(a) => {
            if let AssignmentTarget::StaticMemberExpression(m) = &a.left
                && symbol(scoping, &m.object) == Some(exports)
            {
                names.insert(m.property.name.to_string());
            }
            // `exports.a = exports.b = void 0`: the right side runs whole first.
            defines(&a.right, scoping, exports, names);
        }
        Expression::CallExpression(c) if is_object_member(scoping, &c.callee, "defineProperty") => {
            if let [target, Argument::StringLiteral(name), ..] = c.arguments.as_slice()
                && argument_symbol(scoping, target) == Some(exports)
            {
                names.insert(name.value.to_string());
            }
        }
        _ => {}
    }
}
