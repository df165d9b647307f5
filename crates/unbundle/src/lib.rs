//! Splits a webpack bundle into one readable file per module that still runs: seed 001's
//! reverse-engineering toolchain, made safe. The bundle is parsed (oxc), its module table
//! found by shape ([`shape`]), each module function rewritten into a module file
//! ([`module`], in parallel), and the bundle's own runtime kept, its table replaced by one
//! that runs the module files (`loader.js`). Pure: text in, files out; the CLI writes them.
//!
//! ```
//! let bundle = r#"(()=>{var e={1:(e,t,r)=>{e.exports=r(2)+1},2:e=>{e.exports=41}},t={};
//! function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};
//! return e[o](s,s.exports,r),s.exports}console.log(r(1))})();"#;
//! let out = unbundle::unbundle(&[unbundle::Input { name: "main.js", text: bundle }]).unwrap();
//! // Modules 1 and 2, and the entry webpack inlined into its runtime.
//! assert_eq!(out.manifest.modules.len(), 3);
//! let one = &out.files.iter().find(|f| f.path == "modules/1.js").unwrap().text;
//! assert!(one.contains("module.exports = require(2) + 1"), "{one}");
//! ```

pub mod junk;
mod module;
mod name;
mod recognize;
mod refs;
mod split;
mod syntax;
mod transform;
mod write;

pub use module::ModuleError;
pub use transform::{Changes, Transforms};

use std::borrow::Cow;

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::{SourceType, Span};
use serde::Serialize;

use write::{LOAD, LOADER, LOADER_FILE};

/// One file of the bundle, as given (the runtime first, then its chunks).
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The file's name; the output keeps it, so that the runtime still finds its chunks.
    pub name: &'a str,
    pub text: &'a str,
}

/// A file to write, its path relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    pub text: String,
}

/// Everything to write: the bundle's files with their tables replaced, the loader, one file
/// per module, and the manifest (`unbundle.json`, also among `files`).
#[derive(Debug, Clone)]
pub struct Output {
    pub files: Vec<OutputFile>,
    pub manifest: Manifest,
    /// What the reader should know: parameters left with their minified names, modules left
    /// in the bundle file, and why.
    pub notes: Vec<String>,
    /// What the readability transforms changed, over all modules.
    pub changes: Changes,
}

/// `unbundle.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Manifest {
    /// The file to run: the bundle's first file, or for a bundle of JSONP chunks (made for a
    /// web page) `index.js`, which runs the page's files in order.
    pub entry: String,
    pub modules: Vec<ManifestModule>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestModule {
    /// The id the bundle's runtime knows the module by (a table key or an array index).
    pub id: String,
    /// The module file, relative to the output folder.
    pub path: String,
    /// A name for the module, when one is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The bundle file the module came from.
    pub file: String,
}

/// Why a bundle could not be unbundled. Nothing is written in any of these cases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnbundleError {
    #[error("{file}: not JavaScript that parses: {message}")]
    Parse { file: String, message: String },
    #[error(
        "{file}: not a bundle pilotfish recognizes (no webpack module table, an object or array of module functions, and no esbuild __commonJS or __esm wrappers)"
    )]
    NotABundle { file: String },
    #[error(
        "{file}:{line}: webpack's runtime runs its modules from this table, but pilotfish does not recognize its shape (module functions of at most three plain parameters, keyed by ids); please report the bundler and its version"
    )]
    UnknownTable { file: String, line: usize },
    #[error("no input files: give the bundle's files in load order, the runtime first")]
    NoInput,
    #[error(
        "modules {first} and {second} would both be written to {path}: give them different paths in the names map"
    )]
    SamePath {
        path: String,
        first: String,
        second: String,
    },
    #[error(transparent)]
    Module(#[from] ModuleError),
}

/// Module names and paths by id, kept by hand (the seed's id map):
/// `{"12781": {"name": "stream", "path": "node/stream.js"}}`.
pub type Names = std::collections::BTreeMap<String, Named>;

/// A module's hand-kept name and path (relative to the output folder).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub name: Option<String>,
    pub path: Option<String>,
}

