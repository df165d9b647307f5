//! What moving the wrapped ES modules writes: each module's namespace name, the uses of its
//! names elsewhere rewritten into reads of that namespace, the bundle's edits (hoisted
//! declarations removed, missing namespace objects added) and each module's file.

use oxc_semantic::SymbolId;
use oxc_span::Span;
use rustc_hash::{FxHashMap, FxHashSet};

use super::check::{key_of, receiver_free};
use super::uses::Kind;
use super::{Context, EsmModule, Moved, Node, Order, Unit};

/// Everything that changes for the modules `valid` says move.
pub(super) fn apply(cx: &Context<'_, '_, '_>, order: &Order, valid: &[bool]) -> Moved {
    let mut moved = Moved::default();
    let namespace = namespaces(cx, valid);
    let moving = || (0..cx.wrapped.len()).filter(|&m| valid[m]);
    let mut substitutions = Vec::new();
    let mut read_outside: FxHashSet<SymbolId> = FxHashSet::default();
    for m in moving() {
        let ns = namespace[m].as_deref().expect("moving modules are named");
        if let Some((symbol, _)) = cx.hoisted[m].namespace
            && cx.scoping.symbol_name(symbol) != ns
        {
            moved.names.insert(symbol, ns.to_owned());
            substitutions.push((cx.scoping.symbol_span(symbol), ns.to_owned()));
            for u in cx.uses_of(symbol) {
                substitutions.push((Span::new(u.at, u.end), ns.to_owned()));
            }
        }
        for &(unit, symbol) in &cx.hoisted[m].members {
            moved.members.insert(symbol);
            moved.names.insert(symbol, ns.to_owned());
            for (span, replacement) in uses_elsewhere(cx, order, m, ns, unit, symbol) {
                read_outside.insert(symbol);
                substitutions.push((span, replacement));
            }
        }
    }
    substitutions.sort_by_key(|(s, _)| s.start);
    // Each use is rewritten once; overlapping rewrites would cut text apart.
    substitutions.dedup_by(|later, earlier| later.0.start < earlier.0.end);
    moved.substitutions = substitutions;

    // The bundle loses what moved; a module without a namespace object gets one.
    let mut removed: FxHashSet<usize> = FxHashSet::default();
    for m in moving() {
        let h = &cx.hoisted[m];
        removed.extend(h.export_call);
        removed.extend(h.members.iter().map(|(u, _)| *u));
        if h.namespace.is_none() {
            let at = statement_start(&cx.units, cx.wrapped[m].unit);
            let ns = namespace[m].as_deref().expect("moving modules are named");
            moved
                .edits
                .push((Span::new(at, at), format!("var {ns} = {{}};\n")));
        }
    }
    moved.edits.extend(removals(&cx.units, cx.text, &removed));
    moved.edits.sort_by_key(|(s, _)| (s.start, s.end));
    for (m, w) in cx.wrapped.iter().enumerate() {
        moved.taken.push(cx.span(w.unit));
        if !valid[m] {
            moved.stayed.push(cx.scoping.symbol_name(w.init).to_owned());
            moved.kept.push(super::Kept {
                id: cx.scoping.symbol_name(w.init).to_owned(),
                function: w.function,
                method: w.method,
                source_path: w.source_path.clone(),
                uses_own_this: w.uses_own_this,
                asynchronous: w.asynchronous,
                namespace: cx.hoisted[m]
                    .namespace
                    .map(|(s, _)| cx.scoping.symbol_name(s).to_owned()),
            });
        } else {
            moved.taken.extend(cx.file_spans(m));
            moved
                .taken
                .extend(cx.hoisted[m].namespace.map(|(_, u)| cx.span(u)));
        }
    }
    moved.taken.sort_by_key(|s| s.start);
    for m in moving() {
        let ns = namespace[m].as_deref().expect("moving modules are named");
        let module = file(cx, &moved, m, ns, &read_outside);
        moved.modules.push(module);
    }
    moved
}

