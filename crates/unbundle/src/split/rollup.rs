//! Plans how rollup's CommonJS modules come apart (found by [`crate::recognize::rollup`]):
//! the code of each lazy wrapper moves into a module file, and the wrapper keeps its guard,
//! its flag and its return around a call of the loader that runs that file. So the module
//! still runs once, when first required, in the order the bundle required it, and the
//! scope-hoisted code around the wrappers stays in the bundle file as its entry.
//!
//! As with esbuild's modules, a module reaches the bundle's top-level names (the variable its
//! exports are kept in, the other wrappers, rollup's helpers) through the loader: by value
//! when they are set before it runs and never assigned, else live (see
//! [`super::esbuild::outer_names`]). A wrapper that another step already edits (an esbuild
//! bundle inside it, say) stays whole.

use std::borrow::Cow;

use oxc_span::Span;

use super::{File, Job, Split, commonjs_call, esbuild, module_path};
use crate::recognize::rollup::Lazy;
use crate::split::esm::TopLevel;

/// Moves the module code of each of `wrappers` that nothing else edits into a file.
pub(super) fn modules<'a>(file: &File<'_, 'a, '_>, wrappers: Vec<Lazy>, out: &mut Split<'a>) {
    if wrappers.is_empty() {
        return;
    }
    let overlaps = |a: Span, b: Span| a.start < b.end && b.start < a.end;
    let uses = TopLevel::collect(file.program, file.scoping);
    let strict = file.strict();
    let mut split = 0;
    let found = wrappers.len();
    for lazy in wrappers {
        if out.edits.iter().any(|(e, _)| overlaps(*e, lazy.function)) {
            continue;
        }
        let mut id = lazy.name.clone();
        while out.jobs.iter().any(|j| j.id == id) {
            id.push('_');
        }
        let outer = esbuild::outer_names(file.scoping, &uses, &out.moved, lazy.code);
        let path = module_path(&id, None, file.names);
        // The module's own `exports` and `module` are fresh objects nobody reads: the code
        // keeps its exports where rollup put them, in the bundle's variables.
        out.edits.push((
            lazy.code,
            format!(
                "\n{}.call(this, {{}}, {{ exports: {{}} }});\n",
                commonjs_call(&path, &outer)
            ),
        ));
        let code = out
            .moved
            .splice_with(file.input.text, lazy.code, &outer.substitutions);
        out.jobs.push(Job {
            id,
            path,
            file: file.input.name,
            source: Cow::Owned(format!("function () {{{code}}}")),
            strict,
            parameters: &crate::module::ESBUILD,
            revealed: file.licensed(lazy.code),
            kind: crate::ModuleKind::Rollup,
            size: lazy.function.size() as usize,
            span: lazy.function,
            name_helper: None,
            source_names: Vec::new(),
            takes: outer.values.iter().chain(&outer.live).cloned().collect(),
            header: String::new(),
        });
        split += 1;
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
    out.wrappers.rollup = crate::Count { found, split };
}
