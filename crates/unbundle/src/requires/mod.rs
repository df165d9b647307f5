//! esbuild's modules reach a CommonJS module through the bundle's variable bound to its
//! wrapper: `var import_ms = __toESM(require_ms())`, which shows nothing of where that module
//! is. In a module file such a call becomes a `require` of the module's file,
//! `__toESM(require("../node_modules/ms/index.js"))`, and the loader answers that `require` by
//! calling the same wrapper (`require_ms()`) the call did: the module still runs once, when
//! first required, in the bundle's order, and the helper around the call (`__toESM`, the
//! interop object, its `default`) stays as it was. An ES module required,
//! `(init_shapes(), __toCommonJS(shapes_exports))`, becomes `require("./shapes.js")` alike, the
//! loader calling the initializer and then the helper on the namespace object (see
//! `rewrite.rs`, and `shape.rs` for how the helper is recognized).
//!
//! A call is rewritten only when nothing can tell: it is `NAME()` with no arguments, `NAME` is
//! a name the bundle passes the file (not one of the file's own, nor a live one, which the
//! file reads through `__pilotfish_live`) bound to a CommonJS wrapper of the same bundle file;
//! the file declares nothing called `require` (its free `require` is the one the loader
//! passes); and the file's text holds no string equal to the path it would require (so that
//! none of its own `require`s can be mistaken for one of these). The loader's `require` is
//! node's own for every other specifier (a proxy of it: `require.resolve` and the rest read
//! node's), and is given only to files whose text requires a relative path.

use oxc_ast::ast::{ArrowFunctionExpression, Expression, Program};
use rustc_hash::{FxHashMap, FxHashSet};

mod rewrite;
mod shape;
mod to_esm;

pub(crate) use rewrite::rewrite;

/// The name the loader's table of links is written under in its text.
pub(crate) const TABLE_MARK: &str = "/* pilotfish: links */ {}";

/// The bundle's interop helpers, each when it has esbuild's shape.
#[derive(Debug, Default, Clone)]
pub(crate) struct Interop {
    /// `__toCommonJS`.
    pub(crate) to_common_js: Option<String>,
    /// `__toESM` (see `to_esm.rs`).
    pub(crate) to_esm: Option<String>,
    /// `__name`, when it hands back the function it names (see [`shape::is_namer`]).
    pub(crate) namer: Option<String>,
}

/// The bundle's `__toCommonJS`, `__toESM` and `__name`, found by their shapes among the top-level
/// values, which are read once for both.
pub(crate) fn interop(program: &Program<'_>, scoping: &oxc_semantic::Scoping) -> Interop {
    let values = shape::top_values(program, scoping);
    let find = |is: fn(&ArrowFunctionExpression<'_>, &shape::Values<'_, '_>) -> bool| {
        values.iter().find_map(|(name, value)| {
            let shape::Value::Init(init) = value else {
                return None;
            };
            let Expression::ArrowFunctionExpression(f) = init.without_parentheses() else {
                return None;
            };
            is(f, &values).then(|| name.clone())
        })
    };
    Interop {
        to_common_js: find(shape::is_to_common_js),
        to_esm: find(to_esm::is_to_esm),
        namer: find(shape::is_namer),
    }
}

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

/// What the loader's table says of one module file: its path, and the names its `require`
/// calls.
pub(crate) type Target = (String, Vec<String>);

/// The loader's table as a JavaScript object literal (JSON), files and paths sorted.
pub(crate) fn table_text(table: FxHashMap<&str, Vec<Target>>) -> String {
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

/// Every text between quotes in `source` that starts as a relative path does (`./`, `../`),
/// read in one pass: the paths it could require of its own.
pub(crate) fn relative_strings(source: &str) -> FxHashSet<&str> {
    let mut out = FxHashSet::default();
    let bytes = source.as_bytes();
    for (at, _) in source.match_indices("./") {
        // Back over a run of dots to the quote before it.
        let mut start = at;
        while start > 0 && bytes[start - 1] == b'.' {
            start -= 1;
        }
        let Some(&quote) = start.checked_sub(1).and_then(|q| bytes.get(q)) else {
            continue;
        };
        if quote != b'"' && quote != b'\'' {
            continue;
        }
        if let Some(len) = source[start..].find(quote as char) {
            out.insert(&source[start..start + len]);
        }
    }
    out
}

/// The path of `to` from the folder of `from` (both from the output folder, with `/`), as a
/// `require` takes it: `./a/b.js` or `../x.cjs`.
pub(crate) fn relative(from: &str, to: &str) -> String {
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
    use super::{relative, relative_strings};

    #[test]
    fn a_module_s_own_relative_strings_are_read_in_either_quotes() {
        let strings = relative_strings("r('./a.cjs'); x = \"../b/c.js\"; y = 'no'; z = \".../d\"");
        assert!(strings.contains("./a.cjs"), "{strings:?}");
        assert!(strings.contains("../b/c.js"), "{strings:?}");
        assert!(!strings.contains("no"), "{strings:?}");
        assert!(
            strings.contains(".../d"),
            "dots run back to the quote: {strings:?}"
        );
    }

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
