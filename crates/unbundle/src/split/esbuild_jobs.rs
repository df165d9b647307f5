//! The jobs of an esbuild (or Bun, or rolldown) bundle file's modules: each CommonJS module
//! and each wrapped ES module that moves, the entry esbuild left at the top level, and its
//! runtime helpers moved to a file of their own.

use std::borrow::Cow;

use oxc_span::Span;

use super::{
    File, FoundEntry, Job, Split, commonjs_call, entry, esbuild, esm, esm_call, method_value,
    paths, runtime, some_of,
};
use crate::{OutputFile, module, name, transform};

/// An esbuild file's modules: each CommonJS module and each wrapped ES module a job, the
/// wrappers' functions replaced by the loader's; the entry esbuild left at the top level,
/// when it can move.
pub(super) fn esbuild_modules<'a>(
    file: &File<'_, 'a, '_>,
    found: esbuild::Found,
    out: &mut Split<'a>,
    notes: &mut Vec<String>,
) -> FoundEntry {
    let esbuild::Found {
        modules,
        initializers,
        spans: wrappers,
        moved,
        stayed,
        name_helper,
    } = found;
    out.moved = moved;
    out.name_helper = name_helper;
    out.wrappers.commonjs = crate::Count {
        found: modules.len(),
        split: modules.len(),
    };
    let split = out.moved.modules.len() + initializers.len();
    out.wrappers.esm = crate::Count {
        found: split + stayed.len(),
        split,
    };
    notes.extend(esm_notes(file.input.name, &stayed, &initializers));
    let strict = file.strict();
    // Each module function is replaced by one that runs its file.
    for m in &modules {
        let path = paths::module_path(&m.id, m.source_path.as_deref(), file.names);
        out.edits.push((
            m.span,
            method_value(m.method, commonjs_call(&path, &m.outer)),
        ));
        out.jobs.push(esbuild_job(
            file,
            &out.moved,
            m,
            path,
            (false, &module::ESBUILD),
            crate::ModuleKind::Commonjs,
        ));
    }
    moved_esm_jobs(file, strict, out);
    // The initializers of ES modules whose declarations stay: the file runs the
    // initializer's body, reaching those declarations through the live names.
    for m in &initializers {
        let path = paths::module_path(&m.id, m.source_path.as_deref(), file.names);
        out.edits.push((
            m.span,
            method_value(m.method, esm_call(&path, "{}", &m.outer, m.asynchronous)),
        ));
        let mut job = esbuild_job(
            file,
            &out.moved,
            m,
            path,
            (strict, &module::ESM),
            crate::ModuleKind::EsmInitializer,
        );
        job.namespace.clone_from(&m.namespace);
        out.jobs.push(job);
    }
    out.edits.extend(out.moved.edits.iter().cloned());
    // An ES module's helpers move only from a bundle of one file that exports nothing: a chunk
    // of a set may export them to the others.
    if !file.es_module || (!file.several_files && !exports_anything(file.program)) {
        runtime_file(file, strict || file.es_module, out);
        if let Some(runtime) = &out.runtime {
            notes.push(format!(
                "{}: esbuild's runtime helpers are in {}, which the bundle requires where it defined them",
                file.input.name, runtime.path
            ));
        }
    }
    out.edits.sort_by_key(|(s, _)| (s.start, s.end));
    // An ES module's top level may import and export: it stays in the file.
    if file.es_module {
        return None;
    }
    let found = entry::find(
        file.program,
        file.scoping,
        file.input.text,
        &entry::Bundler::Esbuild {
            modules: &wrappers,
            moved: &out.moved,
        },
    )?;
    Some((found, None))
}

