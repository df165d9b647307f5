//! Finds esbuild's wrapped ES modules by shape: the `__esm` helper (minified to any name), the
//! variables bound to its calls (`var init_a = __esm(...)`), and, before each, the run of
//! top-level units esbuild hoisted out of the module: its namespace object (`var a_exports =
//! {}`), the call defining that object's getters (`__export(a_exports, {f: () => f})`), and
//! the module's function declarations and bare `var` declarators.

use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, Expression, Function, FunctionBody, ObjectPropertyKind,
    Program, PropertyKey, Statement,
};
use oxc_ast_visit::Visit;
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::{GetSpan, Span};
use rustc_hash::FxHashSet;

use crate::recognize::esbuild::Helpers;
use crate::split::units::{Node, Unit};

/// A call of the `__esm` helper bound to a top-level variable.
#[derive(Debug, Clone)]
pub(crate) struct Wrapped {
    /// The unit (declarator) binding it.
    pub(crate) unit: usize,
    /// The variable: `init_a`.
    pub(crate) init: SymbolId,
    /// The module function: replaced by the loader's.
    pub(crate) function: Span,
    /// A method (`"path"() {...}`): its span holds no `function` keyword.
    pub(crate) method: bool,
    pub(crate) source_path: Option<String>,
    /// The body's directives and statements, or the arrow's expression.
    pub(crate) directives: Vec<Span>,
    pub(crate) statements: Option<Span>,
    pub(crate) expression: bool,
    /// The function uses `this` or `arguments` of its own.
    pub(crate) uses_own_this: bool,
    /// The function is `async` (Bun's `__esm(async () => {...})`, a module with top-level
    /// `await`): its file's body is run as an async function's.
    pub(crate) asynchronous: bool,
}

/// What esbuild hoisted out of one wrapped module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hoisted {
    /// The namespace object's variable and its declarator's unit.
    pub(crate) namespace: Option<(SymbolId, usize)>,
    /// The `__export(namespace, {...})` unit, and its getters: (key, local).
    pub(crate) export_call: Option<usize>,
    pub(crate) getters: Vec<(String, SymbolId)>,
    /// Units of function declarations and bare `var` declarators, and what they declare.
    pub(crate) members: Vec<(usize, SymbolId)>,
    /// What comes before those units is a variable with a value (another module's wrapper,
    /// one of esbuild's helpers) or nothing: no code of a neighbour's ends right there.
    pub(crate) after_declaration: bool,
}

/// Top-level variables holding esbuild's `__esm` helper: a function of two parameters whose
/// body assigns `0` to the first (`fn = 0`, so that the module function runs once).
pub(crate) fn helpers(program: &Program<'_>) -> FxHashSet<SymbolId> {
    crate::recognize::esbuild::two_parameter_functions(&program.body)
        .filter(|(_, init, first)| crate::recognize::esbuild::assigns_zero(init, first))
        .map(|(symbol, ..)| symbol)
        .collect()
}

