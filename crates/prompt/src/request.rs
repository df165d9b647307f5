//! The editor-state contract (described for users in `docs/completion-request.md`): the JSON a caller sends,
//! and its validation into a [`Request`] that assembly can trust.

use serde::{Deserialize, Serialize};

/// A completion request as JSON. Unknown fields are refused, as the configuration file's are:
/// a misspelt option (`max_prompt_token`) would otherwise be silently ignored.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RequestJson {
    #[serde(default)]
    pub workspace_root: Option<String>,
    pub document: DocumentJson,
    pub position: Position,
    #[serde(default)]
    pub open_documents: Vec<DocumentJson>,
    #[serde(default)]
    pub recent_edits: Vec<Snapshot>,
    #[serde(default)]
    pub diagnostics: Vec<DiagnosticBag>,
    #[serde(default)]
    pub traits: Vec<Trait>,
    #[serde(default)]
    pub code_snippets: Vec<CodeSnippet>,
    /// The signature a language server shows for the member being typed (`copilot-legacy`
    /// uses it when the cursor follows `.name`, `->name` or `::name`).
    #[serde(default)]
    pub tooltip_signature: Option<String>,
    #[serde(default)]
    pub options: Options,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentJson {
    pub path: String,
    #[serde(default)]
    pub language_id: Option<String>,
    pub text: String,
}

/// A document's contents at one moment. Recent edits are given as the successive contents of
/// documents, oldest first; the first snapshot of a file is its starting point.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct Snapshot {
    pub path: String,
    pub text: String,
}

/// A position as in LSP: 0-based line, `character` in UTF-16 code units.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub character: usize,
}

/// A fact a context provider offers about the project (`name: value` in the prompt).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Trait {
    pub name: String,
    pub value: String,
}

/// Code a context provider offers, from another file.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct CodeSnippet {
    pub path: String,
    pub value: String,
    /// Higher is more important; snippets of one file are grouped and ranked by the highest.
    #[serde(default)]
    pub importance: Option<f64>,
}

/// Diagnostics of one file, as a language server reports them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct DiagnosticBag {
    pub path: String,
    #[serde(default)]
    pub importance: Option<f64>,
    pub values: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Diagnostic {
    pub range: Range,
    pub severity: Severity,
    pub message: String,
    #[serde(default)]
    pub code: Option<DiagnosticCode>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
pub struct Range {
    pub start: Position,
    #[serde(default)]
    pub end: Option<Position>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum DiagnosticCode {
    Number(i64),
    Text(String),
}

/// How the prompt is built. Every field is optional; the defaults are Copilot's.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `o200k_base` (Copilot's default), `cl100k_base` or `approximate`.
    pub tokenizer: String,
    /// Tokens for prefix, context and suffix together (Copilot: 8192 - 500 for the answer).
    pub max_prompt_tokens: usize,
    /// The suffix's share of the budget, in percent.
    pub suffix_percent: u32,
    /// How different (in percent of tokens) a new suffix may be from the previous one and
    /// still be replaced by it, which keeps a model server's prompt cache warm.
    pub suffix_match_threshold: u32,
    /// `outline` (the default): definitions the code at the cursor needs, ranked one by one;
    /// `copilot`: Copilot's current prompt; `copilot-legacy`: its older priority wishlist.
    pub strategy: String,
    /// `split`: context sent apart from the prefix, as Copilot does today; `inline`: context
    /// commented into the prefix, for models that take a single prompt.
    pub context: ContextRendering,
    /// Similar-files option set: `default`, `conservative`, `cpp`, `none`; by language when
    /// absent.
    pub similar_files: Option<String>,
    /// Also render the prompt as one fill-in-the-middle string for a local model: a template
    /// name (`qwen2.5-coder`, `deepseek-coder`, `codellama`, `starcoder`, `codestral`, ...) or
    /// a custom template with `{prefix}` and `{suffix}`. Its tokens are reserved in the budget.
    pub fim_template: Option<String>,
    /// For `copilot-legacy`: `priorities` (the priority wishlist of seed 001, the default) or
    /// `order-list` (the later order and priority lists of seed 002).
    pub legacy_preset: Option<String>,
    /// Include the declarations of what the document imports from workspace files (TypeScript,
    /// JavaScript, Python, Rust, Go, Java). Default: off for `copilot` (Copilot's current
    /// prompt has no such part), on for `copilot-legacy` (which did it for TypeScript).
    pub imports: Option<bool>,
    /// The repository name for repository-level FIM formats (default: the workspace folder's name).
    pub repo_name: Option<String>,
    /// The editor's tab width, for re-indenting an answer (not used by the prompt itself).
    pub tab_size: Option<usize>,
    /// Whether the editor indents with spaces (true) or tabs (false); absent: leave the
    /// answer's indentation as the model wrote it.
    pub insert_spaces: Option<bool>,
    /// For `outline`: the context's share of the budget at least, in percent (default 35).
    pub context_floor_percent: Option<u32>,
    /// For `outline`: the weights of the ranking signals, any of them (defaults: tuned on the
    /// cross-file benchmark's dev split). For experiments; see docs/context.md.
    pub context_weights: Option<retrieval::rank::Weights>,
    /// For `outline`: `stable` (the default) lays the prompt out so that consecutive
    /// keystrokes share the longest start with the previous prompt (a model server's prompt
    /// cache then reads only what changed): the context kept while it stays relevant, the
    /// prefix starting at an anchor that moves in steps, a short suffix. `plain` rebuilds
    /// every part for each request.
    pub layout: Layout,
    /// For `outline`: the prefix's tokens at most, for a server that cuts a longer prefix at
    /// its start (llama.cpp's `/infill` keeps three quarters of its batch, 1,536 of the
    /// model's tokens by default); what the prefix cannot use goes to the context. The
    /// pipeline sets it for `/infill`.
    pub max_prefix_tokens: Option<usize>,
    /// For `copilot`: the first line of the recent-edits block. Copilot's own line is not in
    /// pilotfish: the caller reads it from Copilot's package where the user fetched it
    /// (`tools/copilot-texts.sh`, `host::copilot_texts`); `None` sends pilotfish's own line.
    /// Never part of a request's JSON.
    #[serde(skip)]
    pub recent_edits_heading: Option<String>,
}

/// How the `outline` prompt is laid out across keystrokes.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    #[default]
    Stable,
    Plain,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            tokenizer: "o200k_base".to_owned(),
            max_prompt_tokens: 8192 - 500,
            suffix_percent: 15,
            suffix_match_threshold: 10,
            strategy: "outline".to_owned(),
            context: ContextRendering::Split,
            similar_files: None,
            fim_template: None,
            imports: None,
            legacy_preset: None,
            repo_name: None,
            tab_size: None,
            insert_spaces: None,
            context_floor_percent: None,
            context_weights: None,
            layout: Layout::Stable,
            max_prefix_tokens: None,
            recent_edits_heading: None,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum ContextRendering {
    #[default]
    Split,
    Inline,
}

/// A request that cannot be served, with what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("position line {line} is outside the document ({lines} lines): lines count from 0")]
    LineOutOfRange { line: usize, lines: usize },
    #[error(
        "position character {character} is past the end of line {line} ({length} UTF-16 code units)"
    )]
    CharacterOutOfRange {
        line: usize,
        character: usize,
        length: usize,
    },
    #[error("position character {character} on line {line} falls inside a surrogate pair")]
    InsideSurrogatePair { line: usize, character: usize },
    #[error("suffix_percent is {0}: it must be between 0 and 100")]
    SuffixPercent(u32),
    #[error("suffix_match_threshold is {0}: it must be between 0 and 100")]
    SuffixMatchThreshold(u32),
    #[error("max_prompt_tokens must be at least 1")]
    NoBudget,
    #[error(transparent)]
    Tokenizer(#[from] tokenizer::UnknownTokenizer),
    #[error("unknown strategy `{0}`: use outline, copilot or copilot-legacy")]
    Strategy(String),
    #[error("unknown legacy_preset `{0}`: use priorities or order-list")]
    LegacyPreset(String),
    #[error("unknown similar_files option set `{0}`: use default, conservative, cpp or none")]
    SimilarFiles(String),
    #[error("document path is empty: give the path of the file being edited")]
    EmptyPath,
    #[error(transparent)]
    Fim(#[from] crate::fim::FimError),
    #[error(
        "the FIM template alone takes {0} of the {1} tokens of the budget: raise max_prompt_tokens"
    )]
    FimTooLarge(usize, usize),
    #[error("context_floor_percent is {0}: it must be between 0 and 100")]
    ContextFloor(u32),
}

