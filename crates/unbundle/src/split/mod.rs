//! The second stage: what comes out of each bundle file, and what stays. The entry the
//! bundle holds outside its table ([`entry`]), esbuild's CommonJS modules ([`esbuild`]) and
//! wrapped ES modules ([`esm`]), rollup's lazy CommonJS wrappers ([`rollup`]), Parcel's
//! registered modules ([`parcel`]), all found
//! among a body's units ([`units`]); and the modules of webpack bundles nested in any of
//! those ([`nested`]).

pub(crate) mod entry;
pub(crate) mod esbuild;
mod esbuild_jobs;
pub(crate) mod esm;
pub(crate) mod links;
mod nested;
mod parcel;
mod paths;
pub(crate) mod plain;
mod quiet;
mod rollup;
mod runtime;
pub(crate) mod shared;
pub(crate) mod units;

use std::borrow::Cow;

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::{SourceType, Span};

use crate::write::{LOAD, LOADER_FILE};
use crate::{
    Input, Names, OutputFile, Transforms, UnbundleError, module, name, recognize, transform,
};

/// One bundle file: its text with the modules replaced by the loader's, and the modules to
/// rewrite (their text borrowed from the file where it can be); what the reader should know
/// (modules left in the file, and why) goes to `notes`.
pub(crate) fn split_file<'a>(
    input: &Input<'a>,
    names: &Names,
    transforms: Transforms,
    (shared, map): (
        &shared::Shared,
        Option<&crate::write::source_map::SourceMap<'_>>,
    ),
    notes: &mut Vec<String>,
) -> Result<FileSplit<'a>, UnbundleError> {
    let allocator = Allocator::default();
    let (program, es_module) = parse(&allocator, input)?;
    let semantic = SemanticBuilder::new().build(&program).semantic;
    let file = File {
        input,
        names,
        program: &program,
        scoping: semantic.scoping(),
        es_module,
        several_files: shared.several_files,
        transforms,
    };
    let imported = shared.imported(&program, file.scoping, input.name);
    let lazy = recognize::rollup::lazy_wrappers(&program, input.text);
    let eager = recognize::eager::eager_wrappers(&program);
    let registered = recognize::parcel::registered(&program);
    let mut out = Split::default();
    let mut plain = None;
    // esbuild's helpers sit at the bundle's top level, so they are looked for first: a
    // webpack bundle inside one of its modules (or any object of functions shaped like a
    // module table) is then not taken for the file's table; [`nested`] splits a webpack
    // bundle there under its module.
    let entry = if let Some(found) =
        esbuild::find_modules(&program, file.scoping, input.text, &imported, es_module)
    {
        esbuild_jobs::esbuild_modules(&file, found, &mut out, notes)
    } else if let Some(table) =
        find_table(&file)?.filter(|t| !in_wrapper(t.span, &lazy, &eager, &registered))
    {
        webpack_modules(&file, &table, &mut out)
    } else if recognize::webpack::find_runtime(&program).is_some() {
        // webpack's runtime alone, its table filled by the chunks that follow: it stays as
        // it is.
        None
    } else if !lazy.is_empty() || !eager.is_empty() || !registered.is_empty() {
        // rollup's (or Parcel's) scope-hoisted code around its wrappers is the entry: it stays.
        None
    } else if shared.several_files {
        // A chunk of a code-split bundle holding no wrapper (ES modules esbuild or rollup
        // joined into its scope, or rollup's CommonJS chunks): a module of its own, kept
        // under its name so that what imports or requires it still finds it, and made
        // readable as the module files are. A set none of whose files holds a wrapper is
        // written so only when its files are linked to each other (see `lib.rs`): what
        // this one imports and requires tells.
        plain = Some(plain::specifiers(&program));
        None
    } else {
        return Err(UnbundleError::NotABundle {
            file: input.name.to_owned(),
        });
    };
    // rollup's wrappers also where another bundler's modules were found (a package built
    // by esbuild inside a rollup bundle): those that hold none of them.
    rollup::modules(&file, lazy, &mut out);
    rollup::eager_modules(&file, eager, &mut out);
    parcel::modules(&file, registered, &mut out);
    paths::original_paths(&file, map, &mut out);
    if let Some(map) = map {
        paths::source_names(input.text, map, &mut out.jobs);
    }
    if let Some((entry, require)) = entry {
        entry_module(&file, entry, require, &mut out);
    }
    nested::modules(&file, &mut out, notes);
    head_jobs(&file, &mut out);
    let own = esbuild::own_escapes(file.program, file.scoping, &out.jobs);
    let text = assemble(&file, &out);
    let file = OutputFile {
        path: input.name.to_owned(),
        text: transform::clean_file(&text, transforms),
    };
    Ok(FileSplit {
        file,
        role: out.role(),
        runtime: out.runtime,
        wrappers: out.wrappers,
        jobs: out.jobs,
        plain,
        nested_escapes: out.nested_escapes,
        own,
    })
}