/// The calls of `helpers` bound to a variable, among `units`.
pub(crate) fn wrapped(
    units: &[Unit<'_, '_>],
    scoping: &Scoping,
    helpers: &Helpers,
) -> Vec<Wrapped> {
    let mut out = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        let Node::Declarator(declarator, _) = &unit.node else {
            continue;
        };
        let (Some(id), Some(Expression::CallExpression(call))) =
            (declarator.id.get_binding_identifier(), &declarator.init)
        else {
            continue;
        };
        let Some(init) = id.symbol_id.get() else {
            continue;
        };
        let Some([argument]) = helpers.arguments_of(scoping, call) else {
            continue;
        };
        // rolldown's `__esmMin(((() => {...})))` puts the function in parentheses.
        let Some(argument) = argument.as_expression().map(|e| e.without_parentheses()) else {
            continue;
        };
        let found = match argument {
            Expression::ArrowFunctionExpression(f) => arrow(f),
            Expression::FunctionExpression(f) => function(f, false),
            // `__esm({"src/a.js"() {...}})`
            Expression::ObjectExpression(o) => match o.properties.as_slice() {
                [ObjectPropertyKind::ObjectProperty(p)] => match (&p.key, &p.value) {
                    (PropertyKey::StringLiteral(key), Expression::FunctionExpression(f)) => {
                        function(f, p.method).map(|mut w| {
                            w.source_path = Some(key.value.to_string());
                            w
                        })
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        if let Some(mut w) = found {
            w.unit = i;
            w.init = init;
            out.push(w);
        }
    }
    out
}

fn arrow(f: &ArrowFunctionExpression<'_>) -> Option<Wrapped> {
    if !f.params.items.is_empty() || f.params.rest.is_some() {
        return None;
    }
    match &f.body {
        oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) => Some(Wrapped {
            asynchronous: f.r#async,
            ..from_body(f.span, false, body)
        }),
        body => {
            // `() => expr`: the expression is the body.
            let expression = body.as_expression()?;
            Some(Wrapped {
                unit: 0,
                init: SymbolId::new(0),
                function: f.span,
                method: false,
                source_path: None,
                directives: Vec::new(),
                statements: Some(expression.span()),
                expression: true,
                uses_own_this: crate::refs::uses_own_this(true, |t| t.visit_expression(expression)),
                asynchronous: f.r#async,
            })
        }
    }
}

fn function(f: &Function<'_>, method: bool) -> Option<Wrapped> {
    if !f.params.items.is_empty() || f.params.rest.is_some() || f.generator {
        return None;
    }
    Some(Wrapped {
        asynchronous: f.r#async,
        ..from_body(f.span, method, f.body.as_ref()?)
    })
}

fn from_body(span: Span, method: bool, body: &FunctionBody<'_>) -> Wrapped {
    let statements = match (body.statements.first(), body.statements.last()) {
        (Some(first), Some(last)) => Some(Span::new(first.span().start, last.span().end)),
        _ => None,
    };
    Wrapped {
        unit: 0,
        init: SymbolId::new(0),
        function: span,
        method,
        source_path: None,
        directives: body.directives.iter().map(|d| d.span).collect(),
        statements,
        expression: false,
        uses_own_this: crate::refs::uses_own_this(true, |t| t.visit_function_body(body)),
        asynchronous: false,
    }
}

/// What esbuild hoisted out of the module bound at unit `w.unit`: the units just before it
/// that are function declarations, bare `var` declarators, the namespace object (`var x = {}`,
/// when the getters call names it or the module's initializer guards a use of it) and the
/// getters call. `guarded(symbol)`: some use of `symbol` follows a call of this module's
/// initializer in a sequence (`(init_a(), a_exports)`).
pub(crate) fn hoisted(
    units: &[Unit<'_, '_>],
    scoping: &Scoping,
    w: &Wrapped,
    guarded: &dyn Fn(SymbolId) -> bool,
) -> Hoisted {
    let mut out = Hoisted::default();
    for i in (0..w.unit).rev() {
        match &units[i].node {
            Node::Statement(Statement::FunctionDeclaration(f)) => {
                match f.id.as_ref().and_then(|id| id.symbol_id.get()) {
                    Some(symbol) => out.members.push((i, symbol)),
                    None => break,
                }
            }
            Node::Declarator(d, "var") => {
                let Some(symbol) =
                    d.id.get_binding_identifier()
                        .and_then(|b| b.symbol_id.get())
                else {
                    break;
                };
                match &d.init {
                    None => out.members.push((i, symbol)),
                    Some(Expression::ObjectExpression(o))
                        if o.properties.is_empty()
                            && out.namespace.is_none()
                            && (out.export_call.is_some() || guarded(symbol)) =>
                    {
                        out.namespace = Some((symbol, i));
                        // Nothing of the module comes before its namespace object.
                        break;
                    }
                    _ => break,
                }
            }
            Node::Statement(Statement::ExpressionStatement(s)) if out.export_call.is_none() => {
                match export_call(scoping, &s.expression) {
                    Some((_, getters)) => {
                        out.export_call = Some(i);
                        out.getters = getters;
                    }
                    None => break,
                }
            }
            Node::Element(e) if out.export_call.is_none() => match export_call(scoping, e) {
                Some((_, getters)) => {
                    out.export_call = Some(i);
                    out.getters = getters;
                }
                None => break,
            },
            _ => break,
        }
    }
    // The getters call must name the namespace object found before it.
    if let Some(call) = out.export_call {
        let names_it = match &units[call].node {
            Node::Statement(Statement::ExpressionStatement(s)) => {
                export_call(scoping, &s.expression).map(|(n, _)| n)
            }
            Node::Element(e) => export_call(scoping, e).map(|(n, _)| n),
            _ => None,
        };
        if out.namespace.map(|(n, _)| n) != names_it {
            return Hoisted::default();
        }
    }
    out.members.reverse();
    let first = out
        .members
        .iter()
        .map(|(u, _)| *u)
        .chain(out.export_call)
        .chain(out.namespace.map(|(_, u)| u))
        .min()
        .unwrap_or(w.unit);
    out.after_declaration = first
        .checked_sub(1)
        .is_none_or(|i| matches!(&units[i].node, Node::Declarator(d, _) if d.init.is_some()));
    out
}

/// `__export(ns, {key: () => local, ...})`: the namespace and the getters.
fn export_call(
    scoping: &Scoping,
    expr: &Expression<'_>,
) -> Option<(SymbolId, Vec<(String, SymbolId)>)> {
    let Expression::CallExpression(call) = expr.without_parentheses() else {
        return None;
    };
    crate::refs::expression_symbol(scoping, &call.callee)?;
    let [
        Argument::Identifier(namespace),
        Argument::ObjectExpression(object),
    ] = call.arguments.as_slice()
    else {
        return None;
    };
    let namespace = crate::refs::symbol_of(scoping, namespace)?;
    let mut getters = Vec::new();
    for property in &object.properties {
        let ObjectPropertyKind::ObjectProperty(p) = property else {
            return None;
        };
        let key = match &p.key {
            PropertyKey::StaticIdentifier(k) => k.name.to_string(),
            PropertyKey::StringLiteral(k) => k.value.to_string(),
            _ => return None,
        };
        let Expression::ArrowFunctionExpression(getter) = &p.value else {
            return None;
        };
        if !getter.params.items.is_empty() {
            return None;
        }
        let local = crate::refs::expression_symbol(scoping, getter.get_expression()?)?;
        getters.push((key, local));
    }
    Some((namespace, getters))
}
