//! A module that replaces its exports with one function that does not use `this`
//! (`module.exports = function (a) {...}`, as most small npm packages and ramda's modules
//! do), for the `calls` rule of an interop helper's `default`.
//!
//! Through `y = __importDefault(require(ID))` (or `__importStar`) the helper hands back the
//! module's exports when they carry a truthy `__esModule`, else a wrapper whose `default`
//! is the exports. `(0, y.default)(a)` → `y.default(a)` gives the callee `y` as `this`, which
//! cannot matter when, whenever the call reads `y.default`, it is either that function (no
//! `this`), or the exports object before the replacement ran (a module required again while
//! it runs, in a cycle: a plain object, so the call throws either way). That holds when:
//!
//! - `module.exports = F` is a statement of the module's own body (not under a condition, in a
//!   loop or in a function: it runs once, when the module runs), and the module's only use of
//!   `module`; F is an arrow, a function expression without `this` (its own name, if any,
//!   unused), or a function declaration or a `const`/`let`/`var` given one, never assigned,
//!   without `this`, whose name is used elsewhere only to call it (a variable read before its
//!   declaration ran holds nothing callable: the same throw);
//! - the module never names `exports` and its body has no `this` of its own (webpack's
//!   `this` is the first exports object), so nothing gives that object an `__esModule`;
//!   `module.exports.NAME = G` sets properties of F that are neither `__esModule` nor
//!   `default` (G an arrow or a function as F: it cannot hand F on), or `default` to F itself;
//!   no function of the module reads `arguments` but `arguments.length` and `arguments[N]`
//!   (a sloppy function's `arguments.callee` is itself), or passes them on as `f.apply(this,
//!   arguments)` (ramda's `_curry1`; `Function.prototype.apply` reads only their length and
//!   elements, and where the rule relies on it `f` is a function expression it was given);
//! - no module hands the function on where code could give it an `__esModule` and a
//!   `default` that uses `this`: the module's exports do not escape (in `plan`), and no module
//!   reads a wrapper's `default` but to call it.

use oxc_ast::ast::{
    Argument, AssignmentOperator, AssignmentTarget, CallExpression, Expression,
    IdentifierReference, Program, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};

use super::bindings::Bindings;
use crate::refs::{self, Wrapper};

/// Whether the module replaces its exports as the module documentation says.
pub(super) fn by_receiver_free(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    bindings: &Bindings<'_>,
) -> bool {
    let Some((value, function, defaults)) = replaced(program, scoping, wrapper) else {
        return false;
    };
    match (value.without_parentheses(), function) {
        (Expression::Identifier(_), Some(symbol)) => {
            (bindings.functions.get(&symbol) == Some(&false)
                || bindings.values.get(&symbol) == Some(&false))
                && only_called(program, scoping, symbol, 1 + defaults)
        }
        (other, _) => hands_nothing_on(other, scoping),
    }
}

