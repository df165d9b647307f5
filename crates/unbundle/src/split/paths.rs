//! Where each module file is written: its id made safe as a file name, a path the names map
//! gives, or a path the bundle reveals beside its ids: the original source the file's source map
//! names for a module's code, or else the `// src/foo.ts` comment esbuild writes before each
//! module's code when its output keeps comments (a build minified for identifiers and syntax
//! but not whitespace drops the path keys of its wrappers and keeps these comments).

use oxc_ast::{Comment, CommentKind};
use rustc_hash::FxHashMap;

use super::{File, Split};
use crate::Names;
use crate::write::source_map::SourceMap;

/// Writes each module whose path only its id gave under the path of its original source,
/// where the file's source map (or, without one, esbuild's path comments) names one that no
/// other module has; the loader's calls and table name the new path.
pub(super) fn original_paths(
    file: &File<'_, '_, '_>,
    map: Option<&SourceMap<'_>>,
    out: &mut Split<'_>,
) {
    let located: Vec<usize> = (0..out.jobs.len())
        .filter(|&i| out.jobs[i].path == module_path(&out.jobs[i].id, None, file.names))
        .collect();
    if located.is_empty() {
        return;
    }
    let spans: Vec<(usize, usize)> = located
        .iter()
        .map(|&i| {
            let span = out.jobs[i].span;
            (span.start as usize, span.end as usize)
        })
        .collect();
    let sources = match map {
        Some(map) => map.sources(file.input.text, &spans),
        None => commented_sources(file, out, &spans),
    };
    let found: Vec<(usize, String)> = located
        .into_iter()
        .zip(sources)
        .filter_map(|(i, source)| {
            let source = as_js(&source?);
            Some((i, module_path(&out.jobs[i].id, Some(&source), file.names)))
        })
        .collect();
    // A path two modules would share, or one another module has, names neither.
    let mut taken: FxHashMap<String, usize> = FxHashMap::default();
    for path in out
        .jobs
        .iter()
        .map(|j| &j.path)
        .chain(found.iter().map(|f| &f.1))
    {
        *taken.entry(path.clone()).or_default() += 1;
    }
    for (i, path) in found {
        if taken[&path] > 1 {
            continue;
        }
        let (old, new) = (format!("{:?}", out.jobs[i].path), format!("{path:?}"));
        for (_, replacement) in &mut out.edits {
            if replacement.contains(&old) {
                *replacement = replacement.replace(&old, &new);
            }
        }
        out.jobs[i].path = path;
    }
}

/// For each span, the path of the last esbuild path comment before it and after the end of
/// every module before it (so that a module without a comment never takes its neighbour's).
fn commented_sources(
    file: &File<'_, '_, '_>,
    out: &Split<'_>,
    spans: &[(usize, usize)],
) -> Vec<Option<String>> {
    let text = file.input.text;
    let comments: Vec<(usize, &str)> = file
        .program
        .comments
        .iter()
        .filter_map(|c| path_comment(text, c).map(|p| (c.span.start as usize, p)))
        .collect();
    if comments.is_empty() {
        return vec![None; spans.len()];
    }
    let mut ends: Vec<usize> = out.jobs.iter().map(|j| j.span.end as usize).collect();
    ends.sort_unstable();
    spans
        .iter()
        .map(|&(start, _)| {
            let before = ends.partition_point(|&e| e <= start);
            let floor = before.checked_sub(1).map_or(0, |i| ends[i]);
            let last = comments.partition_point(|&(at, _)| at < start);
            let (at, path) = *comments[..last].last()?;
            (at >= floor).then(|| within_output(path)).flatten()
        })
        .collect()
}

/// A source path inside the output, as the source map's are written: leading `./` and
/// `../` parts dropped (esbuild writes paths relative to the directory it ran in).
fn within_output(path: &str) -> Option<String> {
    let parts: Vec<&str> = path
        .split('/')
        .skip_while(|p| matches!(*p, "." | ".." | ""))
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The path a comment names when it is one of esbuild's: a line comment alone at the start
/// of a line whose whole text is a relative file path with an extension (`// src/a.ts`,
/// `// node_modules/ms/index.js`).
fn path_comment<'t>(text: &'t str, comment: &Comment) -> Option<&'t str> {
    if comment.kind != CommentKind::Line {
        return None;
    }
    let start = comment.span.start as usize;
    if start > 0 && !text[..start].ends_with('\n') {
        return None;
    }
    commented_path(&text[start..comment.span.end as usize])
}

