//! esbuild's `__toESM` helper, recognized by its shape (a minifier renames it and the helpers
//! it calls), so that the `calls` transform can see through `__toESM(require_x())`:
//!
//! ```js
//! var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {},
//!   __copyProps(isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target, mod));
//! var __copyProps = (to, from, except, desc) => {
//!   if (from && typeof from === "object" || typeof from === "function")
//!     for (let key of __getOwnPropNames(from))
//!       if (!__hasOwnProp.call(to, key) && key !== except)
//!         __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
//!   return to;
//! };
//! ```
//!
//! What is checked is what the rule needs: the result is a fresh object whose prototype is
//! `mod`'s, whose only own properties are `default` (holding `mod`, when the test says so; any
//! test) and, for each own name `k` of `mod` it lacks, a getter returning `mod[k]`. Every call
//! `__copyProps` makes is one of `Object.getOwnPropertyNames(from)`,
//! `Object.prototype.hasOwnProperty.call(to, k)`, `Object.getOwnPropertyDescriptor(from, k)`
//! and `Object.defineProperty(to, k, {get: () => from[k], ...})`, `k` the loop's own
//! variable; it assigns nothing but its fourth parameter and returns `to`. Each helper is a
//! top-level `var` never assigned again, and each alias of `Object`'s functions too.
//! Bun's form (a block body, a cache) is not this shape, and its calls keep their `0,`.