/// Gives every job of the file, once all are found, what the file tells it: the name helper,
/// esbuild's `__toCommonJS` helper, and the header naming the files that hold the modules and
/// helpers it is given.
fn head_jobs(file: &File<'_, '_, '_>, out: &mut Split<'_>) {
    let interop = crate::requires::interop(file.program, file.scoping);
    let quiet = quiet::initializers(&out.moved);
    for job in &mut out.jobs {
        job.name_helper.clone_from(&out.name_helper);
        job.to_common_js.clone_from(&interop.to_common_js);
        job.to_esm.clone_from(&interop.to_esm);
        job.namer.clone_from(&interop.namer);
        job.quiet_inits.clone_from(&quiet);
    }
    let runtime = out
        .runtime
        .as_ref()
        .map(|r| (r.path.as_str(), &out.runtime_names[..]));
    let namespaces: Vec<(&str, &str)> = out
        .moved
        .modules
        .iter()
        .map(|m| (m.namespace.as_str(), m.id.as_str()))
        .collect();
    links::headers(&mut out.jobs, runtime, &namespaces);
}

/// The job of module `m` of a webpack table (the file's own, or one nested in a module:
/// `kind` says which), written to `path`.
fn table_job<'a>(
    file: &File<'_, 'a, '_>,
    m: &crate::recognize::webpack::ModuleSource,
    path: String,
    strict: bool,
    kind: crate::ModuleKind,
) -> Job<'a> {
    let text = file.source(m.span);
    let source = if m.method {
        Cow::Owned(format!("function{text}"))
    } else {
        Cow::Borrowed(text)
    };
    Job {
        strict,
        parameters: &module::WEBPACK,
        revealed: m.external.clone().or_else(|| file.licensed(m.span)),
        ..Job::new((m.id.clone(), path), file.input.name, source, m.span, kind)
    }
}

/// Whether `span` lies inside a rollup (or Parcel) wrapper: a table there is a bundle nested
/// in that module (see [`nested`]), not the file's.
fn in_wrapper(
    span: Span,
    lazy: &[recognize::rollup::Lazy],
    eager: &[recognize::eager::Eager],
    registered: &[recognize::parcel::Registered],
) -> bool {
    let within = |outer: Span| outer.start <= span.start && span.end <= outer.end;
    lazy.iter().any(|l| within(l.function))
        || eager.iter().any(|e| within(e.function))
        || registered.iter().any(|r| within(r.function))
}

/// What [`split_file`] makes of one bundle file.
pub(crate) struct FileSplit<'a> {
    /// The file with its modules replaced by the loader's.
    pub(crate) file: OutputFile,
    /// esbuild's helpers, moved out of the file.
    pub(crate) runtime: Option<OutputFile>,
    /// The modules to rewrite.
    pub(crate) jobs: Vec<Job<'a>>,
    /// What the file is to the others.
    pub(crate) role: recognize::Role,
    /// The wrappers found in it, and how many became files.
    pub(crate) wrappers: crate::Wrappers,
    /// A chunk of the bundle that holds no wrapper, a module of its own: the files it
    /// imports or requires by a relative path ([`plain::specifiers`]).
    pub(crate) plain: Option<Vec<String>>,
    /// The folder of each nested webpack bundle's module files, and the modules whose
    /// exports code around them can reach.
    pub(crate) nested_escapes: Vec<(String, Vec<String>)>,
    /// What the code that stays in the file does with its esbuild modules.
    pub(crate) own: transform::exports::OwnUses,
}

