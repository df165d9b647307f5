//! The completion prompt, assembled as Copilot assembles it today: components render text
//! blocks with weights, elision fits them into the token budget, and the result is rendered as
//! Copilot sends it (context apart from the prefix) or with the context commented into the
//! prefix for models that take one prompt.
//!
//! Assembly is pure: the caller supplies the documents (see [`request`] for the contract) and
//! gets back the prompt together with every element that was considered and what became of it.
//!
//! ```
//! use prompt::{assemble, request::{RequestJson, DocumentJson, Position, Options}};
//! let request = RequestJson {
//!     workspace_root: None,
//!     document: DocumentJson { path: "src/app.py".into(), language_id: None, text: "def add(a, b):\n    return a + b\n".into() },
//!     position: Position { line: 1, character: 4 },
//!     open_documents: vec![], recent_edits: vec![], diagnostics: vec![], traits: vec![],
//!     code_snippets: vec![], tooltip_signature: None, options: Options::default(),
//! };
//! let prompt = assemble(&request, &mut prompt::Session::default()).unwrap();
//! assert_eq!(prompt.prefix, "def add(a, b):\n");
//! assert_eq!(prompt.context, vec!["Path: src/app.py".to_owned()]);
//! ```

mod components;
mod display;
pub mod elision;
pub mod fim;
pub mod html;
pub mod legacy;
pub mod recent_edits;
pub mod request;
mod skip;
mod strategies;
mod suffix;

pub use display::render_text;

use elision::{BlockType, ElidedBlock};
use request::{RequestError, RequestJson};
use serde::Serialize;

/// What assembly produced: the prompt as sent, and an account of every element.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Prompt {
    /// Text before the cursor as sent (with the context when rendered inline).
    pub prefix: String,
    /// Text after the cursor as sent.
    pub suffix: String,
    /// Context blocks sent apart from the prefix (empty when rendered inline).
    pub context: Vec<String>,
    /// Tokens of prefix and context, counted as Copilot counts them (line by line).
    pub prompt_tokens: usize,
    pub suffix_tokens: usize,
    /// White space cut from the end of the prefix's last line; Copilot strips it from the
    /// prompt and puts it back in front of the completion.
    pub trailing_whitespace: String,
    pub elements: Vec<Element>,
    /// Whether Copilot would send a request at this position at all.
    pub copilot_would_request: bool,
    /// Why not, when it would not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copilot_skip_reason: Option<String>,
    /// The prompt as one fill-in-the-middle string, when a FIM template was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fim_prompt: Option<String>,
    /// Tokens the FIM template's own text takes (reserved in the budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fim_template_tokens: Option<usize>,
    /// Things worth knowing about this prompt that are not elements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One candidate piece of the prompt.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Element {
    pub kind: ElementKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The element's full text (before elision).
    pub text: String,
    /// Its tokens before elision.
    pub tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Whether any of it is in the prompt.
    pub included: bool,
    /// Tokens of it in the prompt.
    pub included_tokens: usize,
    /// Why it was dropped or cut, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The parts of its score: each ranking signal and what it added (the `outline` strategy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<retrieval::rank::ScorePart>,
}

impl Element {
    /// `included`, `cut` (only part of it went in) or `dropped`, as people are shown it.
    pub fn status(&self) -> &'static str {
        if !self.included {
            "dropped"
        } else if self.included_tokens < self.tokens {
            "cut"
        } else {
            "included"
        }
    }

    /// The parts of its score in words (`signal +1.23, ...`), for a ranked definition.
    pub fn why_text(&self) -> String {
        self.why
            .iter()
            .map(|p| format!("{} {:+.2}", p.signal, p.value))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum ElementKind {
    PathMarker,
    LanguageMarker,
    Trait,
    Diagnostic,
    CodeSnippet,
    SimilarFile,
    RecentEdit,
    BeforeCursor,
    AfterCursor,
    ImportedFile,
    TooltipSignature,
    /// A definition's signature (the `outline` strategy).
    Definition,
}

pub use strategies::outline::Anchor;

impl Session {
    /// Where the stable layout's prefix started last, for a caller that keeps it between
    /// processes.
    pub fn anchor(&self) -> Option<Anchor> {
        self.stable.anchor()
    }

    /// Resumes from an anchor an earlier process kept, where this session has none yet; an
    /// edit above it since is noticed (its hash no longer matches) and it is dropped.
    pub fn resume(&mut self, anchor: Anchor) {
        self.stable.resume(anchor);
    }
}

/// Per-document state that Copilot keeps between requests: the suffix last sent, reused while
/// the new one is close enough so that a model server's prompt cache stays warm.
#[derive(Debug, Clone, Default)]
pub struct Session {
    cached_suffix: String,
    /// The legacy engine's cached suffix: its text and token ids.
    legacy_suffix: (String, Vec<u32>),
    /// The outline strategy's stable layout: the prefix's anchor and the context last sent.
    stable: strategies::outline::Stable,
}

/// Why assembly failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error(transparent)]
    Elision(#[from] elision::ElisionError),
}

/// The context strategies, the default first.
pub const STRATEGIES: &[&str] = &["outline", "copilot", "copilot-legacy"];

/// Assembles the prompt for `request`, updating `session` (the suffix cache). Imported files
/// are not followed; see [`assemble_with_files`].
pub fn assemble(request: &RequestJson, session: &mut Session) -> Result<Prompt, AssembleError> {
    assemble_with_files(request, session, None)
}

/// [`assemble`] with read access to the workspace, for the declarations of imported names.
/// Open documents are read from the request first (their text may not be saved yet).
pub fn assemble_with_files(
    request: &RequestJson,
    session: &mut Session,
    files: Option<&dyn syntax::WorkspaceFiles>,
) -> Result<Prompt, AssembleError> {
    let reader = OpenFirst {
        request,
        disk: files,
    };
    let options = &request.options;
    if options.suffix_percent > 100 {
        return Err(RequestError::SuffixPercent(options.suffix_percent).into());
    }
    if options.suffix_match_threshold > 100 {
        return Err(RequestError::SuffixMatchThreshold(options.suffix_match_threshold).into());
    }
    if options.max_prompt_tokens == 0 {
        return Err(RequestError::NoBudget.into());
    }
    match options.strategy.as_str() {
        "outline" => strategies::outline::assemble(request, session, &reader),
        "copilot" => strategies::copilot::assemble(request, session, &reader),
        "copilot-legacy" => strategies::copilot_legacy::assemble(request, session, &reader),
        other => Err(RequestError::Strategy(other.to_owned()).into()),
    }
}

/// Workspace files as assembly reads them: open documents from the request, others from the
/// caller's reader.
pub(crate) struct OpenFirst<'a> {
    request: &'a RequestJson,
    disk: Option<&'a dyn syntax::WorkspaceFiles>,
}