use oxc_ast::ast::{
    Argument, ArrowFunctionExpression, AssignmentExpression, AssignmentOperator, AssignmentTarget,
    BinaryOperator, CallExpression, Expression, ForOfStatement, Function, ObjectPropertyKind,
    Statement, VariableDeclaration,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::ScopeFlags;
use rustc_hash::FxHashMap;

use super::shape::{Value, Values};

/// The plain names of `f`'s parameters, when it has exactly `n` and no rest.
fn params<'f>(params: &'f oxc_ast::ast::FormalParameters<'_>, n: usize) -> Option<Vec<&'f str>> {
    if params.rest.is_some() || params.items.len() != n {
        return None;
    }
    params
        .items
        .iter()
        .map(|p| p.pattern.get_binding_identifier().map(|b| b.name.as_str()))
        .collect()
}

pub(super) fn is_to_esm(f: &ArrowFunctionExpression<'_>, values: &Values<'_, '_>) -> bool {
    let Some([m, _, t]) = params(&f.params, 3).as_deref().map(|p| [p[0], p[1], p[2]]) else {
        return false;
    };
    let Some(Expression::SequenceExpression(s)) =
        f.get_expression().map(|e| e.without_parentheses())
    else {
        return false;
    };
    let [
        Expression::AssignmentExpression(target),
        Expression::CallExpression(copy),
    ] = s.expressions.as_slice()
    else {
        return false;
    };
    fresh_target(target, (m, t), values) && copies(copy, (m, t), values)
}

/// `t = m != null ? create(getPrototypeOf(m)) : {}`.
fn fresh_target(
    a: &AssignmentExpression<'_>,
    (m, t): (&str, &str),
    values: &Values<'_, '_>,
) -> bool {
    let AssignmentTarget::AssignmentTargetIdentifier(target) = &a.left else {
        return false;
    };
    let Expression::ConditionalExpression(c) = a.right.without_parentheses() else {
        return false;
    };
    let test = matches!(c.test.without_parentheses(), Expression::BinaryExpression(b)
        if b.operator == BinaryOperator::Inequality
            && is_name(&b.left, m)
            && matches!(b.right, Expression::NullLiteral(_)));
    let made = matches!(c.consequent.without_parentheses(), Expression::CallExpression(create)
        if object_function(values, &create.callee, "create")
            && matches!(create.arguments.as_slice(), [Argument::CallExpression(proto)]
                if object_function(values, &proto.callee, "getPrototypeOf")
                    && matches!(proto.arguments.as_slice(), [a] if a.as_expression().is_some_and(|e| is_name(e, m)))));
    let empty = matches!(c.alternate.without_parentheses(), Expression::ObjectExpression(o) if o.properties.is_empty());
    a.operator == AssignmentOperator::Assign && target.name == t && test && made && empty
}

/// `copyProps(TEST ? defineProperty(t, "default", { value: m, ... }) : t, m)`, TEST calling
/// and assigning nothing.
fn copies(call: &CallExpression<'_>, (m, t): (&str, &str), values: &Values<'_, '_>) -> bool {
    let Expression::Identifier(helper) = &call.callee else {
        return false;
    };
    let [Argument::ConditionalExpression(c), from] = call.arguments.as_slice() else {
        return false;
    };
    let default = matches!(c.consequent.without_parentheses(), Expression::CallExpression(d)
        if object_function(values, &d.callee, "defineProperty")
            && matches!(d.arguments.as_slice(), [Argument::Identifier(to), Argument::StringLiteral(key), Argument::ObjectExpression(o)]
                if to.name == t && key.value == "default" && o.properties.iter().any(|p| matches!(p,
                    ObjectPropertyKind::ObjectProperty(p) if !p.computed
                        && p.key.static_name().is_some_and(|k| k == "value")
                        && is_name(&p.value, m)))));
    from.as_expression().is_some_and(|e| is_name(e, m))
        && is_name(&c.alternate, t)
        && inert(&c.test)
        && default
        && matches!(values.get(helper.name.as_str()), Some(Value::Init(init)) if is_copy_props(init, values))
}

/// Whether evaluating `expr` calls and assigns nothing (property reads aside).
fn inert(expr: &Expression<'_>) -> bool {
    let mut check = CopyProps {
        values: &FxHashMap::default(),
        names: None,
        key: None,
        ok: true,
    };
    check.visit_expression(expr);
    check.ok
}

fn is_copy_props(init: &Expression<'_>, values: &Values<'_, '_>) -> bool {
    // esbuild writes it as an arrow with a block body, minified or not.
    let Expression::ArrowFunctionExpression(f) = init.without_parentheses() else {
        return false;
    };
    let (names, body) = match &f.body {
        oxc_ast::ast::ArrowFunctionBody::FunctionBody(body) if !f.is_expression() => {
            (params(&f.params, 4), body)
        }
        _ => return false,
    };
    let Some(names) = names else {
        return false;
    };
    let mut check = CopyProps {
        values,
        names: Some([names[0], names[1], names[3]]),
        key: None,
        ok: true,
    };
    check.visit_function_body(body);
    check.ok && check.key.is_some()
}

/// Walks `__copyProps`'s body, or an expression that must do nothing: `ok` falls at anything
/// not in the shape (see the module documentation).
struct CopyProps<'v, 'p, 'a, 'n> {
    values: &'v Values<'p, 'a>,
    /// `to`, `from` and `desc`; `None`: nothing may be called or assigned.
    names: Option<[&'n str; 3]>,
    /// The for-of loop's variable.
    key: Option<String>,
    ok: bool,
}

impl CopyProps<'_, '_, '_, '_> {
    fn allowed(&self, call: &CallExpression<'_>) -> bool {
        let (Some([to, from, _]), Some(key)) = (self.names, self.key.as_deref()) else {
            return false;
        };
        let args: Vec<Option<&Expression<'_>>> =
            call.arguments.iter().map(Argument::as_expression).collect();
        let is = |e: Option<&Expression<'_>>, name: &str| e.is_some_and(|e| is_name(e, name));
        if let Expression::StaticMemberExpression(m) = &call.callee {
            // `hasOwnProperty.call(to, key)`
            return m.property.name == "call"
                && matches!(&m.object, Expression::Identifier(h) if has_own_property(self.values.get(h.name.as_str())))
                && matches!(args.as_slice(), [a, b] if is(*a, to) && is(*b, key));
        }
        match args.as_slice() {
            [a] => {
                object_function(self.values, &call.callee, "getOwnPropertyNames") && is(*a, from)
            }
            [a, b] => {
                object_function(self.values, &call.callee, "getOwnPropertyDescriptor")
                    && is(*a, from)
                    && is(*b, key)
            }
            [a, b, Some(Expression::ObjectExpression(o))] => {
                object_function(self.values, &call.callee, "defineProperty")
                    && is(*a, to)
                    && is(*b, key)
                    && o.properties.iter().any(|p| {
                        matches!(p,
                        ObjectPropertyKind::ObjectProperty(p) if !p.computed
                            && p.key.static_name().is_some_and(|k| k == "get")
                            && getter_of(&p.value, from, key))
                    })
                    && o.properties.iter().all(|p| {
                        matches!(p,
                        ObjectPropertyKind::ObjectProperty(p) if !p.computed
                            && p.key.static_name().is_some_and(|k| k == "get" || k == "enumerable"))
                    })
            }
            _ => false,
        }
    }
}

/// `() => from[key]`.
fn getter_of(expr: &Expression<'_>, from: &str, key: &str) -> bool {
    matches!(expr.without_parentheses(), Expression::ArrowFunctionExpression(f) if f_is_getter(f, from, key))
}

impl<'a> Visit<'a> for CopyProps<'_, '_, 'a, '_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if !self.allowed(it) {
            self.ok = false;
        }
        walk::walk_call_expression(self, it);
    }
    fn visit_new_expression(&mut self, _: &oxc_ast::ast::NewExpression<'a>) {
        self.ok = false;
    }
    fn visit_tagged_template_expression(&mut self, _: &oxc_ast::ast::TaggedTemplateExpression<'a>) {
        self.ok = false;
    }
    fn visit_update_expression(&mut self, _: &oxc_ast::ast::UpdateExpression<'a>) {
        self.ok = false;
    }
    fn visit_unary_expression(&mut self, it: &oxc_ast::ast::UnaryExpression<'a>) {
        if it.operator == oxc_ast::ast::UnaryOperator::Delete {
            self.ok = false;
        }
        walk::walk_unary_expression(self, it);
    }
    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        let desc = self.names.map(|n| n[2]);
        if !matches!(&it.left, AssignmentTarget::AssignmentTargetIdentifier(d) if Some(d.name.as_str()) == desc)
        {
            self.ok = false;
        }
        walk::walk_assignment_expression(self, it);
    }
    fn visit_function(&mut self, _: &Function<'a>, _: ScopeFlags) {
        self.ok = false;
    }
    /// Only the getters `defineProperty` is given, checked there: nothing in them runs here.
    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        let getter = match (self.names, &self.key) {
            (Some([_, from, _]), Some(key)) => f_is_getter(it, from, key),
            _ => false,
        };
        if !getter {
            self.ok = false;
        }
    }
    fn visit_variable_declaration(&mut self, _: &VariableDeclaration<'a>) {
        // Only the loop's own, read in `visit_for_of_statement`.
        self.ok = false;
    }
    fn visit_for_of_statement(&mut self, it: &ForOfStatement<'a>) {
        let key = match &it.left {
            oxc_ast::ast::ForStatementLeft::VariableDeclaration(d)
                if d.kind.is_lexical()
                    && d.declarations.len() == 1
                    && d.declarations[0].init.is_none() =>
            {
                d.declarations[0]
                    .id
                    .get_binding_identifier()
                    .map(|b| b.name.to_string())
            }
            _ => None,
        };
        if key.is_none() || self.key.is_some() || it.r#await {
            self.ok = false;
            return;
        }
        self.key = key;
        self.visit_expression(&it.right);
        self.visit_statement(&it.body);
    }
    fn visit_statement(&mut self, it: &Statement<'a>) {
        match it {
            Statement::ReturnStatement(r) => {
                let to = self.names.map(|n| n[0]);
                if !r
                    .argument
                    .as_ref()
                    .is_some_and(|a| to.is_some_and(|to| is_name(a, to)))
                {
                    self.ok = false;
                }
            }
            Statement::IfStatement(_)
            | Statement::BlockStatement(_)
            | Statement::ExpressionStatement(_)
            | Statement::ForOfStatement(_) => walk::walk_statement(self, it),
            _ => self.ok = false,
        }
    }
}

