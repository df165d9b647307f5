//! webpack bundles nested in a module of another bundle (a package shipped as a webpack
//! bundle that another bundler took in whole): each module function of the nested table
//! becomes a module file of its own, under its outer module's folder
//! (`modules/OUTER/ID.cjs`), and the table keeps its keys with the loader's stand-ins
//! (`__pilotfish_load.nested(file, names, values)`) as values. The nested runtime stays
//! where it is, so each module still runs once, when first required, with the `this`,
//! `module`, `exports` and `require` the runtime gives it.
//!
//! A nested table is found by its runtime's shape (see
//! [`crate::recognize::webpack::runtimes`]), never by name. A module function reads names
//! of the code around it (a package bundled again: rollup or esbuild replaced its
//! `require("fs")` with a variable of theirs); the stand-in passes those by value, read when
//! the module runs. A module stays in its table when that cannot keep its behaviour: such
//! a name is assigned anywhere or declared after the module (and not hoisted with its
//! value), one is a name the loader passes, it is an arrow reading the `arguments`,
//! `new.target` or `super` of the code around it (the `this` it reads there is read where
//! the table is and given to its file), or its text is not found unchanged in the module file
//! holding the table (another step rewrote names in it): once, or, where it is there more
//! than once (two copies of one package's bundle), where the bundle has it.

use std::borrow::Cow;

use oxc_allocator::Allocator;
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::{ScopeId, Scoping, SemanticBuilder, SymbolFlags, SymbolId};
use oxc_span::{SourceType, Span};

use super::{File, Job, Split, method_value};
use crate::recognize::webpack::ModuleSource;
use crate::write::LOAD;

/// The names a nested module file is given by the loader (`loader.js`, `PARAMETERS`): a
/// name of the code around the module under one of these could not be passed in.
const GIVEN: [&str; 12] = [
    "module",
    "exports",
    "require",
    "__node_module",
    "__node_exports",
    "__node_require",
    "__filename",
    "__dirname",
    crate::imports::META,
    crate::imports::IMPORT,
    crate::imports::FUNCTION,
    LOAD,
];

/// Splits the modules of every webpack table nested in one of `out`'s modules into files of
/// their own; what stays in its table, and why, goes to `notes`.
pub(super) fn modules<'a>(file: &File<'_, 'a, '_>, out: &mut Split<'a>, notes: &mut Vec<String>) {
    // webpack's runtime passes `m.exports` to every module it runs.
    if !file.input.text.contains(".exports,") {
        return;
    }
    let mut tables = crate::recognize::webpack::runtimes(file.program, file.scoping);
    tables.sort_by_key(|(t, _)| t.span.start);
    let mut shifts = Shifts::default();
    for (table, require) in &tables {
        // The file's own table (see `webpack_modules`) is split already.
        if out.edits.iter().any(|(span, _)| *span == table.span) {
            continue;
        }
        let Some(outer) = holder(&out.jobs, table.span) else {
            in_file_code(file, out, (&table.modules, *require), notes);
            continue;
        };
        out.wrappers.nested_webpack.found += table.modules.len();
        let around = scopes(file.scoping, *require);
        let mut kept = Vec::new();
        let folder = nested_folder(file, &out.jobs[outer].path);
        for m in &table.modules {
            match split_module(file, out, (outer, &folder), m, (around, &mut shifts)) {
                Ok(job) => {
                    out.jobs.push(job);
                    out.wrappers.nested_webpack.split += 1;
                }
                Err(why) => kept.push(format!("{} ({why})", m.id)),
            }
        }
        // What the code around the modules does with their exports, for the plan of their
        // calls (see `lib.rs`): a module kept in the table is code around them too.
        let escaping = if kept.is_empty() {
            crate::transform::exports::nested_escaping(
                file.program,
                file.scoping,
                *require,
                &table.modules,
                file.input.text,
            )
        } else {
            table.modules.iter().map(|m| m.id.clone()).collect()
        };
        out.nested_escapes.push((folder, escaping));
        if !kept.is_empty() {
            notes.push(format!(
                "{}: module(s) {} of the webpack bundle nested in {} stay in its table",
                file.input.name,
                super::some_of(&kept),
                out.jobs[outer].path
            ));
        }
    }
}