/// The path in a line comment's text (`// src/a.ts`) when that is all it holds.
fn commented_path(comment: &str) -> Option<&str> {
    let path = comment.strip_prefix("// ")?.trim_end();
    let (stem, ext) = path.rsplit('/').next()?.rsplit_once('.')?;
    let plain = |c: char| c.is_alphanumeric() || "/._-@+~$".contains(c);
    (!stem.is_empty()
        && !ext.is_empty()
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && path.chars().all(plain)
        && !path.starts_with('/'))
    .then_some(path)
}

/// Gives each job whose text is its span of the bundle (or that span after a `function`
/// prefix) the map's names inside it, by offset in its text.
pub(super) fn source_names(text: &str, map: &SourceMap<'_>, jobs: &mut [super::Job<'_>]) {
    let names = map.names(text);
    for job in jobs {
        let (start, end) = (job.span.start as usize, job.span.end as usize);
        let Some(prefix) = job.source.len().checked_sub(end - start) else {
            continue;
        };
        if job.source.get(prefix..) != text.get(start..end) {
            continue;
        }
        let first = names.partition_point(|n| (n.0 as usize) < start);
        job.source_names = names[first..]
            .iter()
            .take_while(|n| (n.0 as usize) < end)
            .map(|(at, name)| ((*at as usize - start + prefix) as u32, name.clone()))
            .collect();
    }
}

/// A source path as a JavaScript file's: the module file holds JavaScript whatever its
/// source was written in (`src/a.ts` is written `src/a.js`).
pub(super) fn as_js(source: &str) -> String {
    for ext in [".ts", ".tsx", ".jsx", ".mts", ".cts"] {
        if let Some(stem) = source.strip_suffix(ext) {
            return format!("{stem}.js");
        }
    }
    source.to_owned()
}

/// Whether a module id is a source path (`./src/a.js`, `../node_modules/ms/index.js`).
pub(super) fn is_path(id: &str) -> bool {
    id.contains('/')
        && id
            .rsplit('/')
            .next()
            .is_some_and(|name| name.contains('.') && !name.starts_with('.'))
}

/// Where module `id` is written: the names map's path when it gives one, else the source path
/// the bundle revealed, else `modules/ID.cjs` (always inside the output folder: `.` parts
/// are dropped and `..` parts become `__`, so that `../a.js` and `a.js` stay apart). A module
/// file is a function body the loader compiles, whatever its name says; one named by id is
/// `.cjs`, as the loader is, so that nothing reads it as an ES module.
pub(crate) fn module_path(id: &str, source_path: Option<&str>, names: &Names) -> String {
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
    format!("modules/{}.cjs", file_safe(id))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_comment_that_is_a_relative_file_path_names_a_module() {
        for (comment, path) in [
            ("// src/a.ts", Some("src/a.ts")),
            (
                "// node_modules/@scope/pkg/index.js",
                Some("node_modules/@scope/pkg/index.js"),
            ),
            ("// ../../lib/x.mjs  ", Some("../../lib/x.mjs")),
            ("// package.json", Some("package.json")),
            ("// src/a.ts is where it starts", None),
            ("// see https://example.com/a.js", None),
            ("// /abs/a.js", None),
            ("// src/README", None),
            ("// .eslintrc", None),
            ("//src/a.js", None),
            ("// TODO: fix.", None),
        ] {
            assert_eq!(commented_path(comment), path, "{comment}");
        }
    }

    #[test]
    fn leading_relative_parts_are_dropped() {
        assert_eq!(within_output("../../a/b.js").as_deref(), Some("a/b.js"));
        assert_eq!(within_output("./src/a.js").as_deref(), Some("src/a.js"));
        assert_eq!(within_output("../.."), None);
    }
}
