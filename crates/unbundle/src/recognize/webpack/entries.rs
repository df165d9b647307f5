//! The entries of a module table: which values of an object or array literal are module
//! functions (a function or arrow of at most three plain parameters), their ids, and the node
//! module an entry stands for when its whole body is `module.exports = require("NAME")`.

use oxc_ast::ast::{
    Argument, ArrayExpression, ArrayExpressionElement, AssignmentTarget, BindingPattern,
    Expression, FormalParameters, ObjectExpression, ObjectPropertyKind, PropertyKey, PropertyKind,
};
use oxc_span::{GetSpan, Span};

use crate::syntax::number_key;

/// One module function as the bundle has it.
#[derive(Debug, Clone)]
pub(crate) struct ModuleSource {
    /// The id as the runtime knows it: the object key, or the array index.
    pub(crate) id: String,
    /// The function's span in the file.
    pub(crate) span: Span,
    /// The code around the function is strict (a module file must say so itself).
    pub(crate) strict: bool,
    /// The node module it stands for, when its whole body is `module.exports =
    /// require("NAME")` (webpack's external modules: `fs`, `path`, ...).
    pub(crate) external: Option<String>,
    /// The function is a method (`7214(e, r, t) {...}`, as webpack 5 writes a table for
    /// newer targets): its span holds no `function` keyword.
    pub(crate) method: bool,
}

/// The modules of an object literal that is a module table, if it is one.
pub(super) fn object_modules(it: &ObjectExpression<'_>, strict: bool) -> Option<Vec<ModuleSource>> {
    if it.properties.is_empty() {
        return None;
    }
    let mut modules = Vec::with_capacity(it.properties.len());
    for property in &it.properties {
        let ObjectPropertyKind::ObjectProperty(p) = property else {
            return None;
        };
        // A method (`7214(e, r, t) {...}`) is a module function too.
        if p.computed || p.kind != PropertyKind::Init {
            return None;
        }
        let id = match &p.key {
            PropertyKey::NumericLiteral(n) => number_key(n.value)?,
            PropertyKey::StringLiteral(s) => s.value.to_string(),
            // webpack 4's hashed ids (`HashedModuleIdsPlugin`), which a minifier writes
            // unquoted when they are names: `{mBYv: function (e, t, n) {...}}`.
            PropertyKey::StaticIdentifier(name) => name.name.to_string(),
            _ => return None,
        };
        let span = module_function(&p.value)?;
        modules.push(ModuleSource {
            id,
            span,
            strict,
            external: external(&p.value),
            method: p.method,
        });
    }
    Some(modules)
}

/// The modules of an array literal that is a module table, if it is one.
pub(super) fn array_modules(it: &ArrayExpression<'_>, strict: bool) -> Option<Vec<ModuleSource>> {
    let mut modules = Vec::new();
    for (index, element) in it.elements.iter().enumerate() {
        match element {
            ArrayExpressionElement::Elision(_) => {}
            ArrayExpressionElement::SpreadElement(_) => return None,
            other => {
                let expr = other.as_expression()?;
                let span = module_function(expr)?;
                modules.push(ModuleSource {
                    id: index.to_string(),
                    span,
                    strict,
                    external: external(expr),
                    method: false,
                });
            }
        }
    }
    (!modules.is_empty()).then_some(modules)
}

/// The span of `expr` when it is a module function: a function or arrow function of at most
/// three parameters, each a plain name.
fn module_function(expr: &Expression<'_>) -> Option<Span> {
    // webpack's unminified output wraps each module function in parentheses.
    let expr = expr.without_parentheses();
    let params = match expr {
        Expression::FunctionExpression(f) if !f.generator && !f.r#async => &f.params,
        Expression::ArrowFunctionExpression(f) if !f.r#async => &f.params,
        _ => return None,
    };
    simple_params(params).then(|| expr.span())
}

/// The node module a module function stands for, when its whole body is
/// `module.exports = require("NAME")`: the name without `node:` and folders, as a variable name.
fn external(expr: &Expression<'_>) -> Option<String> {
    let (params, statements) = match expr.without_parentheses() {
        Expression::FunctionExpression(f) => (&f.params, &f.body.as_ref()?.statements),
        Expression::ArrowFunctionExpression(f) => (&f.params, &f.get_function_body()?.statements),
        _ => return None,
    };
    let module = params.items.first()?.pattern.get_binding_identifier()?;
    if params.items.iter().any(|p| {
        p.pattern
            .get_binding_identifier()
            .is_some_and(|b| b.name == "require")
    }) {
        return None;
    }
    let [oxc_ast::ast::Statement::ExpressionStatement(statement)] = statements.as_slice() else {
        return None;
    };
    let Expression::AssignmentExpression(assignment) = &statement.expression else {
        return None;
    };
    let AssignmentTarget::StaticMemberExpression(target) = &assignment.left else {
        return None;
    };
    if target.property.name != "exports"
        || !matches!(&target.object, Expression::Identifier(i) if i.name == module.name)
    {
        return None;
    }
    let Expression::CallExpression(call) = &assignment.right else {
        return None;
    };
    let (Expression::Identifier(callee), [Argument::StringLiteral(name)]) =
        (&call.callee, call.arguments.as_slice())
    else {
        return None;
    };
    if callee.name != "require" {
        return None;
    }
    let name = name.value.as_str();
    let name = name.strip_prefix("node:").unwrap_or(name);
    let last = name.rsplit('/').next()?;
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::syntax::is_identifier(&name).then_some(name)
}

/// Whether a function's parameters are at most three plain names, none with a default.
fn simple_params(params: &FormalParameters<'_>) -> bool {
    params.rest.is_none()
        && params.items.len() <= 3
        && params.items.iter().all(|p| {
            p.initializer.is_none() && matches!(p.pattern, BindingPattern::BindingIdentifier(_))
        })
}
