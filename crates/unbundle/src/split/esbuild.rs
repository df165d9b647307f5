//! Plans how an esbuild bundle comes apart: which of its CommonJS modules (found by
//! [`crate::recognize::esbuild`]) move into files, and with which of the bundle's top-level
//! names, and how its wrapped ES modules move ([`crate::split::esm`]); both are planned from
//! one pass over the bundle's uses of its top-level names ([`TopLevel`]).
//!
//! Unlike webpack's, these modules reach each other and esbuild's helpers through the bundle's
//! top-level variables (`var a = require_a();`), so each module records which top-level names
//! it uses; the loader passes their values in. A module that uses a top-level name that is
//! assigned anywhere cannot be moved out (an assignment would land on a copy, or the copy
//! would miss one) and stays in the bundle.

use oxc_ast::ast::Program;
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use rustc_hash::FxHashSet;

use crate::split::esm::{Moved, TopLevel};

/// One CommonJS module of an esbuild bundle.
#[derive(Debug, Clone)]
pub(crate) struct EsModule {
    /// The variable it is bound to (`require_foo`, or a minified name), else its position.
    pub(crate) id: String,
    /// The source path esbuild keyed it by, when the bundle is not minified.
    pub(crate) source_path: Option<String>,
    /// The module function's span in the file.
    pub(crate) span: Span,
    /// Top-level names of the bundle the module uses, in first-use order.
    pub(crate) outer: Vec<String>,
    /// The function is a method (`"path"(exports, module) {...}`): its span holds no
    /// `function` keyword.
    pub(crate) method: bool,
}

/// The esbuild modules of `program`, if it has any: its CommonJS modules, the spans of every
/// wrapped function (those that stay in the bundle too), in order, and what moving its
/// wrapped ES modules into files changes (see [`crate::split::esm`]).
pub(crate) fn find_modules(program: &Program<'_>, scoping: &Scoping, text: &str) -> Option<Found> {
    let found = crate::recognize::esbuild::commonjs_modules(program, scoping);
    let esm_helpers = crate::split::esm::helpers(program);
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
    let moved = crate::split::esm::plan(program, scoping, text, &esm_helpers, &uses, &bound);
    let spans: Vec<Span> = found.iter().map(|f| f.span).collect();
    let mut modules = Vec::new();
    let mut stayed = Vec::new();
    for (n, f) in found.into_iter().enumerate() {
        let id = f
            .bound
            .as_ref()
            .map_or_else(|| format!("commonjs{n}"), |b| b.0.clone());
        match outer_names(scoping, &uses, &moved, f.span) {
            Some(outer) => modules.push(EsModule {
                id,
                source_path: f.source_path,
                span: f.span,
                outer,
                method: f.method,
            }),
            None => stayed.push(id),
        }
    }
    Some(Found {
        modules,
        spans,
        moved,
        stayed,
    })
}

/// What [`find_modules`] finds.
pub(crate) struct Found {
    /// The CommonJS modules that move into files.
    pub(crate) modules: Vec<EsModule>,
    /// The spans of every CommonJS module function, in order.
    pub(crate) spans: Vec<Span>,
    /// What moving the wrapped ES modules changes.
    pub(crate) moved: Moved,
    /// The CommonJS modules that stay in the bundle (they use an assigned top-level name).
    pub(crate) stayed: Vec<String>,
}

/// The bundle's top-level names the module function at `span` uses, in first-use order (a
/// name moved into an ES module's file is used through that module's namespace object), or
/// `None` when one of them is assigned anywhere (in the module, or by code esbuild hoisted out
/// of an ES module, such as an `__esm` initializer): it cannot be passed in as a value.
fn outer_names(
    scoping: &Scoping,
    uses: &TopLevel,
    moved: &Moved,
    span: Span,
) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut seen: FxHashSet<SymbolId> = FxHashSet::default();
    for u in uses.within(span) {
        if !seen.insert(u.symbol) {
            continue;
        }
        if !moved.is_member(u.symbol) && uses.written(u.symbol) {
            return None;
        }
        let name = moved
            .name_of(u.symbol)
            .unwrap_or_else(|| scoping.symbol_name(u.symbol));
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Some(names)
}