/// Parses a bundle file as a script (a bundle for node is a CommonJS file, where a top-level
/// `return` is allowed), or else as an ES module (`import`, `export`, top-level `await`);
/// whether it is one.
fn parse<'p>(
    allocator: &'p Allocator,
    input: &Input<'p>,
) -> Result<(oxc_ast::ast::Program<'p>, bool), UnbundleError> {
    let parsed = Parser::new(allocator, input.text, SourceType::script())
        .with_options(oxc_parser::ParseOptions {
            allow_return_outside_function: true,
            ..oxc_parser::ParseOptions::default()
        })
        .parse();
    // node runs a `.mjs` file as an ES module whatever it holds; a `.js` file with `import`
    // or `export` declarations is one too (its package says so), though it parses as a
    // script.
    let mjs = input.name.ends_with(".mjs") || parsed.module_record.has_module_syntax;
    let Some(e) = parsed.diagnostics.errors().next() else {
        if !mjs {
            return Ok((parsed.program, false));
        }
        let module = Parser::new(allocator, input.text, SourceType::mjs()).parse();
        return match module.diagnostics.errors().next() {
            None => Ok((module.program, true)),
            Some(e) => Err(UnbundleError::Parse {
                file: input.name.to_owned(),
                message: e.to_string(),
            }),
        };
    };
    let message = e.to_string();
    let module = Parser::new(allocator, input.text, SourceType::mjs()).parse();
    if module.diagnostics.errors().next().is_none() {
        return Ok((module.program, true));
    }
    Err(UnbundleError::Parse {
        file: input.name.to_owned(),
        message,
    })
}

/// One bundle file being split, and what the steps read of it.
struct File<'c, 'a, 'p> {
    input: &'c Input<'a>,
    names: &'c Names,
    program: &'c oxc_ast::ast::Program<'p>,
    scoping: &'c oxc_semantic::Scoping,
    /// The file is an ES module.
    es_module: bool,
    /// The bundle has other files.
    several_files: bool,
    transforms: Transforms,
}

impl<'a> File<'_, 'a, '_> {
    fn source(&self, span: Span) -> &'a str {
        &self.input.text[span.start as usize..span.end as usize]
    }

    /// The package a license comment kept inside `span` names.
    fn licensed(&self, span: Span) -> Option<String> {
        name::license::package_in(self.input.text, &self.program.comments, span)
    }

    /// Whether the bundle's top level is strict.
    fn strict(&self) -> bool {
        self.program
            .directives
            .iter()
            .any(|d| d.directive == "use strict")
    }
}

/// What the steps decide for one file: the edits of its text, the modules to rewrite, and
/// what it is to the other files.
#[derive(Default)]
struct Split<'a> {
    /// What replaces what in the file.
    edits: Vec<(Span, String)>,
    jobs: Vec<Job<'a>>,
    /// esbuild's ES modules moved into files: what the rest of the bundle's text must change.
    moved: esm::Moved,
    chunk: Option<recognize::webpack::Chunk>,
    node_chunk: bool,
    waits_for: Vec<String>,
    wrappers: crate::Wrappers,
    /// esbuild's `__name` helper, by name, which every module of the file receives.
    name_helper: Option<String>,
    /// esbuild's helpers, moved to a file of their own.
    runtime: Option<OutputFile>,
    /// The names of the helpers moved there.
    runtime_names: Vec<String>,
    /// The folder of each nested webpack bundle's module files, and the modules whose
    /// exports code around them can reach (see [`nested`]).
    nested_escapes: Vec<(String, Vec<String>)>,
}

impl Split<'_> {
    fn role(&self) -> recognize::Role {
        match (&self.chunk, self.node_chunk) {
            (Some(chunk), _) => recognize::Role::Jsonp(chunk.clone()),
            (None, true) => recognize::Role::NodeChunk,
            (None, false) => recognize::Role::Runs {
                waits_for: self.waits_for.clone(),
            },
        }
    }
}

/// The entry found, and the name of webpack's require function it receives (none for
/// esbuild).
type FoundEntry = Option<(entry::Entry, Option<String>)>;

/// webpack's module table, or an error naming the line of a table pilotfish does not
/// recognize.
fn find_table(file: &File<'_, '_, '_>) -> Result<Option<recognize::webpack::Table>, UnbundleError> {
    recognize::webpack::find_table(file.program, file.scoping).map_err(|span| {
        UnbundleError::UnknownTable {
            file: file.input.name.to_owned(),
            line: 1 + file.input.text[..span.start as usize].matches('\n').count(),
        }
    })
}