/// A nested table in the bundle file's own code, outside every module (esbuild's top-level
/// code that stays in the file): its modules are split by edits of the file, where the
/// loader's `__pilotfish_load` is defined, unless another edit touches the table or the
/// file's text changes inside a module (a moved name substituted).
fn in_file_code<'a>(
    file: &File<'_, 'a, '_>,
    out: &mut Split<'a>,
    (modules, require): (&[ModuleSource], SymbolId),
    notes: &mut Vec<String>,
) {
    let span = Span::new(
        modules.iter().map(|m| m.span.start).min().unwrap_or(0),
        modules.iter().map(|m| m.span.end).max().unwrap_or(0),
    );
    if out.edits.iter().any(|(e, _)| overlaps(*e, span)) {
        notes.push(format!(
            "{}: a webpack bundle of {} module(s) in the file's own code stays whole: another step edits its table",
            file.input.name,
            modules.len()
        ));
        return;
    }
    out.wrappers.nested_webpack.found += modules.len();
    let around = scopes(file.scoping, require);
    let folder = format!("modules/{}.d", file.input.name.replace('/', "_"));
    let mut kept = Vec::new();
    let mut split = Vec::new();
    for m in modules {
        let text = file.source(m.span);
        let names = match free_names((text, m.span.start), m.method, file.scoping, around) {
            Ok(_) if matches!(out.moved.splice(file.input.text, m.span), Cow::Owned(_)) => {
                Err("the file's text changes inside it")
            }
            other => other,
        };
        let names = match names {
            Ok(names) => names,
            Err(why) => {
                kept.push(format!("{} ({why})", m.id));
                continue;
            }
        };
        let path = nested_path(&out.jobs, &folder, &m.id);
        out.edits
            .push((m.span, method_value(m.method, stand_in(&path, &names))));
        out.jobs.push(super::table_job(
            file,
            m,
            path,
            m.strict || file.es_module,
            crate::ModuleKind::NestedWebpack,
        ));
        out.wrappers.nested_webpack.split += 1;
        split.push(m.id.clone());
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
    let escaping = if kept.is_empty() {
        crate::transform::exports::nested_escaping(
            file.program,
            file.scoping,
            require,
            modules,
            file.input.text,
        )
    } else {
        modules.iter().map(|m| m.id.clone()).collect()
    };
    out.nested_escapes.push((folder, escaping));
    if !kept.is_empty() {
        notes.push(format!(
            "{}: module(s) {} of the webpack bundle nested in the file's own code stay in its table",
            file.input.name,
            super::some_of(&kept)
        ));
    }
}

/// The stand-ins of the modules of the file's own table when some of them read names of the
/// file's code (rspack's ES module output: `"path"(module) {... __rspack_createRequire_require
/// ("node:path") ...}`, a top-level `let` of the file): each module's span and the loader's
/// `nested` stand-in that gives it those names, as a nested table's module gets them. `None`
/// when no module reads such a name (the table is replaced whole, see `webpack_modules`) or
/// one cannot be given its names.
pub(super) fn own_table_stand_ins(
    file: &File<'_, '_, '_>,
    modules: &[ModuleSource],
    require: Option<SymbolId>,
    path_of: &dyn Fn(&str) -> String,
) -> Option<Vec<(Span, String)>> {
    let root = file.scoping.root_scope_id();
    let around = require.map_or((root, root), |r| scopes(file.scoping, r));
    let mut named = Vec::with_capacity(modules.len());
    for m in modules {
        let text = file.source(m.span);
        let names = free_names((text, m.span.start), m.method, file.scoping, around).ok()?;
        named.push((m, names));
    }
    if named
        .iter()
        .all(|(_, names)| names.iter().all(|n| n == "this"))
    {
        return None;
    }
    Some(
        named
            .into_iter()
            .map(|(m, names)| {
                let call = stand_in(&path_of(&m.id), &names);
                (m.span, method_value(m.method, call))
            })
            .collect(),
    )
}

/// The scope of the code around a nested table and the scope of its runtime's function (the
/// one declaring the require function `require`, where the table is too), whose own names a
/// module cannot be given. A named function expression (ncc's `F=function n(e){var t=...}(2980)`,
/// or terser's `var o,s,n;o={...},n=function t(r){...}(338)`) binds its name in its own
/// scope, which the table is outside of: the code around the table is the scope holding the
/// expression, and nothing between them is the runtime's own.
fn scopes(scoping: &Scoping, require: SymbolId) -> (ScopeId, ScopeId) {
    let runtime = scoping.symbol_scope_id(require);
    let around = scoping.scope_parent_id(runtime).unwrap_or(runtime);
    if scoping.symbol_declaration(require) == scoping.get_node_id(runtime) {
        return (around, around);
    }
    (around, runtime)
}

/// The loader's stand-in for the nested module written to `path`, given `names` (`this`
/// first: the `this` the file runs with).
fn stand_in(path: &str, names: &[String]) -> String {
    let listed: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!(
        "{LOAD}.nested({path:?}, [{}], () => [{}])",
        listed.join(", "),
        names.join(", ")
    )
}

fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end && b.start < a.end
}

