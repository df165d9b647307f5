//! Recognizes an esbuild bundle's CommonJS modules by shape: esbuild wraps each CommonJS file
//! in a call of its `__commonJS` helper (minified to any name), a function of two parameters
//! that returns a function creating `{exports: {}}` on first call. Bun's and rolldown's
//! helpers (`__commonJSMin`, its function in parentheses) have the same shape. The wrapped function
//! (`(exports, module) => {...}`, or a method keyed by the file's path when not minified) is
//! the module. What moves into files is planned in [`crate::split::esbuild`].

use oxc_ast::ast::{
    Argument, CallExpression, Expression, ObjectExpression, ObjectPropertyKind, Program,
    PropertyKey, Statement, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use oxc_syntax::operator::UnaryOperator;
use rustc_hash::FxHashSet;

/// Where a file finds one of esbuild's helpers: its own variables (defined in it, or imported
/// from another file of the set), and members of another file's namespace it required
/// (`const e = require("./index.cjs"); ... e.m(...)`, as rolldown's CommonJS chunks read
/// them).
#[derive(Debug, Default, Clone)]
pub(crate) struct Helpers {
    pub(crate) symbols: FxHashSet<SymbolId>,
    /// (the namespace's variable, the member).
    pub(crate) members: FxHashSet<(SymbolId, String)>,
}

impl Helpers {
    pub(crate) fn is_empty(&self) -> bool {
        self.symbols.is_empty() && self.members.is_empty()
    }

    /// Whether calling `callee` calls one of the helpers.
    pub(crate) fn called_by(&self, scoping: &Scoping, callee: &Expression<'_>) -> bool {
        match callee.without_parentheses() {
            Expression::StaticMemberExpression(m) => {
                !self.members.is_empty()
                    && crate::refs::expression_symbol(scoping, &m.object)
                        .is_some_and(|s| self.members.contains(&(s, m.property.name.to_string())))
            }
            other => crate::refs::expression_symbol(scoping, other)
                .is_some_and(|s| self.symbols.contains(&s)),
        }
    }
}

impl Helpers {
    /// The arguments the helper gets, when `call` calls one of the helpers: the call's own, or
    /// those after `void 0` in `H.call(void 0, ...)`, as sucrase rewrites the call of a helper
    /// imported from another chunk (tsup's code-split CommonJS chunks).
    pub(crate) fn arguments_of<'c, 'a>(
        &self,
        scoping: &Scoping,
        call: &'c CallExpression<'a>,
    ) -> Option<&'c [Argument<'a>]> {
        if self.called_by(scoping, &call.callee) {
            return Some(&call.arguments);
        }
        if let Expression::StaticMemberExpression(m) = call.callee.without_parentheses()
            && m.property.name == "call"
            && self.called_by(scoping, &m.object)
            && let Some((first, rest)) = call.arguments.split_first()
            && let Some(Expression::UnaryExpression(void)) = first.as_expression()
            && void.operator == UnaryOperator::Void
            && matches!(&void.argument, Expression::NumericLiteral(n) if n.value == 0.0)
        {
            return Some(rest);
        }
        None
    }
}

/// The module functions wrapped by esbuild's `__commonJS` helper in `program`, in order; the
/// helper is defined in `program` or among `imported` (a code-split chunk's).
pub(crate) fn commonjs_modules(
    program: &Program<'_>,
    scoping: &Scoping,
    imported: &Helpers,
) -> Vec<Wrapped> {
    let mut helpers = imported.clone();
    helpers.symbols.extend(commonjs_helpers(program));
    let mut finder = Calls {
        scoping,
        helpers: &helpers,
        found: Vec::new(),
        bound_to: None,
    };
    if !helpers.is_empty() {
        finder.visit_program(program);
    }
    let mut found = finder.found;
    found.sort_by_key(|f| f.span.start);
    found
}

/// Top-level variables holding esbuild's `__commonJS` helper: `(cb, mod) => () => ...` whose
/// body creates `{exports: {}}`.
pub(crate) fn commonjs_helpers(program: &Program<'_>) -> FxHashSet<SymbolId> {
    two_parameter_functions(&program.body)
        .filter(|(_, init, _)| creates_exports_object(init))
        .map(|(symbol, ..)| symbol)
        .collect()
}