/// The module's replacement of its exports, when it has the shape the module documentation
/// says (one unconditional `module.exports = VALUE`, properties that hand nothing on, no
/// `exports`, no `this`, `arguments` only read): VALUE, the symbol it names, and how many
/// `module.exports.default = F` the module has.
fn replaced<'b, 'a>(
    program: &'b Program<'a>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Option<(&'b Expression<'a>, Option<SymbolId>, usize)> {
    let module = wrapper.module?;
    let value = super::interop::module_body(program)
        .iter()
        .find_map(|s| replacement(s, scoping, module))?;
    let function = match value.without_parentheses() {
        Expression::Identifier(i) => refs::symbol_of(scoping, i),
        _ => None,
    };
    let mut properties = Properties {
        scoping,
        module,
        function,
        set: 0,
        defaults: 0,
    };
    properties.visit_program(program);
    let clean = scoping.get_resolved_reference_ids(module).len() == 1 + properties.set
        && wrapper
            .exports
            .is_none_or(|e| scoping.get_resolved_reference_ids(e).is_empty())
        && !module_uses_this(program)
        && arguments_only_read(program);
    clean.then_some((value, function, properties.defaults))
}

/// The module another module's exports are replaced by a call of, as ramda writes its
/// functions: `var pick = curry2(function (names, obj) {...}); module.exports = pick;` with
/// `curry2` bound once to `require(ID)`, `pick` never assigned and otherwise only called,
/// the module otherwise of the shape [`by_receiver_free`] asks. The replacement is whatever
/// module ID's exports return when called: a function that ignores its receiver when module
/// ID is a [`factory`] (checked in `plan`), else the call throws (module ID's exports object
/// before it replaced it is not callable).
pub(super) fn by_call_of(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    bindings: &Bindings<'_>,
) -> Option<CallOf> {
    let (value, Some(symbol), defaults) = replaced(program, scoping, wrapper)? else {
        return None;
    };
    if !matches!(value.without_parentheses(), Expression::Identifier(_))
        || scoping
            .get_resolved_references(symbol)
            .any(|r| r.is_write())
        || !only_called(program, scoping, symbol, 1 + defaults)
    {
        return None;
    }
    let init = super::interop::module_body(program)
        .iter()
        .find_map(|s| match s {
            Statement::VariableDeclaration(d) => d.declarations.iter().find_map(|d| {
                let id = d.id.get_binding_identifier()?;
                (id.symbol_id.get() == Some(symbol)).then_some(d.init.as_ref())
            }),
            _ => None,
        })??;
    let Expression::CallExpression(call) = init.without_parentheses() else {
        return None;
    };
    let Expression::Identifier(callee) = call.callee.without_parentheses() else {
        return None;
    };
    let factory = refs::symbol_of(scoping, callee)?;
    if bindings.wrapped.contains(&factory) {
        return None;
    }
    let argument_free = match call.arguments.first().and_then(|a| a.as_expression()) {
        Some(Expression::ArrowFunctionExpression(_)) => true,
        Some(Expression::FunctionExpression(f)) => !refs::function_uses_this(f),
        _ => false,
    };
    Some(CallOf {
        factory: bindings.bound.get(&factory)?.clone(),
        argument_free,
    })
}

/// The replacement of [`by_call_of`]: what a call of module `factory`'s exports returns.
#[derive(Debug, Clone)]
pub(crate) struct CallOf {
    /// The module whose exports are called.
    pub(crate) factory: String,
    /// The call's first argument is an arrow or a function expression without `this`.
    pub(crate) argument_free: bool,
}

/// What every call of a [`factory`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Factory {
    /// A function that ignores its receiver (or nothing callable): ramda's `_curry2`.
    Fresh,
    /// Such a function, or one that uses its `this` only to pass it on to the function the
    /// factory was given (its first parameter: `fn.apply(this, arguments)`, ramda's
    /// `_curry1`). A call of it with or without a receiver then differs only in the `this`
    /// that function gets, so not at all when that function ignores its receiver (an arrow
    /// or a function without `this`, which `CallOf::argument_free` says).
    Forwarding,
}

/// Whether the module replaces its exports (with the shape [`by_receiver_free`] asks) with a
/// function F, neither async nor a generator, every `return` of which (outside its inner
/// functions) gives an arrow (whose `this` is F's call's, never a later caller's), a function
/// expression without `this` or direct `eval`, or nothing: whatever a call of F returns then
/// ignores its receiver, or is not callable (a later call throws either way). F is a function
/// expression, or a function declaration never assigned (ramda's `_curry2` and `_curry3`):
/// [`Factory::Fresh`]. [`Factory::Forwarding`] when some `return` gives instead a function
/// expression that uses `this` only as [`forwards_this`] says (ramda's `_curry1`).
pub(super) fn factory(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
) -> Option<Factory> {
    let (value, function, _) = replaced(program, scoping, wrapper)?;
    let f = match (value.without_parentheses(), function) {
        (Expression::FunctionExpression(f), _) => Some(&**f),
        (Expression::Identifier(_), Some(symbol))
            if !scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write()) =>
        {
            super::interop::module_body(program)
                .iter()
                .find_map(|s| match s {
                    Statement::FunctionDeclaration(f)
                        if f.id.as_ref().and_then(|i| i.symbol_id.get()) == Some(symbol) =>
                    {
                        Some(&**f)
                    }
                    _ => None,
                })
        }
        _ => None,
    };
    let f = f?;
    if f.r#async || f.generator {
        return None;
    }
    let body = f.body.as_ref()?;
    // The function it was given, when the factory's first parameter is a plain name.
    let given = f.params.items.first().and_then(|p| match &p.pattern {
        oxc_ast::ast::BindingPattern::BindingIdentifier(id) => id.symbol_id.get(),
        _ => None,
    });
    let mut returns = Returns {
        scoping,
        given,
        fresh: true,
        forwarding: false,
    };
    returns.visit_function_body(body);
    match (returns.fresh, returns.forwarding) {
        (false, _) => None,
        (true, false) => Some(Factory::Fresh),
        (true, true) => Some(Factory::Forwarding),
    }
}

/// Whether every `return` met (not entering inner functions) gives nothing, an arrow or a
/// function expression without `this` (`fresh`), or else one that [`forwards_this`] to
/// `given` (`forwarding`).
struct Returns<'s> {
    scoping: &'s Scoping,
    given: Option<SymbolId>,
    fresh: bool,
    forwarding: bool,
}

