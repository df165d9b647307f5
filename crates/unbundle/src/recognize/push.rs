//! Which `X.push([...])` calls are webpack's JSONP chunks. A chunk's push says which chunks
//! it installs (`[[2], {...}]`, `[["vendors"], [...]]`); a push whose first element is no
//! such list of ids is ordinary code unless its table holds nothing but modules that the
//! push itself requires (through each module's require parameter, or as an entry it runs):
//! code that merely looks like a module table is not taken for one.

use std::collections::HashSet;

use oxc_ast::ast::{
    ArrayExpression, ArrayExpressionElement, CallExpression, Expression, FormalParameters,
    ObjectPropertyKind, PropertyKey,
};
use oxc_ast_visit::{Visit, walk};

use crate::syntax::number_key;

/// webpack 4 pushes up to five elements (chunk ids, modules, entries, prefetches, preloads);
/// webpack 5 three (chunk ids, modules, the function that runs the entries).
const MOST_ELEMENTS: usize = 5;

/// Whether the push `push` (the array passed to `push`), whose second element is the literal
/// `table`, is a JSONP chunk.
pub(crate) fn is_chunk(push: &ArrayExpression<'_>, table: &Expression<'_>) -> bool {
    let plain = push.elements.len() <= MOST_ELEMENTS
        && push
            .elements
            .iter()
            .all(|e| !matches!(e, ArrayExpressionElement::SpreadElement(_)));
    plain && (names_its_chunks(push) || every_module_required(push, table))
}

/// `[[2, 5], ...]` or `[["vendors~main"], ...]`: the chunk ids, literal and at least one.
fn names_its_chunks(push: &ArrayExpression<'_>) -> bool {
    let Some(Expression::ArrayExpression(ids)) =
        push.elements.first().and_then(|e| e.as_expression())
    else {
        return false;
    };
    !ids.elements.is_empty() && ids.elements.iter().all(|e| is_id(e.as_expression()))
}

fn is_id(expr: Option<&Expression<'_>>) -> bool {
    matches!(
        expr,
        Some(Expression::NumericLiteral(_) | Expression::StringLiteral(_))
    )
}

/// Whether every module of `table` has an id that a module of the table requires or that
/// the push runs as an entry.
fn every_module_required(push: &ArrayExpression<'_>, table: &Expression<'_>) -> bool {
    let modules = entries(table);
    if modules.is_empty() {
        return false;
    }
    let mut requires = Requires {
        names: modules
            .iter()
            .filter_map(|(_, f)| require_name(f))
            .collect(),
        ids: HashSet::new(),
    };
    requires.visit_expression(table);
    // The entries a push runs: webpack 4's `[[22, 1, 2]]`, webpack 5's `e => e(e.s = 22)`.
    let mut entries = Literals::default();
    for element in push.elements.iter().skip(2) {
        if let Some(expr) = element.as_expression() {
            entries.visit_expression(expr);
        }
    }
    modules
        .iter()
        .all(|(id, _)| requires.ids.contains(id) || entries.ids.contains(id))
}

/// The ids and functions of an object or array literal of functions.
fn entries<'t, 'a>(table: &'t Expression<'a>) -> Vec<(String, &'t Expression<'a>)> {
    match table.without_parentheses() {
        Expression::ObjectExpression(o) => o
            .properties
            .iter()
            .filter_map(|p| match p {
                ObjectPropertyKind::ObjectProperty(p) => {
                    let id = match &p.key {
                        PropertyKey::NumericLiteral(n) => number_key(n.value)?,
                        PropertyKey::StringLiteral(s) => s.value.to_string(),
                        PropertyKey::StaticIdentifier(name) => name.name.to_string(),
                        _ => return None,
                    };
                    Some((id, &p.value))
                }
                ObjectPropertyKind::SpreadProperty(_) => None,
            })
            .collect(),
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .enumerate()
            .filter_map(|(index, e)| Some((index.to_string(), e.as_expression()?)))
            .collect(),
        _ => Vec::new(),
    }
}

/// The name of a module function's third parameter, the require function webpack passes.
fn require_name(function: &Expression<'_>) -> Option<String> {
    let params: &FormalParameters<'_> = match function.without_parentheses() {
        Expression::FunctionExpression(f) => &f.params,
        Expression::ArrowFunctionExpression(f) => &f.params,
        _ => return None,
    };
    let binding = params.items.get(2)?.pattern.get_binding_identifier()?;
    Some(binding.name.to_string())
}

/// The literal ids passed to a require function: `n(25)`, `n.bind(null, 25)`, `n.t(25, 7)`.
struct Requires {
    names: HashSet<String>,
    ids: HashSet<String>,
}

impl<'a> Visit<'a> for Requires {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if root_name(&it.callee).is_some_and(|name| self.names.contains(name)) {
            for argument in &it.arguments {
                match argument.as_expression() {
                    Some(Expression::NumericLiteral(n)) => self.ids.extend(number_key(n.value)),
                    Some(Expression::StringLiteral(s)) => {
                        self.ids.insert(s.value.to_string());
                    }
                    _ => {}
                }
            }
        }
        walk::walk_call_expression(self, it);
    }
}

/// `n` of `n`, `n.t` and `n.t.bind`.
fn root_name<'e>(callee: &'e Expression<'_>) -> Option<&'e str> {
    match callee.without_parentheses() {
        Expression::Identifier(i) => Some(i.name.as_str()),
        Expression::StaticMemberExpression(m) => root_name(&m.object),
        _ => None,
    }
}

/// Every number and string literal under an expression, as ids.
#[derive(Default)]
struct Literals {
    ids: HashSet<String>,
}

impl<'a> Visit<'a> for Literals {
    fn visit_numeric_literal(&mut self, it: &oxc_ast::ast::NumericLiteral<'a>) {
        self.ids.extend(number_key(it.value));
    }

    fn visit_string_literal(&mut self, it: &oxc_ast::ast::StringLiteral<'a>) {
        self.ids.insert(it.value.to_string());
    }
}
