//! Plans how an esbuild bundle comes apart: which of its CommonJS modules (found by
//! [`crate::recognize::esbuild`]) move into files, and with which of the bundle's top-level
//! names, and how its wrapped ES modules move ([`crate::split::esm`]); both are planned from
//! one pass over the bundle's uses of its top-level names ([`TopLevel`]).
//!
//! Unlike webpack's, these modules reach each other and esbuild's helpers through the bundle's
//! top-level variables (`var a = require_a();`), so each module records which top-level names
//! it uses; the loader passes their values in. A name that is assigned anywhere, or that may
//! not be set yet when the module runs, cannot be passed as a value (an assignment would land
//! on a copy, or the copy would miss one): the module reads and writes it through an object
//! of getters and setters the bundle passes instead ([`LIVE`]).

use oxc_ast::ast::Program;
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use rustc_hash::FxHashSet;

use crate::split::esm::uses::{Kind, Use};
use crate::split::esm::{Moved, TopLevel};

/// One module of an esbuild bundle that moves into a file: a CommonJS module, or the
/// initializer of a wrapped ES module whose hoisted declarations stay in the bundle.
#[derive(Debug, Clone)]
pub(crate) struct EsModule {
    /// The variable it is bound to (`require_foo`, `init_foo`, or a minified name), else its
    /// position.
    pub(crate) id: String,
    /// The source path esbuild keyed it by, when the bundle is not minified.
    pub(crate) source_path: Option<String>,
    /// The module function's span in the file.
    pub(crate) span: Span,
    /// The bundle's top-level names the module uses.
    pub(crate) outer: Outer,
    /// The function is a method (`"path"(exports, module) {...}`): its span holds no
    /// `function` keyword.
    pub(crate) method: bool,
    /// An async ES module initializer (top-level `await`).
    pub(crate) asynchronous: bool,
    /// An ES module initializer's namespace object, when esbuild gave it one.
    pub(crate) namespace: Option<String>,
}

/// The bundle's top-level names a module file uses, and how it reaches them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outer {
    /// Names passed by value when the module runs, in first-use order: never assigned, and
    /// set before the module can run (declared before it, or a function declaration).
    pub(crate) values: Vec<String>,
    /// Names read and written live, through an object of getters and setters the bundle
    /// passes as [`LIVE`]: assigned somewhere, or declared after the module (their value may
    /// not be set yet when it runs).
    pub(crate) live: Vec<String>,
    /// The module's uses of the live names rewritten to go through that object.
    pub(crate) substitutions: Vec<(Span, String)>,
}

/// The name a module file knows the object of live top-level names by.
pub(crate) const LIVE: &str = "__pilotfish_live";

/// The esbuild modules of `program`, if it has any: its CommonJS modules, the spans of every
/// wrapped function, in order, and what moving its wrapped ES modules into files changes (see
/// [`crate::split::esm`]).
///
/// In an ES module file (`es_module`), the declarations esbuild hoisted out of its wrapped ES
/// modules may be exported, so they stay: only the initializers move.
pub(crate) fn find_modules(
    program: &Program<'_>,
    scoping: &Scoping,
    text: &str,
    imported: &crate::split::shared::Imported,
    es_module: bool,
) -> Option<Found> {
    let found = crate::recognize::esbuild::commonjs_modules(program, scoping, &imported.commonjs);
    let mut esm_helpers = imported.esm.clone();
    esm_helpers
        .symbols
        .extend(crate::split::esm::helpers(program));
    if found.is_empty() && esm_helpers.is_empty() {
        return None;
    }
    // One pass over the program finds every use of a top-level name, for both kinds of
    // module.
    let uses = TopLevel::collect(program, scoping);
    let bound: Vec<(Span, Option<SymbolId>)> = found
        .iter()
        .map(|f| (f.span, f.bound.as_ref().and_then(|b| b.1)))
        .collect();
    let moved = crate::split::esm::plan(
        program,
        scoping,
        text,
        (&esm_helpers, &uses, &bound),
        es_module,
    );
    let spans: Vec<Span> = found.iter().map(|f| f.span).collect();
    let modules: Vec<EsModule> = found
        .into_iter()
        .enumerate()
        .map(|(n, f)| EsModule {
            id: f
                .bound
                .as_ref()
                .map_or_else(|| format!("commonjs{n}"), |b| b.0.clone()),
            source_path: f.source_path,
            span: f.span,
            outer: outer_names(scoping, &uses, &moved, f.span),
            method: f.method,
            asynchronous: false,
            namespace: None,
        })
        .collect();
    let mut stayed = Vec::new();
    let mut initializers = Vec::new();
    // An id names a file: a variable esbuild declared twice gets a second one.
    let mut taken: FxHashSet<String> = modules
        .iter()
        .map(|m: &EsModule| m.id.clone())
        .chain(moved.modules.iter().map(|m| m.id.clone()))
        .collect();
    for kept in &moved.kept {
        // An initializer reading its own `this` or `arguments` runs only where it is.
        if kept.uses_own_this {
            stayed.push(kept.id.clone());
            continue;
        }
        let mut id = kept.id.clone();
        let mut n = 2;
        while !taken.insert(id.clone()) {
            id = format!("{}_{n}", kept.id);
            n += 1;
        }
        initializers.push(EsModule {
            id,
            source_path: kept.source_path.clone(),
            span: kept.function,
            outer: outer_names(scoping, &uses, &moved, kept.function),
            method: kept.method,
            asynchronous: kept.asynchronous,
            namespace: kept.namespace.clone(),
        });
    }
    Some(Found {
        modules,
        initializers,
        spans,
        moved,
        stayed,
        name_helper: crate::recognize::esbuild::name_helper(program, scoping),
    })
}