/// The top-level variables bound to a function of two parameters (or three), as esbuild's
/// helpers are:
/// each variable, the function, and its first parameter's name.
pub(crate) fn two_parameter_functions<'p, 'a>(
    body: &'p [Statement<'a>],
) -> impl Iterator<Item = (SymbolId, &'p Expression<'a>, &'p str)> {
    helper_shaped(body).filter_map(|(declarator, init, first)| {
        let symbol = declarator.id.get_binding_identifier()?.symbol_id.get()?;
        Some((symbol, init, first))
    })
}

/// [`two_parameter_functions`] before scopes are known: each declarator, its function and
/// the function's first parameter's name.
fn helper_shaped<'p, 'a>(
    body: &'p [Statement<'a>],
) -> impl Iterator<Item = (&'p VariableDeclarator<'a>, &'p Expression<'a>, &'p str)> {
    let declarators = || {
        body.iter()
            .filter_map(|statement| match statement {
                Statement::VariableDeclaration(d) => Some(d.declarations.iter()),
                _ => None,
            })
            .flatten()
    };
    // esbuild's `__name` helper: with `--keep-names` it names the other helpers too,
    // `var __commonJS = __name((cb, mod) => ..., "__commonJS")`, handing back the function.
    let namers: FxHashSet<&str> = declarators()
        .filter(|d| d.init.as_ref().is_some_and(sets_name))
        .filter_map(|d| d.id.get_binding_identifier().map(|b| b.name.as_str()))
        .collect();
    declarators().filter_map(move |declarator| {
        let init = named_by(declarator.init.as_ref()?, &namers);
        let params = match init {
            Expression::ArrowFunctionExpression(f) => &f.params,
            Expression::FunctionExpression(f) => &f.params,
            _ => return None,
        };
        // Newer esbuild gives `__esm` a third parameter, the error its first run threw.
        let (Some(first), 2..=3) = (params.items.first(), params.items.len()) else {
            return None;
        };
        let first = first.pattern.get_binding_identifier()?;
        Some((declarator, init, first.name.as_str()))
    })
}

/// `init`, or the function a `__name(f, "name")` call around it hands back.
fn named_by<'p, 'a>(init: &'p Expression<'a>, namers: &FxHashSet<&str>) -> &'p Expression<'a> {
    if let Expression::CallExpression(call) = init
        && let Expression::Identifier(callee) = &call.callee
        && namers.contains(callee.name.as_str())
        && let [
            Argument::ArrowFunctionExpression(_) | Argument::FunctionExpression(_),
            Argument::StringLiteral(_),
        ] = call.arguments.as_slice()
        && let Some(function) = call.arguments[0].as_expression()
    {
        return function;
    }
    init
}

/// The top-level variable holding esbuild's `__name` helper, by name: `(target, value) =>
/// defineProperty(target, "name", {value, configurable: true})`, minified to any name.
pub(crate) fn name_helper(program: &Program<'_>, scoping: &Scoping) -> Option<String> {
    two_parameter_functions(&program.body)
        .find(|(_, init, _)| sets_name(init))
        .map(|(symbol, ..)| scoping.symbol_name(symbol).to_owned())
}

/// Whether `body` (a program's, or a function's that wraps a whole bundle) defines esbuild's
/// `__commonJS` or `__esm` helper.
pub(crate) fn defines_helpers(body: &[Statement<'_>]) -> bool {
    helper_shaped(body)
        .any(|(_, init, first)| creates_exports_object(init) || assigns_zero(init, first))
}

/// Whether `expr` is shaped as esbuild's `__name` helper.
pub(crate) fn names_functions(expr: &Expression<'_>) -> bool {
    sets_name(expr)
}

/// Whether `expr` is an arrow whose body is a call `f(x, "name", {value: ...})`.
fn sets_name(expr: &Expression<'_>) -> bool {
    let Expression::ArrowFunctionExpression(f) = expr else {
        return false;
    };
    let Some(Expression::CallExpression(call)) = f.get_expression() else {
        return false;
    };
    matches!(
        call.arguments.as_slice(),
        [_, Argument::StringLiteral(name), Argument::ObjectExpression(o)]
            if name.value == "name"
                && o.properties.iter().any(|p| matches!(
                    p,
                    ObjectPropertyKind::ObjectProperty(p)
                        if matches!(&p.key, PropertyKey::StaticIdentifier(k) if k.name == "value")
                ))
    )
}

/// Whether `expr` holds `NAME = 0`.
pub(crate) fn assigns_zero(expr: &Expression<'_>, name: &str) -> bool {
    struct Finds<'n>(&'n str, bool);
    impl<'a> Visit<'a> for Finds<'_> {
        fn visit_assignment_expression(&mut self, it: &oxc_ast::ast::AssignmentExpression<'a>) {
            if let oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(id) = &it.left
                && id.name == self.0
                && matches!(&it.right, Expression::NumericLiteral(n) if n.value == 0.0)
            {
                self.1 = true;
            }
            walk::walk_assignment_expression(self, it);
        }
    }
    let mut finds = Finds(name, false);
    finds.visit_expression(expr);
    finds.1
}

