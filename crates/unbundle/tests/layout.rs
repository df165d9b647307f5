//! The crate's modules import each other without circles: among the modules of any one
//! folder, following what each uses (`crate::...` paths and `use super::...`, outside tests
//! and comments) never leads back to where it started. The stages run in one direction
//! (recognize, split, transform and name, write); a circle would mean a stage reaches back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `a::b` for `src/a/b.rs` and `src/a/b/mod.rs`; `` for `src/lib.rs`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The module paths `text` uses: `crate::a::b` (also inside `use crate::{a, b::c}`) and,
/// relative to `parent`, `super::a`.
fn uses(text: &str, parent: &str) -> Vec<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let path_at = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect::<String>()
            .trim_end_matches(':')
            .to_owned()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            found.extend(inner.split(',').map(|p| path_at(p.trim())));
        } else {
            found.push(path_at(rest));
        }
    }
    for (i, _) in code.match_indices("use super::") {
        let path = path_at(&code[i + "use super::".len()..]);
        found.push(if parent.is_empty() {
            path
        } else {
            format!("{parent}::{path}")
        });
    }
    found.retain(|p| !p.is_empty());
    found
}

#[test]
fn no_module_reaches_back_to_one_that_uses_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| (module_of(&src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    // The longest known module a path names.
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|m| modules.contains_key(m))
    };
    // Edges between siblings: a use from `a::x` of `b::y` is an edge `a` → `b` among the
    // children of their common parent.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &modules {
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        for used in uses(text, parent) {
            let Some(target) = resolve(&used) else {
                continue;
            };
            let (a, b): (Vec<&str>, Vec<&str>) =
                (module.split("::").collect(), target.split("::").collect());
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            if common < a.len() && common < b.len() && !module.is_empty() {
                let from = a[..=common].join("::");
                let to = b[..=common].join("::");
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    // A depth-first search from every module for a path back to it.
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                assert_ne!(
                    next,
                    start,
                    "an import circle: {} -> {next}",
                    path.join(" -> ")
                );
                if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    // The check sees the stages' uses of each other at all.
    assert!(
        edges
            .get("split")
            .is_some_and(|to| to.contains("recognize")),
        "{edges:?}"
    );
}