/// The job whose function holds `span`, the innermost.
fn holder(jobs: &[Job<'_>], span: Span) -> Option<usize> {
    jobs.iter()
        .enumerate()
        .filter(|(_, j)| j.span.start <= span.start && span.end <= j.span.end && j.span != span)
        .min_by_key(|(_, j)| j.span.size())
        .map(|(i, _)| i)
}

/// Moves module `m` out of the job `outer` holds it in: the job of its file, or why it stays.
fn split_module<'a>(
    file: &File<'_, 'a, '_>,
    out: &mut Split<'a>,
    (outer, folder): (usize, &str),
    m: &ModuleSource,
    (around, shifts): ((ScopeId, ScopeId), &mut Shifts),
) -> Result<Job<'a>, &'static str> {
    let text = file.source(m.span);
    let names = free_names((text, m.span.start), m.method, file.scoping, around)?;
    let path = nested_path(&out.jobs, folder, &m.id);
    let call = stand_in(&path, &names);
    let holder = &mut out.jobs[outer];
    let shift = shifts
        .entry(outer)
        .or_insert_with(|| Shift::of(file.input.text, holder));
    let at = place(holder, *shift, m.span, text)
        .ok_or("its text is not in its outer module's file unchanged")?;
    let value = method_value(m.method, call);
    if let Some(shift) = shift {
        shift.moved += value.len() as isize - text.len() as isize;
    }
    let inside = moved_names(&mut holder.source_names, at..at + text.len(), value.len());
    holder
        .source
        .to_mut()
        .replace_range(at..at + text.len(), &value);
    let strict = m.strict || holder.strict || file.es_module;
    let mut job = super::table_job(file, m, path, strict, crate::ModuleKind::NestedWebpack);
    // The module's own text ends its file's (after a `function` prefix for a method).
    let prefix = job.source.len() - text.len();
    job.source_names = inside
        .into_iter()
        .map(|(offset, name)| (offset + prefix as u32, name))
        .collect();
    Ok(job)
}

/// For each outer module touched (by index in the jobs), its [`Shift`], `None` when its
/// file's text did not end with the bundle's text of it before any nested module was moved.
type Shifts = rustc_hash::FxHashMap<usize, Option<Shift>>;

/// Where the bundle's text of an outer module starts in its file's text, and by how many
/// bytes the nested modules moved out of it so far (in the bundle's order) changed its length.
#[derive(Clone, Copy)]
struct Shift {
    start: usize,
    moved: isize,
}

