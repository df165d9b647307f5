//! esbuild's modules reach a CommonJS module through the bundle's variable bound to its
//! wrapper: `var import_ms = __toESM(require_ms())`, which shows nothing of where that module
//! is. In a module file such a call becomes a `require` of the module's file,
//! `__toESM(require("../node_modules/ms/index.js"))`, and the loader answers that `require` by
//! calling the same wrapper (`require_ms()`) the call did: the module still runs once, when
//! first required, in the bundle's order, and the helper around the call (`__toESM`, the
//! interop object, its `default`) stays as it was.
//!
//! A call is rewritten only when nothing can tell: it is `NAME()` with no arguments, `NAME` is
//! a name the bundle passes the file (not one of the file's own, nor a live one, which the
//! file reads through `__pilotfish_live`) bound to a CommonJS wrapper of the same bundle file;
//! the file declares nothing called `require` (its free `require` is the one the loader
//! passes); and the file's text holds no string equal to the path it would require (so that
//! none of its own `require`s can be mistaken for one of these). The loader's `require` is
//! node's own for every other specifier (a proxy of it: `require.resolve` and the rest read
//! node's), and is given only to files whose text requires a relative path.

use rustc_hash::FxHashMap;

use crate::ModuleKind;
use crate::split::Job;

mod rewrite;
mod shape;

pub(crate) use rewrite::rewrite;
pub(crate) use shape::to_common_js;

/// The name the loader's table of links is written under in its text.
pub(crate) const TABLE_MARK: &str = "/* pilotfish: links */ {}";

/// A call a module file writes as a `require` of another module's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The bundle's name of the module's wrapper (`require_ms`) or initializer (`init_shapes`).
    pub(crate) name: String,
    /// The path the file requires it by.
    pub(crate) specifier: String,
    /// For an ES module, the `__toCommonJS` helper and the namespace object the bundle calls
    /// it on: `(init_shapes(), __toCommonJS(shapes_exports))`.
    pub(crate) esm: Option<(String, String)>,
}

/// What the loader's table says of one module file: the names its `require` calls.
type Target = (String, Vec<String>);

/// Gives each esbuild module job the calls it may rewrite (its `links`) and returns the
/// loader's table: for each bundle file, each linked module file's path (from the output
/// folder) with the names the bundle calls it by (the wrapper's; or the initializer's, the
/// helper's and the namespace object's).
pub(crate) fn plan(jobs: &mut [Job<'_>]) -> String {
    // Each bundle file's CommonJS wrappers and whole ES modules: (file, name) -> its file,
    // and an ES module's namespace object.
    let targets: FxHashMap<(&str, String), (String, Option<String>)> = jobs
        .iter()
        .filter_map(|j| match j.kind {
            ModuleKind::Commonjs => Some(((j.file, j.id.clone()), (j.path.clone(), None))),
            ModuleKind::Esm => Some((
                (j.file, j.id.clone()),
                (j.path.clone(), Some(j.namespace.clone()?)),
            )),
            _ => None,
        })
        .collect();
    let mut table: FxHashMap<&str, Vec<Target>> = FxHashMap::default();
    let mut links_of = Vec::with_capacity(jobs.len());
    for job in jobs.iter() {
        let mut links = Vec::new();
        if takes_require(job) {
            for name in &job.takes {
                let Some((target, namespace)) = targets.get(&(job.file, name.clone())) else {
                    continue;
                };
                let esm = match (namespace, &job.to_common_js) {
                    (None, _) => None,
                    (Some(ns), Some(helper))
                        if job.takes.contains(ns) && job.takes.contains(helper) =>
                    {
                        Some((helper.clone(), ns.clone()))
                    }
                    (Some(_), _) => continue,
                };
                let specifier = relative(&job.path, target);
                if mentions(&job.source, &specifier) {
                    continue;
                }
                let mut names = vec![name.clone()];
                names.extend(esm.iter().flat_map(|(h, n)| [h.clone(), n.clone()]));
                let entry = table.entry(job.file).or_default();
                if !entry.iter().any(|(p, _)| p == target) {
                    entry.push((target.clone(), names));
                }
                links.push(Link {
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
    table_text(table)
}

/// Whether the loader runs `job`'s file with its `require` (esbuild's modules, and its entry,
/// which runs as a CommonJS module).
fn takes_require(job: &Job<'_>) -> bool {
    job.parameters != crate::module::WEBPACK
        && matches!(
            job.kind,
            ModuleKind::Commonjs | ModuleKind::Esm | ModuleKind::EsmInitializer | ModuleKind::Entry
        )
}

/// The loader's table as a JavaScript object literal (JSON), files and paths sorted.
fn table_text(table: FxHashMap<&str, Vec<Target>>) -> String {
    let mut files: Vec<(&str, Vec<Target>)> = table.into_iter().collect();
    files.sort();
    let object: serde_json::Map<String, serde_json::Value> = files
        .into_iter()
        .map(|(file, mut links)| {
            links.sort();
            let inner: serde_json::Map<String, serde_json::Value> = links
                .into_iter()
                .map(|(path, names)| match &names[..] {
                    [name] => (path, serde_json::Value::String(name.clone())),
                    _ => (path, serde_json::json!(names)),
                })
                .collect();
            (file.to_owned(), serde_json::Value::Object(inner))
        })
        .collect();
    serde_json::Value::Object(object).to_string()
}

/// Whether `source` holds `specifier` as a string (in either quotes).
fn mentions(source: &str, specifier: &str) -> bool {
    source.contains(&format!("\"{specifier}\"")) || source.contains(&format!("'{specifier}'"))
}

/// The path of `to` from the folder of `from` (both from the output folder, with `/`), as a
/// `require` takes it: `./a/b.js` or `../x.cjs`.
fn relative(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').collect();
    let from = &from[..from.len() - 1];
    let to: Vec<&str> = to.split('/').collect();
    let common = from
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len() - 1);
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    let joined = parts.join("/");
    if joined.starts_with("../") {
        joined
    } else {
        format!("./{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn a_path_is_written_from_the_requiring_file_s_folder() {
        assert_eq!(relative("modules/entry.cjs", "modules/ms.cjs"), "./ms.cjs");
        assert_eq!(
            relative("modules/src/a.js", "modules/node_modules/ms/index.js"),
            "../node_modules/ms/index.js"
        );
        assert_eq!(relative("modules/a/b/c.js", "modules/a/d.js"), "../d.js");
        assert_eq!(relative("x.cjs", "modules/y.cjs"), "./modules/y.cjs");
    }
}
