//! The first pass's first reading of a module: the variables bound once to another module
//! (through `require`, or tsc's and swc's interop helpers) and the module's own functions, with
//! whether each uses `this`, by which `facts/` and the rewrite judge calls.

use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, AssignmentExpression, AssignmentOperator, AssignmentTarget,
    Expression, Function, ObjectExpression, ObjectPropertyKind, PropertyKey, Statement,
    VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::{FxHashMap, FxHashSet};

use super::tsc::last_of_sequence;
use crate::refs::{self, Wrapper};

/// The properties every object inherits from `Object.prototype` (unless made otherwise).
const OBJECT_PROTOTYPE: [&str; 12] = [
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// Whether the module function (the program's one expression) is an arrow function.
pub(super) fn is_arrow_module(program: &oxc_ast::ast::Program<'_>) -> bool {
    matches!(program.body.first(), Some(Statement::ExpressionStatement(s))
        if matches!(s.expression.without_parentheses(), Expression::ArrowFunctionExpression(_)))
}

/// Variables bound once to another module, and the module's function declarations.
pub(super) struct Bindings<'s> {
    pub(super) scoping: &'s Scoping,
    pub(super) wrapper: Wrapper,
    /// Variable → the id of the module it holds (or, through tsc's `__importDefault`, that
    /// module or an object whose `default` holds it; see `interop.rs`).
    pub(super) bound: FxHashMap<SymbolId, String>,
    /// The variables of `bound` bound through an interop helper (`__importDefault(require(ID))`
    /// or `__importStar(...)`): their `default` is the module's, or the exports object itself.
    pub(super) wrapped: FxHashSet<SymbolId>,
    /// The variables of `wrapped` bound through the bundle's `__toESM`.
    to_esm: FxHashSet<SymbolId>,
    /// Variables declared without a value, and those bound by their one assignment.
    uninitialized: FxHashSet<SymbolId>,
    assigned_once: Vec<SymbolId>,
    /// Variables a `for-in` or `for-of` head declares (and assigns).
    loop_heads: FxHashSet<SymbolId>,
    /// swc's `_export` helpers the module declares (see `swc.rs`).
    pub(super) exporters: FxHashSet<SymbolId>,
    /// tsc's `__importDefault` helpers declared at the module's top.
    interop: FxHashSet<SymbolId>,
    /// Where the module's leading helper declarators start (see `interop.rs`).
    leading: FxHashSet<u32>,
    /// tsc's `__createBinding`, `__importStar`, ... helpers (see `tsc.rs`).
    pub(super) tsc: super::tsc::TscHelpers,
    /// The module function is an arrow.
    arrow: bool,
    /// Function declarations of the module's scope never assigned → whether they use `this`.
    pub(super) functions: FxHashMap<SymbolId, bool>,
    /// Variables of the module's scope holding a function from their declaration on, never
    /// assigned (`const f = () => ...`) → whether it uses `this`. Not hoisted: before the
    /// declaration runs they hold nothing callable, and a call throws with or without a
    /// receiver.
    pub(super) values: FxHashMap<SymbolId, bool>,
    /// Babel's lazy-require functions of the module's scope (see `lazy.rs`) → the variable
    /// each keeps its module in, itself in `bound`: `F()` is that module's exports.
    pub(super) lazy: FxHashMap<SymbolId, SymbolId>,
    depth: usize,
}

impl<'s> Bindings<'s> {
    pub(super) fn of(
        program: &oxc_ast::ast::Program<'_>,
        scoping: &'s Scoping,
        wrapper: Wrapper,
    ) -> Self {
        let mut bindings = Bindings {
            scoping,
            wrapper,
            bound: FxHashMap::default(),
            wrapped: FxHashSet::default(),
            to_esm: FxHashSet::default(),
            uninitialized: FxHashSet::default(),
            assigned_once: Vec::new(),
            loop_heads: FxHashSet::default(),
            exporters: super::swc::exporters(program, scoping, wrapper),
            interop: FxHashSet::default(),
            leading: super::interop::leading_helpers(program, scoping, wrapper),
            tsc: super::tsc::TscHelpers::default(),
            arrow: is_arrow_module(program),
            functions: FxHashMap::default(),
            values: FxHashMap::default(),
            lazy: FxHashMap::default(),
            depth: 0,
        };
        bindings
            .interop
            .extend(super::interop::declared_helpers(program, scoping, wrapper));
        bindings.visit_program(program);
        // Until its one assignment, a variable declared without a value holds `undefined`,
        // whose properties cannot be read (a call throws either way).
        for symbol in std::mem::take(&mut bindings.assigned_once) {
            if !bindings.uninitialized.contains(&symbol) || bindings.loop_heads.contains(&symbol) {
                bindings.bound.remove(&symbol);
                bindings.wrapped.remove(&symbol);
                bindings.to_esm.remove(&symbol);
            }
        }
        let bound = &bindings.bound;
        bindings.lazy.retain(|_, data| bound.contains_key(data));
        bindings
    }
}

