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

mod display;
pub mod elision;
pub mod fim;
pub mod legacy;
pub mod recent_edits;
pub mod request;

pub use display::render_text;

use std::borrow::Cow;

use elision::{Block, BlockType, ElidedBlock, elide, prompt_limits};
use request::{ContextRendering, RequestError, RequestJson};
use retrieval::{NeighbourFile, OpenDocument, ReferenceDocument, SimilarFilesOptions};
use serde::Serialize;
use tokenizer::{Tokenizer, utf16};

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
}

/// Per-document state that Copilot keeps between requests: the suffix last sent, reused while
/// the new one is close enough so that a model server's prompt cache stays warm.
#[derive(Debug, Clone, Default)]
pub struct Session {
    cached_suffix: String,
    /// The legacy engine's cached suffix: its text and token ids.
    legacy_suffix: (String, Vec<u32>),
}

/// Why assembly failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error(transparent)]
    Elision(#[from] elision::ElisionError),
}

/// Copilot's context weights, from least to most important to keep.
const WEIGHT_TRAITS: f64 = 0.6;
const WEIGHT_DIAGNOSTICS: f64 = 0.65;
const WEIGHT_DOCUMENT_MARKER: f64 = 0.7;
const WEIGHT_SIMILAR_FILES: f64 = 0.8;
const WEIGHT_CODE_SNIPPETS: f64 = 0.9;
const WEIGHT_RECENT_EDITS: f64 = 0.99;