/// A webpack file's modules: the table becomes the loader's, each module function a job; the
/// entry webpack inlined into its runtime, when there is one.
fn webpack_modules<'a>(
    file: &File<'_, 'a, '_>,
    table: &recognize::webpack::Table,
    out: &mut Split<'a>,
) -> FoundEntry {
    out.chunk = table.chunk.clone();
    out.waits_for = table.waits_for.clone();
    // `exports.modules = {...}` with no runtime: a chunk its runtime `require()`s.
    out.node_chunk = table.require.is_none() && table.chunk.is_none();
    // webpack in development keys modules by their paths.
    let path_of = |id: &str| paths::module_path(id, paths::is_path(id).then_some(id), file.names);
    let require = table
        .require
        .and_then(|r| file.scoping.get_reference(r).symbol_id());
    match nested::own_table_stand_ins(file, &table.modules, require, &path_of) {
        // Modules that read the file's names get them, each from a stand-in of its own.
        Some(stand_ins) => {
            out.edits.extend(stand_ins);
            out.edits.sort_by_key(|(s, _)| (s.start, s.end));
        }
        None => out.edits.push((
            table.span,
            format!("{LOAD}({})", table_literal(table, &path_of)),
        )),
    }
    out.wrappers.webpack = crate::Count {
        found: table.modules.len(),
        split: table.modules.len(),
    };
    for m in &table.modules {
        out.jobs.push(table_job(
            file,
            m,
            path_of(&m.id),
            m.strict,
            crate::ModuleKind::Webpack,
        ));
    }
    let scoping = file.scoping;
    let require = scoping.get_reference(table.require?).symbol_id()?;
    let found = entry::find(
        file.program,
        scoping,
        file.input.text,
        &entry::Bundler::Webpack {
            require,
            table: table.span,
        },
    )?;
    Some((found, Some(scoping.symbol_name(require).to_owned())))
}

/// The first few of many names and how many more: a Bun bundle can hold over a thousand, and
/// a note of 30,000 characters hides the summary it belongs to.
fn some_of(names: &[String]) -> String {
    const SHOWN: usize = 12;
    if names.len() <= SHOWN {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..SHOWN].join(", "),
        names.len() - SHOWN
    )
}

/// A method (`"path"(exports, module) {...}`) becomes a property holding the function, which
/// esbuild's helpers call the same way.
fn method_value(method: bool, call: String) -> String {
    if method { format!(": {call}") } else { call }
}

/// The entry becomes a module file, run where its code was, with what it was given there,
/// when nothing else edits its code.
fn entry_module<'a>(
    file: &File<'_, 'a, '_>,
    entry: entry::Entry,
    require: Option<String>,
    out: &mut Split<'a>,
) {
    if !out.edits.iter().all(|(s, _)| s.end <= entry.span.start) {
        return;
    }
    // Code the entry builds at run time (`new Function("m", "return import(m)")`, prettier's
    // bin) would `import()` from the module file's folder, or not at all: it runs only where
    // it is.
    let source = file.source(entry.span);
    if source.contains("Function(") || source.contains("eval(") {
        return;
    }
    let id = unique_id(&out.jobs, "entry".to_owned());
    let path = paths::module_path(&id, None, file.names);
    let call = match &require {
        Some(require) => format!("{LOAD}.entry.call(this, {path:?}, {require})"),
        None => {
            let outer = esbuild::Outer {
                values: entry.outer.clone(),
                ..esbuild::Outer::default()
            };
            format!(
                "{}.call(this, exports, module)",
                commonjs_call(&path, &outer)
            )
        }
    };
    let replacement = if entry.in_declaration {
        format!("__pilotfish_entry = {call};")
    } else {
        format!("{call};")
    };
    out.edits.push((entry.span, replacement));
    let (parameters, takes): (&'static [&'static str], _) = if require.is_some() {
        (&module::WEBPACK, Vec::new())
    } else {
        (&[], entry.outer.clone())
    };
    out.jobs.push(Job {
        strict: entry.strict,
        parameters,
        takes,
        ..Job::new(
            (id, path),
            file.input.name,
            Cow::Owned(entry.source),
            entry.span,
            crate::ModuleKind::Entry,
        )
    });
}

