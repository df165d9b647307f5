//! Splits a webpack, esbuild, Bun, rollup or Parcel bundle into one readable file per module that still runs:
//! seed 001's reverse-engineering toolchain, made safe. Pure: text in, files out; the CLI
//! writes them. The stages, in the order they run, each a module:
//!
//! 1. [`recognize`]: what kind of bundle each file is and where its modules are, by shape.
//! 2. [`split`]: what comes out of each file (module functions, the entry, esbuild's ES
//!    modules) and what replaces it there (calls of the loader).
//! 3. [`module`], per module and in parallel: the module function becomes a file, its
//!    variables named ([`name`]) and the minifier's syntax undone ([`transform`]), in two
//!    passes where a transform depends on what other modules do.
//! 4. [`write`]: the loader, the entry of a page's worth of files, and the manifest.
//!
//! [`junk`] counts what a minifier left behind, for judging the result.
//!
//! ```
//! let bundle = r#"(()=>{var e={1:(e,t,r)=>{e.exports=r(2)+1},2:e=>{e.exports=41}},t={};
//! function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};
//! return e[o](s,s.exports,r),s.exports}console.log(r(1))})();"#;
//! let out = unbundle::unbundle(&[unbundle::Input { name: "main.js", text: bundle }]).unwrap();
//! // Modules 1 and 2, and the entry webpack inlined into its runtime.
//! assert_eq!(out.manifest.modules.len(), 3);
//! let one = &out.files.iter().find(|f| f.path == "modules/1.cjs").unwrap().text;
//! assert!(one.contains("module.exports = require(2) + 1"), "{one}");
//! ```

mod imports;
pub mod junk;
mod module;
mod name;
mod recognize;
mod refs;
mod requires;
mod split;
mod syntax;
mod transform;
mod write;

pub use module::ModuleError;
pub use transform::{Changes, Transforms};
pub use write::source_map::SourceMapError;

use serde::Serialize;

use write::{LOADER, LOADER_FILE};

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
    /// The file to run: the bundle's runtime (its first file that is not a chunk), or for a
    /// bundle of JSONP chunks (made for a web page) `index.js`, which runs the page's files in
    /// order.
    pub entry: String,
    pub modules: Vec<ManifestModule>,
    /// The module wrappers found in the bundle, by kind, and how many became files.
    pub wrappers: Wrappers,
}

/// What held a module in the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModuleKind {
    /// A function of webpack's module table (or of a JSONP chunk's).
    Webpack,
    /// A function wrapped by esbuild's `__commonJS` helper.
    Commonjs,
    /// An ES module wrapped by esbuild's `__esm` helper, whole: its initializer and the
    /// declarations esbuild hoisted out of it.
    Esm,
    /// The initializer of an ES module wrapped by esbuild's `__esm` helper, whose hoisted
    /// declarations stay in the bundle (the file reaches them live).
    EsmInitializer,
    /// The code of a lazy `requireX()` wrapper of rollup's CommonJS plugin, or the function
    /// of rollup 2's eager `createCommonjsModule(function (module, exports) {...})`.
    Rollup,
    /// A module function Parcel registers with its runtime (`register("id", function ...)`).
    Parcel,
    /// A function of a webpack module table nested in another module (see
    /// `split/nested.rs`).
    NestedWebpack,
    /// The entry the bundle held outside its wrappers.
    Entry,
    /// A chunk of a code-split bundle that holds no wrapper: a module of its own, written
    /// under its own name (made readable), where what imports or requires it finds it.
    Chunk,
}

/// How many wrappers of each kind the bundle holds (`found`) and how many became module
/// files (`split`); the others stay in the bundle file, and the notes say why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Wrappers {
    pub webpack: Count,
    pub commonjs: Count,
    pub esm: Count,
    /// rollup's lazy `requireX()` wrappers (`@rollup/plugin-commonjs`) and rollup 2's eager
    /// `createCommonjsModule` calls.
    pub rollup: Count,
    /// Parcel's registered modules.
    pub parcel: Count,
    /// The modules of webpack bundles nested in another module.
    pub nested_webpack: Count,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub found: usize,
    pub split: usize,
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
    /// What held it in the bundle.
    pub kind: ModuleKind,
    /// The size of its function in the bundle, in bytes.
    pub size: usize,
}

