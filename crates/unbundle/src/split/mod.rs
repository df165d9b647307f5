//! The second stage: what comes out of each bundle file, and what stays. The entry the
//! bundle holds outside its table ([`entry`]), esbuild's CommonJS modules ([`esbuild`]) and
//! wrapped ES modules ([`esm`]), all found among a body's units ([`units`]).

pub(crate) mod entry;
pub(crate) mod esbuild;
pub(crate) mod esm;
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
/// The third part is what the file is to the others ([`recognize::Role`]).
pub(crate) fn split_file<'a>(
    input: &Input<'a>,
    names: &Names,
    transforms: Transforms,
    notes: &mut Vec<String>,
) -> Result<(OutputFile, Vec<Job<'a>>, recognize::Role), UnbundleError> {
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
    let mut moved = esm::Moved::default();
    let mut chunk = None;
    let mut node_chunk = false;
    let mut waits_for = Vec::new();
    let table = recognize::webpack::find_table(&program, scoping).map_err(|span| {
        UnbundleError::UnknownTable {
            file: input.name.to_owned(),
            line: 1 + input.text[..span.start as usize].matches('\n').count(),
        }
    })?;
    if let Some(table) = table {
        chunk = table.chunk.clone();
        waits_for = table.waits_for.clone();
        // `exports.modules = {...}` with no runtime: a chunk its runtime `require()`s.
        node_chunk = table.require.is_none() && table.chunk.is_none();
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
                let found = entry::find(
                    &program,
                    scoping,
                    input.text,
                    &entry::Bundler::Webpack {
                        require,
                        table: table.span,
                    },
                )?;
                Some((found, Some(scoping.symbol_name(require).to_owned())))
            });
    } else if let Some(esbuild::Found {
        modules: found,
        spans: wrappers,
        moved: planned,
        stayed,
    }) = esbuild::find_modules(&program, scoping, input.text)
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
        entry = entry::find(
            &program,
            scoping,
            input.text,
            &entry::Bundler::Esbuild {
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
    let role = match (chunk, node_chunk) {
        (Some(chunk), _) => recognize::Role::Jsonp(chunk),
        (None, true) => recognize::Role::NodeChunk,
        (None, false) => recognize::Role::Runs { waits_for },
    };
    Ok((file, jobs, role))
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