/// How to unbundle.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Modules named by hand.
    pub names: Names,
    /// The readability transforms to apply (all by default).
    pub transforms: Transforms,
}

/// Unbundles `inputs`, the bundle's files in load order, with every transform.
pub fn unbundle(inputs: &[Input<'_>]) -> Result<Output, UnbundleError> {
    unbundle_with(inputs, &Options::default())
}

/// [`unbundle`] with options.
pub fn unbundle_with(inputs: &[Input<'_>], options: &Options) -> Result<Output, UnbundleError> {
    let names = &options.names;
    let Some(entry) = inputs.first() else {
        return Err(UnbundleError::NoInput);
    };
    let mut files = Vec::new();
    let mut jobs = Vec::new();
    let mut notes = Vec::new();
    let mut chunks = Vec::new();
    for input in inputs {
        let (file, found, chunk) = split_file(input, names, options.transforms, &mut notes)?;
        files.push(file);
        jobs.extend(found);
        chunks.push(chunk);
    }
    let mut paths: rustc_hash::FxHashMap<&str, &str> = rustc_hash::FxHashMap::default();
    for job in &jobs {
        if let Some(first) = paths.insert(job.path.as_str(), job.id.as_str()) {
            return Err(UnbundleError::SamePath {
                path: job.path.clone(),
                first: first.to_owned(),
                second: job.id.clone(),
            });
        }
    }
    // Module names: the map's, then those the bundle reveals.
    let mut modules = Vec::with_capacity(jobs.len());
    let mut module_names = name::ModuleNames::default();
    for job in &jobs {
        let name = names
            .get(&job.id)
            .and_then(|n| n.name.clone())
            .or_else(|| job.revealed.clone());
        if let Some(name) = &name {
            module_names.insert(job.id.clone(), name.clone());
        }
        modules.push(ManifestModule {
            id: job.id.clone(),
            path: job.path.clone(),
            name,
            file: job.file.to_owned(),
        });
    }
    let mut transforms = options.transforms;
    // Only where the runtime defines `require.d` and `require.r` as webpack's does.
    transforms.helpers &= inputs.iter().any(|i| {
        ["__esModule", "toStringTag", "enumerable", "defineProperty"]
            .iter()
            .all(|mark| i.text.contains(mark))
    });
    let every: Vec<usize> = (0..jobs.len()).collect();
    let mut results = rewrite_all(&jobs, &every, transforms, &module_names, None);
    // The second pass, for the modules the transforms that depend on other modules touch.
    if transforms.calls || transforms.plain_exports || transforms.helpers {
        let facts: Vec<(&str, &transform::exports::Facts)> = jobs
            .iter()
            .zip(&results)
            .filter_map(|(job, r)| r.as_ref().ok().map(|f| (job.id.as_str(), &f.facts)))
            .collect();
        let plan = transform::exports::plan(
            facts.iter().copied(),
            transforms.calls,
            transforms.plain_exports,
            transforms.helpers,
        );
        let touched: Vec<usize> = (0..jobs.len())
            .filter(|&i| {
                results[i]
                    .as_ref()
                    .is_ok_and(|f| plan.touches(&jobs[i].id, &f.facts))
            })
            .collect();
        let again = rewrite_all(&jobs, &touched, transforms, &module_names, Some(&plan));
        for (i, result) in touched.into_iter().zip(again) {
            results[i] = result;
        }
    }
    let mut changes = Changes::default();
    for (job, result) in jobs.iter().zip(results) {
        let file = result?;
        changes += file.changes;
        if !file.kept.is_empty() {
            notes.push(format!(
                "module {}: kept the parameter name(s) {} where `module`, `exports` or `require` would have captured or been shadowed by another name",
                job.id,
                file.kept.join(", ")
            ));
        }
        files.push(OutputFile {
            path: job.path.clone(),
            text: file.text,
        });
    }
    files.push(OutputFile {
        path: LOADER_FILE.to_owned(),
        text: LOADER.to_owned(),
    });
    let input_names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
    let entry = match write::page::scripts(&input_names, &chunks) {
        Some(scripts) => {
            let (path, text) = write::page::file(&scripts, &input_names);
            files.push(OutputFile {
                path: path.clone(),
                text,
            });
            path
        }
        None => entry.name.to_owned(),
    };
    let manifest = Manifest { entry, modules };
    files.push(OutputFile {
        path: "unbundle.json".to_owned(),
        text: serde_json::to_string_pretty(&manifest).expect("the manifest serializes") + "\n",
    });
    Ok(Output {
        files,
        manifest,
        notes,
        changes,
    })
}

/// One bundle file: its text with the modules replaced by the loader's, and the modules to
/// rewrite (their text borrowed from the file where it can be); what the reader should know
/// (modules left in the file, and why) goes to `notes`.
/// The third part is what a JSONP chunk's push says of it, when the file is one.
fn split_file<'a>(
    input: &Input<'a>,
    names: &Names,
    transforms: Transforms,
    notes: &mut Vec<String>,
) -> Result<(OutputFile, Vec<Job<'a>>, Option<recognize::webpack::Chunk>), UnbundleError> {
    let allocator = Allocator::default();
    // A bundle for node is a CommonJS file, where a top-level `return` is allowed.
    let parsed = Parser::new(&allocator, input.text, SourceType::script())
        .with_options(oxc_parser::ParseOptions {
            allow_return_outside_function: true,
            ..oxc_parser::ParseOptions::default()
        })
        .parse();
    if let Some(e) = parsed.diagnostics.errors().next() {
        return Err(UnbundleError::Parse {
            file: input.name.to_owned(),
            message: e.to_string(),
        });
    }
    let program = parsed.program;
    let semantic = SemanticBuilder::new().build(&program).semantic;
    let scoping = semantic.scoping();
    let source = |span: Span| &input.text[span.start as usize..span.end as usize];
    // A package's license comment kept inside a module names it.
    let licensed = |span: Span| name::license::package_in(input.text, &program.comments, span);
    // What replaces what in the file, in order.
    let mut edits: Vec<(Span, String)> = Vec::new();
    let mut jobs = Vec::new();
    let entry;
    // esbuild's ES modules moved into files: what the rest of the bundle's text must change.
    let mut moved = split::esm::Moved::default();
    let mut chunk = None;
    let table = recognize::webpack::find_table(&program, scoping).map_err(|span| {
        UnbundleError::UnknownTable {
            file: input.name.to_owned(),
            line: 1 + input.text[..span.start as usize].matches('\n').count(),
        }
    })?;
    if let Some(table) = table {
        chunk = table.chunk.clone();
        // webpack in development keys modules by their paths.
        let path_of = |id: &str| module_path(id, is_path(id).then_some(id), names);
        edits.push((
            table.span,
            format!("{LOAD}({})", table_literal(&table, &path_of)),
        ));
        for m in &table.modules {
            jobs.push(Job {
                id: m.id.clone(),
                path: path_of(&m.id),
                file: input.name,
                source: Cow::Borrowed(source(m.span)),
                strict: m.strict,
                parameters: &module::WEBPACK,
                revealed: m.external.clone().or_else(|| licensed(m.span)),
            });
        }
        entry = table
            .require
            .and_then(|r| scoping.get_reference(r).symbol_id())
            .and_then(|require| {
                let found = split::entry::find(
                    &program,
                    scoping,
                    input.text,
                    &split::entry::Bundler::Webpack {
                        require,
                        table: table.span,
                    },
                )?;
                Some((found, Some(scoping.symbol_name(require).to_owned())))
            });
    } else if let Some(split::esbuild::Found {
        modules: found,
        spans: wrappers,
        moved: planned,
        stayed,
    }) = split::esbuild::find_modules(&program, scoping, input.text)
    {
        moved = planned;
        if !stayed.is_empty() {
            notes.push(format!(
                "{}: esbuild's CommonJS module(s) {} stay in the bundle file: each assigns a variable of the bundle's top level, which a module file would only have a copy of",
                input.name,
                stayed.join(", ")
            ));
        }
        if !moved.stayed.is_empty() {
            notes.push(format!(
                "{}: esbuild's ES module(s) {} stay in the bundle file: moving what esbuild hoisted out of them could change what runs (docs/unbundle.md, \"esbuild's ES modules\")",
                input.name,
                moved.stayed.join(", ")
            ));
        }
        // Each module function is replaced by one that runs its file.
        for m in &found {
            let path = module_path(&m.id, m.source_path.as_deref(), names);
            // A method (`"path"(exports, module) {...}`) becomes a property holding the
            // function, which `__commonJS` calls the same way.
            edits.push((
                m.span,
                format!(
                    "{}{}",
                    if m.method { ": " } else { "" },
                    commonjs_call(&path, &m.outer)
                ),
            ));
            jobs.push(Job {
                id: m.id.clone(),
                path,
                file: input.name,
                source: if m.method {
                    Cow::Owned(format!("function{}", moved.splice(input.text, m.span)))
                } else {
                    moved.splice(input.text, m.span)
                },
                strict: false,
                parameters: &module::ESBUILD,
                revealed: name::revealed_by_esbuild(&m.id).or_else(|| licensed(m.span)),
            });
        }
        let strict = program
            .directives
            .iter()
            .any(|d| d.directive == "use strict");
        for m in &moved.modules {
            let path = module_path(&m.id, m.source_path.as_deref(), names);
            edits.push((
                m.function,
                format!(
                    "{}{}",
                    if m.method { ": " } else { "" },
                    esm_call(&path, &m.namespace, &m.outer)
                ),
            ));
            jobs.push(Job {
                id: m.id.clone(),
                path,
                file: input.name,
                source: Cow::Owned(m.source.clone()),
                strict,
                parameters: &module::ESM,
                revealed: name::revealed_by_esbuild(&m.id).or_else(|| licensed(m.function)),
            });
        }
        edits.extend(moved.edits.iter().cloned());
        edits.sort_by_key(|(s, _)| (s.start, s.end));
        entry = split::entry::find(
            &program,
            scoping,
            input.text,
            &split::entry::Bundler::Esbuild {
                modules: &wrappers,
                moved: &moved,
            },
        )
        .map(|e| (e, None));
    } else if recognize::webpack::find_runtime(&program).is_some() {
        // webpack's runtime alone, its table filled by the chunks that follow: it stays as
        // it is.
        entry = None;
    } else {
        return Err(UnbundleError::NotABundle {
            file: input.name.to_owned(),
        });
    }
    if let Some((entry, require)) = entry
        && edits.iter().all(|(s, _)| s.end <= entry.span.start)
    {
        let mut id = "entry".to_owned();
        while jobs.iter().any(|j| j.id == id) {
            id.push('_');
        }
        let path = module_path(&id, None, names);
        // The entry runs where its code was, with what it was given there.
        let call = match &require {
            Some(require) => format!("{LOAD}.entry.call(this, {path:?}, {require})"),
            None => format!(
                "{}.call(this, exports, module)",
                commonjs_call(&path, &entry.outer)
            ),
        };
        let replacement = if entry.in_declaration {
            format!("__pilotfish_entry = {call};")
        } else {
            format!("{call};")
        };
        edits.push((entry.span, replacement));
        jobs.push(Job {
            id,
            path,
            file: input.name,
            source: Cow::Owned(entry.source),
            strict: entry.strict,
            parameters: if require.is_some() {
                &module::WEBPACK
            } else {
                &[]
            },
            revealed: None,
        });
    }
    let prelude_at = if edits.is_empty() {
        0
    } else {
        prelude_position(&program)
    };
    let mut text = String::with_capacity(input.text.len() / 4);
    text.push_str(&input.text[..prelude_at]);
    if !edits.is_empty() {
        text.push_str(&format!(
            "\nvar {LOAD} = require(\"./{LOADER_FILE}\")(module, require);\n"
        ));
    }
    let mut at = prelude_at;
    for (span, replacement) in &edits {
        moved.splice_into(&mut text, input.text, at, span.start as usize);
        text.push_str(replacement);
        at = span.end as usize;
    }
    moved.splice_into(&mut text, input.text, at, input.text.len());
    let file = OutputFile {
        path: input.name.to_owned(),
        text: transform::clean_file(&text, transforms),
    };
    Ok((file, jobs, chunk))
}

/// The loader's stand-in for an esbuild CommonJS module function (or entry): the module file,
/// the bundle's top-level names it uses and, when it runs, their values.
fn commonjs_call(path: &str, outer: &[String]) -> String {
    format!("{LOAD}.commonjs({path:?}, {})", passed_in(outer))
}

/// The loader's stand-in for the function of an esbuild ES module: the module file, the
/// namespace object it defines its getters on, the bundle's top-level names it uses and, when
/// it runs, their values.
fn esm_call(path: &str, namespace: &str, outer: &[String]) -> String {
    format!("{LOAD}.esm({path:?}, {namespace}, {})", passed_in(outer))
}

/// The bundle's top-level names a module file receives: `["a", "b"], () => [a, b]`, the
/// values read when the module runs.
fn passed_in(outer: &[String]) -> String {
    let names: Vec<String> = outer.iter().map(|n| format!("{n:?}")).collect();
    format!("[{}], () => [{}]", names.join(", "), outer.join(", "))
}

/// One module to rewrite.
struct Job<'a> {
    id: String,
    /// Where its file goes.
    path: String,
    /// The bundle file it comes from.
    file: &'a str,
    /// Its function's text, borrowed from the bundle file where it can be.
    source: Cow<'a, str>,
    strict: bool,
    /// What the bundler passes it, by position.
    parameters: &'static [&'static str],
    /// A name the module's code reveals (webpack's external modules: `fs`).
    revealed: Option<String>,
}

