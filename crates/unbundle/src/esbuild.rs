//! Finds the CommonJS modules of an esbuild bundle by shape: esbuild wraps each CommonJS file
//! in a call of its `__commonJS` helper (minified to any name), a function of two parameters
//! that returns a function creating `{exports: {}}` on first call. The wrapped function
//! (`(exports, module) => {...}`, or a method keyed by the file's path when not minified) is
//! the module. Its wrapped ES modules are [`crate::esm`]'s; both are planned from one pass
//! over the bundle's uses of its top-level names ([`TopLevel`]).
//!
//! Unlike webpack's, these modules reach each other and esbuild's helpers through the bundle's
//! top-level variables (`var a = require_a();`), so each module records which top-level names
//! it uses; the loader passes their values in. A module that uses a top-level name that is
//! assigned anywhere cannot be moved out (an assignment would land on a copy, or the copy
//! would miss one) and stays in the bundle.

use oxc_ast::ast::{
    Argument, CallExpression, Expression, ObjectExpression, ObjectPropertyKind, Program,
    PropertyKey, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use rustc_hash::FxHashSet;

use crate::esm::{Moved, TopLevel};

/// One CommonJS module of an esbuild bundle.
#[derive(Debug, Clone)]
pub(crate) struct EsModule {
    /// The variable it is bound to (`require_foo`, or a minified name), else its position.
    pub(crate) id: String,
    /// The source path esbuild keyed it by, when the bundle is not minified.
    pub(crate) source_path: Option<String>,
    /// The module function's span in the file.
    pub(crate) span: Span,
    /// Top-level names of the bundle the module uses, in first-use order.
    pub(crate) outer: Vec<String>,
    /// The function is a method (`"path"(exports, module) {...}`): its span holds no
    /// `function` keyword.
    pub(crate) method: bool,
}

/// The esbuild modules of `program`, if it has any: its CommonJS modules, the spans of every
/// wrapped function (those that stay in the bundle too), in order, and what moving its
/// wrapped ES modules into files changes (see [`crate::esm`]).
pub(crate) fn find_modules(program: &Program<'_>, scoping: &Scoping, text: &str) -> Option<Found> {
    let helpers = commonjs_helpers(program);
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
    let esm_helpers = crate::esm::helpers(program);
    if found.is_empty() && esm_helpers.is_empty() {
        return None;
    }
    // One pass over the program finds every use of a top-level name, for both kinds of
    // module.
    let uses = TopLevel::collect(program, scoping);
    let bound: Vec<(Span, Option<SymbolId>)> = found
        .iter()
        .map(|f| (f.span, f.bound.as_ref().and_then(|b| b.1)))
        .collect();
    let moved = crate::esm::plan(program, scoping, text, &esm_helpers, &uses, &bound);
    let spans: Vec<Span> = found.iter().map(|f| f.span).collect();
    let mut modules = Vec::new();
    let mut stayed = Vec::new();
    for (n, f) in found.into_iter().enumerate() {
        let id = f
            .bound
            .as_ref()
            .map_or_else(|| format!("commonjs{n}"), |b| b.0.clone());
        match outer_names(scoping, &uses, &moved, f.span) {
            Some(outer) => modules.push(EsModule {
                id,
                source_path: f.source_path,
                span: f.span,
                outer,
                method: f.method,
            }),
            None => stayed.push(id),
        }
    }
    Some(Found {
        modules,
        spans,
        moved,
        stayed,
    })
}

/// What [`find_modules`] finds.
pub(crate) struct Found {
    /// The CommonJS modules that move into files.
    pub(crate) modules: Vec<EsModule>,
    /// The spans of every CommonJS module function, in order.
    pub(crate) spans: Vec<Span>,
    /// What moving the wrapped ES modules changes.
    pub(crate) moved: Moved,
    /// The CommonJS modules that stay in the bundle (they use an assigned top-level name).
    pub(crate) stayed: Vec<String>,
}

/// Top-level variables holding esbuild's `__commonJS` helper: `(cb, mod) => () => ...` whose
/// body creates `{exports: {}}`.
fn commonjs_helpers(program: &Program<'_>) -> FxHashSet<SymbolId> {
    two_parameter_functions(program)
        .filter(|(_, init, _)| creates_exports_object(init))
        .map(|(symbol, ..)| symbol)
        .collect()
}

/// The top-level variables bound to a function of two parameters, as esbuild's helpers are:
/// each variable, the function, and its first parameter's name.
pub(crate) fn two_parameter_functions<'p, 'a>(
    program: &'p Program<'a>,
) -> impl Iterator<Item = (SymbolId, &'p Expression<'a>, &'p str)> {
    program
        .body
        .iter()
        .filter_map(|statement| match statement {
            Statement::VariableDeclaration(d) => Some(d.declarations.iter()),
            _ => None,
        })
        .flatten()
        .filter_map(|declarator| {
            let symbol = declarator.id.get_binding_identifier()?.symbol_id.get()?;
            let init = declarator.init.as_ref()?;
            let params = match init {
                Expression::ArrowFunctionExpression(f) => &f.params,
                Expression::FunctionExpression(f) => &f.params,
                _ => return None,
            };
            let [first, _] = params.items.as_slice() else {
                return None;
            };
            let first = first.pattern.get_binding_identifier()?;
            Some((symbol, init, first.name.as_str()))
        })
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
struct Call {
    span: Span,
    /// The variable the call is bound to.
    bound: Option<(String, Option<SymbolId>)>,
    /// The source path, when given as a method key.
    source_path: Option<String>,
    method: bool,
}

/// Calls of a helper with a module function.
struct Calls<'s> {
    scoping: &'s Scoping,
    helpers: &'s FxHashSet<SymbolId>,
    found: Vec<Call>,
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
        if let Expression::Identifier(callee) = &it.callee
            && let Some(symbol) = crate::refs::symbol_of(self.scoping, callee)
            && self.helpers.contains(&symbol)
            && let [argument] = it.arguments.as_slice()
        {
            let bound = self.bound_to.take();
            match argument {
                Argument::ArrowFunctionExpression(f) if f.params.items.len() <= 2 => {
                    self.found.push(Call {
                        span: f.span,
                        bound,
                        source_path: None,
                        method: false,
                    });
                }
                Argument::FunctionExpression(f) if f.params.items.len() <= 2 => {
                    self.found.push(Call {
                        span: f.span,
                        bound,
                        source_path: None,
                        method: false,
                    });
                }
                // `__commonJS({"node_modules/ms/index.js"(exports, module) {...}})`
                Argument::ObjectExpression(o) => {
                    if let [ObjectPropertyKind::ObjectProperty(p)] = o.properties.as_slice()
                        && let Expression::FunctionExpression(f) = &p.value
                        && f.params.items.len() <= 2
                    {
                        let path = match &p.key {
                            PropertyKey::StringLiteral(s) => Some(s.value.to_string()),
                            _ => None,
                        };
                        self.found.push(Call {
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

/// The bundle's top-level names the module function at `span` uses, in first-use order (a
/// name moved into an ES module's file is used through that module's namespace object), or
/// `None` when one of them is assigned anywhere (in the module, or by code esbuild hoisted out
/// of an ES module, such as an `__esm` initializer): it cannot be passed in as a value.
fn outer_names(
    scoping: &Scoping,
    uses: &TopLevel,
    moved: &Moved,
    span: Span,
) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut seen: FxHashSet<SymbolId> = FxHashSet::default();
    for u in uses.within(span) {
        if !seen.insert(u.symbol) {
            continue;
        }
        if !moved.is_member(u.symbol) && uses.written(u.symbol) {
            return None;
        }
        let name = moved
            .name_of(u.symbol)
            .unwrap_or_else(|| scoping.symbol_name(u.symbol));
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Some(names)
}