/// What [`find_modules`] finds.
pub(crate) struct Found {
    /// The CommonJS modules, which all move into files.
    pub(crate) modules: Vec<EsModule>,
    /// The wrapped ES modules whose declarations stay in the bundle but whose initializers
    /// move into files.
    pub(crate) initializers: Vec<EsModule>,
    /// The spans of every CommonJS module function, in order.
    pub(crate) spans: Vec<Span>,
    /// What moving the wrapped ES modules changes.
    pub(crate) moved: Moved,
    /// The wrapped ES modules that stay in the bundle whole.
    pub(crate) stayed: Vec<String>,
    /// esbuild's `__name` helper, by its name in the bundle.
    pub(crate) name_helper: Option<String>,
}

/// The bundle's top-level names the module function at `span` uses (a name moved into an ES
/// module's file is used through that module's namespace object, passed by value), and the
/// rewrites that make the live ones go through [`LIVE`].
pub(crate) fn outer_names(scoping: &Scoping, uses: &TopLevel, moved: &Moved, span: Span) -> Outer {
    outer_names_but(scoping, uses, moved, span, None)
}

/// [`outer_names`] without `except`, which the caller substitutes itself.
pub(crate) fn outer_names_but(
    scoping: &Scoping,
    uses: &TopLevel,
    moved: &Moved,
    span: Span,
    except: Option<SymbolId>,
) -> Outer {
    let mut outer = Outer::default();
    let mut seen: FxHashSet<SymbolId> = FxHashSet::default();
    let mut live: FxHashSet<SymbolId> = FxHashSet::default();
    for u in uses.within(span) {
        if Some(u.symbol) == except {
            continue;
        }
        if seen.insert(u.symbol) {
            let renamed = moved.name_of(u.symbol);
            let name = renamed.unwrap_or_else(|| scoping.symbol_name(u.symbol));
            // The loader's own parameters cannot also be passed in by name.
            let by_value = moved.is_member(u.symbol)
                || renamed.is_some()
                || (!uses.written(u.symbol)
                    && set_before(scoping, u.symbol, span.start)
                    && !crate::write::LOADER_PARAMETERS.contains(&name));
            if by_value {
                if !outer.values.iter().any(|n| n == name) {
                    outer.values.push(name.to_owned());
                }
            } else {
                live.insert(u.symbol);
                outer.live.push(name.to_owned());
            }
        }
        if live.contains(&u.symbol) {
            let name = scoping.symbol_name(u.symbol);
            let member = format!("{LIVE}.{name}");
            if u.kind == Kind::Callee && uses.receiver_free(u.symbol) {
                // Every value the name is ever given ignores its receiver (or is not callable,
                // and the call throws either way): the accessor object as `this` cannot matter.
                outer.substitutions.push((Span::new(u.at, u.end), member));
            } else {
                substitute(u, name, &member, &mut outer.substitutions);
            }
        }
    }
    outer
}

/// The substitutions that make use `u` of top-level `name` read and write `member` (a
/// property access) instead, with the same meaning.
pub(crate) fn substitute(u: &Use, name: &str, member: &str, into: &mut Vec<(Span, String)>) {
    let replacement = match u.kind {
        // The call keeps no receiver, as the plain name had none.
        Kind::Callee => format!("(0, {member})"),
        Kind::Shorthand => format!("{name}: {member}"),
        _ if u.pattern_shorthand => format!("{name}: {member}"),
        _ => member.to_owned(),
    };
    into.push((Span::new(u.at, u.end), replacement));
    // `x = () => 1` named the function `x`; a property assignment names nothing, so the
    // value is named in an object literal first: `{ x: () => 1 }.x`.
    if let Some(value) = u.names_value {
        into.push((Span::new(value.start, value.start), format!("{{ {name}: ")));
        into.push((Span::new(value.end, value.end), format!(" }}.{name}")));
    }
}

/// Whether top-level `symbol`, never assigned, holds its value before code at `at` can run:
/// a function declaration (hoisted), or a declaration that comes before `at` (the top level
/// ran it before it could reach a module function defined later).
fn set_before(scoping: &Scoping, symbol: SymbolId, at: u32) -> bool {
    scoping.symbol_flags(symbol).is_function() || scoping.symbol_span(symbol).end <= at
}

/// The esbuild modules among a file's `jobs` whose exports the code that stays in the file
/// (`program`) uses other than by name. A nested webpack bundle's module files take no part
/// in the plan, and an esbuild entry's file receives `require_x` and `__toESM` as parameters
/// (its facts know nothing of them): their code counts as the file's own.
pub(crate) fn own_escapes(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    jobs: &[super::Job<'_>],
) -> crate::transform::exports::OwnUses {
    use crate::ModuleKind;
    let ids: Vec<&str> = jobs
        .iter()
        .filter(|j| matches!(j.kind, ModuleKind::Commonjs | ModuleKind::EsmInitializer))
        .map(|j| j.id.as_str())
        .collect();
    if ids.is_empty() {
        return crate::transform::exports::OwnUses::default();
    }
    let moved: Vec<Span> = jobs
        .iter()
        .filter(|j| !matches!(j.kind, ModuleKind::NestedWebpack | ModuleKind::Entry))
        .map(|j| j.span)
        .collect();
    let to_esm = jobs.iter().find_map(|j| j.to_esm.as_deref());
    crate::transform::exports::own_escapes(program, scoping, &ids, &moved, to_esm)
}