/// Below this many characters of document Copilot does not ask for a completion.
const MIN_PROMPT_CHARS: usize = 10;

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
        "copilot" => {}
        "copilot-legacy" => return assemble_legacy(request, session, &reader),
        other => return Err(RequestError::Strategy(other.to_owned()).into()),
    }
    if request.document.path.is_empty() {
        return Err(RequestError::EmptyPath.into());
    }
    let doc = &request.document;
    let language_id = detected_language(&doc.path, doc.language_id.as_deref());
    let tokenizer =
        Tokenizer::by_name(&options.tokenizer, Some(&language_id)).map_err(RequestError::from)?;
    let cursor = request::byte_offset(&doc.text, request.position)?;
    let root = request.workspace_root.as_deref();
    let relative_path = relative_path(root, &doc.path);
    let mut notes = Vec::new();

    // The current file: prefix and suffix, each capped in characters first.
    let max_chars = approximate_max_characters(options.max_prompt_tokens);
    let before = utf16::last_units(&doc.text[..cursor], max_chars).into_owned();
    let suffix_raw = suffix_after_cursor_line(&doc.text[cursor..], max_chars);
    let suffix = reuse_cached_suffix(
        session,
        suffix_raw,
        &tokenizer,
        options.suffix_match_threshold,
    );

    // Context components, in Copilot's order, as (element, blocks).
    let mut parts: Vec<Part> = Vec::new();
    parts.push(document_marker(
        relative_path.as_deref(),
        &doc.text,
        &language_id,
    ));
    parts.extend(traits(&request.traits));
    parts.extend(diagnostics(request, &language_id, root));
    parts.extend(code_snippets(&request.code_snippets, root));
    if options.imports.unwrap_or(false) {
        parts.extend(
            imported(request, &language_id, &reader)
                .into_iter()
                .enumerate()
                .map(|(n, d)| Part {
                    kind: ElementKind::ImportedFile,
                    path: Some(encode_uri_path(&d.path)),
                    score: None,
                    weight: WEIGHT_CODE_SNIPPETS,
                    values: vec![
                        (
                            format!("Compare this snippet from {}:", encode_uri_path(&d.path)),
                            chunk_id(5, n),
                        ),
                        (d.text, chunk_id(5, n)),
                    ],
                    context_index: 0,
                }),
        );
    }
    let similar_files_off =
        !request.code_snippets.is_empty() && language_id != "cpp" && language_id != "c";
    if similar_files_off {
        notes.push("similar files are off because code snippets were supplied (Copilot does the same outside C and C++)".to_owned());
    } else {
        parts.extend(similar_files(
            request,
            &language_id,
            &doc.text,
            cursor,
            root,
        )?);
    }
    parts.extend(recent_edits(request, root));

    // A FIM template makes one string: context goes into repository-level file sections where
    // the format has them, commented into the prefix otherwise. Its own tokens are set aside.
    let fim = options
        .fim_template
        .as_deref()
        .map(str::parse::<fim::FimTemplate>)
        .transpose()
        .map_err(RequestError::from)?;
    let repo_name = options.repo_name.clone().unwrap_or_else(|| {
        root.and_then(|r| r.trim_end_matches('/').rsplit('/').next())
            .filter(|name| !name.is_empty())
            .unwrap_or("workspace")
            .to_owned()
    });
    let shown_path = relative_path.clone().unwrap_or_default();
    let rendering = match &fim {
        Some(t) if !t.takes_context_sections() => ContextRendering::Inline,
        Some(_) => ContextRendering::Split,
        None => options.context,
    };
    let fim_overhead = fim.as_ref().map(|t| {
        // Two one-character context blocks stand for the section headers a repository-level
        // prompt may add; the characters themselves are the only over-reservation.
        let sample = ["x".to_owned(), "x".to_owned()];
        let parts = fim::FimParts {
            path: &shown_path,
            repo_name: &repo_name,
            context: if t.takes_context_sections() {
                &sample
            } else {
                &[]
            },
            prefix: "",
            suffix: "",
        };
        tokenizer.count(&t.render(&parts))
    });
    let budget = match fim_overhead {
        Some(o) if o >= options.max_prompt_tokens => {
            return Err(RequestError::FimTooLarge(o, options.max_prompt_tokens).into());
        }
        Some(o) => options.max_prompt_tokens - o,
        None => options.max_prompt_tokens,
    };
    let mut blocks: Vec<Block> = Vec::new();
    let mut block_part: Vec<usize> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for (value, chunk) in &part.values {
            if value.is_empty() {
                continue;
            }
            let with_delimiter: Cow<'_, str> = if value.ends_with('\n') {
                Cow::Borrowed(value)
            } else {
                Cow::Owned(format!("{value}\n"))
            };
            let value = match rendering {
                ContextRendering::Split => with_delimiter.into_owned(),
                ContextRendering::Inline if languages::is_shebang_line(value) => {
                    with_delimiter.into_owned()
                }
                ContextRendering::Inline => {
                    languages::comment_block_as_singles(&with_delimiter, &language_id)
                }
            };
            blocks.push(Block {
                block_type: BlockType::Context {
                    index: part.context_index,
                },
                value: normalize_line_endings(&value),
                weight: part.weight,
                chunk: *chunk,
            });
            block_part.push(p);
        }
    }
    let before_normalized = normalize_line_endings(&before);
    let prefix_block = (!before_normalized.is_empty()).then_some(blocks.len());
    if prefix_block.is_some() {
        blocks.push(Block {
            block_type: BlockType::Prefix,
            value: before_normalized,
            weight: 1.0,
            chunk: None,
        });
    }
    let suffix_normalized = normalize_line_endings(&suffix);
    let (prefix_limit, suffix_limit) =
        prompt_limits(&suffix_normalized, budget, options.suffix_percent);
    let (elided_suffix, mut elided) = elide(
        blocks,
        prefix_limit,
        &suffix_normalized,
        suffix_limit,
        &tokenizer,
    )?;
    let over =
        elision::enforce_budget(&mut elided, elided_suffix.elided_tokens, budget, &tokenizer);
    if over > 0 {
        notes.push(format!(
            "Copilot would have sent {over} token(s) over the budget here (a cut inside a character re-tokenizes longer); pilotfish cut the far end further"
        ));
    }

    let (prefix, context) = match rendering {
        ContextRendering::Split => (
            elided
                .iter()
                .filter(|b| b.block.block_type == BlockType::Prefix)
                .map(|b| b.elided_value.as_str())
                .collect::<String>(),
            context_list(&elided),
        ),
        ContextRendering::Inline => (
            elided
                .iter()
                .map(|b| b.elided_value.as_str())
                .collect::<String>(),
            Vec::new(),
        ),
    };
    let (prefix, trailing_whitespace) = trim_last_line(&prefix);
    let prompt_tokens = elided.iter().map(|b| b.elided_tokens).sum();

    let mut elements: Vec<Element> = parts
        .iter()
        .enumerate()
        .map(|(p, part)| {
            let mine: Vec<&ElidedBlock> = elided
                .iter()
                .zip(&block_part)
                .filter(|(_, bp)| **bp == p)
                .map(|(b, _)| b)
                .collect();
            let tokens = mine.iter().map(|b| b.tokens).sum();
            let included_tokens = mine.iter().map(|b| b.elided_tokens).sum::<usize>();
            let whole = mine.iter().all(|b| b.elided_value == b.block.value);
            let reason = if mine.is_empty() {
                Some("empty".to_owned())
            } else if included_tokens == 0 {
                Some(format!(
                    "dropped to fit the budget (weight {})",
                    part.weight
                ))
            } else if !whole {
                Some("cut to fit the budget".to_owned())
            } else {
                None
            };
            Element {
                kind: part.kind,
                path: part.path.clone(),
                text: part
                    .values
                    .iter()
                    .map(|(v, _)| v.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                tokens,
                score: part.score,
                included: included_tokens > 0,
                included_tokens,
                reason,
            }
        })
        .collect();
    let prefix_elided = prefix_block.map(|i| &elided[i]);
    elements.push(Element {
        kind: ElementKind::BeforeCursor,
        path: relative_path.clone(),
        text: before.clone(),
        tokens: prefix_elided.map_or(0, |b| b.tokens),
        score: None,
        included: prefix_elided.is_some_and(|b| b.elided_tokens > 0),
        included_tokens: prefix_elided.map_or(0, |b| b.elided_tokens),
        reason: prefix_elided
            .filter(|b| b.elided_value != b.block.value)
            .map(|_| "cut to fit the budget: lines far from the cursor dropped".to_owned()),
    });
    elements.push(Element {
        kind: ElementKind::AfterCursor,
        path: relative_path.clone(),
        text: suffix.clone(),
        tokens: elided_suffix.tokens,
        score: None,
        included: elided_suffix.elided_tokens > 0,
        included_tokens: elided_suffix.elided_tokens,
        reason: if suffix.is_empty() {
            Some("nothing after the cursor line".to_owned())
        } else if suffix_limit <= 0 {
            Some("the suffix has no share of the budget (suffix_percent is 0)".to_owned())
        } else if elided_suffix.elided_value != elided_suffix.value {
            Some("cut to the suffix's share of the budget".to_owned())
        } else {
            None
        },
    });

    let fim_prompt = fim.as_ref().map(|t| {
        t.render(&fim::FimParts {
            path: &shown_path,
            repo_name: &repo_name,
            context: &context,
            prefix: &prefix,
            suffix: &elided_suffix.elided_value,
        })
    });
    let skip = copilot_skip_reason(&doc.text, cursor, options.suffix_percent, &language_id);
    Ok(Prompt {
        prefix,
        suffix: elided_suffix.elided_value,
        context,
        prompt_tokens,
        suffix_tokens: elided_suffix.elided_tokens,
        trailing_whitespace,
        elements,
        copilot_would_request: skip.is_none(),
        copilot_skip_reason: skip,
        fim_prompt,
        fim_template_tokens: fim_overhead,
        notes,
    })
}