/// Why a bundle could not be unbundled. Nothing is written in any of these cases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnbundleError {
    #[error("{file}: not JavaScript that parses: {message}")]
    Parse { file: String, message: String },
    #[error(
        "{file}: not a bundle pilotfish recognizes (no webpack module table, an object or array of module functions, no esbuild or Bun __commonJS or __esm wrappers, no rollup requireX wrappers or createCommonjsModule calls, and no modules registered with a Parcel-shaped runtime)"
    )]
    NotABundle { file: String },
    #[error(
        "{file}: not a bundle pilotfish recognizes: none of the {count} files given holds a module wrapper, and no chain of relative imports or requires between them links {file} to {first}, so they are not the chunks of one code-split build (give the files of one build, or each program's file alone)"
    )]
    Unlinked {
        file: String,
        first: String,
        count: usize,
    },
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
    #[error(transparent)]
    SourceMap(#[from] SourceMapError),
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
    /// Source maps by the name of the bundle file they map (its `.map`): each module is
    /// written under the path of the source most of its code comes from.
    pub source_maps: std::collections::BTreeMap<String, String>,
}

/// Unbundles `inputs`, the bundle's files in load order, with every transform.
pub fn unbundle(inputs: &[Input<'_>]) -> Result<Output, UnbundleError> {
    unbundle_with(inputs, &Options::default())
}

/// [`unbundle`] with options.
pub fn unbundle_with(inputs: &[Input<'_>], options: &Options) -> Result<Output, UnbundleError> {
    if inputs.is_empty() {
        return Err(UnbundleError::NoInput);
    }
    let mut files = Vec::new();
    let mut jobs = Vec::new();
    let mut notes = Vec::new();
    let mut roles = Vec::new();
    let mut wrappers = Wrappers::default();
    let mut nested_escapes = Vec::new();
    let mut own = Vec::new();
    // An esbuild bundle inside an arrow called at once is split as if the arrow's body were
    // the file, and put back inside it afterwards.
    let unwrapped: Vec<Option<recognize::iife::Unwrapped>> = inputs
        .iter()
        .map(|i| recognize::iife::unwrap(i.text))
        .collect();
    let read: Vec<Input<'_>> = inputs
        .iter()
        .zip(&unwrapped)
        .map(|(input, unwrapped)| Input {
            name: input.name,
            text: unwrapped.as_ref().map_or(input.text, |u| u.text.as_str()),
        })
        .collect();
    let inputs = read.as_slice();
    let shared = split::shared::exported(inputs);
    let mut chunks = Vec::new();
    for (input, unwrapped) in inputs.iter().zip(&unwrapped) {
        let json = options.source_maps.get(input.name);
        let unquoted = json.and_then(|json| write::source_map::unquoted(json));
        let map = unquoted
            .as_deref()
            .or(json.map(String::as_str))
            .map(|json| write::source_map::SourceMap::read(input.name, json))
            .transpose()?;
        let split = split::split_file(
            input,
            &options.names,
            options.transforms,
            (&shared, map.as_ref()),
            &mut notes,
        )?;
        let mut file = split.file;
        if let Some(specifiers) = split.plain {
            chunks.push((plain_chunk(input), specifiers));
        }
        if unwrapped.is_some() {
            file.text = recognize::iife::Unwrapped::wrap(&file.text);
        }
        let at = files.len();
        files.push(file);
        files.extend(split.runtime);
        jobs.extend(split.jobs);
        nested_escapes.extend(split.nested_escapes);
        // A file put back inside its arrow has another top level: its calls stay.
        own.push((at, unwrapped.is_none(), split.own));
        roles.push(split.role);
        wrappers += split.wrappers;
    }
    // Not one file holds a wrapper: the chunks of a code-split build of ES modules (each a
    // module of its own, written as it is, made readable), if they are linked.
    let no_wrapper = no_wrapper_linked(inputs, &chunks)?;
    distinct_paths(&mut jobs, &mut files, &options.names)?;
    let links = if options.transforms.requires {
        split::links::requires(&mut jobs)
    } else {
        "{}".to_owned()
    };
    let (mut modules, module_names) = manifest_modules(&jobs, &options.names);
    modules.extend(chunks.into_iter().map(|(module, _)| module));
    let mut transforms = options.transforms;
    transforms.helpers &= defines_webpack_helpers(inputs);
    let (results, plan) = rewrite_twice(&jobs, transforms, &module_names, &nested_escapes, &own);
    let mut changes = module_files(&jobs, results, &mut files, &mut notes)?;
    changes.calls += plan.map_or(0, |p| own_calls_rewritten(&mut files, own, &p));
    if !no_wrapper {
        // Nothing loads a module file when no file held a wrapper.
        files.push(OutputFile {
            path: LOADER_FILE.to_owned(),
            text: LOADER.replacen(requires::TABLE_MARK, &links, 1),
        });
    }
    let entry = entry_file(inputs, &roles, &mut files);
    let manifest = Manifest {
        entry,
        modules,
        wrappers,
    };
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

/// Writes each job's rewritten module file, headed by its job's header, and says what the
/// rewrites changed over them all.
fn module_files(
    jobs: &[split::Job<'_>],
    results: Vec<Result<module::ModuleFile, ModuleError>>,
    files: &mut Vec<OutputFile>,
    notes: &mut Vec<String>,
) -> Result<Changes, UnbundleError> {
    let mut changes = Changes::default();
    for (job, result) in jobs.iter().zip(results) {
        let file = result?;
        changes += file.changes;
        notes.extend(kept_names_note(&job.id, &file));
        files.push(OutputFile {
            path: job.path.clone(),
            text: format!("{}{}", job.header, file.text),
        });
    }
    Ok(changes)
}

/// A chunk of the set that holds no wrapper, as the manifest lists it.
fn plain_chunk(input: &Input<'_>) -> ManifestModule {
    ManifestModule {
        id: input.name.to_owned(),
        path: input.name.to_owned(),
        name: None,
        file: input.name.to_owned(),
        kind: ModuleKind::Chunk,
        size: input.text.len(),
    }
}

/// Whether no file of `inputs` holds a wrapper (each is among `chunks`, with the relative
/// specifiers it imports or requires). Such a set is refused unless its files are linked to
/// each other: one file alone, or files given together that are not one build's chunks.
fn no_wrapper_linked(
    inputs: &[Input<'_>],
    chunks: &[(ManifestModule, Vec<String>)],
) -> Result<bool, UnbundleError> {
    if chunks.len() < inputs.len() {
        return Ok(false);
    }
    let names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
    let specifiers: Vec<Vec<String>> = chunks.iter().map(|(_, s)| s.clone()).collect();
    match split::plain::unlinked(&names, &specifiers) {
        _ if inputs.len() < 2 => Err(UnbundleError::NotABundle {
            file: inputs[0].name.to_owned(),
        }),
        None => Ok(true),
        Some(file) => Err(UnbundleError::Unlinked {
            file: file.to_owned(),
            first: inputs[0].name.to_owned(),
            count: inputs.len(),
        }),
    }
}

/// Whether a runtime among `inputs` defines `require.d` and `require.r` as webpack's does.
fn defines_webpack_helpers(inputs: &[Input<'_>]) -> bool {
    inputs.iter().any(|i| {
        ["__esModule", "toStringTag", "enumerable", "defineProperty"]
            .iter()
            .all(|mark| i.text.contains(mark))
    })
}

/// What the reader should know of the names module `id` kept, if anything.
fn kept_names_note(id: &str, file: &module::ModuleFile) -> Option<String> {
    if file.evals {
        Some(format!(
            "module {id}: calls eval, which may read any of its names by their text: its parameters and variables keep the names the bundle gave them"
        ))
    } else if !file.kept.is_empty() {
        Some(format!(
            "module {id}: kept the parameter name(s) {} where `module`, `exports` or `require` would have captured or been shadowed by another name",
            file.kept.join(", ")
        ))
    } else {
        None
    }
}

impl std::ops::AddAssign for Wrappers {
    fn add_assign(&mut self, other: Wrappers) {
        for (mine, theirs) in [
            (&mut self.webpack, other.webpack),
            (&mut self.commonjs, other.commonjs),
            (&mut self.esm, other.esm),
            (&mut self.rollup, other.rollup),
            (&mut self.parcel, other.parcel),
            (&mut self.nested_webpack, other.nested_webpack),
        ] {
            mine.found += theirs.found;
            mine.split += theirs.split;
        }
    }
}

/// Gives each module a path of its own: a module whose path another module already has
/// (two copies of one package, each revealing the same source path) is written under the
/// same path with a number (`index-2.js`), and its bundle file's call of the loader names
/// that path. Only two paths given by the names map for two modules are refused: that is the
/// map's to settle.
fn distinct_paths(
    jobs: &mut [split::Job<'_>],
    files: &mut [OutputFile],
    names: &Names,
) -> Result<(), UnbundleError> {
    let mut taken: rustc_hash::FxHashMap<String, String> = rustc_hash::FxHashMap::default();
    // How many modules of each bundle file were written under each path so far.
    let mut seen: rustc_hash::FxHashMap<(String, String), usize> = rustc_hash::FxHashMap::default();
    for job in jobs.iter_mut() {
        let nth = seen
            .entry((job.file.to_owned(), job.path.clone()))
            .or_default();
        *nth += 1;
        let Some(first) = taken.get(&job.path) else {
            taken.insert(job.path.clone(), job.id.clone());
            continue;
        };
        if names.get(&job.id).is_some_and(|n| n.path.is_some()) {
            return Err(UnbundleError::SamePath {
                path: job.path.clone(),
                first: first.clone(),
                second: job.id.clone(),
            });
        }
        let path = (2..)
            .map(|n| numbered(&job.path, n))
            .find(|p| !taken.contains_key(p))
            .expect("some number is free");
        if let Some(file) = files.iter_mut().find(|f| f.path == job.file) {
            file.text = replace_nth(
                &file.text,
                &format!("{:?}", job.path),
                &format!("{path:?}"),
                *nth,
            );
        }
        taken.insert(path.clone(), job.id.clone());
        job.path = path;
    }
    Ok(())
}

/// `dir/name-N.ext` for `dir/name.ext`.
fn numbered(path: &str, n: usize) -> String {
    let (dir, name) = path.rsplit_once('/').map_or(("", path), |(d, f)| (d, f));
    let name = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}-{n}.{ext}"),
        _ => format!("{name}-{n}"),
    };
    if dir.is_empty() {
        name
    } else {
        format!("{dir}/{name}")
    }
}

/// `text` with the `nth` (from 1) occurrence of `old` replaced by `new`.
fn replace_nth(text: &str, old: &str, new: &str, nth: usize) -> String {
    match text.match_indices(old).nth(nth - 1) {
        Some((at, _)) => format!("{}{new}{}", &text[..at], &text[at + old.len()..]),
        None => text.to_owned(),
    }
}

/// The manifest's modules, and the modules' names: the map's, then those the bundle reveals.
fn manifest_modules(
    jobs: &[split::Job<'_>],
    names: &Names,
) -> (Vec<ManifestModule>, name::ModuleNames) {
    let mut modules = Vec::with_capacity(jobs.len());
    let mut module_names = name::ModuleNames::default();
    for job in jobs {
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
            kind: job.kind,
            size: job.size,
        });
    }
    (modules, module_names)
}

/// Every module rewritten: a first pass over all of them, then a second one for those the
/// transforms that depend on other modules touch, planned from what the first pass learned.
fn rewrite_twice(
    jobs: &[split::Job<'_>],
    transforms: Transforms,
    module_names: &name::ModuleNames,
    nested_escapes: &[(String, Vec<String>)],
    own: &[(usize, bool, transform::exports::OwnUses)],
) -> (
    Vec<Result<module::ModuleFile, ModuleError>>,
    Option<transform::exports::Plan>,
) {
    let every: Vec<usize> = (0..jobs.len()).collect();
    let mut results = rewrite_all(jobs, &every, transforms, module_names, None);
    if !(transforms.calls || transforms.plain_exports || transforms.helpers) {
        return (results, None);
    }
    // A nested webpack bundle's ids are its own (`1` there is not the outer bundle's `1`):
    // its modules take no part in the plan, and keep their calls as they are.
    let planned = |job: &split::Job<'_>| job.kind != ModuleKind::NestedWebpack;
    // What the code that stays in the bundle files does with the modules' exports.
    let outside = transform::exports::Facts {
        escapes: own.iter().flat_map(|o| o.2.escapes.clone()).collect(),
        named_handed: own.iter().flat_map(|o| o.2.named_handed.clone()).collect(),
        ..transform::exports::Facts::default()
    };
    let facts: Vec<(&str, &transform::exports::Facts)> = jobs
        .iter()
        .zip(&results)
        .filter(|(job, _)| planned(job))
        .filter_map(|(job, r)| r.as_ref().ok().map(|f| (job.id.as_str(), &f.facts)))
        .chain([("\u{0}bundle files", &outside)])
        .collect();
    let plan = transform::exports::plan(
        facts.iter().copied(),
        transforms.calls,
        transforms.plain_exports,
        transforms.helpers,
    );
    let touched: Vec<usize> = (0..jobs.len())
        .filter(|&i| {
            planned(&jobs[i])
                && results[i]
                    .as_ref()
                    .is_ok_and(|f| plan.touches(&jobs[i].id, &f.facts))
        })
        .collect();
    let again = rewrite_all(jobs, &touched, transforms, module_names, Some(&plan));
    for (i, result) in touched.into_iter().zip(again) {
        results[i] = result;
    }
    rewrite_nested(jobs, transforms, module_names, nested_escapes, &mut results);
    (results, transforms.calls.then_some(plan))
}

/// The `(0, y.f)(...)` calls in the bundle files' own code (`own`: the index of each file in
/// `files`, whether its calls may be rewritten, and what its own code does) that the plan
/// allows written `y.f(...)`; how many.
fn own_calls_rewritten(
    files: &mut [OutputFile],
    own: Vec<(usize, bool, transform::exports::OwnUses)>,
    plan: &transform::exports::Plan,
) -> usize {
    let mut rewritten = 0;
    for (index, _, uses) in own.into_iter().filter(|o| o.1) {
        let allowed: rustc_hash::FxHashSet<(String, String)> = uses
            .calls
            .into_iter()
            .filter(|(_, _, key)| plan.calls.contains(key))
            .map(|(variable, name, _)| (variable, name))
            .collect();
        if allowed.is_empty() {
            continue;
        }
        let file = &mut files[index];
        let (text, n) = transform::exports::rewrite_own_calls(&file.text, &allowed);
        file.text = text;
        rewritten += n;
    }
    rewritten
}

/// The second pass over the modules of each nested webpack bundle (the files of one folder),
/// planned among themselves, with what the code around them does with their exports
/// (`nested_escapes`, by folder; unknown: all escape).
fn rewrite_nested(
    jobs: &[split::Job<'_>],
    transforms: Transforms,
    module_names: &name::ModuleNames,
    nested_escapes: &[(String, Vec<String>)],
    results: &mut [Result<module::ModuleFile, ModuleError>],
) {
    if !transforms.calls {
        return;
    }
    let folder = |job: &split::Job<'_>| job.path.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        if job.kind != ModuleKind::NestedWebpack {
            continue;
        }
        match groups.iter_mut().find(|(key, _)| *key == folder(job)) {
            Some((_, members)) => members.push(i),
            None => groups.push((folder(job), vec![i])),
        }
    }
    for (dir, members) in groups {
        let known = nested_escapes
            .iter()
            .filter(|(d, _)| *d == dir)
            .collect::<Vec<_>>();
        let escapes = match known.as_slice() {
            [(_, escapes)] if members.iter().all(|&i| results[i].is_ok()) => escapes.clone(),
            _ => members.iter().map(|&i| jobs[i].id.clone()).collect(),
        };
        let outside = transform::exports::Facts {
            escapes,
            ..transform::exports::Facts::default()
        };
        let facts: Vec<(&str, &transform::exports::Facts)> = members
            .iter()
            .filter_map(|&i| {
                results[i]
                    .as_ref()
                    .ok()
                    .map(|f| (jobs[i].id.as_str(), &f.facts))
            })
            .chain([("\u{0}outside", &outside)])
            .collect();
        let plan = transform::exports::plan(facts.iter().copied(), true, false, false);
        let touched: Vec<usize> = members
            .into_iter()
            .filter(|&i| {
                results[i]
                    .as_ref()
                    .is_ok_and(|f| plan.touches(&jobs[i].id, &f.facts))
            })
            .collect();
        let again = rewrite_all(jobs, &touched, transforms, module_names, Some(&plan));
        for (i, result) in touched.into_iter().zip(again) {
            results[i] = result;
        }
    }
}

/// The file to run: the page for JSONP chunks (added to `files`), else the first input that
/// runs the program (node chunks may be given before their runtime).
fn entry_file(
    inputs: &[Input<'_>],
    roles: &[recognize::Role],
    files: &mut Vec<OutputFile>,
) -> String {
    let input_names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
    let runs = inputs
        .iter()
        .zip(roles)
        .find(|(_, role)| matches!(role, recognize::Role::Runs { .. }))
        .map_or(&inputs[0], |(input, _)| input);
    match write::page::scripts(&input_names, roles) {
        Some(scripts) => {
            let (path, text) = write::page::file(&scripts, &input_names);
            files.push(OutputFile {
                path: path.clone(),
                text,
            });
            path
        }
        None => runs.name.to_owned(),
    }
}

/// Rewrites the modules `which` lists (indices into `jobs`), on as many threads as the machine
/// has cores; their results in that order.
fn rewrite_all(
    jobs: &[split::Job<'_>],
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
                                module::Given {
                                    strict: job.strict,
                                    name_helper: job.name_helper.as_deref(),
                                    source_names: &job.source_names,
                                    links: &job.links,
                                    to_esm: job.to_esm.as_deref(),
                                    namer: job.namer.as_deref(),
                                    quiet_inits: &job.quiet_inits,
                                },
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