/// The file's new text: the loader's line after the prelude, the edits made, and the
/// substitutions of moved names everywhere else.
fn assemble(file: &File<'_, '_, '_>, out: &Split<'_>) -> String {
    let text = file.input.text;
    let prelude_at = if out.edits.is_empty() {
        0
    } else {
        prelude_position(file.program)
    };
    let mut assembled = String::with_capacity(text.len() / 4);
    assembled.push_str(&text[..prelude_at]);
    // The loader sits in the output folder; a file of the set may be in a folder of it.
    let depth = file.input.name.matches('/').count();
    let loader = if depth == 0 {
        format!("./{LOADER_FILE}")
    } else {
        format!("{}{LOADER_FILE}", "../".repeat(depth))
    };
    if !out.edits.is_empty() && file.es_module {
        // An ES module has no `require` or `module`: the loader gets node's `require` made
        // for this file, and a module object of its own; and the file's `import.meta` and
        // `import()`, which its module files read through it (see `imports.rs`).
        assembled.push_str(&format!(
            "\nimport {{ createRequire as __pilotfish_require }} from \"node:module\";\nvar {LOAD} = __pilotfish_require(import.meta.url)(\"{loader}\")({{ exports: {{}}, filename: __pilotfish_require(import.meta.url)(\"node:url\").fileURLToPath(import.meta.url) }}, __pilotfish_require(import.meta.url), {{ meta: import.meta, load: (specifier, options) => import(specifier, options) }});\n"
        ));
    } else if !out.edits.is_empty() {
        assembled.push_str(&format!(
            "\nvar {LOAD} = require(\"{loader}\")(module, require, {{ meta: undefined, load: (specifier, options) => import(specifier, options) }});\n"
        ));
    }
    let mut at = prelude_at;
    for (span, replacement) in &out.edits {
        out.moved
            .splice_into(&mut assembled, text, at, span.start as usize);
        assembled.push_str(replacement);
        at = span.end as usize;
    }
    out.moved.splice_into(&mut assembled, text, at, text.len());
    assembled
}

/// The loader's stand-in for an esbuild CommonJS module function (or entry): the module file,
/// the bundle's top-level names it uses and, when it runs, their values.
fn commonjs_call(path: &str, outer: &esbuild::Outer) -> String {
    format!("{LOAD}.commonjs({path:?}, {})", passed_in(outer))
}

/// The loader's stand-in for the function of an esbuild ES module: the module file, the
/// namespace object it defines its getters on, the bundle's top-level names it uses and, when
/// it runs, their values; for an async one, a function that returns its promise.
fn esm_call(path: &str, namespace: &str, outer: &esbuild::Outer, asynchronous: bool) -> String {
    // An async initializer's file holds top-level `await`: the loader runs it as an async
    // function's body.
    let load = if asynchronous { "esmAsync" } else { "esm" };
    format!("{LOAD}.{load}({path:?}, {namespace}, {})", passed_in(outer))
}

/// The bundle's top-level names a module file receives: `["a", "b"], () => [a, b]`, the
/// values read when the module runs; the live names come last, as one object whose getters
/// and setters reach the bundle's variables (`__pilotfish_live`).
fn passed_in(outer: &esbuild::Outer) -> String {
    let mut names: Vec<String> = outer.values.iter().map(|n| format!("{n:?}")).collect();
    let mut values = outer.values.clone();
    if !outer.live.is_empty() {
        names.push(format!("{:?}", esbuild::LIVE));
        let accessors: Vec<String> = outer
            .live
            .iter()
            .map(|n| {
                format!("get {n}() {{ return {n}; }}, set {n}(__pilotfish_value) {{ {n} = __pilotfish_value; }}")
            })
            .collect();
        values.push(format!("{{ {} }}", accessors.join(", ")));
    }
    format!("[{}], () => [{}]", names.join(", "), values.join(", "))
}

