//! The files whose definitions are candidates: the open documents, and the workspace files the
//! document imports (read through the caller's [`syntax::WorkspaceFiles`]), with what the
//! document's imports say about each (imported at all, which names, under which alias).

use std::borrow::Cow;

use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};
use syntax::WorkspaceFiles;

use rustc_hash::{FxHashMap, FxHasher};

use crate::{OpenFirst, RequestJson, detected_language, relative_path};

/// A candidate file.
pub(crate) struct SourceFile<'r> {
    /// Workspace-relative, as the resolver and the workspace reader use it.
    pub key: String,
    /// As shown in the prompt (percent-encoded like Copilot's paths).
    pub shown: String,
    pub text: Cow<'r, str>,
    pub lang: Option<syntax::Lang>,
    pub import: Option<ImportInfo>,
}

/// What the document's imports say about a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ImportInfo {
    /// Names imported from it by name.
    pub names: Vec<String>,
    /// The alias its module is reached through (`np`, `money`).
    pub alias: Option<String>,
}

/// Files imported per prompt at most (beyond the open documents).
const MAX_IMPORTED_FILES: usize = 12;
/// Open documents considered at most, most recently used first (Copilot looks at 20).
const MAX_OPEN_FILES: usize = 30;
/// Of a larger document, imports are read from this many first bytes only: parsing a huge
/// file on a keystroke would cost more than its imports are worth.
const MAX_IMPORT_SCAN_BYTES: usize = 1 << 20;

/// Resolved imports by document and import lines, so that typing elsewhere does not parse and
/// resolve the document's imports again.
type Resolved = Vec<(String, ImportInfo)>;
static RESOLVED: LazyLock<Mutex<FxHashMap<u64, Resolved>>> =
    LazyLock::new(|| Mutex::new(FxHashMap::default()));

/// Lines that may hold an import in one of the languages parsed here (or continue one).
fn import_like(line: &str) -> bool {
    let t = line.trim_start();
    let Some(first) = t.bytes().next() else {
        return false;
    };
    match first {
        b'i' => t.starts_with("import"),
        b'f' => t.starts_with("from "),
        b'u' => t.starts_with("use "),
        b'p' => {
            t.starts_with("pub use ")
                || t.starts_with("pub(crate) use ")
                || t.starts_with("package ")
        }
        b'e' => t.starts_with("export "),
        b'c' | b'v' | b'l' => {
            (t.starts_with("const ") || t.starts_with("var ") || t.starts_with("let "))
                && t.contains("require(")
        }
        b'"' | b')' | b'}' => true,
        _ => false,
    }
}

/// The document's imports resolved to workspace files: (workspace-relative path, info).
fn resolved_imports(
    lang: syntax::Lang,
    path: &str,
    text: &str,
    reader: &OpenFirst<'_>,
    open_paths: &[String],
) -> Resolved {
    let mut hasher = FxHasher::default();
    path.hash(&mut hasher);
    open_paths.hash(&mut hasher);
    for line in text.lines().filter(|l| import_like(l)) {
        line.hash(&mut hasher);
    }
    let key = hasher.finish();
    if let Some(found) = RESOLVED.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return found.clone();
    }
    let mut out: Resolved = Vec::new();
    for import in syntax::imports(lang, text) {
        if out.len() >= MAX_IMPORTED_FILES {
            break;
        }
        for candidate in syntax::resolve_candidates(lang, path, &import, reader) {
            if candidate == path {
                continue;
            }
            if reader.read(&candidate).is_none() {
                continue;
            }
            match out.iter_mut().find(|(p, _)| *p == candidate) {
                Some((_, info)) => {
                    for n in &import.names {
                        if !info.names.contains(n) {
                            info.names.push(n.clone());
                        }
                    }
                    if info.alias.is_none() {
                        info.alias.clone_from(&import.alias);
                    }
                }
                None => out.push((
                    candidate,
                    ImportInfo {
                        names: import.names.clone(),
                        alias: import.alias.clone(),
                    },
                )),
            }
            break;
        }
    }
    let mut cache = RESOLVED.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() > 4096 {
        cache.clear();
    }
    cache.insert(key, out.clone());
    out
}

/// The candidate files for `request`: open documents first (most recent first), then imported
/// files not open. The document itself is not a candidate.
pub(crate) fn source_files<'r>(
    request: &'r RequestJson,
    reader: &OpenFirst<'r>,
    doc_lang: Option<syntax::Lang>,
) -> Vec<SourceFile<'r>> {
    let root = request.workspace_root.as_deref();
    let doc_key = reader.relative(&request.document.path);
    let open = &request.open_documents[..request.open_documents.len().min(MAX_OPEN_FILES)];
    let open_paths: Vec<String> = open.iter().map(|d| reader.relative(&d.path)).collect();
    let text = &request.document.text;
    let head = if text.len() > MAX_IMPORT_SCAN_BYTES {
        let cut = text[..MAX_IMPORT_SCAN_BYTES]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        &text[..cut]
    } else {
        text.as_str()
    };
    let imports = match doc_lang {
        Some(lang) => resolved_imports(lang, &doc_key, head, reader, &open_paths),
        None => Vec::new(),
    };
    let mut out: Vec<SourceFile<'r>> = Vec::new();
    for (d, key) in open.iter().zip(open_paths) {
        if key == doc_key || out.iter().any(|f| f.key == key) {
            continue;
        }
        let language = detected_language(&d.path, d.language_id.as_deref());
        out.push(SourceFile {
            import: imports
                .iter()
                .find(|(p, _)| *p == key)
                .map(|(_, i)| i.clone()),
            shown: relative_path(root, &d.path).unwrap_or_else(|| key.clone()),
            key,
            text: Cow::Borrowed(d.text.as_str()),
            lang: syntax::Lang::from_language_id(&language),
        });
    }
    for (key, info) in imports {
        if out.iter().any(|f| f.key == key) {
            continue;
        }
        let Some(text) = reader.read(&key) else {
            continue;
        };
        let language = detected_language(&key, None);
        out.push(SourceFile {
            shown: crate::encode_uri_path(&key),
            lang: syntax::Lang::from_language_id(&language),
            key,
            text: Cow::Owned(text),
            import: Some(info),
        });
    }
    out
}
