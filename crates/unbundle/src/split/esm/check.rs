//! Which wrapped ES modules can move into files (the conditions are listed in the parent
//! module's documentation), and which of the declarations before a wrapper are its module's.

use oxc_ast::ast::Statement;
use oxc_semantic::SymbolId;
use rustc_hash::FxHashSet;

use super::uses::Kind;
use super::{Context, Node, Order};

/// Which of the functions and variables before module `m`'s wrapper are the module's. All of
/// them after its namespace object or right after another variable with a value, such as
/// another module's wrapper (esbuild writes a module's hoisted declarations together, and a
/// neighbour's function taken along is still checked like any other). Otherwise, those the
/// module uses (directly or through another of its functions) or that use what it has, and
/// every one after the first of those; the rest may be the end of a neighbour's code, and
/// stay where they are: they use nothing of the module's.
pub(super) fn claimed(cx: &Context<'_, '_, '_>, m: usize) -> FxHashSet<SymbolId> {
    let (w, h) = (&cx.wrapped[m], &cx.hoisted[m]);
    let all: FxHashSet<SymbolId> = h.members.iter().map(|(_, s)| *s).collect();
    if h.namespace.is_some() || h.after_declaration {
        return all;
    }
    let mut mine: FxHashSet<SymbolId> = FxHashSet::default();
    let mut seeds = vec![w.function];
    seeds.extend(h.export_call.map(|u| cx.span(u)));
    for span in seeds {
        mine.extend(
            cx.within(span)
                .iter()
                .map(|u| u.symbol)
                .filter(|s| all.contains(s)),
        );
    }
    loop {
        let before = mine.len();
        for &(unit, symbol) in &h.members {
            let used = cx.within(cx.span(unit));
            if mine.contains(&symbol) {
                mine.extend(used.iter().map(|u| u.symbol).filter(|s| all.contains(s)));
            } else if used.iter().any(|u| mine.contains(&u.symbol)) {
                mine.insert(symbol);
            }
        }
        if let Some(first) = h.members.iter().position(|(_, s)| mine.contains(s)) {
            mine.extend(h.members[first..].iter().map(|(_, s)| *s));
        }
        if mine.len() == before {
            return mine;
        }
    }
}

/// The modules that move, of those `candidates` says may: those that can on their own, less
/// those whose file would read a variable that is assigned and stays in the bundle (such as a
/// name of a module that stays) or one named like the loader's parameters, repeated until
/// nothing changes.
pub(super) fn settle(cx: &Context<'_, '_, '_>, order: &Order, candidates: &[bool]) -> Vec<bool> {
    let n = cx.wrapped.len();
    let binds_object = cx.scoping.symbol_names().any(|name| name == "Object");
    let mut valid: Vec<bool> = (0..n)
        .map(|m| candidates[m] && movable(cx, order, m, binds_object))
        .collect();
    let member_of: rustc_hash::FxHashMap<SymbolId, usize> = cx
        .hoisted
        .iter()
        .enumerate()
        .flat_map(|(m, h)| h.members.iter().map(move |&(_, s)| (s, m)))
        .collect();
    loop {
        let mut changed = false;
        for m in 0..n {
            if !valid[m] {
                continue;
            }
            let own = |s: SymbolId| {
                member_of.get(&s) == Some(&m)
                    || cx.hoisted[m].namespace.is_some_and(|(ns, _)| ns == s)
                    || s == cx.wrapped[m].init
            };
            // The loader's own parameters cannot also be passed in by name.
            let blocked = cx
                .file_spans(m)
                .into_iter()
                .flat_map(|span| cx.within(span))
                .any(|u| {
                    !own(u.symbol)
                        && ((!member_of.get(&u.symbol).is_some_and(|&other| valid[other])
                            && cx.uses.written(u.symbol))
                            || crate::write::LOADER_PARAMETERS
                                .contains(&cx.scoping.symbol_name(u.symbol)))
                });
            if blocked {
                valid[m] = false;
                changed = true;
            }
        }
        if !changed {
            return valid;
        }
    }
}

/// Whether module `m` can move, as far as it alone is concerned.
fn movable(cx: &Context<'_, '_, '_>, order: &Order, m: usize, binds_object: bool) -> bool {
    let (w, h) = (&cx.wrapped[m], &cx.hoisted[m]);
    if w.uses_own_this {
        return false;
    }
    // A name declared twice (esbuild declares each once) may have a declaration elsewhere.
    if h.members
        .iter()
        .any(|&(_, s)| !cx.scoping.symbol_redeclarations(s).is_empty())
    {
        return false;
    }
    let mut used_outside = false;
    for &(_, symbol) in &h.members {
        for u in cx.uses_of(symbol) {
            if cx.owned_by(order, u.at, m) {
                continue;
            }
            used_outside = true;
            // With a namespace object, outside code reads names through its getters.
            if u.writes()
                || !order.after_start(u.at, m)
                || (h.namespace.is_some() && key_of(cx, m, symbol).is_none())
            {
                return false;
            }
        }
    }
    if let Some((namespace, _)) = h.namespace {
        let guarded = cx
            .uses_of(namespace)
            .all(|u| cx.owned_by(order, u.at, m) || u.after_calls.contains(&w.init));
        if !guarded {
            return false;
        }
    }
    // A module without a namespace object defines its getters with `Object.defineProperties`.
    !(used_outside && h.namespace.is_none() && binds_object)
}

/// The export name a getter of module `m`'s namespace object gives `symbol`.
pub(super) fn key_of<'h>(
    cx: &'h Context<'_, '_, '_>,
    m: usize,
    symbol: SymbolId,
) -> Option<&'h str> {
    cx.hoisted[m]
        .getters
        .iter()
        .find(|(_, s)| *s == symbol)
        .map(|(k, _)| k.as_str())
}

/// Whether calling `symbol` (declared by `unit`) without a receiver is the same as calling it
/// as a method: a function that does not use `this`, or a variable only ever assigned arrows
/// and classes.
pub(super) fn receiver_free(cx: &Context<'_, '_, '_>, unit: usize, symbol: SymbolId) -> bool {
    match &cx.units[unit].node {
        Node::Statement(Statement::FunctionDeclaration(f)) => !crate::refs::function_uses_this(f),
        Node::Declarator(..) => {
            let mut writes = cx.uses_of(symbol).filter(|u| u.writes()).peekable();
            writes.peek().is_some() && writes.all(|u| u.kind == Kind::SafeWrite)
        }
        _ => false,
    }
}
