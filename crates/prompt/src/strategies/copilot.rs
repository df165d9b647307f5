//! The `copilot` strategy: Copilot's prompt as its completions library builds it today
//! (components rendered as weighted blocks, elided prefix-first into the budget).

use std::borrow::Cow;

use crate::components::{self, Part, WEIGHT_CODE_SNIPPETS, chunk_id};
use crate::elision::{self, Block, BlockType, ElidedBlock, ElidedSuffix, elide, prompt_limits};
use crate::request::{ContextRendering, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{approximate_max_characters, reuse_cached_suffix, suffix_after_cursor_line};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, context_list, encode_uri_path,
    fim, normalize_line_endings, trim_last_line,
};
use tokenizer::{Tokenizer, utf16};

/// Assembles Copilot's prompt for `request`, updating `session` (the suffix cache).
///
/// The steps follow Copilot's `CompletionsPromptRenderer.render` (its completions library's
/// `prompt/components/completionsPromptRenderer`): the components render their values
/// ([`context_parts`]), the snapshot becomes weighted blocks ([`to_blocks`]), the limits are
/// set and the blocks elided, the prefix and context are formatted ([`format_prompt`]), and
/// each component reports what it kept ([`part_elements`], its `computeComponentStatistics`).
pub(crate) fn assemble(
    request: &RequestJson,
    session: &mut Session,
    reader: &OpenFirst<'_>,
) -> Result<Prompt, AssembleError> {
    let options = &request.options;
    let doc = &request.document;
    let super::Document {
        language_id,
        tokenizer,
        cursor,
        relative_path,
    } = super::document(request)?;
    let root = request.workspace_root.as_deref();
    let mut notes = Vec::new();

    let (before, suffix) = current_file(request, session, cursor, &tokenizer);
    let document = DocumentAt {
        language_id: &language_id,
        relative_path: relative_path.as_deref(),
        cursor,
    };
    let parts = context_parts(request, &document, reader, &mut notes)?;
    let super::Frame {
        fim,
        repo_name,
        shown_path,
        rendering,
        fim_overhead,
        budget,
    } = super::frame(options, root, relative_path.as_deref(), &tokenizer)?;
    let Blocks {
        blocks,
        block_part,
        prefix_block,
    } = to_blocks(&parts, &before, rendering, &language_id);
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

    let (prefix, context) = format_prompt(&elided, rendering);
    let (prefix, trailing_whitespace) = trim_last_line(&prefix);
    let prompt_tokens = elided.iter().map(|b| b.elided_tokens).sum();

    let mut elements = part_elements(&parts, &elided, &block_part);
    elements.push(before_element(
        relative_path.as_deref(),
        &before,
        prefix_block.map(|i| &elided[i]),
    ));
    elements.push(after_element(
        relative_path.as_deref(),
        &suffix,
        &elided_suffix,
        suffix_limit,
    ));

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

/// The current file: the text before the cursor and the suffix, each capped in characters
/// first (Copilot's `CurrentFile` component); a suffix much like the last one sent is sent
/// again.
fn current_file(
    request: &RequestJson,
    session: &mut Session,
    cursor: usize,
    tokenizer: &Tokenizer,
) -> (String, String) {
    let options = &request.options;
    let doc = &request.document;
    let max_chars = approximate_max_characters(options.max_prompt_tokens);
    let before = utf16::last_units(&doc.text[..cursor], max_chars).into_owned();
    let suffix_raw = suffix_after_cursor_line(&doc.text[cursor..], max_chars);
    let suffix = reuse_cached_suffix(
        session,
        suffix_raw,
        tokenizer,
        options.suffix_match_threshold,
    );
    (before, suffix)
}

/// What the context components need to know of the document.
struct DocumentAt<'a> {
    language_id: &'a str,
    relative_path: Option<&'a str>,
    /// Byte offset of the cursor.
    cursor: usize,
}

