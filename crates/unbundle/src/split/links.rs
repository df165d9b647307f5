//! Where an esbuild module file's borrowed names come from. esbuild's modules reach each
//! other through the bundle's top-level variables (`var import_foo =
//! __toESM(require_foo())`), which the loader passes each module file: the file itself then
//! shows a call of `require_foo` and nothing of where that module is. A few comment lines
//! at the top of the file say it (`require_foo: modules/src/foo.js`, the runtime helpers:
//! `esbuild-runtime.cjs`), so a reader follows the imports as files, and what runs is not
//! touched at all.

use rustc_hash::FxHashMap;

use super::Job;

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