impl Shift {
    fn of(bundle: &str, holder: &Job<'_>) -> Option<Self> {
        let own = bundle.get(holder.span.start as usize..holder.span.end as usize)?;
        let start = holder.source.len().checked_sub(own.len())?;
        (holder.source.get(start..) == Some(own)).then_some(Shift { start, moved: 0 })
    }
}

/// Where module text `text` (at `span` in the bundle) is in `holder`'s file now: where it is
/// found once, or else, for a text found more than once (two copies of a package's bundle in
/// one module), where the bundle has it, if it is there unchanged.
fn place(holder: &Job<'_>, shift: Option<Shift>, span: Span, text: &str) -> Option<usize> {
    let mut found = holder.source.match_indices(text);
    if let (Some((at, _)), None) = (found.next(), found.next()) {
        return Some(at);
    }
    let Shift { start, moved } = shift?;
    let at = (start + (span.start - holder.span.start) as usize).checked_add_signed(moved)?;
    (holder.source.get(at..at + text.len()) == Some(text)).then_some(at)
}

/// The source map's names of an outer module (by offset in its text) as they are once
/// `moved`, its text of a nested module, is replaced by a text `len` bytes long: those after
/// it shift, and those inside it are taken out and returned, by offset in the moved text.
fn moved_names(
    names: &mut Vec<(u32, String)>,
    moved: std::ops::Range<usize>,
    len: usize,
) -> Vec<(u32, String)> {
    let (start, end) = (moved.start as u32, moved.end as u32);
    let mut inside = Vec::new();
    names.retain_mut(|(offset, name)| {
        if *offset < start {
            true
        } else if *offset < end {
            inside.push((*offset - start, std::mem::take(name)));
            false
        } else {
            *offset = *offset - end + start + len as u32;
            true
        }
    });
    inside
}

/// `FOLDER/ID.cjs`, a path no module of the file has yet.
fn nested_path(jobs: &[Job<'_>], folder: &str, id: &str) -> String {
    let own = super::paths::module_path(id, None, &crate::Names::default());
    let own = own.strip_prefix("modules/").unwrap_or(&own);
    let mut path = format!("{folder}/{own}");
    while jobs.iter().any(|j| j.path == path) {
        path = format!("{folder}/_{}", path.rsplit('/').next().unwrap_or(own));
    }
    path
}

/// The folder of the modules nested in the module written to `outer_path`: its file name
/// without the extension; in a bundle of several files, with the bundle file's name after
/// it, since two files may each hold a module of that path (each its `entry`), which
/// `lib.rs` numbers apart after the stand-ins name their files.
fn nested_folder(file: &File<'_, '_, '_>, outer_path: &str) -> String {
    let stem = match outer_path.rsplit_once('/') {
        Some((dir, name)) => match name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => format!("{dir}/{stem}"),
            _ => format!("{dir}/{name}.d"),
        },
        None => format!("modules/{outer_path}.d"),
    };
    if file.several_files {
        format!("{stem}.{}", file.input.name.replace('/', "_"))
    } else {
        stem
    }
}

