//! Where an esbuild module file's borrowed names come from. esbuild's modules reach each
//! other through the bundle's top-level variables (`var import_foo =
//! __toESM(require_foo())`), which the loader passes each module file: the file itself then
//! shows a call of `require_foo` and nothing of where that module is. A few comment lines
//! at the top of the file say it (`require_foo: modules/src/foo.js`, the runtime helpers:
//! `esbuild-runtime.cjs`), so a reader follows the imports as files, and what runs is not
//! touched at all. Calls of those modules that a module file can write as `require`s of their
//! files are planned here too (see `requires.rs`).

use rustc_hash::{FxHashMap, FxHashSet};

use super::Job;
use crate::ModuleKind;
use crate::requires;

/// Fills each job's header from the names it takes: the other modules of the same bundle file
/// (by the variable each is bound to, its id, or for an ES module moved whole also its
/// namespace object: `namespaces` pairs it with the module's id) and the helpers moved to
/// `runtime` (its path and the helpers' names).
pub(crate) fn headers(
    jobs: &mut [Job<'_>],
    runtime: Option<(&str, &[String])>,
    namespaces: &[(&str, &str)],
) {
    let mut paths: FxHashMap<String, String> = jobs
        .iter()
        .map(|j| (j.id.clone(), j.path.clone()))
        .collect();
    for (namespace, id) in namespaces {
        if let Some(path) = paths.get(*id).cloned() {
            paths.entry((*namespace).to_owned()).or_insert(path);
        }
    }
    for job in jobs.iter_mut() {
        job.header = header(&job.takes, &job.path, &paths, runtime);
    }
}

fn header(
    takes: &[String],
    own: &str,
    paths: &FxHashMap<String, String>,
    runtime: Option<(&str, &[String])>,
) -> String {
    let mut lines = Vec::new();
    let mut helpers = Vec::new();
    for name in takes {
        if let Some(path) = paths.get(name) {
            if path == own {
                continue;
            }
            lines.push(format!("//   {name}: {path}\n"));
        } else if let Some((_, names)) = runtime
            && names.contains(name)
        {
            helpers.push(name.as_str());
        }
    }
    if let Some((path, _)) = runtime
        && !helpers.is_empty()
    {
        lines.push(format!("//   {}: {path}\n", helpers.join(", ")));
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut header =
        "// pilotfish unbundle: the bundle gives this file these names, defined in (from the output folder):\n"
            .to_owned();
    header.extend(lines);
    header
}

/// Gives each esbuild module job the calls it may rewrite (its `links`) and returns the
/// loader's table: for each bundle file, each linked module file's path (from the output
/// folder) with the names the bundle calls it by (the wrapper's; or the initializer's, the
/// helper's and the namespace object's).
pub(crate) fn requires(jobs: &mut [Job<'_>]) -> String {
    // Each bundle file's CommonJS wrappers and whole ES modules: (file, name) -> its file,
    // and an ES module's namespace object.
    let targets: FxHashMap<(&str, String), (String, Option<String>)> = jobs
        .iter()
        .filter_map(|j| match j.kind {
            ModuleKind::Commonjs => Some(((j.file, j.id.clone()), (j.path.clone(), None))),
            ModuleKind::Esm | ModuleKind::EsmInitializer => Some((
                (j.file, j.id.clone()),
                (j.path.clone(), Some(j.namespace.clone()?)),
            )),
            _ => None,
        })
        .collect();
    let mut table: FxHashMap<&str, Vec<requires::Target>> = FxHashMap::default();
    let mut listed: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut links_of = Vec::with_capacity(jobs.len());
    for job in jobs.iter() {
        let mut links = Vec::new();
        if takes_require(job) {
            let takes: FxHashSet<&str> = job.takes.iter().map(String::as_str).collect();
            // The strings of its own it could require by (read once, only when needed).
            let mut strings = None;
            for name in &job.takes {
                let Some((target, namespace)) = targets.get(&(job.file, name.clone())) else {
                    continue;
                };
                let esm = match (namespace, &job.to_common_js) {
                    (None, _) => None,
                    (Some(ns), Some(helper))
                        if takes.contains(ns.as_str()) && takes.contains(helper.as_str()) =>
                    {
                        Some((helper.clone(), ns.clone()))
                    }
                    (Some(_), _) => continue,
                };
                let specifier = requires::relative(&job.path, target);
                let strings =
                    strings.get_or_insert_with(|| requires::relative_strings(&job.source));
                if strings.contains(specifier.as_str()) {
                    continue;
                }
                if listed.insert((job.file, target.as_str())) {
                    let mut names = vec![name.clone()];
                    names.extend(esm.iter().flat_map(|(h, n)| [h.clone(), n.clone()]));
                    table
                        .entry(job.file)
                        .or_default()
                        .push((target.clone(), names));
                }
                links.push(requires::Link {
                    name: name.clone(),
                    specifier,
                    esm,
                });
            }
        }
        links_of.push(links);
    }
    for (job, links) in jobs.iter_mut().zip(links_of) {
        job.links = links;
    }
    requires::table_text(table)
}

/// Whether the loader runs `job`'s file with its `require` (esbuild's modules, and its entry,
/// which runs as a CommonJS module).
fn takes_require(job: &Job<'_>) -> bool {
    !job.parameters.contains(&"require")
        && matches!(
            job.kind,
            ModuleKind::Commonjs | ModuleKind::Esm | ModuleKind::EsmInitializer | ModuleKind::Entry
        )
}
