//! esbuild's wrapped ES modules made into module files. esbuild wraps an ES module in its
//! `__esm` helper when it must run lazily (it is required, loaded with `import()`, or imported
//! by another wrapped module) and hoists the module's functions and variables out of the
//! wrapper to the bundle's top level, where importers use them by name; the wrapper only
//! assigns them. To give such a module a file of its own, its hoisted declarations move into
//! the file with its initializer's body, and every use of them elsewhere becomes a property
//! read on the module's namespace object (`area(2)` becomes `shapes_exports.area(2)`, or
//! `(0, shapes_exports.whoAmI)()` when the function uses its receiver), which the file
//! defines getters on when it starts, before any of its code runs. A module with no namespace
//! object gets one of its own (`var words_exports = {};`).
//!
//! The move keeps the bundle's behaviour when nothing reads a moved name before the module's
//! file has started, that is, before its initializer first ran. So a module moves only when:
//!
//! - nothing outside it assigns its names (ES imports cannot), and each use of them outside
//!   follows a call of its initializer: in the same wrapped function, or earlier at the top
//!   level; a use in another module's hoisted function needs that module to call the
//!   initializer and not to be on a cycle of modules requiring each other (on a cycle, the
//!   function may run before its module's initializer got that far);
//! - its namespace object is only read right after a call of its initializer
//!   (`(init_a(), a_exports)`, as esbuild writes it), since its getters are defined later
//!   than before;
//! - its initializer is a plain function (not `async`) that does not use `this` or
//!   `arguments`, and its file reads no bundle variable that is assigned anywhere (the file
//!   gets the values when it runs); a module that stays makes those that use its names stay.

mod find;
mod uses;

use std::borrow::Cow;

use oxc_ast::ast::{Program, Statement};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::entry::{Node, Unit};
use uses::{Kind, Use};

/// A wrapped ES module, moved to a file.
#[derive(Debug, Clone)]
pub(crate) struct EsmModule {
    /// The variable holding its initializer (`init_shapes`, or a minified name).
    pub(crate) id: String,
    /// The source path esbuild keyed it by, when the bundle is not minified.
    pub(crate) source_path: Option<String>,
    /// The module function in the bundle: replaced by the loader's.
    pub(crate) function: Span,
    /// The function is a method (`"path"() {...}`).
    pub(crate) method: bool,
    /// The variable the rest of the bundle reads its names through.
    pub(crate) namespace: String,
    /// The module file as a function of its namespace object: `function (ns) {...}`.
    pub(crate) source: String,
    /// Top-level names of the bundle the file uses, in first-use order.
    pub(crate) outer: Vec<String>,
}

/// What moving the wrapped ES modules changes in the bundle.
#[derive(Debug, Default)]
pub(crate) struct Moved {
    /// The bundle has esbuild's `__esm` helper (an esbuild bundle, even if nothing moves).
    pub(crate) esm_helper: bool,
    pub(crate) modules: Vec<EsmModule>,
    /// Edits of the bundle besides replacing the module functions: the hoisted declarations
    /// removed, namespace objects added.
    pub(crate) edits: Vec<(Span, String)>,
    /// What the entry must leave in place: every `__esm` call and what moved, sorted.
    pub(crate) taken: Vec<Span>,
    /// Uses of moved names rewritten, and namespace objects renamed, sorted by position.
    substitutions: Vec<(Span, String)>,
    /// The name code outside a moved module uses instead of a name it moved or renamed.
    names: FxHashMap<SymbolId, String>,
    /// The names moved into files.
    members: FxHashSet<SymbolId>,
}

impl Moved {
    /// Whether `symbol` moved into a module file (its uses read a namespace object instead).
    pub(crate) fn is_member(&self, symbol: SymbolId) -> bool {
        self.members.contains(&symbol)
    }

