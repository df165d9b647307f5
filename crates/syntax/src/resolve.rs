//! From an import to the workspace file it names, and from that file to the declarations of
//! the names imported. Paths are workspace-relative with `/` separators; the caller's
//! [`WorkspaceFiles`] reads and lists them.

use crate::{Import, Lang, declarations, imports};

/// Read access to the workspace, given by the caller (this crate does no I/O).
pub trait WorkspaceFiles {
    /// The text of a workspace-relative file, if it exists and is text.
    fn read(&self, path: &str) -> Option<String>;
    /// The files directly inside a workspace-relative folder (names only).
    fn list(&self, dir: &str) -> Vec<String>;
}

/// The declarations one imported file contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedDeclarations {
    /// The imported file, workspace-relative.
    pub path: String,
    /// The declarations of the imported names, in file order, separated by blank lines.
    pub text: String,
    /// The names found.
    pub names: Vec<String>,
}

/// Files imported per prompt at most, and characters of declarations per file.
const MAX_FILES: usize = 10;
const MAX_CHARS_PER_FILE: usize = 4000;

/// The declarations of everything `source` (at workspace-relative `path`) imports from the
/// workspace, in import order.
pub fn imported_declarations(
    lang: Lang,
    path: &str,
    source: &str,
    files: &dyn WorkspaceFiles,
) -> Vec<ImportedDeclarations> {
    // One entry per module: `use a::{b, c}` and `from m import x` / `from m import y` name one
    // file several times.
    let mut merged: Vec<Import> = Vec::new();
    for import in imports(lang, source) {
        match merged
            .iter_mut()
            .find(|m| m.module == import.module && m.alias == import.alias)
        {
            Some(m) => {
                for name in import.names {
                    if !m.names.contains(&name) {
                        m.names.push(name);
                    }
                }
            }
            None => merged.push(import),
        }
    }
    let mut out: Vec<ImportedDeclarations> = Vec::new();
    for import in merged {
        if out.len() >= MAX_FILES {
            break;
        }
        let wanted = wanted_names(&import, source);
        if wanted.is_empty() {
            continue;
        }
        for candidate in resolve_candidates(lang, path, &import, files) {
            if candidate == path || out.iter().any(|o| o.path == candidate) {
                continue;
            }
            let Some(text) = files.read(&candidate) else {
                continue;
            };
            let found: Vec<_> = declarations(lang, &text)
                .into_iter()
                .filter(|d| wanted.contains(&d.name))
                .collect();
            if found.is_empty() {
                continue;
            }
            let mut joined = String::new();
            let mut names = Vec::new();
            for d in found {
                if joined.len() + d.text.len() > MAX_CHARS_PER_FILE {
                    break;
                }
                if !joined.is_empty() {
                    joined.push_str("\n\n");
                }
                joined.push_str(&d.text);
                names.push(d.name);
            }
            if !names.is_empty() {
                out.push(ImportedDeclarations {
                    path: candidate,
                    text: joined,
                    names,
                });
            }
            break;
        }
    }
    out
}