impl Bindings<'_> {
    /// Whether `callee` is one of the module's `__importDefault` helpers, or the bundle's
    /// `__toESM` (a name from outside the module).
    fn is_interop(&self, callee: &Expression<'_>) -> bool {
        matches!(callee, Expression::Identifier(h)
            if refs::symbol_of(self.scoping, h).is_some_and(|s| self.interop.contains(&s)))
            || self.is_to_esm(callee)
    }

    /// Whether `callee` is the bundle's `__toESM`, read from outside the module.
    fn is_to_esm(&self, callee: &Expression<'_>) -> bool {
        matches!(callee, Expression::Identifier(h)
            if self.wrapper.reads_bundle_name(self.scoping, h)
                && self.wrapper.to_esm.is_some_and(|t| t.is(&h.name)))
    }

    /// Binds `symbol` to the module `value` requires: `require(ID)`, or
    /// `__importDefault(require(ID))` (or `__toESM(require_x())`); the last of a sequence
    /// (`(require(A), require(B))`), the value the variable takes.
    fn bind(&mut self, symbol: SymbolId, value: &Expression<'_>) {
        let mut wrapped = false;
        let call = match last_of_sequence(value) {
            Expression::CallExpression(call) => match call.arguments.as_slice() {
                [Argument::CallExpression(inner)] if self.is_interop(&call.callee) => {
                    wrapped = true;
                    &**inner
                }
                // `__toESM(require_x(), 1)`: node's mode, `default` the module itself.
                [Argument::CallExpression(inner), Argument::NumericLiteral(_)]
                    if self.is_to_esm(&call.callee) =>
                {
                    wrapped = true;
                    &**inner
                }
                _ => &**call,
            },
            _ => return,
        };
        let to_esm = matches!(last_of_sequence(value),
            Expression::CallExpression(call) if self.is_to_esm(&call.callee));
        if let Expression::Identifier(callee) = &call.callee
            && let Some(id) =
                crate::name::module_id(self.scoping, self.wrapper, callee, &call.arguments)
        {
            self.bound.insert(symbol, id);
            if wrapped {
                self.wrapped.insert(symbol);
            }
            if to_esm {
                self.to_esm.insert(symbol);
            }
        }
    }

    /// Notes the variables a loop's head declares: it assigns them on every turn.
    fn loop_head(&mut self, left: &oxc_ast::ast::ForStatementLeft<'_>) {
        if let oxc_ast::ast::ForStatementLeft::VariableDeclaration(d) = left {
            for declarator in &d.declarations {
                for binding in declarator.id.get_binding_identifiers() {
                    self.loop_heads.extend(binding.symbol_id.get());
                }
            }
        }
    }

    /// The variable bound to a module that `expr` stands for: `x` itself, or for a call
    /// `F()` of a lazy-require function, the variable `F` keeps its module in.
    pub(super) fn receiver(&self, expr: &Expression<'_>) -> Option<SymbolId> {
        super::lazy::receiver(self.scoping, &self.lazy, expr)
    }

    /// The key of a call of `x.name`, `x` bound to module `id`: `(id, name)`, or for the
    /// `default` of an interop helper's wrapper, `(id, WRAPPED_DEFAULT)`.
    pub(super) fn key(&self, symbol: SymbolId, id: &str, name: &str) -> (String, String) {
        let name = if name == "default" && self.wrapped.contains(&symbol) {
            super::WRAPPED_DEFAULT
        } else if self.to_esm.contains(&symbol) && OBJECT_PROTOTYPE.contains(&name) {
            // `__toESM`'s object inherits from the module's exports' prototype: a name it
            // did not copy may be `Object.prototype`'s, which reads its receiver.
            "inherited through __toESM"
        } else {
            name
        };
        (id.to_owned(), name.to_owned())
    }
}