/// The byte offset of an LSP position in `text`. Lines end at `\n`, `\r\n` or `\r`, as in
/// editors; `character` counts UTF-16 code units.
pub fn byte_offset(text: &str, position: Position) -> Result<usize, RequestError> {
    let bytes = text.as_bytes();
    let mut line_start = 0usize;
    let mut line = 0usize;
    while line < position.line {
        match bytes[line_start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            Some(i) => {
                let at = line_start + i;
                line_start = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                    at + 2
                } else {
                    at + 1
                };
                line += 1;
            }
            None => {
                return Err(RequestError::LineOutOfRange {
                    line: position.line,
                    lines: line + 1,
                });
            }
        }
    }
    let rest = &text[line_start..];
    let line_text = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
    let mut units = 0usize;
    for (i, ch) in line_text.char_indices() {
        if units == position.character {
            return Ok(line_start + i);
        }
        units += ch.len_utf16();
        if units > position.character {
            return Err(RequestError::InsideSurrogatePair {
                line: position.line,
                character: position.character,
            });
        }
    }
    if units == position.character {
        Ok(line_start + line_text.len())
    } else {
        Err(RequestError::CharacterOutOfRange {
            line: position.line,
            character: position.character,
            length: units,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, line: usize, character: usize) -> Result<usize, RequestError> {
        byte_offset(text, Position { line, character })
    }

    #[test]
    fn positions() {
        assert_eq!(at("ab\ncd", 1, 1), Ok(4));
        assert_eq!(at("ab\r\ncd", 1, 2), Ok(6));
        assert_eq!(at("ab\rcd", 1, 0), Ok(3));
        assert_eq!(at("a😀b", 0, 3), Ok(5));
        assert!(matches!(
            at("a😀b", 0, 2),
            Err(RequestError::InsideSurrogatePair { .. })
        ));
        assert!(matches!(
            at("ab", 0, 3),
            Err(RequestError::CharacterOutOfRange { length: 2, .. })
        ));
        assert!(matches!(
            at("ab\n", 2, 0),
            Err(RequestError::LineOutOfRange { lines: 2, .. })
        ));
        assert_eq!(at("", 0, 0), Ok(0));
    }
}
