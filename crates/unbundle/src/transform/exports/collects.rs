//! A module that collects other modules' exports as its named exports, as ramda's
//! `src/index.js` does: `module.exports = {}; module.exports.pick = require_pick(); ...`, and
//! which named exports of other modules a module reads other than to call them.
//!
//! Whenever such an index's export `pick` is read after the index set it, it is module
//! `pick`'s exports (before, undefined: a call throws either way). Storing them there lets
//! them escape only as far as the index's own exports do, and as far as the name is read: a
//! module that only calls `(0, index.pick)(...)` hands `pick`'s function on to nobody. So
//! (in `plan`) module `pick`'s exports escape when the index's escape, or when some module
//! reads the index's `pick` other than as a callee; and a call of `index.pick` needs no
//! receiver when module `pick` replaced its exports with a function that ignores it.

use oxc_ast::ast::{
    AssignmentOperator, AssignmentTarget, BindingPattern, CallExpression, Expression, Program,
    Statement, StaticMemberExpression, TaggedTemplateExpression, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::refs::{self, Wrapper};

/// Notes in `facts` what the module collects ([`named`]; the modules it collects no longer
/// count as escaping for that, see `plan`) and the named exports it reads other than as a
/// callee ([`handed`]).
pub(super) fn note(
    facts: &mut super::Facts,
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    bound: &FxHashMap<SymbolId, String>,
    wrapped: &FxHashSet<SymbolId>,
) {
    facts.collects = named(program, scoping, wrapper);
    facts.named_handed = handed(program, scoping, wrapper, bound, wrapped);
    let collects = &facts.collects;
    facts
        .escapes
        .retain(|id| !collects.iter().any(|(_, target)| target == id));
}

/// The (name, module id) pairs of a module whose body is only, besides `"use strict"`, an
/// optional first `module.exports = {}` and `module.exports.NAME = require_x()` statements,
/// with `module` used nowhere else and `exports` nowhere: its exports are a plain object
/// holding those modules' exports under those names, and nothing else. Empty otherwise.
fn named(program: &Program<'_>, scoping: &Scoping, wrapper: Wrapper) -> Vec<(String, String)> {
    let Some(module) = wrapper.module else {
        return Vec::new();
    };
    if wrapper
        .exports
        .is_some_and(|e| !scoping.get_resolved_reference_ids(e).is_empty())
    {
        return Vec::new();
    }
    let body = super::interop::module_body(program);
    let mut statements = body
        .iter()
        .filter(|s| !matches!(s, Statement::ExpressionStatement(e) if matches!(e.expression, Expression::StringLiteral(_))))
        .peekable();
    let mut uses = 0;
    if statements
        .peek()
        .is_some_and(|s| emptied(s, scoping, module))
    {
        statements.next();
        uses += 1;
    }
    let mut named = Vec::new();
    for statement in statements {
        let Some(pair) = collected(statement, scoping, wrapper, module) else {
            return Vec::new();
        };
        named.push(pair);
        uses += 1;
    }
    if named.is_empty() || scoping.get_resolved_reference_ids(module).len() != uses {
        return Vec::new();
    }
    named
}

/// Whether `statement` is `module.exports = {}`.
fn emptied(statement: &Statement<'_>, scoping: &Scoping, module: SymbolId) -> bool {
    let Statement::ExpressionStatement(s) = statement else {
        return false;
    };
    let Expression::AssignmentExpression(a) = &s.expression else {
        return false;
    };
    matches!(&a.left, AssignmentTarget::StaticMemberExpression(m)
        if m.property.name == "exports" && refs::expression_symbol(scoping, &m.object) == Some(module))
        && a.operator == AssignmentOperator::Assign
        && matches!(a.right.without_parentheses(), Expression::ObjectExpression(o) if o.properties.is_empty())
}

/// `module.exports.NAME = require_x()`: NAME and module x.
fn collected(
    statement: &Statement<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    module: SymbolId,
) -> Option<(String, String)> {
    let Statement::ExpressionStatement(s) = statement else {
        return None;
    };
    let Expression::AssignmentExpression(a) = &s.expression else {
        return None;
    };
    let AssignmentTarget::StaticMemberExpression(m) = &a.left else {
        return None;
    };
    let Expression::StaticMemberExpression(inner) = &m.object else {
        return None;
    };
    if a.operator != AssignmentOperator::Assign
        || inner.property.name != "exports"
        || refs::expression_symbol(scoping, &inner.object) != Some(module)
    {
        return None;
    }
    let Expression::CallExpression(call) = a.right.without_parentheses() else {
        return None;
    };
    let Expression::Identifier(callee) = &call.callee else {
        return None;
    };
    let id = crate::name::module_id(scoping, wrapper, callee, &call.arguments)?;
    Some((m.property.name.to_string(), id))
}

/// The (module id, name) pairs of the named exports that the module reads, through a
/// variable `bound` to their module (or, for one of `wrapped`, through its `default`, which
/// may be the exports object itself) or a `require(ID)` call, other than as a callee (`x.f`,
/// `(0, x.f)` and `x.f` as a template's tag are callees): `g(x.f)`, `x.f.g`, `const {f} = x`.
fn handed(
    program: &Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    bound: &FxHashMap<SymbolId, String>,
    wrapped: &FxHashSet<SymbolId>,
) -> Vec<(String, String)> {
    let mut reads = Reads {
        scoping,
        wrapper,
        bound,
        wrapped,
        read: FxHashMap::default(),
        called: FxHashMap::default(),
        destructured: FxHashSet::default(),
    };
    reads.visit_program(program);
    let Reads {
        read,
        called,
        mut destructured,
        ..
    } = reads;
    destructured.extend(
        read.into_iter()
            .filter(|(key, n)| called.get(key).copied().unwrap_or(0) < *n)
            .map(|(key, _)| key),
    );
    let mut handed: Vec<(String, String)> = destructured.into_iter().collect();
    handed.sort();
    handed
}

/// Counts, per (module id, name), reads of `x.name` and those of them that are callees.
struct Reads<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    bound: &'s FxHashMap<SymbolId, String>,
    wrapped: &'s FxHashSet<SymbolId>,
    read: FxHashMap<(String, String), usize>,
    called: FxHashMap<(String, String), usize>,
    /// Names bound by a pattern from a module's exports (`const {f} = x`): handed on.
    destructured: FxHashSet<(String, String)>,
}