    /// The bundle variable code outside the moved modules reads instead of `symbol`, when it
    /// is not `symbol` itself: a moved name's namespace, or a namespace object's new name.
    pub(crate) fn name_of(&self, symbol: SymbolId) -> Option<&str> {
        self.names.get(&symbol).map(String::as_str)
    }

    /// The text of `span` with the substitutions in it made.
    pub(crate) fn splice<'t>(&self, text: &'t str, span: Span) -> Cow<'t, str> {
        let from = self
            .substitutions
            .partition_point(|(s, _)| s.start < span.start);
        let to = self
            .substitutions
            .partition_point(|(s, _)| s.end <= span.end);
        if from >= to {
            return Cow::Borrowed(&text[span.start as usize..span.end as usize]);
        }
        let mut out = String::with_capacity((span.end - span.start) as usize + 64);
        self.splice_into(&mut out, text, span.start as usize, span.end as usize);
        Cow::Owned(out)
    }

    /// Appends `text[from..to]` to `out` with the substitutions in it made.
    pub(crate) fn splice_into(&self, out: &mut String, text: &str, from: usize, to: usize) {
        let first = self
            .substitutions
            .partition_point(|(s, _)| (s.start as usize) < from);
        let mut at = from;
        for (span, replacement) in &self.substitutions[first..] {
            if span.end as usize > to {
                break;
            }
            out.push_str(&text[at..span.start as usize]);
            out.push_str(replacement);
            at = span.end as usize;
        }
        out.push_str(&text[at..to]);
    }
}

/// Where a use is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// In module `m`'s initializer.
    Body(usize),
    /// In what esbuild hoisted out of module `m`.
    Hoisted(usize),
    /// In CommonJS module `c`.
    Commonjs(usize),
}

impl Owner {
    fn esm(self) -> Option<usize> {
        match self {
            Owner::Body(m) | Owner::Hoisted(m) => Some(m),
            Owner::Commonjs(_) => None,
        }
    }
}