/// The names to look for: those imported by name, else those the file reaches through the
/// module's alias (`money.Round`, `np.array`).
fn wanted_names(import: &Import, source: &str) -> Vec<String> {
    if !import.names.is_empty() {
        return import.names.clone();
    }
    let Some(alias) = &import.alias else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let needle = format!("{alias}.");
    let mut rest = source;
    while let Some(i) = rest.find(&needle) {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        let after = &rest[i + needle.len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if before_ok && !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
        rest = &rest[i + needle.len()..];
    }
    names
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Joins and normalizes `a/b/../c` style paths; `None` when they climb out of the workspace.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The workspace files an import may name, most likely first: each language's own rules
/// for where a module lives.
pub fn resolve_candidates(
    lang: Lang,
    path: &str,
    import: &Import,
    files: &dyn WorkspaceFiles,
) -> Vec<String> {
    let dir = dir_of(path);
    let m = import.module.as_str();
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => script_candidates(dir, m),
        Lang::Python => python_candidates(dir, m, import),
        Lang::Rust => rust_candidates(path, dir, m),
        Lang::Go => go_candidates(m, files),
        Lang::Java => java_candidates(path, dir, import, files),
    }
}

/// TypeScript and JavaScript: only relative imports are the workspace's; the file as named,
/// with each extension, then a folder's `index` file.
fn script_candidates(dir: &str, m: &str) -> Vec<String> {
    if !m.starts_with('.') {
        return Vec::new();
    }
    let Some(base) = join(dir, m) else {
        return Vec::new();
    };
    let stem = base
        .strip_suffix(".js")
        .or_else(|| base.strip_suffix(".jsx"))
        .unwrap_or(&base);
    let mut out = vec![base.clone()];
    for ext in [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs"] {
        out.push(format!("{stem}{ext}"));
    }
    for ext in ["ts", "tsx", "js", "jsx"] {
        out.push(format!("{base}/index.{ext}"));
    }
    out
}

/// Python: a relative import from the file's package (one folder up per extra dot), an
/// absolute one from the file's folder, the root or `src`; a module file or a package's
/// `__init__.py`.
fn python_candidates(dir: &str, m: &str, import: &Import) -> Vec<String> {
    let dots = m.chars().take_while(|&c| c == '.').count();
    let rest = m[dots..].replace('.', "/");
    let bases: Vec<String> = if dots > 0 {
        let mut d = dir.to_owned();
        for _ in 1..dots {
            d = dir_of(&d).to_owned();
        }
        vec![d]
    } else {
        vec![dir.to_owned(), String::new(), "src".to_owned()]
    };
    let mut out = Vec::new();
    for base in bases {
        let Some(p) = join(&base, &rest) else {
            continue;
        };
        if rest.is_empty() {
            let folder = if p.is_empty() {
                String::new()
            } else {
                format!("{p}/")
            };
            // `from . import cart`: the names are modules.
            out.extend(import.names.iter().map(|n| format!("{folder}{n}.py")));
            out.push(format!("{folder}__init__.py"));
        } else {
            out.push(format!("{p}.py"));
            out.push(format!("{p}/__init__.py"));
        }
    }
    out
}

/// Rust: `crate::`, `super::` and `self::` paths, each module along the path as a file or a
/// folder's `mod.rs`, the longest path first.
fn rust_candidates(path: &str, dir: &str, m: &str) -> Vec<String> {
    let segments: Vec<&str> = m.split("::").collect();
    let (base, rest): (String, &[&str]) = match segments.first() {
        Some(&"crate") => {
            let root = match path.find("src/") {
                Some(i) => path[..i + 3].to_owned(),
                None => "src".to_owned(),
            };
            (root, &segments[1..])
        }
        Some(&"super") => (dir_of(dir).to_owned(), &segments[1..]),
        Some(&"self") => (dir.to_owned(), &segments[1..]),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    // The longest module path first: the item may live in any module along the way.
    for n in (0..=rest.len()).rev() {
        let module = rest[..n].join("/");
        if module.is_empty() {
            out.push(format!("{base}/lib.rs"));
            out.push(format!("{base}/main.rs"));
            out.push(format!("{base}/mod.rs"));
        } else {
            out.push(format!("{base}/{module}.rs"));
            out.push(format!("{base}/{module}/mod.rs"));
        }
    }
    out
}

/// Go: an import under the module `go.mod` names is a package folder; its files, tests
/// aside, in name order.
fn go_candidates(m: &str, files: &dyn WorkspaceFiles) -> Vec<String> {
    let Some(go_mod) = files.read("go.mod") else {
        return Vec::new();
    };
    let Some(module) = go_mod
        .lines()
        .find_map(|l| l.trim().strip_prefix("module "))
        .map(str::trim)
    else {
        return Vec::new();
    };
    let Some(rel) = m.strip_prefix(module) else {
        return Vec::new();
    };
    let package_dir = rel.trim_start_matches('/');
    let mut names = files.list(package_dir);
    names.sort();
    names
        .into_iter()
        .filter(|n| n.ends_with(".go") && !n.ends_with("_test.go"))
        .map(|n| {
            if package_dir.is_empty() {
                n
            } else {
                format!("{package_dir}/{n}")
            }
        })
        .collect()
}

/// Java: the class's file under the importing file's own source root (from its package
/// declaration), then the usual roots.
fn java_candidates(
    path: &str,
    dir: &str,
    import: &Import,
    files: &dyn WorkspaceFiles,
) -> Vec<String> {
    let m = import.module.as_str();
    let Some(name) = import.names.first() else {
        return Vec::new();
    };
    let relative = format!("{}/{name}.java", m.replace('.', "/"));
    let mut roots = vec!["src/main/java".to_owned(), "src".to_owned(), String::new()];
    // The importing file's own source root, from its package declaration.
    if let Some(own) = java_package(path, files) {
        let own_dir = own.replace('.', "/");
        if let Some(root) = dir.strip_suffix(&own_dir) {
            roots.insert(0, root.trim_end_matches('/').to_owned());
        }
    }
    roots
        .into_iter()
        .map(|r| {
            if r.is_empty() {
                relative.clone()
            } else {
                format!("{r}/{relative}")
            }
        })
        .collect()
}

fn java_package(path: &str, files: &dyn WorkspaceFiles) -> Option<String> {
    let source = files.read(path)?;
    source
        .lines()
        .find_map(|l| l.trim().strip_prefix("package "))
        .map(|p| p.trim_end_matches(';').trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct Fake(BTreeMap<&'static str, &'static str>);

    impl WorkspaceFiles for Fake {
        fn read(&self, path: &str) -> Option<String> {
            self.0.get(path).map(|s| (*s).to_owned())
        }
        fn list(&self, dir: &str) -> Vec<String> {
            self.0
                .keys()
                .filter_map(|k| k.strip_prefix(dir).and_then(|r| r.strip_prefix('/')))
                .filter(|r| !r.contains('/'))
                .map(str::to_owned)
                .collect()
        }
    }

    #[test]
    fn typescript_relative_imports() {
        let files = Fake(BTreeMap::from([(
            "src/cart.ts",
            "export function total(x: number[]): number {\n  return 0;\n}\nexport const unused = 1;\n",
        )]));
        let d = imported_declarations(
            Lang::TypeScript,
            "src/app.ts",
            "import { total } from './cart';\n",
            &files,
        );
        assert_eq!(
            d,
            vec![ImportedDeclarations {
                path: "src/cart.ts".into(),
                text: "export function total(x: number[]): number { ... }".into(),
                names: vec!["total".into()],
            }]
        );
    }

    #[test]
    fn go_packages_by_use() {
        let files = Fake(BTreeMap::from([
            ("go.mod", "module example.com/shop\n\ngo 1.22\n"),
            (
                "money/money.go",
                "package money\nfunc Round(x float64) float64 {\n\treturn x\n}\nfunc Other() {}\n",
            ),
        ]));
        let src =
            "package main\nimport \"example.com/shop/money\"\nfunc main() { money.Round(1) }\n";
        let d = imported_declarations(Lang::Go, "main.go", src, &files);
        assert_eq!(d[0].names, ["Round"]);
    }

    #[test]
    fn paths_do_not_climb_out() {
        assert_eq!(join("a", "../../x"), None);
        assert_eq!(join("a/b", "../c/./d"), Some("a/c/d".into()));
    }
}