/// Rewrites the modules `which` lists (indices into `jobs`), on as many threads as the machine
/// has cores; their results in that order.
fn rewrite_all(
    jobs: &[Job<'_>],
    which: &[usize],
    transforms: Transforms,
    names: &name::ModuleNames,
    plan: Option<&transform::exports::Plan>,
) -> Vec<Result<module::ModuleFile, ModuleError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(which.len().max(1));
    let per = which.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = which
            .chunks(per)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|&i| {
                            let job = &jobs[i];
                            module::rewrite(
                                &job.id,
                                &job.source,
                                job.strict,
                                job.parameters,
                                transforms,
                                names,
                                plan,
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("rewriting a module does not panic"))
            .collect()
    })
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

/// Whether a module id is a source path (`./src/a.js`, `../node_modules/ms/index.js`).
fn is_path(id: &str) -> bool {
    id.contains('/')
        && id
            .rsplit('/')
            .next()
            .is_some_and(|name| name.contains('.') && !name.starts_with('.'))
}

/// Where module `id` is written: the names map's path when it gives one, else the source path
/// the bundle revealed, else `modules/ID.js` (always inside the output folder: `.` parts
/// are dropped and `..` parts become `__`, so that `../a.js` and `a.js` stay apart).
fn module_path(id: &str, source_path: Option<&str>, names: &Names) -> String {
    if let Some(path) = names
        .get(id)
        .and_then(|n| n.path.as_deref())
        .or(source_path)
    {
        let clean: Vec<&str> = path
            .split(['/', '\\'])
            .filter(|part| !part.is_empty() && *part != ".")
            .map(|part| if part == ".." { "__" } else { part })
            .collect();
        if !clean.is_empty() {
            return format!("modules/{}", clean.join("/"));
        }
    }
    format!("modules/{}.js", file_safe(id))
}

/// An id as a file name: ids are numbers, paths or webpack 4's hashes (`+2uE`, `/BUg`);
/// letters, digits, `_`, `-`, `.` and `$` stay (esbuild's ids are names such as
/// `require_ms`), and anything else becomes `_` and its code in hex (`_2b`, `_2f`), so that
/// `+BUg` and `/BUg` do not share a file.
fn file_safe(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '$') {
            out.push(c);
        } else {
            out.push_str(&format!("_{:x}", u32::from(c)));
        }
    }
    out
}
