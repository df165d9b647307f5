//! The `copilot` strategy: Copilot's prompt as its completions library builds it today
//! (components rendered as weighted blocks, elided prefix-first into the budget).

use std::borrow::Cow;

use crate::components::{self, Part, WEIGHT_CODE_SNIPPETS, chunk_id};
use crate::elision::{self, Block, BlockType, ElidedBlock, elide, prompt_limits};
use crate::request::{ContextRendering, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{approximate_max_characters, reuse_cached_suffix, suffix_after_cursor_line};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, context_list, encode_uri_path,
    fim, normalize_line_endings, trim_last_line,
};
use tokenizer::utf16;

/// Assembles Copilot's prompt for `request`, updating `session` (the suffix cache).
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
    parts.push(components::marker::document_marker(
        relative_path.as_deref(),
        &doc.text,
        &language_id,
    ));
    parts.extend(components::traits::traits(&request.traits));
    parts.extend(components::diagnostics::diagnostics(
        request,
        &language_id,
        root,
    ));
    parts.extend(components::code_snippets::code_snippets(
        &request.code_snippets,
        root,
    ));
    if options.imports.unwrap_or(false) {
        parts.extend(
            components::imported::imported(request, &language_id, reader)
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
        parts.extend(components::similar_files::similar_files(
            request,
            &language_id,
            &doc.text,
            cursor,
            root,
        )?);
    }
    parts.extend(components::recent_edits::recent_edits(request, root));

    let super::Frame {
        fim,
        repo_name,
        shown_path,
        rendering,
        fim_overhead,
        budget,
    } = super::frame(options, root, relative_path.as_deref(), &tokenizer)?;
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
                why: Vec::new(),
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
        why: Vec::new(),
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
        why: Vec::new(),
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