impl OpenFirst<'_> {
    /// A request path made workspace-relative (as the resolver works with).
    fn relative(&self, path: &str) -> String {
        let root = self.request.workspace_root.as_deref();
        languages::percent_decode(&relative_path(root, path).unwrap_or_default())
    }
}

impl syntax::WorkspaceFiles for OpenFirst<'_> {
    fn read(&self, path: &str) -> Option<String> {
        let open = std::iter::once(&self.request.document).chain(&self.request.open_documents);
        for doc in open {
            if self.relative(&doc.path) == path {
                return Some(doc.text.clone());
            }
        }
        self.disk?.read(path)
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = self.disk.map(|d| d.list(dir)).unwrap_or_default();
        let open = std::iter::once(&self.request.document).chain(&self.request.open_documents);
        for doc in open {
            let rel = self.relative(&doc.path);
            let (d, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
            if d == dir && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        names
    }
}

/// The language Copilot uses for a document: from its file name, else what the editor said.
pub fn detected_language(path: &str, client_language_id: Option<&str>) -> String {
    languages::detect_language_from_path(path, client_language_id.unwrap_or("plaintext"))
        .into_owned()
}

/// A document's path as Copilot shows it: relative to the workspace folder, percent-encoded as
/// in a file URI. Outside the workspace folder, the file's name alone.
pub fn relative_path(workspace_root: Option<&str>, path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let relative = match workspace_root {
        Some(root) if path.starts_with('/') => {
            let root = root.trim_end_matches('/');
            match path
                .strip_prefix(root)
                .and_then(|rest| rest.strip_prefix('/'))
            {
                Some(rest) => rest,
                None => return Some(path.rsplit('/').next().unwrap_or(path).to_owned()),
            }
        }
        _ => path.trim_start_matches("./"),
    };
    Some(encode_uri_path(relative))
}

/// Percent-encodes a path as VS Code's file URIs do: letters, digits, `-._~` and `/` stay.
pub fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The context list Copilot sends: one entry per context group, its kept blocks trimmed and
/// joined by newlines.
pub fn context_list(elided: &[ElidedBlock]) -> Vec<String> {
    let mut groups: Vec<Option<Vec<String>>> = Vec::new();
    for b in elided {
        if let BlockType::Context { index } = b.block.block_type {
            if groups.len() <= index {
                groups.resize(index + 1, None);
            }
            let group = groups[index].get_or_insert_with(Vec::new);
            let trimmed = b.elided_value.trim_matches(languages::is_js_whitespace);
            if !trimmed.is_empty() {
                group.push(trimmed.to_owned());
            }
        }
    }
    groups
        .into_iter()
        .map(|g| {
            g.map(|g| {
                g.join("\n")
                    .trim_matches(languages::is_js_whitespace)
                    .to_owned()
            })
            .unwrap_or_default()
        })
        .collect()
}

/// Splits trailing white space off the prefix's last line when the line is nothing else.
pub fn trim_last_line(source: &str) -> (String, String) {
    let last_line = source.rsplit('\n').next().unwrap_or(source);
    let trimmed = last_line.trim_end_matches(languages::is_js_whitespace);
    let extra = last_line.len() - trimmed.len();
    if trimmed.is_empty() && extra > 0 {
        let cut = source.len() - extra;
        (source[..cut].to_owned(), source[cut..].to_owned())
    } else {
        (source.to_owned(), source[source.len() - extra..].to_owned())
    }
}

pub(crate) fn normalize_line_endings(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_whitespace_of_the_last_line() {
        assert_eq!(
            trim_last_line("a\n    "),
            ("a\n".to_owned(), "    ".to_owned())
        );
        assert_eq!(
            trim_last_line("a\n  x  "),
            ("a\n  x  ".to_owned(), "  ".to_owned())
        );
        assert_eq!(trim_last_line("a\n"), ("a\n".to_owned(), String::new()));
    }

    #[test]
    fn uri_paths() {
        assert_eq!(encode_uri_path("src/my file.ts"), "src/my%20file.ts");
        assert_eq!(encode_uri_path("é.py"), "%C3%A9.py");
        assert_eq!(
            relative_path(Some("/w"), "/w/a b/c.rs").as_deref(),
            Some("a%20b/c.rs")
        );
        assert_eq!(
            relative_path(Some("/w"), "/elsewhere/c d.rs").as_deref(),
            Some("c d.rs")
        );
    }
}