impl<'a> Visit<'a> for Returns<'_> {
    fn visit_return_statement(&mut self, it: &oxc_ast::ast::ReturnStatement<'a>) {
        let fresh = match it.argument.as_ref().map(Expression::without_parentheses) {
            None | Some(Expression::ArrowFunctionExpression(_)) => true,
            Some(Expression::FunctionExpression(f)) if !refs::function_uses_this(f) => true,
            Some(Expression::FunctionExpression(f)) => {
                let forwards = self
                    .given
                    .is_some_and(|given| forwards_this(f, self.scoping, given));
                self.forwarding |= forwards;
                forwards
            }
            Some(_) => false,
        };
        self.fresh &= fresh;
        walk::walk_return_statement(self, it);
    }

    fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: oxc_syntax::scope::ScopeFlags) {
    }

    fn visit_arrow_function_expression(&mut self, _: &oxc_ast::ast::ArrowFunctionExpression<'a>) {}
}

/// Whether the function expression `f` uses its own `this` only to pass it on to `given`
/// (`given.apply(this, arguments)`, `given.call(this, a)`), and `given` (never assigned) is
/// used only in `f`, only called or so (nothing can hand it on or change its `apply`): then
/// `f` called with or without a receiver differs only in the `this` `given` gets. No class
/// and no direct `eval` in `f` (either could read `this` unseen).
fn forwards_this(f: &oxc_ast::ast::Function<'_>, scoping: &Scoping, given: SymbolId) -> bool {
    let Some(body) = &f.body else {
        return false;
    };
    if scoping.get_resolved_references(given).any(|r| r.is_write()) {
        return false;
    }
    let mut forwards = Forwards {
        scoping,
        given,
        depth: 0,
        this: 0,
        forwarded: 0,
        calls: 0,
        unseen: false,
    };
    forwards.visit_formal_parameters(&f.params);
    forwards.visit_function_body(body);
    !forwards.unseen
        && forwards.this == forwards.forwarded
        && forwards.calls == scoping.get_resolved_reference_ids(given).len()
}

/// Counts, in a function (not entering inner functions for `this`), its own `this`, the
/// `this` passed on as `given.apply(this, ...)` or `given.call(this, ...)`, and (entering
/// them) the references of `given` that call it so or directly.
struct Forwards<'s> {
    scoping: &'s Scoping,
    given: SymbolId,
    /// Inner functions (not arrows) entered.
    depth: usize,
    this: usize,
    forwarded: usize,
    calls: usize,
    /// A class or a direct `eval`.
    unseen: bool,
}

impl<'a> Visit<'a> for Forwards<'_> {
    fn visit_this_expression(&mut self, _: &oxc_ast::ast::ThisExpression) {
        self.this += usize::from(self.depth == 0);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        match it.callee.without_parentheses() {
            Expression::Identifier(i)
                if i.name == "eval" && refs::symbol_of(self.scoping, i).is_none() =>
            {
                self.unseen = true;
            }
            Expression::Identifier(i) if refs::symbol_of(self.scoping, i) == Some(self.given) => {
                self.calls += 1;
            }
            Expression::StaticMemberExpression(m)
                if matches!(m.property.name.as_str(), "apply" | "call")
                    && refs::expression_symbol(self.scoping, &m.object) == Some(self.given) =>
            {
                self.calls += 1;
                let this = matches!(
                    it.arguments.first(),
                    Some(oxc_ast::ast::Argument::ThisExpression(_))
                );
                self.forwarded += usize::from(this && self.depth == 0);
            }
            _ => {}
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_function(
        &mut self,
        it: &oxc_ast::ast::Function<'a>,
        flags: oxc_syntax::scope::ScopeFlags,
    ) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }

    fn visit_class(&mut self, _: &oxc_ast::ast::Class<'a>) {
        self.unseen = true;
    }
}

/// Whether `value` is an arrow, or a function expression without `this` whose own name (if
/// any) is unused: a function that cannot hand on the function it is a property of.
fn hands_nothing_on(value: &Expression<'_>, scoping: &Scoping) -> bool {
    match value.without_parentheses() {
        Expression::ArrowFunctionExpression(_) => true,
        Expression::FunctionExpression(f) => {
            !refs::function_uses_this(f)
                && f.id
                    .as_ref()
                    .and_then(|id| id.symbol_id.get())
                    .is_none_or(|s| scoping.get_resolved_reference_ids(s).is_empty())
        }
        _ => false,
    }
}