/// [`Bindings::key`] for a variable bound through `__toESM` (`to_esm`) or to the module itself.
pub(super) fn key_of(to_esm: bool, id: &str, name: &str) -> (String, String) {
    let name = if to_esm && name == "default" {
        super::WRAPPED_DEFAULT
    } else if to_esm && OBJECT_PROTOTYPE.contains(&name) {
        "inherited through __toESM"
    } else {
        name
    };
    (id.to_owned(), name.to_owned())
}

impl<'a> Visit<'a> for Bindings<'_> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if self.depth == 1
            && let Some(helper) = super::interop::helper_value(
                it,
                self.scoping,
                (
                    self.wrapper,
                    self.arrow,
                    self.leading.contains(&it.span.start),
                ),
            )
            && let Some(symbol) = it
                .id
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get())
        {
            if super::interop::hands_on_the_module(helper) {
                self.interop.insert(symbol);
            } else {
                self.tsc.note(symbol, helper, (self.scoping, self.wrapper));
                if self.tsc.import_star.contains(&symbol) {
                    self.interop.insert(symbol);
                }
            }
        }
        if let (Some(binding), Some(init)) = (it.id.get_binding_identifier(), &it.init)
            && let Some(symbol) = binding.symbol_id.get()
            && !self
                .scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
        {
            self.bind(symbol, init);
        }
        if it.init.is_none()
            && let Some(symbol) = it
                .id
                .get_binding_identifier()
                .and_then(|b| b.symbol_id.get())
        {
            self.uninitialized.insert(symbol);
        }
        if self.depth == 1
            && let Some(binding) = it.id.get_binding_identifier()
            && let Some(symbol) = binding.symbol_id.get()
            && self.scoping.symbol_scope_id(symbol) == self.wrapper.scope
            && !self
                .scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
            && self.scoping.symbol_redeclarations(symbol).is_empty()
        {
            let uses_this = match it.init.as_ref().map(Expression::without_parentheses) {
                Some(Expression::ArrowFunctionExpression(_)) => Some(false),
                Some(Expression::FunctionExpression(f)) => Some(refs::function_uses_this(f)),
                _ => None,
            };
            if let Some(uses_this) = uses_this {
                self.values.insert(symbol, uses_this);
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    /// `x = __toESM(require_x())` (esbuild's ES module initializer, `x` declared alone
    /// before): bound when it is `x`'s one write (checked once all is read).
    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if it.operator == AssignmentOperator::Assign
            && let AssignmentTarget::AssignmentTargetIdentifier(target) = &it.left
            && let Some(symbol) = refs::symbol_of(self.scoping, target)
            && self.scoping.symbol_scope_id(symbol) == self.wrapper.scope
            && self.scoping.symbol_redeclarations(symbol).is_empty()
            && self
                .scoping
                .get_resolved_references(symbol)
                .filter(|r| r.is_write())
                .count()
                == 1
        {
            self.bind(symbol, &it.right);
            if self.bound.contains_key(&symbol) {
                self.assigned_once.push(symbol);
            }
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_for_in_statement(&mut self, it: &oxc_ast::ast::ForInStatement<'a>) {
        self.loop_head(&it.left);
        walk::walk_for_in_statement(self, it);
    }

    fn visit_for_of_statement(&mut self, it: &oxc_ast::ast::ForOfStatement<'a>) {
        self.loop_head(&it.left);
        walk::walk_for_of_statement(self, it);
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
            self.functions.insert(symbol, refs::function_uses_this(it));
        }
        if self.depth == 1
            && it.is_declaration()
            && let Some((function, data)) = super::lazy::of(it, self.scoping)
            && self.scoping.symbol_scope_id(function) == self.wrapper.scope
        {
            self.lazy.insert(function, data);
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

/// The getters of a `require.d` object: each name, and its getter.
pub(super) fn getters<'o, 'a>(
    o: &'o ObjectExpression<'a>,
) -> impl Iterator<Item = (&'o str, &'o Expression<'a>)> {
    o.properties.iter().filter_map(|p| {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            return None;
        };
        let name = match &p.key {
            PropertyKey::StaticIdentifier(k) => k.name.as_str(),
            PropertyKey::StringLiteral(s) => s.value.as_str(),
            _ => return None,
        };
        Some((name, &p.value))
    })
}