/// Each moving module's namespace variable: the bundle's own when no other variable anywhere
/// has that name, else a fresh one (a minified `c` is reused by inner scopes, which would
/// capture it), as esbuild names them: `shapes_exports` for `init_shapes`.
fn namespaces(cx: &Context<'_, '_, '_>, valid: &[bool]) -> Vec<Option<String>> {
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    for name in cx.scoping.symbol_names() {
        *counts.entry(name).or_default() += 1;
    }
    for name in cx.scoping.root_unresolved_references().keys() {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let mut taken: FxHashSet<String> = counts.keys().map(|name| (*name).to_owned()).collect();
    let mut out = vec![None; cx.wrapped.len()];
    for m in (0..cx.wrapped.len()).filter(|&m| valid[m]) {
        let own = cx.hoisted[m]
            .namespace
            .map(|(s, _)| cx.scoping.symbol_name(s))
            .filter(|name| counts.get(name) == Some(&1));
        out[m] = Some(match own {
            Some(name) => name.to_owned(),
            None => {
                let id = cx.scoping.symbol_name(cx.wrapped[m].init);
                let base = id
                    .strip_prefix("init_")
                    .filter(|b| crate::syntax::is_identifier(b))
                    .unwrap_or(id);
                let mut name = format!("{base}_exports");
                let mut k = 2;
                while taken.contains(&name) {
                    name = format!("{base}_exports{k}");
                    k += 1;
                }
                taken.insert(name.clone());
                name
            }
        });
    }
    out
}

/// The uses of module `m`'s name `symbol` (declared by `unit`) outside the module, and what
/// each becomes: `ns.key`, `(0, ns.key)` for a call whose receiver matters, `name: ns.key`
/// for a shorthand property.
fn uses_elsewhere(
    cx: &Context<'_, '_, '_>,
    order: &Order,
    m: usize,
    ns: &str,
    unit: usize,
    symbol: SymbolId,
) -> Vec<(Span, String)> {
    let name = cx.scoping.symbol_name(symbol);
    let key = key_of(cx, m, symbol).unwrap_or(name);
    let property = if crate::syntax::is_identifier_name(key) {
        format!("{ns}.{key}")
    } else {
        format!(
            "{ns}[{}]",
            serde_json::to_string(key).expect("a string serializes")
        )
    };
    let plain = receiver_free(cx, unit, symbol);
    cx.uses_of(symbol)
        .filter(|u| !cx.owned_by(order, u.at, m))
        .map(|u| {
            let replacement = match u.kind {
                Kind::Callee if !plain => format!("(0, {property})"),
                Kind::Shorthand => format!("{name}: {property}"),
                _ => property.clone(),
            };
            (Span::new(u.at, u.end), replacement)
        })
        .collect()
}

/// Where the statement holding unit `i` starts.
fn statement_start(units: &[Unit<'_, '_>], i: usize) -> u32 {
    let end = units[i].statement_end;
    let first = (0..=i)
        .rev()
        .take_while(|&j| units[j].statement_end == end)
        .last()
        .unwrap_or(i);
    units[first].start
}

/// Edits removing the units `removed`: a whole statement when all its units go, else each
/// unit with the comma that joins it to a neighbour.
fn removals(units: &[Unit<'_, '_>], text: &str, removed: &FxHashSet<usize>) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let end = units[i].statement_end;
        let mut j = i;
        while j < units.len() && units[j].statement_end == end {
            j += 1;
        }
        // units[i..j] make one statement.
        let gone: Vec<bool> = (i..j).map(|k| removed.contains(&k)).collect();
        if gone.iter().all(|&g| g) {
            // With the line break after it, so that no empty line is left.
            let end = if text.as_bytes().get(end as usize) == Some(&b'\n') {
                end + 1
            } else {
                end
            };
            out.push((Span::new(units[i].start, end), String::new()));
        } else {
            let mut k = 0;
            while k < gone.len() {
                if !gone[k] {
                    k += 1;
                    continue;
                }
                let run = k;
                while k < gone.len() && gone[k] {
                    k += 1;
                }
                let span = if k < gone.len() {
                    // Up to the next unit that stays.
                    Span::new(
                        units[i + run].node.span().start,
                        units[i + k].node.span().start,
                    )
                } else {
                    // From the end of the last unit that stays.
                    Span::new(
                        units[i + run - 1].node.span().end,
                        units[i + k - 1].node.span().end,
                    )
                };
                out.push((span, String::new()));
            }
        }
        i = j;
    }
    out
}

