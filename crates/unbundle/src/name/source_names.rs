//! Local names a bundle's source map gives back. A minifier that writes a map records, at
//! each identifier it renamed, the name the source had (the map's `names`); a variable whose
//! binding and every use the map names alike takes that name again, where that cannot change
//! what the module does: the name is free in the whole module (nothing declared or used
//! under it, no other variable given it), the module calls no `eval`, and the variable gives
//! no function or class its `name` (a declaration, or `var f = function () {}`).

use oxc_ast::ast::{BindingPattern, Expression, IdentifierReference, VariableDeclarator};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_syntax::reference::ReferenceId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::syntax::is_identifier;

/// The variables to rename and their source names. `names`: the map's names by byte offset
/// in the parsed text, sorted; `taken`: the names the module has or uses, which gains the new
/// ones.
pub(crate) fn renames(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    names: &[(u32, String)],
    taken: &mut FxHashSet<String>,
) -> Vec<(SymbolId, String)> {
    if names.is_empty() || scoping.root_unresolved_references().contains_key("eval") {
        return Vec::new();
    }
    let name_at = |at: u32| {
        names
            .binary_search_by_key(&at, |n| n.0)
            .ok()
            .map(|i| names[i].1.as_str())
    };
    let mut seen = Seen {
        references: FxHashMap::default(),
        naming: FxHashSet::default(),
    };
    seen.visit_program(program);
    let mut out = Vec::new();
    for symbol in scoping.symbol_ids() {
        if scoping
            .symbol_flags(symbol)
            .intersects(SymbolFlags::Function | SymbolFlags::Class | SymbolFlags::Import)
            || seen.naming.contains(&symbol)
        {
            continue;
        }
        let Some(name) = name_at(scoping.symbol_span(symbol).start) else {
            continue;
        };
        // Every use the map names must agree with the binding.
        let agrees = scoping.get_resolved_reference_ids(symbol).iter().all(|r| {
            seen.references
                .get(r)
                .is_none_or(|&at| name_at(at).is_none_or(|n| n == name))
        });
        if !agrees
            || name == scoping.symbol_name(symbol)
            || !is_identifier(name)
            || taken.contains(name)
        {
            continue;
        }
        taken.insert(name.to_owned());
        out.push((symbol, name.to_owned()));
    }
    out
}

/// Where each reference is, and the variables whose declaration gives a function or class
/// its `name` (`var f = function () {}`, `let g = () => {}`, `const C = class {}`).
struct Seen {
    references: FxHashMap<ReferenceId, u32>,
    naming: FxHashSet<SymbolId>,
}

impl<'a> Visit<'a> for Seen {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if let Some(r) = it.reference_id.get() {
            self.references.insert(r, it.span.start);
        }
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        let names_it = matches!(
            it.init,
            Some(
                Expression::FunctionExpression(_)
                    | Expression::ArrowFunctionExpression(_)
                    | Expression::ClassExpression(_)
            )
        );
        if let (true, BindingPattern::BindingIdentifier(id)) = (names_it, &it.id)
            && let Some(symbol) = id.symbol_id.get()
        {
            self.naming.insert(symbol);
        }
        walk::walk_variable_declarator(self, it);
    }
}