/// Workspace files as assembly reads them: open documents from the request, others from the
/// caller's reader.
struct OpenFirst<'a> {
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

/// The declarations the document imports from workspace files.
fn imported(
    request: &RequestJson,
    language_id: &str,
    files: &OpenFirst<'_>,
) -> Vec<syntax::ImportedDeclarations> {
    let Some(lang) = syntax::Lang::from_language_id(language_id) else {
        return Vec::new();
    };
    let path = files.relative(&request.document.path);
    syntax::imported_declarations(lang, &path, &request.document.text, files)
}

/// The older engine: a priority wishlist filled by `fulfill` (see [`legacy`]), the suffix given
/// its share first.
fn assemble_legacy(
    request: &RequestJson,
    session: &mut Session,
    files: &OpenFirst<'_>,
) -> Result<Prompt, AssembleError> {
    use legacy::{Kind, Priorities, TOP, Wishlist};
    let options = &request.options;
    let doc = &request.document;
    if doc.path.is_empty() {
        return Err(RequestError::EmptyPath.into());
    }
    let detected = detected_language(&doc.path, doc.language_id.as_deref());
    // The old engine works with the normalized language id throughout.
    let language = languages::normalize_language_id(&detected).into_owned();
    let tokenizer =
        Tokenizer::by_name(&options.tokenizer, Some(&detected)).map_err(RequestError::from)?;
    let cursor = request::byte_offset(&doc.text, request.position)?;
    let root = request.workspace_root.as_deref();
    let shown_path = relative_path(root, &doc.path).map(|p| languages::percent_decode(&p));

    let mut priorities = Priorities::default();
    let before_cursor_priority = priorities.just_below(&[TOP]);
    let language_priority = priorities.just_below(&[before_cursor_priority]);
    let path_priority = priorities.just_below(&[before_cursor_priority]);
    let imported_priority = priorities.just_below(&[before_cursor_priority]);
    let mut low_snippet = priorities.just_below(&[imported_priority]);
    let _high_snippet = priorities.just_above(&[before_cursor_priority]);
    // Seeds are silent on where traits, code snippets and tooltip signatures rank: pilotfish
    // puts context from language services with imported files, and the signature of the member
    // being typed just above the text before the cursor.
    let context_priority = priorities.just_below(&[imported_priority]);
    let tooltip_priority = priorities.just_above(&[before_cursor_priority]);

    let mut wishlist = Wishlist::new(&tokenizer);
    let language_marker =
        languages::new_line_ended(&legacy_language_marker(&doc.text, &language)).into_owned();
    let language_id = wishlist.append(&language_marker, Kind::LanguageMarker, language_priority);
    let path_id = shown_path.as_ref().map(|p| {
        let marker =
            languages::new_line_ended(&languages::comment(&format!("Path: {p}"), &language))
                .into_owned();
        wishlist.append(&marker, Kind::PathMarker, path_priority)
    });
    if options.imports.unwrap_or(true) {
        for imported in imported(request, &detected, files) {
            for declaration in imported.text.split("\n\n") {
                wishlist.append(
                    &languages::new_line_ended(declaration),
                    Kind::ImportedFile,
                    imported_priority,
                );
            }
        }
    }
    if !request.traits.is_empty() {
        let body: String = request
            .traits
            .iter()
            .map(|t| languages::new_line_ended(&format!("{}: {}", t.name, t.value)).into_owned())
            .collect();
        let text = languages::comment_block_as_singles(
            &format!("Consider this related information:{body}"),
            &language,
        );
        wishlist.append(&text, Kind::Trait, context_priority);
    }
    for part in code_snippets(&request.code_snippets, root) {
        let text = part
            .values
            .iter()
            .map(|(v, _)| v.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let text =
            languages::comment_block_as_singles(&languages::new_line_ended(&text), &language);
        wishlist.append(&text, Kind::CodeSnippet, context_priority);
    }
    // Similar-file snippets: the best four, the best taking the highest of the low priorities
    // and standing last.
    let snippets = legacy_similar_snippets(request, &detected, &doc.text, cursor, root);
    let mut ranked: Vec<(f64, String, String)> = snippets;
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.truncate(4);
    let mut with_priority = Vec::new();
    for (score, path, text) in ranked {
        let mut announced = format!("Compare this snippet from {path}:\n{text}");
        if announced.ends_with('\n') {
            announced.push('\n');
        }
        with_priority.push((
            score,
            low_snippet,
            languages::comment_block_as_singles(&announced, &language),
        ));
        low_snippet = priorities.just_below(&[low_snippet]);
    }
    with_priority.sort_by(|a, b| b.0.total_cmp(&a.0));
    with_priority.reverse();
    let mut scores: Vec<(usize, f64)> = Vec::new();
    for (score, priority, text) in &with_priority {
        let id = wishlist.append(text, Kind::SimilarFile, *priority);
        scores.push((id, *score));
    }
    let before = &doc.text[..cursor];
    if let Some(signature) = &request.tooltip_signature
        && ends_with_member_access(before)
    {
        let text = languages::new_line_ended(&languages::comment_block_as_singles(
            &format!("Use {signature}"),
            &language,
        ))
        .into_owned();
        wishlist.append(&text, Kind::TooltipSignature, tooltip_priority);
    }
    let lines = wishlist.append_line_for_line(before, Kind::BeforeCursor, before_cursor_priority);
    if let Some(&first) = lines.first() {
        wishlist.require(language_id, first);
        // The old code chose what the path marker requires with a truthiness test on the
        // language marker's id, which is 0 (it is appended first): so the path marker requires
        // the first line before the cursor, not the language marker. Taken at its higher
        // priority, it then excludes the language marker, which is why old prompts show a
        // path and no language line.
        if let Some(path) = path_id {
            let required = if language_id != 0 { language_id } else { first };
            wishlist.require(path, required);
        }
    }
    if let Some(path) = path_id {
        wishlist.exclude(path, language_id);
    }

    match options.legacy_preset.as_deref() {
        None | Some("priorities") => {}
        Some("order-list") => {
            return Ok(legacy_order_list(
                request, &tokenizer, &wishlist, &scores, before, cursor, &detected,
            ));
        }
        Some(other) => return Err(RequestError::LegacyPreset(other.to_owned()).into()),
    }

    // The suffix: its share first, then the prefix fills the rest; a suffix much like the last
    // one sent is sent again.
    let max = options.max_prompt_tokens as i64;
    let after = &doc.text[cursor..];
    let (fulfilled, suffix, suffix_tokens) = if options.suffix_percent == 0 {
        (wishlist.fulfill(max), String::new(), 0)
    } else {
        let reserved = max - 5;
        // Math.floor, as in the old code (it matters only for budgets under 5 tokens).
        let mut prefix_budget =
            (reserved * (100 - i64::from(options.suffix_percent))).div_euclid(100);
        let mut fulfilled = wishlist.fulfill(prefix_budget);
        let available = reserved - fulfilled.prefix_tokens as i64;
        let trimmed = after.trim_start_matches(languages::is_js_whitespace);
        let taken = tokenizer.take_first_tokens(trimmed, available.max(0) as usize);
        let taken_ids = first_token_ids_of(&tokenizer, &taken.text, taken.tokens);
        if (taken.tokens as i64) <= available - 3 {
            prefix_budget = reserved - taken.tokens as i64;
            fulfilled = wishlist.fulfill(prefix_budget);
        }
        let (cached_text, cached_ids) = session.legacy_suffix.clone();
        let threshold = options.suffix_match_threshold as usize;
        let matches = taken.tokens > 0 && threshold > 0 && {
            let a: Vec<u32> = taken_ids
                .iter()
                .copied()
                .take(MAX_EDIT_DISTANCE_LENGTH)
                .collect();
            let b: Vec<u32> = cached_ids
                .iter()
                .copied()
                .take(MAX_EDIT_DISTANCE_LENGTH)
                .collect();
            100 * edit_distance_score(&a, &b)
                < threshold * MAX_EDIT_DISTANCE_LENGTH.min(taken.tokens)
        };
        if matches && (cached_ids.len() as i64) <= available {
            if (cached_ids.len() as i64) <= available - 3 {
                fulfilled = wishlist.fulfill(reserved - cached_ids.len() as i64);
            }
            (fulfilled, cached_text, cached_ids.len())
        } else {
            session.legacy_suffix = (taken.text.clone(), taken_ids);
            (fulfilled, taken.text, taken.tokens)
        }
    };

    let elements = wishlist
        .elements()
        .iter()
        .map(|e| {
            let included = fulfilled.used.contains(&e.id);
            Element {
                kind: legacy_kind(e.kind),
                path: None,
                text: e.text.clone(),
                tokens: e.tokens,
                score: Some(e.priority),
                included,
                included_tokens: if included { e.tokens } else { 0 },
                reason: (!included).then(|| format!("not taken (priority {})", e.priority)),
            }
        })
        .collect();
    let skip = copilot_skip_reason(&doc.text, cursor, options.suffix_percent, &detected);
    Ok(Prompt {
        prefix: fulfilled.prefix,
        suffix,
        context: Vec::new(),
        prompt_tokens: fulfilled.prefix_tokens,
        suffix_tokens,
        trailing_whitespace: String::new(),
        elements,
        copilot_would_request: skip.is_none(),
        copilot_skip_reason: skip,
        fim_prompt: None,
        fim_template_tokens: None,
        notes: vec![
            "copilot-legacy: elements report their wishlist priority as their score".to_owned(),
        ],
    })
}

/// Seed 002's later wishlist: the suffix takes its share, then [`legacy::fulfill_order_list`]
/// fills the rest from the same elements, the text before the cursor as one.
fn legacy_order_list(
    request: &RequestJson,
    tokenizer: &Tokenizer,
    wishlist: &legacy::Wishlist<'_>,
    scores: &[(usize, f64)],
    before: &str,
    cursor: usize,
    detected: &str,
) -> Prompt {
    use legacy::{Kind, Offered, OrderListPreset, fulfill_order_list};
    let options = &request.options;
    let max = options.max_prompt_tokens;
    let (suffix, suffix_tokens) = if options.suffix_percent == 0 {
        (String::new(), 0)
    } else {
        let share = max * options.suffix_percent as usize / 100;
        let after = request.document.text[cursor..].trim_start_matches(languages::is_js_whitespace);
        let taken = tokenizer.take_first_tokens(after, share);
        (taken.text, taken.tokens)
    };
    let mut offered: Vec<Offered> = wishlist
        .elements()
        .iter()
        .filter(|e| e.kind != Kind::BeforeCursor)
        .map(|e| Offered {
            kind: e.kind,
            text: e.text.clone(),
            tokens: e.tokens,
            score: scores
                .iter()
                .find(|(id, _)| *id == e.id)
                .map_or(1.0, |(_, s)| *s),
        })
        .collect();
    let before = before.replace("\r\n", "\n").replace('\r', "\n");
    offered.push(Offered {
        kind: Kind::BeforeCursor,
        tokens: tokenizer.count(&before),
        text: before,
        score: 1.0,
    });
    let preset = OrderListPreset::default_preset();
    let (chosen, cut) = fulfill_order_list(
        &preset,
        &offered,
        max.saturating_sub(suffix_tokens),
        tokenizer,
    );
    let text_of = |i: usize| -> String {
        match (&cut, offered[i].kind) {
            (Some(c), Kind::BeforeCursor) => c.clone(),
            _ => offered[i].text.clone(),
        }
    };
    let prefix: String = chosen.iter().map(|&i| text_of(i)).collect();
    let prompt_tokens = chosen.iter().map(|&i| tokenizer.count(&text_of(i))).sum();
    let elements = offered
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let included = chosen.contains(&i);
            Element {
                kind: legacy_kind(o.kind),
                path: None,
                text: o.text.clone(),
                tokens: o.tokens,
                score: Some(o.score),
                included,
                included_tokens: if included {
                    tokenizer.count(&text_of(i))
                } else {
                    0
                },
                reason: (!included)
                    .then(|| "did not fit after the elements ranked above it".to_owned()),
            }
        })
        .collect();
    let skip = copilot_skip_reason(
        &request.document.text,
        cursor,
        options.suffix_percent,
        detected,
    );
    Prompt {
        prefix,
        suffix,
        context: Vec::new(),
        prompt_tokens,
        suffix_tokens,
        trailing_whitespace: String::new(),
        elements,
        copilot_would_request: skip.is_none(),
        copilot_skip_reason: skip,
        fim_prompt: None,
        fim_template_tokens: None,
        notes: vec!["copilot-legacy order-list preset: reconstructed from seed 002, which leaves parts of its fulfill unstated".to_owned()],
    }
}