/// Plans moving the wrapped ES modules of an esbuild bundle (`program`, its text `text`) into
/// files. `commonjs`: the spans of its CommonJS module functions and the variables they are
/// bound to.
pub(crate) fn plan(
    program: &Program<'_>,
    scoping: &Scoping,
    text: &str,
    commonjs: &[(Span, Option<SymbolId>)],
) -> Moved {
    let helpers = find::helpers(program);
    if helpers.is_empty() {
        return Moved::default();
    }
    let units = crate::entry::units(&program.body);
    let wrapped = find::wrapped(&units, scoping, &helpers);
    if wrapped.is_empty() {
        return Moved {
            esm_helper: true,
            ..Moved::default()
        };
    }
    let uses = uses::collect(program, scoping);
    let mut by_symbol: FxHashMap<SymbolId, Vec<usize>> = FxHashMap::default();
    for (i, u) in uses.iter().enumerate() {
        by_symbol.entry(u.symbol).or_default().push(i);
    }
    let uses_of = |s: SymbolId| by_symbol.get(&s).map_or(&[][..], Vec::as_slice);
    let within = |span: Span| {
        let from = uses.partition_point(|u| u.at < span.start);
        let to = uses.partition_point(|u| u.at < span.end);
        &uses[from..to]
    };
    let mut hoisted: Vec<find::Hoisted> = wrapped
        .iter()
        .map(|w| {
            find::hoisted(&units, scoping, w, &|s| {
                uses_of(s)
                    .iter()
                    .any(|&u| uses[u].after_calls.contains(&w.init))
            })
        })
        .collect();
    for (w, h) in wrapped.iter().zip(&mut hoisted) {
        let keep = claimed(&units, w, h, &within);
        h.members.retain(|(_, s)| keep.contains(s));
    }

    // Who owns each span of code, and who calls whom.
    let mut owners: Vec<(Span, Owner)> = Vec::new();
    for (m, (w, h)) in wrapped.iter().zip(&hoisted).enumerate() {
        owners.push((w.function, Owner::Body(m)));
        for unit in h.export_call.iter().chain(h.members.iter().map(|(u, _)| u)) {
            owners.push((units[*unit].node.span(), Owner::Hoisted(m)));
        }
    }
    for (c, (span, _)) in commonjs.iter().enumerate() {
        owners.push((*span, Owner::Commonjs(c)));
    }
    owners.sort_by_key(|(s, _)| s.start);
    let owner_of = |at: u32| {
        let i = owners.partition_point(|(s, _)| s.start <= at);
        i.checked_sub(1)
            .filter(|&i| at < owners[i].0.end)
            .map(|i| owners[i].1)
    };
    let init_of: FxHashMap<SymbolId, usize> = wrapped
        .iter()
        .enumerate()
        .map(|(m, w)| (w.init, m))
        .collect();
    let require_of: FxHashMap<SymbolId, usize> = commonjs
        .iter()
        .enumerate()
        .filter_map(|(c, (_, s))| s.map(|s| (s, c)))
        .collect();
    let n = wrapped.len();
    let node = |o: Owner| match o {
        Owner::Body(m) | Owner::Hoisted(m) => m,
        Owner::Commonjs(c) => n + c,
    };
    let mut edges = vec![Vec::new(); n + commonjs.len()];
    // Initializers each module function calls, and where the top level first calls each.
    let mut calls: Vec<FxHashSet<SymbolId>> = vec![FxHashSet::default(); n + commonjs.len()];
    let mut top_call: FxHashMap<SymbolId, u32> = FxHashMap::default();
    for u in &uses {
        if u.kind != Kind::Callee {
            continue;
        }
        let target = init_of
            .get(&u.symbol)
            .copied()
            .or_else(|| require_of.get(&u.symbol).map(|c| n + c));
        let Some(target) = target else { continue };
        match owner_of(u.at) {
            Some(owner) => {
                edges[node(owner)].push(target);
                if !matches!(owner, Owner::Hoisted(_)) {
                    calls[node(owner)].insert(u.symbol);
                }
            }
            None => {
                top_call.entry(u.symbol).or_insert(u.at);
            }
        }
    }
    let cyclic = uses::on_cycle(&edges);

    let member_of: FxHashMap<SymbolId, usize> = hoisted
        .iter()
        .enumerate()
        .flat_map(|(m, h)| h.members.iter().map(move |&(_, s)| (s, m)))
        .collect();
    let binds_object = scoping.symbol_names().any(|n| n == "Object");
    let mut valid: Vec<bool> = (0..n)
        .map(|m| {
            movable(
                scoping,
                m,
                &wrapped[m],
                &hoisted[m],
                &uses,
                &uses_of,
                &owner_of,
                &|owner: Owner| {
                    let callee = &calls[node(owner)];
                    callee.contains(&wrapped[m].init)
                        && (!matches!(owner, Owner::Hoisted(_)) || !cyclic[node(owner)])
                },
                top_call.get(&wrapped[m].init).copied(),
                binds_object,
            )
        })
        .collect();
    // A module whose file would read a variable that is assigned (one that stays in the
    // bundle) stays too, which may keep others: repeat until nothing changes.
    let written = |s: SymbolId| uses_of(s).iter().any(|&u| uses[u].writes());
    loop {
        let mut changed = false;
        for m in 0..n {
            if !valid[m] {
                continue;
            }
            let own = |s: SymbolId| {
                member_of.get(&s) == Some(&m)
                    || hoisted[m].namespace.is_some_and(|(ns, _)| ns == s)
                    || s == wrapped[m].init
            };
            let reads_assigned = file_spans(&units, &wrapped[m], &hoisted[m])
                .into_iter()
                .flat_map(&within)
                .any(|u| {
                    !own(u.symbol)
                        && !member_of.get(&u.symbol).is_some_and(|&m2| valid[m2])
                        && written(u.symbol)
                });
            if reads_assigned {
                valid[m] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    let mut moved = Moved {
        esm_helper: true,
        ..Moved::default()
    };
    // Namespace names: the bundle's own when no other variable anywhere has that name, else a
    // fresh one (a minified `c` is reused by inner scopes, which would capture it).
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    for name in scoping.symbol_names() {
        *counts.entry(name).or_default() += 1;
    }
    for name in scoping.root_unresolved_references().keys() {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let mut taken: FxHashSet<String> = counts.keys().map(|name| (*name).to_owned()).collect();
    let mut namespace: Vec<Option<String>> = vec![None; n];
    for m in (0..n).filter(|&m| valid[m]) {
        let own = hoisted[m]
            .namespace
            .map(|(s, _)| scoping.symbol_name(s))
            .filter(|name| counts.get(name) == Some(&1));
        namespace[m] = Some(match own {
            Some(name) => name.to_owned(),
            None => {
                let id = scoping.symbol_name(wrapped[m].init);
                let base = id
                    .strip_prefix("init_")
                    .filter(|b| crate::names::is_identifier(b))
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

    let mut substitutions = Vec::new();
    let mut read_outside: FxHashSet<SymbolId> = FxHashSet::default();
    for m in (0..n).filter(|&m| valid[m]) {
        let ns = namespace[m].as_deref().expect("valid modules are named");
        let h = &hoisted[m];
        if let Some((symbol, _)) = h.namespace
            && scoping.symbol_name(symbol) != ns
        {
            moved.names.insert(symbol, ns.to_owned());
            substitutions.push((scoping.symbol_span(symbol), ns.to_owned()));
            for &u in uses_of(symbol) {
                substitutions.push((Span::new(uses[u].at, uses[u].end), ns.to_owned()));
            }
        }
        for &(unit, symbol) in &h.members {
            moved.members.insert(symbol);
            moved.names.insert(symbol, ns.to_owned());
            let name = scoping.symbol_name(symbol);
            let key = key_of(h, symbol).unwrap_or(name);
            let property = if crate::names::is_identifier_name(key) {
                format!("{ns}.{key}")
            } else {
                format!(
                    "{ns}[{}]",
                    serde_json::to_string(key).expect("a string serializes")
                )
            };
            let plain = receiver_free(&units[unit], symbol, &uses, uses_of(symbol));
            for &u in uses_of(symbol) {
                let u = &uses[u];
                if owner_of(u.at).and_then(Owner::esm) == Some(m) {
                    continue;
                }
                read_outside.insert(symbol);
                let replacement = match u.kind {
                    Kind::Callee if !plain => format!("(0, {property})"),
                    Kind::Shorthand => format!("{name}: {property}"),
                    _ => property.clone(),
                };
                substitutions.push((Span::new(u.at, u.end), replacement));
            }
        }
    }
    substitutions.sort_by_key(|(s, _)| s.start);
    // Each use is rewritten once; overlapping rewrites would cut text apart.
    substitutions.dedup_by(|later, earlier| later.0.start < earlier.0.end);
    moved.substitutions = substitutions;

    // The bundle loses what moved; a module without a namespace object gets one.
    let mut removed: FxHashSet<usize> = FxHashSet::default();
    for m in (0..n).filter(|&m| valid[m]) {
        let h = &hoisted[m];
        removed.extend(h.export_call);
        removed.extend(h.members.iter().map(|(u, _)| *u));
        if h.namespace.is_none() {
            let at = statement_start(&units, wrapped[m].unit);
            moved.edits.push((
                Span::new(at, at),
                format!(
                    "var {} = {{}};\n",
                    namespace[m].as_deref().expect("valid modules are named")
                ),
            ));
        }
    }
    moved.edits.extend(removals(&units, text, &removed));
    moved.edits.sort_by_key(|(s, _)| (s.start, s.end));
    for (m, w) in wrapped.iter().enumerate() {
        moved.taken.push(units[w.unit].node.span());
        if valid[m] {
            let h = &hoisted[m];
            moved.taken.extend(file_spans(&units, w, h));
            moved
                .taken
                .extend(h.namespace.map(|(_, u)| units[u].node.span()));
        }
    }
    moved.taken.sort_by_key(|s| s.start);

    for m in (0..n).filter(|&m| valid[m]) {
        let ns = namespace[m].clone().expect("valid modules are named");
        let module = file(
            &moved,
            text,
            scoping,
            &units,
            &wrapped[m],
            &hoisted[m],
            &ns,
            &read_outside,
            &within,
        );
        moved.modules.push(module);
    }
    moved
}

/// Which of the functions and variables before module `w`'s wrapper are the module's. Those
/// after its namespace object are (esbuild writes a module's hoisted declarations together);
/// without one, those the module uses (directly or through another of its functions) or
/// that use what it has, and every one after the first of those. The rest may be the end of
/// a neighbour's code, and stay where they are: they use nothing of the module's.
fn claimed<'u>(
    units: &[Unit<'_, '_>],
    w: &find::Wrapped,
    h: &find::Hoisted,
    within: &dyn Fn(Span) -> &'u [Use],
) -> FxHashSet<SymbolId> {
    let all: FxHashSet<SymbolId> = h.members.iter().map(|(_, s)| *s).collect();
    if h.namespace.is_some() {
        return all;
    }
    let mut mine: FxHashSet<SymbolId> = FxHashSet::default();
    let mut seeds: Vec<Span> = vec![w.function];
    seeds.extend(h.export_call.map(|u| units[u].node.span()));
    for span in seeds {
        mine.extend(
            within(span)
                .iter()
                .map(|u| u.symbol)
                .filter(|s| all.contains(s)),
        );
    }
    loop {
        let before = mine.len();
        for &(unit, symbol) in &h.members {
            let used = within(units[unit].node.span());
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

/// Whether module `m` can move, as far as it alone is concerned (see the module
/// documentation). `calls_init(owner)`: code there surely runs after `m`'s initializer
/// started.
#[allow(clippy::too_many_arguments)]
fn movable<'u>(
    scoping: &Scoping,
    m: usize,
    w: &find::Wrapped,
    h: &find::Hoisted,
    uses: &[Use],
    uses_of: &dyn Fn(SymbolId) -> &'u [usize],
    owner_of: &dyn Fn(u32) -> Option<Owner>,
    calls_init: &dyn Fn(Owner) -> bool,
    top_call: Option<u32>,
    binds_object: bool,
) -> bool {
    if w.uses_own_this {
        return false;
    }
    // A name declared twice (esbuild declares each once) may have a declaration elsewhere.
    if h.members
        .iter()
        .any(|&(_, s)| !scoping.symbol_redeclarations(s).is_empty())
    {
        return false;
    }
    let mut used_outside = false;
    for &(_, symbol) in &h.members {
        for &u in uses_of(symbol) {
            let u = &uses[u];
            let owner = owner_of(u.at);
            if owner.and_then(Owner::esm) == Some(m) {
                continue;
            }
            used_outside = true;
            if u.writes() {
                return false;
            }
            let after_init = match owner {
                Some(owner) => calls_init(owner),
                None => top_call.is_some_and(|at| at < u.at),
            };
            // With a namespace object, outside code reads names through its getters.
            if !after_init || (h.namespace.is_some() && key_of(h, symbol).is_none()) {
                return false;
            }
        }
    }
    if let Some((namespace, _)) = h.namespace {
        let guarded = uses_of(namespace).iter().all(|&u| {
            let u = &uses[u];
            owner_of(u.at).and_then(Owner::esm) == Some(m) || u.after_calls.contains(&w.init)
        });
        if !guarded {
            return false;
        }
    }
    // A module without a namespace object defines its getters with `Object.defineProperties`.
    !(used_outside && h.namespace.is_none() && binds_object)
}

/// The export name a getter of the namespace object gives `symbol`.
fn key_of(h: &find::Hoisted, symbol: SymbolId) -> Option<&str> {
    h.getters
        .iter()
        .find(|(_, s)| *s == symbol)
        .map(|(k, _)| k.as_str())
}

/// Whether calling `symbol` (declared by `unit`) without a receiver is the same as calling
/// it as a method: a function that does not use `this`, or a variable only ever assigned
/// arrows and classes.
fn receiver_free(unit: &Unit<'_, '_>, symbol: SymbolId, uses: &[Use], of: &[usize]) -> bool {
    match &unit.node {
        Node::Statement(Statement::FunctionDeclaration(f)) => !find::function_uses_this(f),
        Node::Declarator(..) => {
            let mut writes = of
                .iter()
                .map(|&u| &uses[u])
                .filter(|u| u.symbol == symbol && u.writes())
                .peekable();
            writes.peek().is_some() && writes.all(|u| u.kind == Kind::SafeWrite)
        }
        _ => false,
    }
}

/// The spans of code that go into the module's file.
fn file_spans(units: &[Unit<'_, '_>], w: &find::Wrapped, h: &find::Hoisted) -> Vec<Span> {
    let mut spans = vec![w.function];
    spans.extend(h.export_call.map(|u| units[u].node.span()));
    spans.extend(h.members.iter().map(|(u, _)| units[*u].node.span()));
    spans
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

/// The module file of module `w` (hoisted `h`, namespace `ns`), as a function of its
/// namespace object: the directives, the getters, the hoisted declarations, then the body.
#[allow(clippy::too_many_arguments)]
fn file<'u>(
    moved: &Moved,
    text: &str,
    scoping: &Scoping,
    units: &[Unit<'_, '_>],
    w: &find::Wrapped,
    h: &find::Hoisted,
    ns: &str,
    read_outside: &FxHashSet<SymbolId>,
    within: &dyn Fn(Span) -> &'u [Use],
) -> EsmModule {
    let piece = |span: Span| moved.splice(text, span);
    let mut source = format!("function ({ns}) {{\n");
    for d in &w.directives {
        source.push_str(&piece(*d));
        source.push('\n');
    }
    let statement = |out: &mut String, span: Span| {
        let code = piece(span);
        out.push_str(code.trim_end());
        if !code.trim_end().ends_with(';') && !code.trim_end().ends_with('}') {
            out.push(';');
        }
        out.push('\n');
    };
    let mine: FxHashSet<SymbolId> = h.members.iter().map(|(_, s)| *s).collect();
    match h.export_call {
        Some(unit) => statement(&mut source, units[unit].node.span()),
        None => {
            // Getters for the names other code reads, defined as esbuild's `__export` does.
            let read: Vec<&str> = h
                .members
                .iter()
                .filter(|(_, s)| read_outside.contains(s))
                .map(|(_, s)| scoping.symbol_name(*s))
                .collect();
            if !read.is_empty() {
                source.push_str(&format!("Object.defineProperties({ns}, {{\n"));
                for name in read {
                    source.push_str(&format!("\t{name}: {{ get: () => {name} }},\n"));
                }
                source.push_str("});\n");
            }
        }
    }
    let mut vars = Vec::new();
    for &(unit, symbol) in &h.members {
        match &units[unit].node {
            Node::Declarator(..) => vars.push(scoping.symbol_name(symbol)),
            _ => statement(&mut source, units[unit].node.span()),
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

    let mut outer: Vec<String> = Vec::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for span in file_spans(units, w, h) {
        for u in within(span) {
            if mine.contains(&u.symbol) || h.namespace.is_some_and(|(s, _)| s == u.symbol) {
                continue;
            }
            let name = moved
                .name_of(u.symbol)
                .unwrap_or_else(|| scoping.symbol_name(u.symbol));
            if seen.insert(name) {
                outer.push(name.to_owned());
            }
        }
    }
    EsmModule {
        id: scoping.symbol_name(w.init).to_owned(),
        source_path: w.source_path.clone(),
        function: w.function,
        method: w.method,
        namespace: ns.to_owned(),
        source,
        outer,
    }
}
