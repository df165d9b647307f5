//! esbuild's `__toCommonJS` helper, recognized by its shape (a minifier renames it): a
//! top-level `var` never assigned again, bound to an arrow of one parameter whose body is
//! `C(D({}, "__esModule", { value: true }), m)`, with `D` a top-level alias of
//! `Object.defineProperty` and `C` a top-level function of four parameters (esbuild's
//! `__copyProps`), both never assigned again. Bun's form (a cache of the objects it made) is
//! not this shape and keeps its calls.
//!
//! Also esbuild's `__name` helper (see [`is_namer`]).

use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, BindingPattern, Expression, ObjectPropertyKind, Program,
    Statement, UnaryOperator,
};
use oxc_semantic::Scoping;
use rustc_hash::FxHashMap;

/// What a top-level name was declared as.
pub(super) enum Value<'p, 'a> {
    Init(&'p Expression<'a>),
    /// `var { defineProperty: d } = Object`
    ObjectMember(String),
}

/// The top-level values [`top_values`] reads, by name.
pub(super) type Values<'p, 'a> = FxHashMap<String, Value<'p, 'a>>;

/// The top-level `var`s never assigned again, with what each was declared as.
pub(super) fn top_values<'p, 'a>(
    program: &'p Program<'a>,
    scoping: &Scoping,
) -> FxHashMap<String, Value<'p, 'a>> {
    let mut out = FxHashMap::default();
    let never_assigned = |b: &oxc_ast::ast::BindingIdentifier<'_>| {
        b.symbol_id.get().is_some_and(|s| {
            scoping.symbol_scope_id(s) == scoping.root_scope_id()
                && scoping.get_resolved_references(s).all(|r| !r.is_write())
        })
    };
    for statement in &program.body {
        let Statement::VariableDeclaration(d) = statement else {
            continue;
        };
        for declarator in &d.declarations {
            let Some(init) = &declarator.init else {
                continue;
            };
            match &declarator.id {
                BindingPattern::BindingIdentifier(b) if never_assigned(b) => {
                    out.insert(b.name.to_string(), Value::Init(init));
                }
                BindingPattern::ObjectPattern(pattern) if matches!(init.without_parentheses(), Expression::Identifier(o) if o.name == "Object") => {
                    for property in &pattern.properties {
                        if let (Some(key), BindingPattern::BindingIdentifier(b)) =
                            (property.key.static_name(), &property.value)
                            && never_assigned(b)
                        {
                            out.insert(b.name.to_string(), Value::ObjectMember(key.to_string()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

pub(super) fn is_to_common_js(
    f: &ArrowFunctionExpression<'_>,
    values: &FxHashMap<String, Value<'_, '_>>,
) -> bool {
    let [param] = &f.params.items[..] else {
        return false;
    };
    let Some(param) = param.pattern.get_binding_identifier() else {
        return false;
    };
    if f.params.rest.is_some() {
        return false;
    }
    let Some(body) = f.body.as_expression() else {
        return false;
    };
    let Expression::CallExpression(copy) = body.without_parentheses() else {
        return false;
    };
    let (Expression::Identifier(c), [Argument::CallExpression(define), Argument::Identifier(m)]) =
        (&copy.callee, &copy.arguments[..])
    else {
        return false;
    };
    if m.name != param.name || !is_copy_props(values.get(c.name.as_str())) {
        return false;
    }
    let (
        Expression::Identifier(d),
        [
            Argument::ObjectExpression(empty),
            Argument::StringLiteral(mark),
            Argument::ObjectExpression(descriptor),
        ],
    ) = (&define.callee, &define.arguments[..])
    else {
        return false;
    };
    empty.properties.is_empty()
        && mark.value == "__esModule"
        && is_value_true(descriptor)
        && is_define_property(values.get(d.name.as_str()))
}

/// esbuild's `__name` helper: an arrow of two plain parameters `(t, v)` whose body is only
/// `D(t, "name", {value: v, ...})`, `D` a top-level alias of `Object.defineProperty` (never
/// assigned again) and the descriptor's other properties plain values (no getter, no spread,
/// no computed key). `Object.defineProperty` hands back its first argument, so a call
/// `namer(f, "s")` is `f` with its `name` set (or throws).
pub(super) fn is_namer(
    f: &ArrowFunctionExpression<'_>,
    values: &FxHashMap<String, Value<'_, '_>>,
) -> bool {
    let [t, v] = &f.params.items[..] else {
        return false;
    };
    let (Some(t), Some(v)) = (
        t.pattern.get_binding_identifier(),
        v.pattern.get_binding_identifier(),
    ) else {
        return false;
    };
    let Some(Expression::CallExpression(define)) =
        f.get_expression().map(|e| e.without_parentheses())
    else {
        return false;
    };
    let (
        Expression::Identifier(d),
        [
            Argument::Identifier(target),
            Argument::StringLiteral(key),
            Argument::ObjectExpression(descriptor),
        ],
    ) = (&define.callee, &define.arguments[..])
    else {
        return false;
    };
    let plain = |e: &Expression<'_>| {
        matches!(
            e.without_parentheses(),
            Expression::BooleanLiteral(_)
                | Expression::NumericLiteral(_)
                | Expression::StringLiteral(_)
                | Expression::Identifier(_)
        ) || matches!(e.without_parentheses(), Expression::UnaryExpression(u)
                if u.operator == UnaryOperator::LogicalNot && u.argument.is_number_literal())
    };
    let mut value = false;
    let properties_ok = descriptor.properties.iter().all(|p| match p {
        ObjectPropertyKind::ObjectProperty(p) if !p.computed && !p.method => {
            match p.key.static_name().as_deref() {
                Some("value") => {
                    value = matches!(p.value.without_parentheses(), Expression::Identifier(i) if i.name == v.name);
                    value
                }
                Some("get" | "set") => false,
                Some(_) => plain(&p.value),
                None => false,
            }
        }
        _ => false,
    });
    f.params.rest.is_none()
        && t.name != v.name
        && target.name == t.name
        && key.value == "name"
        && properties_ok
        && value
        && is_define_property(values.get(d.name.as_str()))
}

/// `{ value: true }` (or `!0`).
fn is_value_true(o: &oxc_ast::ast::ObjectExpression<'_>) -> bool {
    let [ObjectPropertyKind::ObjectProperty(p)] = &o.properties[..] else {
        return false;
    };
    p.key.static_name().is_some_and(|k| k == "value")
        && !p.computed
        && match p.value.without_parentheses() {
            Expression::BooleanLiteral(b) => b.value,
            Expression::UnaryExpression(u) => {
                u.operator == UnaryOperator::LogicalNot
                    && matches!(&u.argument, Expression::NumericLiteral(n) if n.value == 0.0)
            }
            _ => false,
        }
}

/// `Object.defineProperty`, or a name destructured from `Object` under that key.
fn is_define_property(value: Option<&Value<'_, '_>>) -> bool {
    match value {
        Some(Value::ObjectMember(key)) => key == "defineProperty",
        Some(Value::Init(init)) => matches!(
            init.without_parentheses(),
            Expression::StaticMemberExpression(m)
                if m.property.name == "defineProperty"
                    && matches!(&m.object, Expression::Identifier(o) if o.name == "Object")
        ),
        None => false,
    }
}

/// A function of four plain parameters (esbuild's `__copyProps(to, from, except, desc)`).
fn is_copy_props(value: Option<&Value<'_, '_>>) -> bool {
    let Some(Value::Init(init)) = value else {
        return false;
    };
    let params = match init.without_parentheses() {
        Expression::ArrowFunctionExpression(f) => &f.params,
        Expression::FunctionExpression(f) => &f.params,
        _ => return false,
    };
    params.items.len() == 4 && params.rest.is_none()
}