fn legacy_kind(kind: legacy::Kind) -> ElementKind {
    use legacy::Kind;
    match kind {
        Kind::LanguageMarker => ElementKind::LanguageMarker,
        Kind::PathMarker => ElementKind::PathMarker,
        Kind::ImportedFile => ElementKind::ImportedFile,
        Kind::SimilarFile => ElementKind::SimilarFile,
        Kind::Trait => ElementKind::Trait,
        Kind::CodeSnippet => ElementKind::CodeSnippet,
        Kind::TooltipSignature => ElementKind::TooltipSignature,
        Kind::BeforeCursor => ElementKind::BeforeCursor,
    }
}

/// The old language marker: a shebang line, or `Language: <id>` commented.
fn legacy_language_marker(source: &str, language: &str) -> String {
    let marker = languages::language_marker(source, language);
    if marker.is_empty() || languages::is_shebang_line(&marker) {
        marker
    } else {
        languages::comment(&marker, language)
    }
}

/// Whether the text before the cursor ends with a member access: `.name`, `->name`, `::name`.
fn ends_with_member_access(before: &str) -> bool {
    let word_len = before
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if word_len == 0 {
        return false;
    }
    let rest = &before[..before.len() - word_len];
    rest.ends_with('.') || rest.ends_with("->") || rest.ends_with("::")
}