fn f_is_getter(f: &ArrowFunctionExpression<'_>, from: &str, key: &str) -> bool {
    f.params.items.is_empty()
        && f.params.rest.is_none()
        && matches!(f.get_expression().map(|e| e.without_parentheses()), Some(Expression::ComputedMemberExpression(m))
            if is_name(&m.object, from) && is_name(&m.expression, key))
}

fn is_name(expr: &Expression<'_>, name: &str) -> bool {
    matches!(expr.without_parentheses(), Expression::Identifier(i) if i.name == name)
}

/// Whether `callee` names a top-level alias of `Object.KEY`.
fn object_function(values: &Values<'_, '_>, callee: &Expression<'_>, key: &str) -> bool {
    let Expression::Identifier(name) = callee else {
        return false;
    };
    match values.get(name.name.as_str()) {
        Some(Value::ObjectMember(k)) => k == key,
        Some(Value::Init(init)) => matches!(init.without_parentheses(),
            Expression::StaticMemberExpression(m) if m.property.name == key && is_name(&m.object, "Object")),
        None => false,
    }
}

/// `Object.prototype.hasOwnProperty`.
fn has_own_property(value: Option<&Value<'_, '_>>) -> bool {
    matches!(value, Some(Value::Init(init)) if matches!(init.without_parentheses(),
        Expression::StaticMemberExpression(m) if m.property.name == "hasOwnProperty"
            && matches!(&m.object, Expression::StaticMemberExpression(p)
                if p.property.name == "prototype" && is_name(&p.object, "Object"))))
}