/// One module to rewrite.
pub(crate) struct Job<'a> {
    pub(crate) id: String,
    /// Where its file goes.
    pub(crate) path: String,
    /// The bundle file it comes from.
    pub(crate) file: &'a str,
    /// Its function's text, borrowed from the bundle file where it can be.
    pub(crate) source: Cow<'a, str>,
    pub(crate) strict: bool,
    /// What the bundler passes it, by position.
    pub(crate) parameters: &'static [&'static str],
    /// A name the module's code reveals (webpack's external modules: `fs`).
    pub(crate) revealed: Option<String>,
    /// What held it in the bundle.
    pub(crate) kind: crate::ModuleKind,
    /// Its function's size in the bundle, in bytes.
    pub(crate) size: usize,
    /// Its function's place in the bundle file.
    pub(crate) span: Span,
    /// esbuild's `__name` helper, as the module reads it (see `name/keep_names.rs`).
    pub(crate) name_helper: Option<String>,
    /// The source map's names by byte offset in `source` (see `name/source_names.rs`).
    pub(crate) source_names: Vec<(u32, String)>,
    /// The bundle's top-level names the module is given (esbuild's modules).
    pub(crate) takes: Vec<String>,
    /// Comment lines that open its file: which files the names it is given come from (see
    /// [`links`]).
    pub(crate) header: String,
    /// The calls of other modules' wrappers its file writes as `require`s of their files
    /// (see `requires.rs`): the bundle's name, and the path from the file.
    pub(crate) links: Vec<crate::requires::Link>,
    /// An ES module moved whole: its namespace object's name in the bundle.
    pub(crate) namespace: Option<String>,
    /// The bundle file's `__toCommonJS` helper, when it has esbuild's shape.
    pub(crate) to_common_js: Option<String>,
    /// The bundle file's `__toESM` helper, when it has esbuild's shape.
    pub(crate) to_esm: Option<String>,
    /// The bundle file's `__name` helper, when it hands back the function it names.
    pub(crate) namer: Option<String>,
    /// The initializers of the file's ES modules that run none of the bundle's code (see
    /// `quiet.rs`).
    pub(crate) quiet_inits: Vec<String>,
}

impl<'a> Job<'a> {
    /// A module of `kind` moved from `span` of bundle `file` into a file at `path`, holding
    /// `source`: what every job has. The callers set what their bundler adds (strictness, the
    /// parameters the bundler passes, the names it is given) with `..Job::new(...)`.
    pub(crate) fn new(
        (id, path): (String, String),
        file: &'a str,
        source: Cow<'a, str>,
        span: Span,
        kind: crate::ModuleKind,
    ) -> Self {
        Job {
            id,
            path,
            file,
            source,
            strict: false,
            parameters: &[],
            revealed: None,
            kind,
            size: span.size() as usize,
            span,
            name_helper: None,
            source_names: Vec::new(),
            takes: Vec::new(),
            header: String::new(),
            links: Vec::new(),
            namespace: None,
            to_common_js: None,
            to_esm: None,
            namer: None,
            quiet_inits: Vec::new(),
        }
    }
}

/// A job id no job of `jobs` has yet: `id`, with `_` added until it is free (a bundle may give
/// two modules one name).
pub(super) fn unique_id(jobs: &[Job<'_>], mut id: String) -> String {
    while jobs.iter().any(|j| j.id == id) {
        id.push('_');
    }
    id
}

/// Where the loader's line goes: after a hashbang and the directive prologue, which must stay
/// first to keep their meaning.
fn prelude_position(program: &oxc_ast::ast::Program<'_>) -> usize {
    let after_directives = program.directives.last().map(|d| d.span.end);
    let after_hashbang = program.hashbang.as_ref().map(|h| h.span.end);
    after_directives.or(after_hashbang).unwrap_or(0) as usize
}

/// The loader's table: each id with its module file, in the table's own order (arrays keep
/// their holes).
fn table_literal(table: &recognize::webpack::Table, path_of: &dyn Fn(&str) -> String) -> String {
    match table.kind {
        recognize::webpack::TableKind::Object => {
            let entries: Vec<String> = table
                .modules
                .iter()
                .map(|m| {
                    format!(
                        "\n  {}: {:?}",
                        serde_json::to_string(&m.id).expect("a string serializes"),
                        path_of(&m.id)
                    )
                })
                .collect();
            format!("{{{}\n}}", entries.join(","))
        }
        recognize::webpack::TableKind::Array { len } => {
            let mut slots = vec![String::new(); len];
            for m in &table.modules {
                let index: usize = m.id.parse().expect("array ids are indices");
                slots[index] = format!("{:?}", path_of(&m.id));
            }
            let trailing_hole = slots.last().is_some_and(String::is_empty);
            format!(
                "[{}{}]",
                slots.join(", "),
                if trailing_hole { "," } else { "" }
            )
        }
    }
}