/// Counts `module.exports.NAME = VALUE` (NAME neither `__esModule` nor `default`, VALUE
/// [`hands_nothing_on`]), and `module.exports.default = F` with F the function's own name:
/// properties that give the function no mark and no `default` but itself.
struct Properties<'s> {
    scoping: &'s Scoping,
    module: SymbolId,
    /// The function's name, when the replacement names it.
    function: Option<SymbolId>,
    set: usize,
    /// How many of `set` are `module.exports.default = F`.
    defaults: usize,
}

impl<'a> Visit<'a> for Properties<'_> {
    fn visit_assignment_expression(&mut self, it: &oxc_ast::ast::AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && it.operator == AssignmentOperator::Assign
            && let Expression::StaticMemberExpression(inner) = &m.object
            && inner.property.name == "exports"
            && refs::expression_symbol(self.scoping, &inner.object) == Some(self.module)
        {
            let itself = self.function.is_some()
                && refs::expression_symbol(self.scoping, &it.right) == self.function;
            match m.property.name.as_str() {
                "default" if itself => {
                    self.set += 1;
                    self.defaults += 1;
                }
                "__esModule" | "default" => {}
                _ if hands_nothing_on(&it.right, self.scoping) => self.set += 1,
                _ => {}
            }
        }
        walk::walk_assignment_expression(self, it);
    }
}

/// The value of `module.exports = VALUE;`, when `statement` is that.
fn replacement<'b, 'a>(
    statement: &'b Statement<'a>,
    scoping: &Scoping,
    module: SymbolId,
) -> Option<&'b Expression<'a>> {
    let Statement::ExpressionStatement(s) = statement else {
        return None;
    };
    let Expression::AssignmentExpression(a) = &s.expression else {
        return None;
    };
    match &a.left {
        AssignmentTarget::StaticMemberExpression(m)
            if a.operator == AssignmentOperator::Assign
                && m.property.name == "exports"
                && refs::expression_symbol(scoping, &m.object) == Some(module) =>
        {
            Some(&a.right)
        }
        _ => None,
    }
}

/// Whether the module function (not an arrow) has a `this` of its own.
fn module_uses_this(program: &Program<'_>) -> bool {
    match program.body.first() {
        Some(Statement::ExpressionStatement(s)) => match s.expression.without_parentheses() {
            Expression::FunctionExpression(f) => refs::function_uses_this(f),
            _ => false,
        },
        _ => true,
    }
}

/// Whether every `arguments` of the module is `arguments.length` or `arguments[N]`: no
/// function hands itself on as `arguments.callee` (sloppy functions have it).
fn arguments_only_read(program: &Program<'_>) -> bool {
    let mut arguments = Arguments { all: 0, read: 0 };
    arguments.visit_program(program);
    arguments.all == arguments.read
}

struct Arguments {
    all: usize,
    read: usize,
}

fn is_arguments(e: &Expression<'_>) -> bool {
    matches!(e, Expression::Identifier(i) if i.name == "arguments")
}

impl<'a> Visit<'a> for Arguments {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        self.all += usize::from(it.name == "arguments");
    }

    fn visit_static_member_expression(&mut self, it: &oxc_ast::ast::StaticMemberExpression<'a>) {
        self.read += usize::from(is_arguments(&it.object) && it.property.name == "length");
        walk::walk_static_member_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::StaticMemberExpression(m) = it.callee.without_parentheses()
            && m.property.name == "apply"
            && matches!(m.object, Expression::Identifier(_))
            && let [Argument::ThisExpression(_), Argument::Identifier(i)] = it.arguments.as_slice()
        {
            self.read += usize::from(i.name == "arguments");
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_computed_member_expression(
        &mut self,
        it: &oxc_ast::ast::ComputedMemberExpression<'a>,
    ) {
        self.read += usize::from(
            is_arguments(&it.object) && matches!(it.expression, Expression::NumericLiteral(_)),
        );
        walk::walk_computed_member_expression(self, it);
    }
}

/// Whether every reference of `symbol` but `others` (the replacement's, and its own
/// `default`'s) calls it: `f(...)`.
fn only_called(program: &Program<'_>, scoping: &Scoping, symbol: SymbolId, others: usize) -> bool {
    let mut callees = Callees {
        scoping,
        symbol,
        called: 0,
    };
    callees.visit_program(program);
    callees.called + others == scoping.get_resolved_reference_ids(symbol).len()
}

struct Callees<'s> {
    scoping: &'s Scoping,
    symbol: SymbolId,
    called: usize,
}

impl<'a> Visit<'a> for Callees<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(i) = &it.callee
            && self.is(i)
        {
            self.called += 1;
        }
        walk::walk_call_expression(self, it);
    }
}

impl Callees<'_> {
    fn is(&self, i: &IdentifierReference<'_>) -> bool {
        refs::symbol_of(self.scoping, i) == Some(self.symbol)
    }
}