/// The context components, in the order of Copilot's `CompletionsContext`, as (element,
/// blocks): the document's marker, traits, diagnostics, code snippets, imported files (when
/// asked for), similar files (unless code snippets stand in for them), recent edits.
fn context_parts(
    request: &RequestJson,
    document: &DocumentAt<'_>,
    reader: &OpenFirst<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<Part>, AssembleError> {
    let options = &request.options;
    let doc = &request.document;
    let root = request.workspace_root.as_deref();
    let language_id = document.language_id;
    let mut parts: Vec<Part> = Vec::new();
    parts.push(components::marker::document_marker(
        document.relative_path,
        &doc.text,
        language_id,
    ));
    parts.extend(components::traits::traits(&request.traits));
    parts.extend(components::diagnostics::diagnostics(
        request,
        language_id,
        root,
    ));
    parts.extend(components::code_snippets::code_snippets(
        &request.code_snippets,
        root,
    ));
    if options.imports.unwrap_or(false) {
        parts.extend(imported_parts(request, language_id, reader));
    }
    let similar_files_off =
        !request.code_snippets.is_empty() && language_id != "cpp" && language_id != "c";
    if similar_files_off {
        notes.push("similar files are off because code snippets were supplied (Copilot does the same outside C and C++)".to_owned());
    } else {
        parts.extend(components::similar_files::similar_files(
            request,
            language_id,
            &doc.text,
            document.cursor,
            root,
        )?);
    }
    parts.extend(components::recent_edits::recent_edits(request, root));
    Ok(parts)
}

/// The files the document imports, each announced as a snippet to compare with.
fn imported_parts(
    request: &RequestJson,
    language_id: &str,
    reader: &OpenFirst<'_>,
) -> impl Iterator<Item = Part> {
    components::imported::imported(request, language_id, reader)
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
        })
}

/// The blocks elision works on, and where each came from.
struct Blocks {
    blocks: Vec<Block>,
    /// The part each block came from (the prefix's block has none).
    block_part: Vec<usize>,
    /// The index of the prefix's block, when the prefix is not empty.
    prefix_block: Option<usize>,
}

/// Every non-empty value of every part as a block ending in a line break (commented into the
/// prefix for the inline rendering), then the text before the cursor (Copilot's
/// `processSnapshot`).
fn to_blocks(
    parts: &[Part],
    before: &str,
    rendering: ContextRendering,
    language_id: &str,
) -> Blocks {
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
                    languages::comment_block_as_singles(&with_delimiter, language_id)
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
    let before_normalized = normalize_line_endings(before);
    let prefix_block = (!before_normalized.is_empty()).then_some(blocks.len());
    if prefix_block.is_some() {
        blocks.push(Block {
            block_type: BlockType::Prefix,
            value: before_normalized,
            weight: 1.0,
            chunk: None,
        });
    }
    Blocks {
        blocks,
        block_part,
        prefix_block,
    }
}

/// The prefix and the context list as sent: apart for the split rendering, all in the prefix
/// for the inline one (Copilot's `formatPrefix` and `formatContext`).
fn format_prompt(elided: &[ElidedBlock], rendering: ContextRendering) -> (String, Vec<String>) {
    match rendering {
        ContextRendering::Split => (
            elided
                .iter()
                .filter(|b| b.block.block_type == BlockType::Prefix)
                .map(|b| b.elided_value.as_str())
                .collect::<String>(),
            context_list(elided),
        ),
        ContextRendering::Inline => (
            elided
                .iter()
                .map(|b| b.elided_value.as_str())
                .collect::<String>(),
            Vec::new(),
        ),
    }
}

/// One element per part: its tokens, what elision kept of them, and why it was cut.
fn part_elements(parts: &[Part], elided: &[ElidedBlock], block_part: &[usize]) -> Vec<Element> {
    parts
        .iter()
        .enumerate()
        .map(|(p, part)| {
            let mine: Vec<&ElidedBlock> = elided
                .iter()
                .zip(block_part)
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
                why: Vec::new(),
            }
        })
        .collect()
}

/// The element of the text before the cursor, from its block after elision (none when empty).
fn before_element(path: Option<&str>, before: &str, elided: Option<&ElidedBlock>) -> Element {
    Element {
        kind: ElementKind::BeforeCursor,
        path: path.map(str::to_owned),
        text: before.to_owned(),
        tokens: elided.map_or(0, |b| b.tokens),
        score: None,
        included: elided.is_some_and(|b| b.elided_tokens > 0),
        included_tokens: elided.map_or(0, |b| b.elided_tokens),
        reason: elided
            .filter(|b| b.elided_value != b.block.value)
            .map(|_| "cut to fit the budget: lines far from the cursor dropped".to_owned()),
        why: Vec::new(),
    }
}

/// The element of the text after the cursor, and why it was cut or left out.
fn after_element(
    path: Option<&str>,
    suffix: &str,
    elided: &ElidedSuffix,
    suffix_limit: i64,
) -> Element {
    Element {
        kind: ElementKind::AfterCursor,
        path: path.map(str::to_owned),
        text: suffix.to_owned(),
        tokens: elided.tokens,
        score: None,
        included: elided.elided_tokens > 0,
        included_tokens: elided.elided_tokens,
        reason: if suffix.is_empty() {
            Some("nothing after the cursor line".to_owned())
        } else if suffix_limit <= 0 {
            Some("the suffix has no share of the budget (suffix_percent is 0)".to_owned())
        } else if elided.elided_value != elided.value {
            Some("cut to the suffix's share of the budget".to_owned())
        } else {
            None
        },
        why: Vec::new(),
    }
}