/// The names module function `text` (at `at` in the bundle file) reads from the code around
/// it (bound where its table is, `around`, and not by its runtime's function, `runtime`),
/// sorted; an error when it cannot be given them.
fn free_names(
    (text, at): (&str, u32),
    method: bool,
    outer: &Scoping,
    (around, runtime): (ScopeId, ScopeId),
) -> Result<Vec<String>, &'static str> {
    let function = if method { "function" } else { "" };
    let wrapped = format!("({function}{text});");
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, &wrapped, SourceType::script())
        .with_options(ParseOptions {
            preserve_parens: false,
            ..ParseOptions::default()
        })
        .parse();
    if parsed.diagnostics.errors().next().is_some() {
        return Err("it does not parse on its own");
    }
    let semantic = SemanticBuilder::new().build(&parsed.program).semantic;
    let scoping = semantic.scoping();
    let around_code = Surroundings::of(&parsed.program);
    if around_code.other {
        return Err("an arrow function reading the `arguments`, `new.target` or `super` around it");
    }
    let mut names: Vec<String> = Vec::new();
    for (name, references) in scoping.root_unresolved_references() {
        let bound: Option<SymbolId> = outer.find_binding(around, *name);
        if outer.find_binding(runtime, *name) != bound {
            return Err("it reads a name its runtime's function declares");
        }
        let Some(bound) = bound else {
            // A global, read where it is.
            continue;
        };
        // Passed by value, read as the module starts: only a name that holds one value from
        // then on (never assigned, and declared before the module, or hoisted with its value).
        let flags = outer.symbol_flags(bound);
        let hoisted = flags.intersects(SymbolFlags::Function | SymbolFlags::Import);
        if !hoisted && outer.symbol_span(bound).start > at {
            return Err("it reads a name of the code around it declared after it");
        }
        if outer
            .get_resolved_reference_ids(bound)
            .iter()
            .any(|r| outer.get_reference(*r).is_write())
        {
            return Err("it reads a name of the code around it that is assigned");
        }
        if GIVEN.contains(&name.as_str()) {
            return Err("it reads a name of the code around it that the loader gives its file");
        }
        if references
            .iter()
            .any(|r| scoping.get_reference(*r).is_write())
        {
            return Err("it assigns a name of the code around it");
        }
        names.push(name.to_string());
    }
    names.sort();
    // An arrow's `this` is the code around's: the stand-in reads it there, first.
    if around_code.this {
        names.insert(0, "this".to_owned());
    }
    Ok(names)
}

/// What an arrow module function's own code (not a function inside it) reads of the code
/// around it: its `this` (given to the file as its own), and whether it reads `arguments`,
/// `new.target` or `super`, which nothing can give it.
struct Surroundings {
    this: bool,
    other: bool,
}

impl Surroundings {
    fn of(program: &oxc_ast::ast::Program<'_>) -> Self {
        use oxc_ast::ast::{Expression, Statement};
        use oxc_ast_visit::walk;
        let mut reads = Surroundings {
            this: false,
            other: false,
        };
        if let Some(Statement::ExpressionStatement(s)) = program.body.first()
            && let Expression::ArrowFunctionExpression(arrow) = s.expression.without_parentheses()
        {
            walk::walk_arrow_function_expression(&mut reads, arrow);
        }
        reads
    }
}

impl<'a> oxc_ast_visit::Visit<'a> for Surroundings {
    fn visit_this_expression(&mut self, _: &oxc_ast::ast::ThisExpression) {
        self.this = true;
    }

    fn visit_identifier_reference(&mut self, it: &oxc_ast::ast::IdentifierReference<'a>) {
        self.other |= it.name == "arguments";
    }

    fn visit_new_target(&mut self, _: &oxc_ast::ast::NewTarget) {
        self.other = true;
    }

    fn visit_super(&mut self, _: &oxc_ast::ast::Super) {
        self.other = true;
    }

    fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: oxc_syntax::scope::ScopeFlags) {
    }

    /// A class's methods and field initializers have a `this` of their own; its heritage and
    /// computed keys are the code around's.
    fn visit_class(&mut self, it: &oxc_ast::ast::Class<'a>) {
        use oxc_ast::ast::ClassElement;
        self.other |= !it.decorators.is_empty();
        if let Some(heritage) = &it.heritage {
            self.visit_class_heritage(heritage);
        }
        for element in &it.body.body {
            match element {
                ClassElement::MethodDefinition(m) if m.computed => self.visit_property_key(&m.key),
                ClassElement::PropertyDefinition(p) if p.computed => {
                    self.visit_property_key(&p.key)
                }
                ClassElement::AccessorProperty(p) if p.computed => self.visit_property_key(&p.key),
                _ => {}
            }
        }
    }
}
