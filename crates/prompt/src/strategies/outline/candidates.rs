//! The candidates of one request: every definition of the candidate files, with what the
//! document and its imports say about it, ready for [`retrieval::rank`].

use std::sync::Arc;

use retrieval::rank::{Candidate, CursorContext};
use syntax::outline::DefKind;

use super::cache::{self, FileOutline};
use super::sources::SourceFile;

/// Every definition worth ranking (not `impl` blocks and modules, which are only headers), and
/// for each its (file, definition) index.
pub(crate) fn candidates<'a>(
    files: &'a [SourceFile<'_>],
    outlines: &'a [Arc<FileOutline>],
    file_terms: &'a [Vec<String>],
    near: &str,
    cursor_context: &CursorContext,
) -> (Vec<Candidate<'a>>, Vec<(usize, usize)>) {
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    let mut index: Vec<(usize, usize)> = Vec::new();
    let used_elsewhere = cache::used_elsewhere(outlines);
    for (f, (file, outline)) in files.iter().zip(outlines).enumerate() {
        let file_terms = &file_terms[f];
        // The file's module reached through a qualifier near the cursor: its import alias
        // (`np.`), or its own name (`log.debug`, `codec::Framed`).
        let alias = file.import.as_ref().and_then(|i| i.alias.as_deref());
        let alias_near = alias
            .into_iter()
            .chain(module_name(&file.key))
            .any(|a| used_as_qualifier(near, a));
        // How much of the file the document already uses: a file-level signal kept weak.
        let mut names: Vec<&str> = outline
            .definitions
            .iter()
            .filter(|d| d.kind != DefKind::Block)
            .map(|d| d.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        let used = names.iter().filter(|n| cursor_context.uses(n)).count();
        let file_use = if names.is_empty() {
            0.0
        } else {
            used as f64 / names.len() as f64
        };
        for (d, def) in outline.definitions.iter().enumerate() {
            if def.kind == DefKind::Block {
                continue;
            }
            candidates.push(Candidate {
                name: &def.name,
                owner: def.owner.as_deref(),
                path: &file.key,
                terms: &outline.terms[d],
                name_terms: &outline.name_terms[d],
                field: def.kind == DefKind::Field,
                private: def.private,
                local: def.local,
                test: def.test || is_test_path(&file.key),
                type_def: def.kind == DefKind::Type,
                function: def.kind == DefKind::Function,
                method: def.kind == DefKind::Method,
                value_def: def.kind == DefKind::Value,
                owner_terms: &outline.owner_terms[d],
                file_terms,
                used_elsewhere: used_elsewhere[f][d],
                file_use,
                file_imported: file.import.is_some(),
                name_imported: file
                    .import
                    .as_ref()
                    .is_some_and(|i| i.names.contains(&def.name)),
                alias_near_cursor: alias_near,
            });
            index.push((f, d));
        }
    }
    (candidates, index)
}

/// The sub-token terms of each file's module name.
pub(crate) fn file_terms(files: &[SourceFile<'_>]) -> Vec<Vec<String>> {
    files
        .iter()
        .map(|f| {
            module_name(&f.key)
                .map(retrieval::search::terms)
                .unwrap_or_default()
        })
        .collect()
}

/// The name a file's module goes by: its stem, or its folder's name for `mod.rs`,
/// `__init__.py`, `index.ts` and the like.
fn module_name(path: &str) -> Option<&str> {
    let mut parts = path.rsplit('/');
    let file = parts.next()?;
    let stem = file.split('.').next().unwrap_or(file);
    match stem {
        "mod" | "__init__" | "index" | "lib" | "main" => parts.next(),
        "" => None,
        _ => Some(stem),
    }
}

/// Whether `name.` or `name::` occurs in `text` as a whole word.
fn used_as_qualifier(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before_ok = text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        let after = &text[i + name.len()..];
        before_ok && (after.starts_with('.') || after.starts_with("::"))
    })
}

/// Whether a path looks like test code (`tests/`, `test_x.py`, `x.test.ts`, `x_test.go`).
fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    lower
        .split('/')
        .any(|p| p == "test" || p == "tests" || p == "__tests__" || p == "spec")
        || name.starts_with("test_")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_test.")
}

/// The text near the cursor (15 lines before, 5 after), where module aliases count as used.
pub(crate) fn near_cursor(before: &str, after: &str) -> String {
    let start = before
        .rmatch_indices('\n')
        .nth(15)
        .map_or(0, |(i, _)| i + 1);
    let end = after
        .match_indices('\n')
        .nth(5)
        .map_or(after.len(), |(i, _)| i);
    format!("{}{}", &before[start..], &after[..end])
}