fn first_token_ids_of(tokenizer: &Tokenizer, text: &str, n: usize) -> Vec<u32> {
    tokenizer
        .token_ids(text)
        .map(|ids| ids.into_iter().take(n).collect())
        .unwrap_or_default()
}

/// Similar-file snippets for the legacy engine: (score, path as the file system has it, text).
fn legacy_similar_snippets(
    request: &RequestJson,
    language_id: &str,
    text: &str,
    cursor: usize,
    root: Option<&str>,
) -> Vec<(f64, String, String)> {
    neighbour_snippets(
        request,
        language_id,
        text,
        cursor,
        root,
        &SimilarFilesOptions::DEFAULT,
    )
    .into_iter()
    .map(|s| (s.score, languages::percent_decode(&s.relative_path), s.text))
    .collect()
}

/// Copilot's neighbour-snippet search for a request: its open documents chosen as neighbours
/// (by recency, same normalized language, size caps), then the best windows of those.
fn neighbour_snippets(
    request: &RequestJson,
    language_id: &str,
    text: &str,
    cursor: usize,
    root: Option<&str>,
    options: &SimilarFilesOptions,
) -> Vec<retrieval::SimilarSnippet> {
    let current_path = relative_path(root, &request.document.path).unwrap_or_default();
    let docs: Vec<(String, String, &str)> = request
        .open_documents
        .iter()
        .map(|d| {
            (
                relative_path(root, &d.path).unwrap_or_default(),
                detected_language(&d.path, d.language_id.as_deref()),
                d.text.as_str(),
            )
        })
        .collect();
    let open: Vec<OpenDocument<'_>> = docs
        .iter()
        .map(|(p, l, t)| OpenDocument {
            path: p,
            language_id: l,
            text: t,
        })
        .collect();
    let chosen = retrieval::select_neighbours(
        &current_path,
        language_id,
        &open,
        retrieval::MAX_NEIGHBOUR_FILES,
    );
    let files: Vec<NeighbourFile<'_>> = chosen
        .iter()
        .map(|d| NeighbourFile {
            relative_path: d.path,
            source: d.text,
        })
        .collect();
    let doc = ReferenceDocument {
        source: text,
        cursor,
        language_id,
    };
    retrieval::similar_snippets(&doc, &files, options)
}