impl Reads<'_> {
    /// The (module id, name) `m` reads, when its object is a bound variable, a wrapper's
    /// `default` or a `require(ID)` call.
    fn key(&self, m: &StaticMemberExpression<'_>) -> Option<(String, String)> {
        let id = self.module(&m.object)?;
        Some((id, m.property.name.to_string()))
    }

    /// The module `object` holds the exports of (or may, as a wrapper's `default`).
    fn module(&self, object: &Expression<'_>) -> Option<String> {
        match object.without_parentheses() {
            Expression::StaticMemberExpression(inner) if inner.property.name == "default" => {
                let symbol = refs::expression_symbol(self.scoping, &inner.object)?;
                self.wrapped
                    .contains(&symbol)
                    .then(|| self.bound.get(&symbol).cloned())?
            }
            Expression::CallExpression(call) => match &call.callee {
                Expression::Identifier(callee) => {
                    crate::name::module_id(self.scoping, self.wrapper, callee, &call.arguments)
                }
                _ => None,
            },
            other => self
                .bound
                .get(&refs::expression_symbol(self.scoping, other)?)
                .cloned(),
        }
    }

    /// Notes `callee` (`x.f`, or `(0, x.f)`) as a call of a named export.
    fn callee(&mut self, callee: &Expression<'_>) {
        let m = match callee.without_parentheses() {
            Expression::StaticMemberExpression(m) => m,
            Expression::SequenceExpression(s) => match s.expressions.as_slice() {
                [first, Expression::StaticMemberExpression(m)] if first.is_number_literal() => m,
                _ => return,
            },
            _ => return,
        };
        if let Some(key) = self.key(m) {
            *self.called.entry(key).or_default() += 1;
        }
    }
}

impl<'a> Visit<'a> for Reads<'_> {
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if let Some(key) = self.key(it) {
            *self.read.entry(key).or_default() += 1;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.callee(&it.callee);
        walk::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        self.callee(&it.tag);
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (BindingPattern::ObjectPattern(o), Some(init)) = (&it.id, &it.init)
            && let Some(id) = self.module(init)
        {
            for p in &o.properties {
                if let Some(name) = p.key.static_name() {
                    self.destructured.insert((id.clone(), name.to_string()));
                }
            }
        }
        walk::walk_variable_declarator(self, it);
    }
}