/// Whether `expr` holds the object literal `{exports: {}}`.
fn creates_exports_object(expr: &Expression<'_>) -> bool {
    struct Finds(bool);
    impl<'a> Visit<'a> for Finds {
        fn visit_object_expression(&mut self, it: &ObjectExpression<'a>) {
            if let [ObjectPropertyKind::ObjectProperty(p)] = it.properties.as_slice()
                && matches!(&p.key, PropertyKey::StaticIdentifier(k) if k.name == "exports")
                && matches!(&p.value, Expression::ObjectExpression(o) if o.properties.is_empty())
            {
                self.0 = true;
            }
            walk::walk_object_expression(self, it);
        }
    }
    let mut finds = Finds(false);
    finds.visit_expression(expr);
    finds.0
}

/// A call of the `__commonJS` helper with a module function.
pub(crate) struct Wrapped {
    /// The module function's span.
    pub(crate) span: Span,
    /// The variable the call is bound to.
    pub(crate) bound: Option<(String, Option<SymbolId>)>,
    /// The source path, when given as a method key.
    pub(crate) source_path: Option<String>,
    /// The function is a method (`"path"(exports, module) {...}`).
    pub(crate) method: bool,
}

/// Calls of a helper with a module function.
struct Calls<'s> {
    scoping: &'s Scoping,
    helpers: &'s Helpers,
    found: Vec<Wrapped>,
    /// The variable being declared, while its initializer is visited.
    bound_to: Option<(String, Option<SymbolId>)>,
}

impl<'a> Visit<'a> for Calls<'_> {
    fn visit_variable_declarator(&mut self, it: &oxc_ast::ast::VariableDeclarator<'a>) {
        let outer = self.bound_to.take();
        self.bound_to = it
            .id
            .get_binding_identifier()
            .map(|b| (b.name.to_string(), b.symbol_id.get()));
        walk::walk_variable_declarator(self, it);
        self.bound_to = outer;
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Some([argument]) = self.helpers.arguments_of(self.scoping, it) {
            let bound = self.bound_to.take();
            // rolldown's `__commonJSMin(((exports, module) => {...}))` puts the function in
            // parentheses.
            let Some(argument) = argument.as_expression().map(|e| e.without_parentheses()) else {
                walk::walk_call_expression(self, it);
                return;
            };
            match argument {
                Expression::ArrowFunctionExpression(f) if f.params.items.len() <= 2 => {
                    self.found.push(Wrapped {
                        span: f.span,
                        bound,
                        source_path: None,
                        method: false,
                    });
                }
                Expression::FunctionExpression(f) if f.params.items.len() <= 2 => {
                    self.found.push(Wrapped {
                        span: f.span,
                        bound,
                        source_path: None,
                        method: false,
                    });
                }
                // `__commonJS({"node_modules/ms/index.js"(exports, module) {...}})`
                Expression::ObjectExpression(o) => {
                    if let [ObjectPropertyKind::ObjectProperty(p)] = o.properties.as_slice()
                        && let Expression::FunctionExpression(f) = &p.value
                        && f.params.items.len() <= 2
                    {
                        let path = match &p.key {
                            PropertyKey::StringLiteral(s) => Some(s.value.to_string()),
                            _ => None,
                        };
                        self.found.push(Wrapped {
                            span: f.span,
                            bound,
                            source_path: path,
                            method: p.method,
                        });
                    }
                }
                _ => {}
            }
        }
        walk::walk_call_expression(self, it);
    }
}