/// A component's contribution: its blocks (value and chunk) and how to report it.
#[derive(Debug)]
struct Part {
    kind: ElementKind,
    path: Option<String>,
    score: Option<f64>,
    weight: f64,
    values: Vec<(String, Option<usize>)>,
    /// Which entry of the split context list it goes to: 0 for stable context, 1 for recent
    /// edits.
    context_index: usize,
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

/// Copilot's character cap for prefix and suffix: about four characters per token plus 10%.
fn approximate_max_characters(max_prompt_tokens: usize) -> usize {
    let tokens = max_prompt_tokens as f64;
    (tokens * 4.0 + tokens * 0.1).floor() as usize
}

/// The suffix as Copilot takes it: the text after the cursor, capped, without the rest of the
/// cursor's line and without leading white space.
fn suffix_after_cursor_line(after: &str, max_chars: usize) -> String {
    let capped = utf16::slice_to(after, max_chars);
    // JavaScript's `.` stops at \n, \r, U+2028 and U+2029.
    let rest = match capped.find(['\n', '\r', '\u{2028}', '\u{2029}']) {
        Some(i) => &capped[i..],
        None => "",
    };
    rest.trim_start_matches(languages::is_js_whitespace)
        .to_owned()
}

/// How many of the suffix's first tokens are compared with the cached suffix.
const MAX_EDIT_DISTANCE_LENGTH: usize = 50;

/// Keeps sending the previous suffix while the new one starts with the same token and differs
/// in fewer than `threshold` percent of its first tokens.
fn reuse_cached_suffix(
    session: &mut Session,
    suffix: String,
    tokenizer: &Tokenizer,
    threshold: u32,
) -> String {
    if suffix.is_empty() {
        return suffix;
    }
    if session.cached_suffix == suffix {
        return suffix;
    }
    let mut chosen = suffix;
    if !session.cached_suffix.is_empty() {
        let new_ids = first_token_ids(tokenizer, &chosen);
        let old_ids = first_token_ids(tokenizer, &session.cached_suffix);
        if let (Some(new), Some(old)) = (new_ids, old_ids)
            && !new.is_empty()
            && !old.is_empty()
            && new[0] == old[0]
        {
            let distance = edit_distance_score(&new, &old);
            if 100 * distance < threshold as usize * new.len() {
                chosen = session.cached_suffix.clone();
            }
        }
    }
    if chosen != session.cached_suffix {
        session.cached_suffix = chosen.clone();
    }
    chosen
}

fn first_token_ids(tokenizer: &Tokenizer, text: &str) -> Option<Vec<u32>> {
    let taken = tokenizer.take_first_tokens(text, MAX_EDIT_DISTANCE_LENGTH);
    tokenizer
        .token_ids(&taken.text)
        .map(|ids| ids.into_iter().take(taken.tokens).collect())
}

/// Copilot's edit distance between token sequences, including its boundary arithmetic.
fn edit_distance_score(a: &[u32], b: &[u32]) -> usize {
    if a.is_empty() || b.is_empty() {
        return a.len() + b.len();
    }
    let mut m = vec![vec![0usize; b.len()]; a.len()];
    for j in 0..b.len() {
        for i in 0..a.len() {
            let up = if i == 0 { j } else { m[i - 1][j] } + 1;
            let left = if j == 0 { i } else { m[i][j - 1] } + 1;
            let diagonal = if i == 0 || j == 0 {
                i.max(j)
            } else {
                m[i - 1][j - 1]
            } + usize::from(a[i] != b[j]);
            m[i][j] = up.min(left).min(diagonal);
        }
    }
    m[a.len() - 1][b.len() - 1]
}

fn document_marker(relative_path: Option<&str>, source: &str, language_id: &str) -> Part {
    match relative_path {
        Some(path) => Part {
            kind: ElementKind::PathMarker,
            path: Some(path.to_owned()),
            score: None,
            weight: WEIGHT_DOCUMENT_MARKER,
            values: vec![(languages::path_marker(Some(path)), None)],
            context_index: 0,
        },
        None => Part {
            kind: ElementKind::LanguageMarker,
            path: None,
            score: None,
            weight: WEIGHT_DOCUMENT_MARKER,
            values: vec![(languages::language_marker(source, language_id), None)],
            context_index: 0,
        },
    }
}

fn traits(traits: &[request::Trait]) -> Option<Part> {
    if traits.is_empty() {
        return None;
    }
    let mut values = vec![("Consider this related information:\n".to_owned(), None)];
    values.extend(
        traits
            .iter()
            .map(|t| (format!("{}: {}", t.name, t.value), None)),
    );
    Some(Part {
        kind: ElementKind::Trait,
        path: None,
        score: None,
        weight: WEIGHT_TRAITS,
        values,
        context_index: 0,
    })
}

/// Chunk ids only need to differ between chunks; each component takes its own range.
fn chunk_id(component: usize, index: usize) -> Option<usize> {
    Some(component * 1_000_000 + index)
}

fn diagnostics(request: &RequestJson, language_id: &str, root: Option<&str>) -> Vec<Part> {
    let language = languages::normalize_language_id(language_id);
    let mut bags: Vec<&request::DiagnosticBag> = request
        .diagnostics
        .iter()
        .filter(|b| !b.values.is_empty())
        .collect();
    // Copilot sorts by importance, most important first, then reverses the list.
    bags.sort_by(|a, b| {
        b.importance
            .unwrap_or(0.0)
            .total_cmp(&a.importance.unwrap_or(0.0))
    });
    bags.reverse();
    bags.iter()
        .enumerate()
        .map(|(n, bag)| {
            let path = relative_path(root, &bag.path).unwrap_or_default();
            let mut values = vec![(
                format!("Consider the following {language} diagnostics from {path}:"),
                chunk_id(1, n),
            )];
            let mut diagnostics: Vec<&request::Diagnostic> = bag.values.iter().collect();
            if bag.path == request.document.path {
                let line = request.position.line;
                diagnostics.sort_by_key(|d| d.range.start.line.abs_diff(line));
            }
            for d in diagnostics {
                let code = match (&d.code, &d.source) {
                    (None, _) => String::new(),
                    (Some(code), source) => {
                        let code = match code {
                            request::DiagnosticCode::Number(n) => n.to_string(),
                            request::DiagnosticCode::Text(t) => t.clone(),
                        };
                        format!(
                            " {}{code}",
                            source.as_deref().unwrap_or_default().to_uppercase()
                        )
                    }
                };
                let start = d.range.start;
                values.push((
                    format!(
                        "{}:{} - {}{code}: {}",
                        start.line + 1,
                        start.character + 1,
                        d.severity.name(),
                        d.message
                    ),
                    chunk_id(1, n),
                ));
            }
            Part {
                kind: ElementKind::Diagnostic,
                path: Some(path),
                score: None,
                weight: WEIGHT_DIAGNOSTICS,
                values,
                context_index: 0,
            }
        })
        .collect()
}

fn code_snippets(snippets: &[request::CodeSnippet], root: Option<&str>) -> Vec<Part> {
    // Group by file in order of first appearance.
    let mut groups: Vec<(String, Vec<&request::CodeSnippet>)> = Vec::new();
    for s in snippets {
        let path = relative_path(root, &s.path).unwrap_or_else(|| s.path.clone());
        match groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, g)) => g.push(s),
            None => groups.push((path, vec![s])),
        }
    }
    let mut chunks: Vec<(String, Vec<&request::CodeSnippet>, f64)> = groups
        .into_iter()
        .filter_map(|(path, g)| {
            let valid: Vec<&request::CodeSnippet> =
                g.into_iter().filter(|s| !s.value.is_empty()).collect();
            if valid.is_empty() {
                return None;
            }
            let importance = valid
                .iter()
                .map(|s| s.importance.unwrap_or(0.0))
                .fold(f64::NEG_INFINITY, f64::max);
            Some((path, valid, importance))
        })
        .collect();
    chunks.sort_by(|a, b| b.2.total_cmp(&a.2));
    chunks.reverse();
    chunks
        .into_iter()
        .enumerate()
        .map(|(n, (path, snippets, importance))| {
            let header = if snippets.len() > 1 {
                "these snippets"
            } else {
                "this snippet"
            };
            let mut values = vec![(format!("Compare {header} from {path}:"), chunk_id(2, n))];
            for (i, s) in snippets.iter().enumerate() {
                values.push((s.value.clone(), chunk_id(2, n)));
                if snippets.len() > 1 && i < snippets.len() - 1 {
                    values.push(("---".to_owned(), chunk_id(2, n)));
                }
            }
            Part {
                kind: ElementKind::CodeSnippet,
                path: Some(path),
                score: Some(importance),
                weight: WEIGHT_CODE_SNIPPETS,
                values,
                context_index: 0,
            }
        })
        .collect()
}

