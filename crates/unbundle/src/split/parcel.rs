//! Plans how Parcel's registered modules come apart (found by
//! [`crate::recognize::parcel`]): each module's function moves into a module file, and the
//! function left registered calls the loader that runs that file with the same module object,
//! exports and `this`. Parcel's runtime still decides when a module runs, once, when first
//! required; the scope-hoisted code around the registrations stays in the bundle file as its
//! entry.
//!
//! As with rollup's and esbuild's modules, a module reaches the bundle's top-level names
//! (Parcel's runtime and helpers, the packages it requires) through the loader: by value when
//! they are set before it runs and never assigned, else live (see
//! [`super::esbuild::outer_names`]).

use std::borrow::Cow;

use super::paths::module_path;
use super::{File, Job, Split, commonjs_call, esbuild};
use crate::recognize::parcel::Registered;
use crate::split::esm::TopLevel;

/// The names a registered function's parameters get when it has fewer than two: nothing in
/// the bundle uses them.
const MODULE: &str = "__pilotfish_module";
const EXPORTS: &str = "__pilotfish_exports";

/// Moves the function of each of `modules` that nothing else edits into a file.
pub(super) fn modules<'a>(file: &File<'_, 'a, '_>, modules: Vec<Registered>, out: &mut Split<'a>) {
    if modules.is_empty() {
        return;
    }
    let overlaps = |a: oxc_span::Span, b: oxc_span::Span| a.start < b.end && b.start < a.end;
    let uses = TopLevel::collect(file.program, file.scoping);
    let strict = file.strict();
    let found = modules.len();
    let mut split = 0;
    for registered in modules {
        if out
            .edits
            .iter()
            .any(|(e, _)| overlaps(*e, registered.function))
        {
            continue;
        }
        let id = super::unique_id(&out.jobs, registered.id.clone());
        let path = module_path(&id, None, file.names);
        let outer = esbuild::outer_names(file.scoping, &uses, &out.moved, registered.body);
        let module = registered.params.first().map_or(MODULE, String::as_str);
        let exports = registered.params.get(1).map_or(EXPORTS, String::as_str);
        let body = out
            .moved
            .splice_with(file.input.text, registered.body, &outer.substitutions)
            .into_owned();
        let call = format!(
            "function ({module}, {exports}) {{\nreturn {}.call(this, {exports}, {module});\n}}",
            commonjs_call(&path, &outer)
        );
        out.edits.push((registered.function, call));
        out.jobs.push(Job {
            strict,
            parameters: &crate::module::ESBUILD,
            revealed: file.licensed(registered.body),
            takes: outer.values.iter().chain(&outer.live).cloned().collect(),
            ..Job::new(
                (id, path),
                file.input.name,
                Cow::Owned(format!("function ({exports}, {module}) {body}")),
                registered.function,
                crate::ModuleKind::Parcel,
            )
        });
        split += 1;
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
    out.wrappers.parcel = crate::Count { found, split };
}