/// esbuild's helpers moved to a runtime file of their own, which the bundle requires where
/// they were (see [`runtime`]), when nothing else edits them.
fn runtime_file(file: &File<'_, '_, '_>, strict: bool, out: &mut Split<'_>) {
    let Some(found) = runtime::helpers(
        file.program,
        file.scoping,
        file.input.text,
        (strict, file.es_module),
    ) else {
        return;
    };
    let overlaps = |a: &Span, b: &Span| a.start < b.end && b.start < a.end;
    if out
        .edits
        .iter()
        .any(|(e, _)| found.statements.iter().any(|s| overlaps(e, s)))
    {
        return;
    }
    let path = if file.several_files {
        format!("{}.{}", file.input.name, runtime::RUNTIME_FILE)
    } else {
        runtime::RUNTIME_FILE.to_owned()
    };
    for (n, span) in found.statements.iter().enumerate() {
        let replacement = if n == 0 {
            // Beside the file, whatever folder of the set it is in.
            runtime::require_line(
                &found.names,
                path.rsplit('/').next().unwrap_or(&path),
                file.es_module,
            )
        } else {
            String::new()
        };
        out.edits.push((*span, replacement));
    }
    out.runtime_names = found.names.clone();
    out.runtime = Some(OutputFile {
        path,
        text: transform::clean_file(&found.text, file.transforms),
    });
}

/// Whether an ES module's top level exports anything.
fn exports_anything(program: &oxc_ast::ast::Program<'_>) -> bool {
    program.body.iter().any(|s| {
        matches!(
            s,
            oxc_ast::ast::Statement::ExportNamedDeclaration(_)
                | oxc_ast::ast::Statement::ExportDefaultDeclaration(_)
                | oxc_ast::ast::Statement::ExportAllDeclaration(_)
        )
    })
}

/// The jobs of esbuild's ES modules that move whole, their functions replaced by the
/// loader's.
fn moved_esm_jobs<'a>(file: &File<'_, 'a, '_>, strict: bool, out: &mut Split<'a>) {
    for m in &out.moved.modules {
        let path = paths::module_path(&m.id, m.source_path.as_deref(), file.names);
        let outer = esbuild::Outer {
            values: m.outer.clone(),
            ..esbuild::Outer::default()
        };
        out.edits.push((
            m.function,
            method_value(m.method, esm_call(&path, &m.namespace, &outer, false)),
        ));
        out.jobs.push(Job {
            strict,
            parameters: &module::ESM,
            revealed: name::revealed_by_esbuild(&m.id).or_else(|| file.licensed(m.function)),
            takes: outer.values.clone(),
            namespace: Some(m.namespace.clone()),
            ..Job::new(
                (m.id.clone(), path),
                file.input.name,
                Cow::Owned(m.source.clone()),
                m.function,
                crate::ModuleKind::Esm,
            )
        });
    }
}

/// What the reader should know of esbuild's ES modules that did not move whole: those that
/// stay in the bundle, and those whose declarations stay there.
fn esm_notes(file: &str, stayed: &[String], initializers: &[esbuild::EsModule]) -> Vec<String> {
    let mut notes = Vec::new();
    if !stayed.is_empty() {
        notes.push(format!(
            "{}: esbuild's ES module(s) {} stay in the bundle file: their initializers use their own `this` or `arguments`",
            file,
            some_of(stayed)
        ));
    }
    if !initializers.is_empty() {
        let ids: Vec<String> = initializers.iter().map(|m| m.id.clone()).collect();
        notes.push(format!(
            "{}: esbuild's ES module(s) {} keep their declarations in the bundle file, their initializers' files reaching them live: moving what esbuild hoisted out of them could change what runs (docs/unbundle.md, \"esbuild's ES modules\")",
            file,
            some_of(&ids)
        ));
    }
    notes
}

/// The job of an esbuild module that moves: its function's text with the uses of moved and
/// live names rewritten.
fn esbuild_job<'a>(
    file: &File<'_, 'a, '_>,
    moved: &esm::Moved,
    m: &esbuild::EsModule,
    path: String,
    (strict, parameters): (bool, &'static [&'static str]),
    kind: crate::ModuleKind,
) -> Job<'a> {
    let text = moved.splice_with(file.input.text, m.span, &m.outer.substitutions);
    let source = if m.method {
        Cow::Owned(format!("function{text}"))
    } else {
        text
    };
    let takes = m.outer.values.iter().chain(&m.outer.live).cloned();
    Job {
        strict,
        parameters,
        revealed: name::revealed_by_esbuild(&m.id).or_else(|| file.licensed(m.span)),
        takes: takes.collect(),
        ..Job::new((m.id.clone(), path), file.input.name, source, m.span, kind)
    }
}