fn similar_files(
    request: &RequestJson,
    language_id: &str,
    text: &str,
    cursor: usize,
    root: Option<&str>,
) -> Result<Vec<Part>, AssembleError> {
    let options = match request.options.similar_files.as_deref() {
        Some(name) => SimilarFilesOptions::by_name(name)
            .ok_or_else(|| RequestError::SimilarFiles(name.to_owned()))?,
        None => SimilarFilesOptions::for_language(language_id),
    };
    let snippets = neighbour_snippets(request, language_id, text, cursor, root, &options);
    Ok(snippets
        .into_iter()
        .enumerate()
        .map(|(n, s)| Part {
            kind: ElementKind::SimilarFile,
            path: Some(s.relative_path.clone()),
            score: Some(s.score),
            weight: WEIGHT_SIMILAR_FILES,
            values: vec![
                (
                    format!("Compare this snippet from {}:", s.relative_path),
                    chunk_id(3, n),
                ),
                (s.text, chunk_id(3, n)),
            ],
            context_index: 0,
        })
        .collect())
}

/// The file URI Copilot knows a document by (paths without a workspace root are taken from `/`).
fn file_uri(root: Option<&str>, path: &str) -> String {
    let absolute = match (path.starts_with('/'), root) {
        (true, _) => path.to_owned(),
        (false, Some(root)) => format!(
            "{}/{}",
            root.trim_end_matches('/'),
            path.trim_start_matches("./")
        ),
        (false, None) => format!("/{}", path.trim_start_matches("./")),
    };
    format!("file://{}", encode_uri_path(&absolute))
}

