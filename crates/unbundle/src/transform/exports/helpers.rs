//! `helpers`: webpack's helper calls at a module's top level written as what they do, in the
//! JavaScript a reader knows. `require.d(exports, {f: () => f})` (and webpack 4's
//! `require.d(exports, "f", function () { return f; })`) defines a getter for each name on a
//! fresh exports object, so it becomes `Object.defineProperty(exports, "f", { enumerable:
//! true, get: () => f })`, the same getter (live bindings and all). `require.r(exports)` marks
//! the exports an ES module (`__esModule`, and `Symbol.toStringTag` "Module"): it goes when the
//! plan says nothing can see the mark, and otherwise becomes the two `Object.defineProperty`
//! calls it makes. Nothing changes in a module that binds `Object` or `Symbol` itself, or
//! when the bundle's runtime does not define these helpers as webpack's does (the caller
//! checks).

use oxc_allocator::{Allocator, TakeIn, Vec as ArenaVec};
use oxc_ast::ast::{Argument, Expression, ObjectPropertyKind, PropertyKey, Statement};
use oxc_parser::Parser;
use oxc_semantic::Scoping;
use oxc_span::SourceType;

use crate::refs;
use crate::refs::Wrapper;

/// Rewrites the helper calls among `statements` (a module's top level); how many it rewrote.
/// `unmarked` when the module's ES module mark can go.
pub(crate) fn rewrite<'a>(
    statements: &mut ArenaVec<'a, Statement<'a>>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    wrapper: Wrapper,
    unmarked: bool,
) -> usize {
    let (Some(exports), Some(_)) = (wrapper.exports, wrapper.require) else {
        return 0;
    };
    if scoping
        .symbol_names()
        .any(|n| n == "Object" || n == "Symbol")
    {
        return 0;
    }
    let exports_name = scoping.symbol_name(exports).to_owned();
    let is_exports = |argument: Option<&Argument<'_>>| {
        argument
            .and_then(Argument::as_expression)
            .is_some_and(|e| refs::expression_symbol(scoping, e) == Some(exports))
    };
    let mut changed = 0;
    let old = std::mem::replace(statements, ArenaVec::new_in(&allocator));
    for mut statement in old {
        let Statement::ExpressionStatement(es) = &mut statement else {
            statements.push(statement);
            continue;
        };
        let Expression::CallExpression(call) = &mut es.expression else {
            statements.push(statement);
            continue;
        };
        let helper = |name| refs::is_require_helper(scoping, wrapper.require, &call.callee, name);
        if helper("r") && call.arguments.len() == 1 && is_exports(call.arguments.first()) {
            changed += 1;
            if !unmarked {
                statements.extend(parse(
                    allocator,
                    &format!(
                        "Object.defineProperty({exports_name}, Symbol.toStringTag, {{ value: \"Module\" }});\n\
                         Object.defineProperty({exports_name}, \"__esModule\", {{ value: true }});"
                    ),
                ));
            }
            continue;
        }
        if !helper("d") || !is_exports(call.arguments.first()) {
            statements.push(statement);
            continue;
        }
        let getters: Option<Vec<(String, Expression<'a>)>> = match call.arguments.as_mut_slice() {
            [_, Argument::ObjectExpression(o)] => plain_getters(o, allocator),
            [_, Argument::StringLiteral(name), getter] if getter.is_expression() => {
                let name = name.value.to_string();
                Some(vec![(
                    name,
                    getter
                        .as_expression_mut()
                        .expect("checked above")
                        .take_in(&allocator),
                )])
            }
            _ => None,
        };
        let Some(getters) = getters else {
            statements.push(statement);
            continue;
        };
        changed += 1;
        for (name, getter) in getters {
            let key = serde_json::to_string(&name).expect("a string serializes");
            let mut defined = parse(
                allocator,
                &format!(
                    "Object.defineProperty({exports_name}, {key}, {{ enumerable: true, get: 0 }});"
                ),
            );
            set_getter(&mut defined, getter);
            statements.extend(defined);
        }
    }
    changed
}

/// The names and getters of `{name: getter, ...}` when every property is a plain one (the
/// getters taken out of the object); `None` otherwise, the object untouched.
fn plain_getters<'a>(
    o: &mut oxc_ast::ast::ObjectExpression<'a>,
    allocator: &'a Allocator,
) -> Option<Vec<(String, Expression<'a>)>> {
    let mut names = Vec::with_capacity(o.properties.len());
    for property in &o.properties {
        let ObjectPropertyKind::ObjectProperty(p) = property else {
            return None;
        };
        if p.computed || p.method || p.kind != oxc_ast::ast::PropertyKind::Init {
            return None;
        }
        names.push(match &p.key {
            PropertyKey::StaticIdentifier(k) => k.name.to_string(),
            PropertyKey::StringLiteral(s) => s.value.to_string(),
            PropertyKey::NumericLiteral(n) => crate::syntax::number_key(n.value)?,
            _ => return None,
        });
    }
    Some(
        names
            .into_iter()
            .zip(o.properties.iter_mut())
            .map(|(name, property)| {
                let ObjectPropertyKind::ObjectProperty(p) = property else {
                    unreachable!("checked above")
                };
                (name, p.value.take_in(&allocator))
            })
            .collect(),
    )
}

/// Statements parsed from `text` into the module's arena. The text is ours and parses.
fn parse<'a>(allocator: &'a Allocator, text: &str) -> ArenaVec<'a, Statement<'a>> {
    let text = allocator.alloc_str(text);
    Parser::new(allocator, text, SourceType::script())
        .parse()
        .program
        .body
}

/// Puts `getter` in place of the `get: 0` of a parsed `Object.defineProperty(...)`.
fn set_getter<'a>(statements: &mut ArenaVec<'a, Statement<'a>>, getter: Expression<'a>) {
    if let Some(Statement::ExpressionStatement(es)) = statements.first_mut()
        && let Expression::CallExpression(call) = &mut es.expression
        && let Some(Argument::ObjectExpression(o)) = call.arguments.get_mut(2)
        && let Some(ObjectPropertyKind::ObjectProperty(p)) = o.properties.get_mut(1)
    {
        p.value = getter;
    }
}