/// Module `m`'s file (namespace `ns`), as a function of its namespace object: the
/// directives, the getters, the hoisted declarations, then the initializer's body.
fn file(
    cx: &Context<'_, '_, '_>,
    moved: &Moved,
    m: usize,
    ns: &str,
    read_outside: &FxHashSet<SymbolId>,
) -> EsmModule {
    let (w, h) = (&cx.wrapped[m], &cx.hoisted[m]);
    let piece = |span: Span| moved.splice(cx.text, span);
    let statement = |out: &mut String, span: Span| {
        let code = piece(span);
        let code = code.trim_end();
        out.push_str(code);
        if !code.ends_with(';') && !code.ends_with('}') {
            out.push(';');
        }
        out.push('\n');
    };
    let mut source = format!("function ({ns}) {{\n");
    for d in &w.directives {
        source.push_str(&piece(*d));
        source.push('\n');
    }
    match h.export_call {
        Some(unit) => statement(&mut source, cx.span(unit)),
        None => {
            // Getters for the names other code reads.
            let read: Vec<&str> = h
                .members
                .iter()
                .filter(|(_, s)| read_outside.contains(s))
                .map(|(_, s)| cx.scoping.symbol_name(*s))
                .collect();
            if !read.is_empty() {
                source.push_str(&format!("Object.defineProperties({ns}, {{\n"));
                for name in read {
                    // A literal `__proto__:` key would set the prototype instead.
                    let key = if name == "__proto__" {
                        "[\"__proto__\"]"
                    } else {
                        name
                    };
                    source.push_str(&format!("\t{key}: {{ get: () => {name} }},\n"));
                }
                source.push_str("});\n");
            }
        }
    }
    let mut vars = Vec::new();
    for &(unit, symbol) in &h.members {
        match &cx.units[unit].node {
            Node::Declarator(..) => vars.push(cx.scoping.symbol_name(symbol)),
            _ => statement(&mut source, cx.span(unit)),
        }
    }
    if !vars.is_empty() {
        source.push_str(&format!("var {};\n", vars.join(", ")));
    }
    if let Some(span) = w.statements {
        if w.expression {
            statement(&mut source, span);
        } else {
            source.push_str(&piece(span));
            source.push('\n');
        }
    }
    source.push('}');

    // The bundle's names the file reads, as it reads them once rewritten.
    let mine: FxHashSet<SymbolId> = h.members.iter().map(|(_, s)| *s).collect();
    let mut outer: Vec<String> = Vec::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for span in cx.file_spans(m) {
        for u in cx.within(span) {
            if mine.contains(&u.symbol) || h.namespace.is_some_and(|(s, _)| s == u.symbol) {
                continue;
            }
            let name = moved
                .name_of(u.symbol)
                .unwrap_or_else(|| cx.scoping.symbol_name(u.symbol));
            if seen.insert(name) {
                outer.push(name.to_owned());
            }
        }
    }
    EsmModule {
        id: cx.scoping.symbol_name(w.init).to_owned(),
        source_path: w.source_path.clone(),
        function: w.function,
        method: w.method,
        namespace: ns.to_owned(),
        source,
        outer,
    }
}