/// Copilot's recent-edits block: the latest edits of open files (not those right around the
/// cursor), as small diffs, newest last.
fn recent_edits(request: &RequestJson, root: Option<&str>) -> Option<Part> {
    if request.recent_edits.is_empty() {
        return None;
    }
    let config = recent_edits::RecentEditsConfig::default();
    let mut tracker = recent_edits::RecentEdits::default();
    for snapshot in &request.recent_edits {
        tracker.update(&file_uri(root, &snapshot.path), &snapshot.text, &config);
    }
    let current_uri = file_uri(root, &request.document.path);
    let open: Vec<(String, &str)> = std::iter::once(&request.document)
        .chain(&request.open_documents)
        .map(|d| (file_uri(root, &d.path), d.path.as_str()))
        .collect();
    let edits = tracker.by_time();
    let mut files: Vec<&str> = Vec::new();
    let mut summaries: Vec<String> = Vec::new();
    for edit in edits.iter().rev() {
        if summaries.len() >= config.max_edits {
            break;
        }
        let Some((_, path)) = open.iter().find(|(uri, _)| *uri == edit.file) else {
            continue;
        };
        let new_file = !files.contains(&edit.file.as_str());
        if files.len() + usize::from(new_file) > config.max_files {
            break;
        }
        if edit.file == current_uri
            && recent_edits::too_close_to_cursor(
                edit,
                request.position.line,
                config.active_doc_distance_limit_from_cursor,
            )
        {
            continue;
        }
        if let Some(summary) = recent_edits::summarize(edit, &config) {
            if new_file {
                files.push(&edit.file);
            }
            let shown = relative_path(root, path).unwrap_or_default();
            summaries.insert(
                0,
                format!(
                    "{}{}",
                    languages::new_line_ended(&format!("File: {shown}")),
                    languages::new_line_ended(&summary)
                ),
            );
        }
    }
    if summaries.is_empty() {
        return None;
    }
    let text = format!(
        "{}{}{}",
        languages::new_line_ended(
            "These are recently edited files. Do not suggest code that has been deleted."
        ),
        summaries.concat(),
        languages::new_line_ended("End of recent edits")
    );
    Some(Part {
        kind: ElementKind::RecentEdit,
        path: None,
        score: None,
        weight: WEIGHT_RECENT_EDITS,
        values: vec![(text, chunk_id(4, 0))],
        context_index: 1,
    })
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

fn normalize_line_endings(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Whether Copilot would skip asking for a completion here, and why.
fn copilot_skip_reason(
    text: &str,
    cursor: usize,
    suffix_percent: u32,
    language_id: &str,
) -> Option<String> {
    let eligible = if suffix_percent > 0 {
        utf16::utf16_len(text)
    } else {
        utf16::utf16_len(&text[..cursor])
    };
    if eligible < MIN_PROMPT_CHARS && language_id != "scminput" {
        return Some(format!(
            "the document is shorter than {MIN_PROMPT_CHARS} characters"
        ));
    }
    let after = &text[cursor..];
    let rest_of_line = &after[..after.find(['\n', '\r']).unwrap_or(after.len())];
    let rest = rest_of_line.trim_matches(languages::is_js_whitespace);
    if !rest.is_empty() && !valid_middle_of_line(rest) {
        return Some(format!(
            "the cursor is in the middle of a line, before `{rest}`"
        ));
    }
    None
}

/// Copilot completes in the middle of a line only before closing brackets and quotes, with at
/// most one of `:{;,` after them.
fn valid_middle_of_line(rest: &str) -> bool {
    let rest = rest.trim_start_matches(languages::is_js_whitespace);
    let rest = rest.trim_start_matches([')', '>', '}', ']', '"', '\'', '`']);
    let rest = rest.trim_start_matches(languages::is_js_whitespace);
    let rest = rest.strip_prefix([':', '{', ';', ',']).unwrap_or(rest);
    rest.trim_start_matches(languages::is_js_whitespace)
        .is_empty()
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
    fn middle_of_line() {
        assert!(valid_middle_of_line(")"));
        assert!(valid_middle_of_line(") {"));
        assert!(valid_middle_of_line("\"]);"));
        assert!(!valid_middle_of_line("foo)"));
        assert!(!valid_middle_of_line(");;"));
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

    #[test]
    fn edit_distance() {
        assert_eq!(edit_distance_score(&[1, 2, 3], &[1, 2, 3]), 0);
        assert_eq!(edit_distance_score(&[1, 2, 3], &[1, 9, 3]), 1);
        assert_eq!(edit_distance_score(&[], &[1, 2]), 2);
    }
}
