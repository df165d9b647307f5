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

use super::paths::module_path;
use super::{File, Job, Split, commonjs_call, esbuild};
use crate::recognize::eager::Eager;
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
        let id = super::unique_id(&out.jobs, lazy.name.clone());
        let path = module_path(&id, None, file.names);
        let (call, code, takes) = module_code(file, &uses, &out.moved, &lazy, &path);
        // `if (F = 1, !x) ...`: the wrapper keeps `F = 1;` where the `if` started.
        let (from, before) = match lazy.flag_in_if {
            Some((start, flag)) => (start, format!("{};", span_text(file.input.text, flag))),
            None => (lazy.code.start, String::new()),
        };
        if lazy.expressions {
            // `return F || (F = 1, CODE), x`: the call is one of the wrapper's expressions.
            out.edits.push((lazy.code, call));
        } else if lazy.tail.is_empty() {
            out.edits.push((
                Span::new(from, lazy.code.end),
                format!("{before}\n{call};\n"),
            ));
        } else {
            // `return f(), x`: `f()` moves too, and the wrapper keeps `return x`.
            out.edits.push((
                Span::new(from, lazy.tail.end),
                format!("{before}\n{call};\nreturn "),
            ));
        }
        out.jobs.push(Job {
            strict,
            parameters: &crate::module::ESBUILD,
            revealed: file.licensed(lazy.code),
            takes,
            ..Job::new(
                (id, path),
                file.input.name,
                Cow::Owned(code),
                lazy.function,
                crate::ModuleKind::Rollup,
            )
        });
        split += 1;
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
    out.wrappers.rollup = crate::Count { found, split };
}

/// Moves the function of each of rollup 2's eager modules (`createCommonjsModule(function
/// (module, exports) {...})`, found by [`crate::recognize::eager`]) that nothing else edits
/// into a file. The call keeps a function of the same parameters, which runs the file with
/// the module object and exports it is given, where and when the bundle ran the module.
pub(super) fn eager_modules<'a>(file: &File<'_, 'a, '_>, eager: Vec<Eager>, out: &mut Split<'a>) {
    if eager.is_empty() {
        return;
    }
    let overlaps = |a: Span, b: Span| a.start < b.end && b.start < a.end;
    let uses = TopLevel::collect(file.program, file.scoping);
    let strict = file.strict();
    out.wrappers.rollup.found += eager.len();
    for module in eager {
        // The module function's own `arguments` would be the loader's.
        if out.edits.iter().any(|(e, _)| overlaps(*e, module.function)) || module.own_arguments {
            continue;
        }
        let id = super::unique_id(&out.jobs, module.name.clone());
        let path = module_path(&id, None, file.names);
        let outer =
            esbuild::outer_names_but(file.scoping, &uses, &out.moved, module.function, None);
        let body = out
            .moved
            .splice_with(file.input.text, module.body, &outer.substitutions);
        let exports = module.exports.as_deref().unwrap_or(EXPORTS);
        let code = format!("function ({exports}, {}) {body}", module.module);
        out.edits.push((
            module.function,
            format!(
                "function ({MODULE}, {EXPORTS}) {{ return {}.call(this, {EXPORTS}, {MODULE}); }}",
                commonjs_call(&path, &outer)
            ),
        ));
        out.jobs.push(Job {
            strict,
            parameters: &crate::module::ESBUILD,
            revealed: file.licensed(module.function),
            takes: outer.values.iter().chain(&outer.live).cloned().collect(),
            ..Job::new(
                (id, path),
                file.input.name,
                Cow::Owned(code),
                module.function,
                crate::ModuleKind::Rollup,
            )
        });
        out.wrappers.rollup.split += 1;
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
}

/// What replaces a wrapper's code in the bundle (a call of the loader, an expression), the module
/// function for its file, and the bundle's names the file is given.
///
/// The variable the wrapper returns is the module's own: where it holds the exports (`var
/// x; ... x = {...}; return x;`) the file reads and writes it as `module.exports`, the
/// loader passing a module object whose `exports` is that variable, live (or as `exports`,
/// the variable's value, when nothing assigns it: `var x = {}; x.f = ...`); where it is a
/// module object (`var x = {exports: {}}; ... return x.exports;`) the file reads it as
/// `module`, and the loader passes that object.
fn module_code(
    file: &File<'_, '_, '_>,
    uses: &TopLevel,
    moved: &crate::split::esm::Moved,
    lazy: &Lazy,
    path: &str,
) -> (String, String, Vec<String>) {
    let holder = uses
        .within(lazy.holder)
        .first()
        .filter(|u| u.at == lazy.holder.start)
        .map(|u| u.symbol);
    // A module object must be the same object throughout.
    let holder = holder.filter(|&s| !(lazy.module_object && uses.written(s)));
    let mut outer = esbuild::outer_names_but(file.scoping, uses, moved, lazy.code, holder);
    let tail = (!lazy.tail.is_empty())
        .then(|| esbuild::outer_names_but(file.scoping, uses, moved, lazy.tail, holder));
    if let Some(tail) = &tail {
        for name in &tail.values {
            if !outer.values.contains(name) && !outer.live.contains(name) {
                outer.values.push(name.clone());
            }
        }
        for name in &tail.live {
            outer.values.retain(|n| n != name);
            if !outer.live.contains(name) {
                outer.live.push(name.clone());
            }
        }
        outer
            .substitutions
            .extend(tail.substitutions.iter().cloned());
    }
    let (exports, module) = match holder {
        Some(symbol) => {
            let name = file.scoping.symbol_name(symbol);
            let (member, exports, module) = if lazy.module_object {
                (
                    MODULE.to_owned(),
                    format!("{name}.exports"),
                    name.to_owned(),
                )
            } else if !uses.written(symbol) {
                (
                    EXPORTS.to_owned(),
                    name.to_owned(),
                    format!("{{ exports: {name} }}"),
                )
            } else {
                (
                    format!("{MODULE}.exports"),
                    name.to_owned(),
                    format!(
                        "{{ get exports() {{ return {name}; }}, set exports(__pilotfish_value) {{ {name} = __pilotfish_value; }} }}"
                    ),
                )
            };
            let holder_uses = uses.within(lazy.code).iter().chain(uses.within(lazy.tail));
            for u in holder_uses.filter(|u| u.symbol == symbol) {
                esbuild::substitute(u, name, &member, &mut outer.substitutions);
            }
            outer.substitutions.sort_by_key(|(s, _)| (s.start, s.end));
            (exports, module)
        }
        // The module's own `exports` and `module` are fresh objects nobody reads.
        None => ("{}".to_owned(), "{ exports: {} }".to_owned()),
    };
    let call = format!(
        "{}.call(this, {exports}, {module})",
        commonjs_call(path, &outer)
    );
    let splice = |span: Span| {
        spliced(span, &lazy.leads, |s| {
            moved.splice_with(file.input.text, s, &outer.substitutions)
        })
    };
    let mut code = format!("{}{}", lazy.code_prefix, splice(lazy.code));
    if lazy.expressions {
        code.push(';');
    }
    if !lazy.tail.is_empty() {
        // `f(), ` ends the module's code as a statement: `f();`.
        let tail = splice(lazy.tail);
        code.push_str(&format!("\n{};\n", tail.trim_end().trim_end_matches(',')));
    }
    let takes = outer.values.iter().chain(&outer.live).cloned().collect();
    (
        call,
        format!("function ({EXPORTS}, {MODULE}) {{{code}}}"),
        takes,
    )
}

/// The text `span` covers.
fn span_text(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

/// The text of `span` as `splice` gives it, with each of `leads` that starts it in
/// parentheses: a minifier's `A=1,function(h){...}(d),...` keeps its meaning as the first
/// statement of a module file.
fn spliced<'t>(span: Span, leads: &[Span], splice: impl Fn(Span) -> Cow<'t, str>) -> String {
    match leads
        .iter()
        .find(|l| l.start == span.start && l.end <= span.end)
    {
        Some(lead) => format!(
            "({}){}",
            splice(*lead),
            splice(Span::new(lead.end, span.end))
        ),
        None => splice(span).into_owned(),
    }
}

/// The names the module function's parameters have in its text, before `module.rs` names
/// them `exports` and `module`: names nothing else in the bundle uses.
const EXPORTS: &str = "__pilotfish_exports";
const MODULE: &str = "__pilotfish_module";
