//! The `outline` strategy, pilotfish's default: the context is the API around the cursor.
//! Definitions (signatures with their containers, bodies elided) from the open documents and
//! the files the document imports are ranked one by one against the cursor
//! ([`retrieval::rank`]) and packed best first into the context's share of the budget.
//!
//! The share is adaptive: the context gets what the whole prefix and suffix leave, but never
//! less than a floor (35% by default), where Copilot fills the prefix first and leaves the
//! context what remains. The prefix then takes what the context did not use, cut at whole
//! lines far from the cursor; the suffix keeps its own share as in Copilot's prompt. Only when
//! the whole prefix fits and tokens are still spare do Copilot's similar-file windows (code
//! bodies) fill them.

mod cache;
mod candidates;
mod pack;
mod sources;

use std::sync::Arc;

use retrieval::SimilarFilesOptions;
use retrieval::rank::{self, CursorContext};
use tokenizer::{Tokenizer, utf16};

use self::cache::FileOutline;
use self::pack::Ranked;
use crate::components::similar_files::neighbour_snippets;
use crate::request::{self, ContextRendering, RequestError, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{approximate_max_characters, reuse_cached_suffix, suffix_after_cursor_line};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, detected_language, fim,
    normalize_line_endings, relative_path, trim_last_line,
};

/// The context's share of the budget at least, in percent, when the request does not say.
const DEFAULT_CONTEXT_FLOOR_PERCENT: u32 = 35;
/// Definitions scoring below this are not worth their tokens.
const MIN_SCORE: f64 = 0.0;
/// Left-out definitions reported, best first (the rest are counted in a note).
const REPORTED_LEFT_OUT: usize = 20;
/// Tokens kept back where pieces are joined (a line break and what follows can merge).
const SEAM_TOKENS: usize = 8;
/// Spare tokens below which no similar-file snippet is looked for.
const MIN_SNIPPET_ROOM: usize = 64;
/// Files larger than this are outlined line by line rather than parsed.
const MAX_PARSED_BYTES: usize = 1 << 20;

pub(crate) fn assemble(
    request: &RequestJson,
    session: &mut Session,
    reader: &OpenFirst<'_>,
) -> Result<Prompt, AssembleError> {
    let options = &request.options;
    let doc = &request.document;
    if doc.path.is_empty() {
        return Err(RequestError::EmptyPath.into());
    }
    let floor = options
        .context_floor_percent
        .unwrap_or(DEFAULT_CONTEXT_FLOOR_PERCENT);
    if floor > 100 {
        return Err(RequestError::ContextFloor(floor).into());
    }
    let language_id = detected_language(&doc.path, doc.language_id.as_deref());
    let tokenizer =
        Tokenizer::by_name(&options.tokenizer, Some(&language_id)).map_err(RequestError::from)?;
    let cursor = request::byte_offset(&doc.text, request.position)?;
    let root = request.workspace_root.as_deref();
    let relative = relative_path(root, &doc.path);
    let frame = super::frame(options, root, relative.as_deref(), &tokenizer)?;
    let budget = frame.budget;
    let mut notes = Vec::new();

    // The document's own text on each side of the cursor, capped in characters as Copilot does.
    let max_chars = approximate_max_characters(options.max_prompt_tokens);
    let before = normalize_line_endings(&utf16::last_units(&doc.text[..cursor], max_chars));
    let suffix_raw = suffix_after_cursor_line(&doc.text[cursor..], max_chars);
    let suffix = reuse_cached_suffix(
        session,
        suffix_raw,
        &tokenizer,
        options.suffix_match_threshold,
    );
    let suffix = normalize_line_endings(&suffix);
    let suffix_share = budget * options.suffix_percent as usize / 100;
    let counter = Counter {
        tokenizer: &tokenizer,
        name: &options.tokenizer,
    };
    let (suffix_sent, suffix_tokens) = lines_from_start(&suffix, suffix_share, &counter);

    // The marker naming the document (the path, or the language without one).
    let marker = match relative.as_deref() {
        Some(p) => languages::path_marker(Some(p)),
        None => languages::language_marker(&doc.text, &language_id),
    };
    let render_context = |text: &str| match frame.rendering {
        ContextRendering::Split => text.to_owned(),
        ContextRendering::Inline => languages::comment_block_as_singles(text, &language_id),
    };
    let mut marker_text = if marker.is_empty() {
        String::new()
    } else {
        render_context(&format!("{marker}\n"))
    };
    let mut marker_tokens = tokenizer.count(&marker_text);
    if marker_tokens + suffix_tokens > budget {
        // The suffix took the whole budget: even the marker has no room.
        marker_text.clear();
        marker_tokens = 0;
    }

    // Candidates from every open and imported file, ranked against the cursor.
    let doc_lang = syntax::Lang::from_language_id(&language_id);
    let files = sources::source_files(request, reader, doc_lang);
    let outlines: Vec<Arc<FileOutline>> = files
        .iter()
        .map(|f| {
            let lang = f.lang.filter(|_| f.text.len() <= MAX_PARSED_BYTES);
            cache::outline(&f.text, lang, &options.tokenizer)
        })
        .collect();
    let near = candidates::near_cursor(&doc.text[..cursor], &doc.text[cursor..]);
    let cursor_context = CursorContext::new(&reader.relative(&doc.path), &before, &suffix);
    let (candidates, index) = candidates::candidates(&files, &outlines, &near, &cursor_context);
    let weights = options.context_weights.clone().unwrap_or_default();
    let scores = rank::score_all(&candidates, &cursor_context, &weights);
    let mut ranked: Vec<Ranked> = index
        .iter()
        .zip(&scores)
        .map(|(&(file, def), s)| Ranked {
            file,
            def,
            score: s.total,
        })
        .collect();
    // Best first; ties keep file order, so equal candidates come from the most recent files.
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score));

    // The context's share: what the whole prefix leaves, but never less than the floor.
    // Counted line by line: an estimate, used to share the budget (what is sent is counted
    // exactly below).
    let before_counts = counter.lines(&before);
    let prefix_all: usize = before_counts.iter().sum();
    let rest = budget.saturating_sub(suffix_tokens + marker_tokens);
    let floor_tokens = budget * floor as usize / 100;
    let share = rest.saturating_sub(prefix_all).max(floor_tokens).min(rest);
    let sent_marker = Marker {
        text: &marker_text,
        tokens: marker_tokens,
    };
    let (mut chosen, mut context_body, mut context_tokens) = choose(
        &ranked,
        &files,
        &outlines,
        share,
        &tokenizer,
        &sent_marker,
        &render_context,
    );

    // With room to spare once the whole prefix fits, the windows of open files most like the
    // code before the cursor (Copilot's similar files) fill it: bodies, not only signatures.
    let mut snippet_elements = Vec::new();
    let fits_whole = prefix_all + suffix_tokens + marker_tokens + context_tokens < budget;
    // Counted exactly (the prefix is short here), with a few tokens kept back for the seams.
    let spare = if fits_whole {
        budget.saturating_sub(
            suffix_tokens + marker_tokens + context_tokens + counter.exact(&before) + SEAM_TOKENS,
        )
    } else {
        0
    };
    if spare >= MIN_SNIPPET_ROOM {
        let mut left = spare;
        let options = SimilarFilesOptions::for_language(&language_id);
        let found = neighbour_snippets(request, &language_id, &doc.text, cursor, root, &options);
        // Best last, as Copilot returns them.
        for snippet in found.into_iter().rev() {
            let block = format!(
                "Compare this snippet from {}:\n{}\n",
                snippet.relative_path, snippet.text
            );
            let body = if context_body.is_empty() {
                block.clone()
            } else {
                format!("{context_body}\n{block}")
            };
            let with_marker = format!("{marker_text}{}", render_context(&body));
            let tokens = tokenizer
                .count(with_marker.trim_end())
                .saturating_sub(marker_tokens);
            let cost = tokens.saturating_sub(context_tokens);
            let fits = cost <= left;
            if fits {
                left -= cost;
                context_body = body;
                context_tokens = tokens;
            }
            snippet_elements.push(Element {
                kind: ElementKind::SimilarFile,
                path: Some(snippet.relative_path.clone()),
                tokens: tokenizer.count(&block),
                included_tokens: if fits { cost } else { 0 },
                text: block,
                score: Some(snippet.score),
                included: fits,
                reason: (!fits).then(|| format!("the {left} spare tokens do not hold it")),
                why: Vec::new(),
            });
        }
    }

    // The prefix takes what is left, whole lines nearest the cursor.
    let context_text = if context_body.is_empty() {
        String::new()
    } else {
        render_context(&context_body)
    };
    let prefix_room = budget.saturating_sub(suffix_tokens + marker_tokens + context_tokens);
    let mut prefix_sent = lines_from_end(&before, &before_counts, prefix_room);
    let context = match frame.rendering {
        ContextRendering::Split => {
            let mut group = marker_text.clone();
            group.push_str(&context_text);
            let group = group.trim_end().to_owned();
            if group.is_empty() {
                vec![]
            } else {
                vec![group]
            }
        }
        ContextRendering::Inline => Vec::new(),
    };
    let context_sent_tokens: usize = context.iter().map(|c| tokenizer.count(c)).sum();
    // The prompt as sent, counted exactly once; lines counted one by one can undercount where
    // tokens merge across a break, so far prefix lines are cut until it fits.
    let (prefix, trailing_whitespace, prompt_tokens) = loop {
        let whole = match frame.rendering {
            ContextRendering::Split => prefix_sent.to_owned(),
            ContextRendering::Inline => format!("{marker_text}{context_text}{prefix_sent}"),
        };
        let (prefix, trailing) = trim_last_line(&whole);
        let tokens = context_sent_tokens + tokenizer.count(&prefix);
        if tokens + suffix_tokens <= budget || prefix_sent.is_empty() {
            break (prefix, trailing, tokens);
        }
        let cut = prefix_sent.find('\n').map_or(prefix_sent.len(), |i| i + 1);
        prefix_sent = &prefix_sent[cut..];
    };
    let prefix_cut = prefix_sent.len() < before.len();
    let prefix_sent_tokens = match frame.rendering {
        ContextRendering::Split => prompt_tokens - context_sent_tokens,
        ContextRendering::Inline => prompt_tokens.saturating_sub(marker_tokens + context_tokens),
    };
    let (mut prefix, mut context, mut prompt_tokens) = (prefix, context, prompt_tokens);
    if prompt_tokens + suffix_tokens > budget {
        // Only the seams between marker, context and prefix can get here: send no context
        // rather than more than the budget.
        notes.push(format!(
            "the context was dropped: with the suffix's {suffix_tokens} tokens it came to {} over the {budget}-token budget",
            prompt_tokens + suffix_tokens
        ));
        context.clear();
        prefix.clear();
        prompt_tokens = 0;
        chosen = pack::Packed::default();
    }

    let elements = report(
        &files, &outlines, &ranked, &scores, &index, &chosen, &tokenizer, share, &mut notes,
    );
    let mut elements = elements;
    elements.extend(snippet_elements);
    if !marker.is_empty() {
        elements.insert(
            0,
            Element {
                kind: if relative.is_some() {
                    ElementKind::PathMarker
                } else {
                    ElementKind::LanguageMarker
                },
                path: relative.clone(),
                text: marker.clone(),
                tokens: marker_tokens,
                score: None,
                included: true,
                included_tokens: marker_tokens,
                reason: None,
                why: Vec::new(),
            },
        );
    }
    elements.push(Element {
        kind: ElementKind::BeforeCursor,
        path: relative.clone(),
        text: before.clone(),
        // Exact when all of it was sent; otherwise the line-by-line estimate of the whole.
        tokens: if prefix_cut {
            prefix_all.max(prefix_sent_tokens)
        } else {
            prefix_sent_tokens
        },
        score: None,
        included: !prefix_sent.is_empty(),
        included_tokens: prefix_sent_tokens,
        reason: prefix_cut.then(|| {
            format!("cut to fit the budget: lines far from the cursor dropped (the context took {context_tokens} of its {share}-token share)")
        }),
        why: Vec::new(),
    });
    let suffix_all: usize = if suffix_sent.len() < suffix.len() {
        counter
            .lines(&suffix)
            .iter()
            .sum::<usize>()
            .max(suffix_tokens)
    } else {
        suffix_tokens
    };
    elements.push(Element {
        kind: ElementKind::AfterCursor,
        path: relative.clone(),
        text: suffix.clone(),
        tokens: suffix_all,
        score: None,
        included: suffix_tokens > 0,
        included_tokens: suffix_tokens,
        reason: if suffix.is_empty() {
            Some("nothing after the cursor line".to_owned())
        } else if suffix_sent.len() < suffix.len() {
            Some("cut to the suffix's share of the budget".to_owned())
        } else {
            None
        },
        why: Vec::new(),
    });

    let fim_prompt = frame.fim.as_ref().map(|t| {
        t.render(&fim::FimParts {
            path: &frame.shown_path,
            repo_name: &frame.repo_name,
            context: &context,
            prefix: &prefix,
            suffix: &suffix_sent,
        })
    });
    let skip = copilot_skip_reason(&doc.text, cursor, options.suffix_percent, &language_id);
    Ok(Prompt {
        prefix,
        suffix: suffix_sent,
        context,
        prompt_tokens,
        suffix_tokens,
        trailing_whitespace,
        elements,
        copilot_would_request: skip.is_none(),
        copilot_skip_reason: skip,
        fim_prompt,
        fim_template_tokens: frame.fim_overhead,
        notes,
    })
}

/// The marker as sent before the context, and its tokens.
struct Marker<'a> {
    text: &'a str,
    tokens: usize,
}

/// Packs the ranked definitions into `share` tokens and renders them: the choice, the context's
/// text before rendering, and its exact tokens as sent after the marker.
#[allow(clippy::too_many_arguments)]
fn choose(
    ranked: &[Ranked],
    files: &[sources::SourceFile<'_>],
    outlines: &[Arc<FileOutline>],
    share: usize,
    tokenizer: &Tokenizer,
    marker: &Marker<'_>,
    render_context: &dyn Fn(&str) -> String,
) -> (pack::Packed, String, usize) {
    let outline_refs: Vec<&FileOutline> = outlines.iter().map(Arc::as_ref).collect();
    let headers: Vec<usize> = files
        .iter()
        .map(|f| tokenizer.count(&pack::header(&f.shown)) + 1)
        .collect();
    let mut chosen = pack::pack(ranked, &outline_refs, &headers, share, MIN_SCORE, tokenizer);
    // Rendering may count a little differently from the sum of its lines: drop the weakest
    // choices until the rendered context fits its share exactly.
    let (mut context_body, mut context_tokens);
    loop {
        context_body = chosen
            .blocks
            .iter()
            .map(|(f, defs)| pack::render_block(&files[*f].shown, &outlines[*f], defs))
            .collect::<Vec<_>>()
            .join("\n");
        // Counted with the marker it is sent with, so that the seam between them is counted
        // too.
        let with_marker = format!("{}{}", marker.text, render_context(&context_body));
        context_tokens = tokenizer
            .count(with_marker.trim_end())
            .saturating_sub(marker.tokens);
        if context_tokens <= share || chosen.chosen.is_empty() {
            break;
        }
        let keep = chosen.chosen.len() - 1;
        let kept: Vec<Ranked> = ranked
            .iter()
            .filter(|r| chosen.chosen[..keep].contains(&(r.file, r.def)))
            .cloned()
            .collect();
        chosen = pack::pack(&kept, &outline_refs, &headers, share, MIN_SCORE, tokenizer);
    }

    (chosen, context_body, context_tokens)
}

/// The elements: each chosen definition with its score's parts, the best left-out ones with
/// why they were left out, and a note counting the rest.
#[allow(clippy::too_many_arguments)]
fn report(
    files: &[sources::SourceFile<'_>],
    outlines: &[Arc<FileOutline>],
    ranked: &[Ranked],
    scores: &[rank::Score],
    index: &[(usize, usize)],
    packed: &pack::Packed,
    tokenizer: &Tokenizer,
    share: usize,
    notes: &mut Vec<String>,
) -> Vec<Element> {
    let positions: rustc_hash::FxHashMap<(usize, usize), usize> =
        index.iter().enumerate().map(|(i, &key)| (key, i)).collect();
    let score_of = |file: usize, def: usize| positions.get(&(file, def)).map(|&i| &scores[i]);
    let chosen: rustc_hash::FxHashSet<(usize, usize)> = packed.chosen.iter().copied().collect();
    let shown: rustc_hash::FxHashSet<(usize, usize)> = packed
        .blocks
        .iter()
        .flat_map(|(f, defs)| defs.iter().map(move |&d| (*f, d)))
        .collect();
    let mut elements = Vec::new();
    // Chosen definitions, block by block in the order they are rendered.
    for (f, defs) in &packed.blocks {
        for &d in defs {
            let def = &outlines[*f].definitions[d];
            let tokens = outlines[*f].tokens(d, tokenizer);
            let score = score_of(*f, d);
            let for_itself = chosen.contains(&(*f, d));
            elements.push(Element {
                kind: ElementKind::Definition,
                path: Some(files[*f].shown.clone()),
                text: def.signature.clone(),
                tokens,
                score: score.map(|s| round(s.total)),
                included: true,
                included_tokens: tokens,
                reason: (!for_itself)
                    .then(|| "shown as the container of a chosen definition".to_owned()),
                why: score.map(|s| s.parts.clone()).unwrap_or_default(),
            });
        }
    }
    let mut left_out = 0;
    for r in ranked {
        if shown.contains(&(r.file, r.def)) {
            continue;
        }
        left_out += 1;
        if left_out > REPORTED_LEFT_OUT {
            continue;
        }
        let def = &outlines[r.file].definitions[r.def];
        let tokens = outlines[r.file].tokens(r.def, tokenizer);
        let score = score_of(r.file, r.def);
        elements.push(Element {
            kind: ElementKind::Definition,
            path: Some(files[r.file].shown.clone()),
            text: def.signature.clone(),
            tokens,
            score: Some(round(r.score)),
            included: false,
            included_tokens: 0,
            reason: Some(if r.score < MIN_SCORE {
                format!("score {:.2} is below {MIN_SCORE}", r.score)
            } else {
                format!("no room left in the context's {share}-token share")
            }),
            why: score.map(|s| s.parts.clone()).unwrap_or_default(),
        });
    }
    if left_out > REPORTED_LEFT_OUT {
        notes.push(format!(
            "{} more definitions ranked lower were left out",
            left_out - REPORTED_LEFT_OUT
        ));
    }
    elements
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The first whole lines of `text` that fit in `limit` tokens, and their exact count.
fn lines_from_start(text: &str, limit: usize, counter: &Counter<'_>) -> (String, usize) {
    let counts = counter.lines(text);
    let mut end = 0;
    let mut used = 0;
    for (line, n) in text.split_inclusive('\n').zip(&counts) {
        if used + n > limit {
            break;
        }
        used += n;
        end += line.len();
    }
    let mut kept = text[..end].to_owned();
    let mut n = counter.exact(&kept);
    // Lines counted one by one can undercount where tokens merge across a break.
    while n > limit {
        let cut = kept.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
        kept.truncate(cut);
        n = counter.exact(&kept);
    }
    (kept, n)
}

/// The last whole lines of `text` whose line-by-line counts fit in `limit` tokens (the line
/// the cursor is on is kept whole or not at all). `counts` are [`Counter::lines`] of `text`.
/// The caller counts the final prompt exactly and cuts further if it must.
fn lines_from_end<'t>(text: &'t str, counts: &[usize], limit: usize) -> &'t str {
    let mut start = text.len();
    let mut used = 0;
    for (line, n) in text.split_inclusive('\n').rev().zip(counts.iter().rev()) {
        if used + n > limit {
            break;
        }
        used += n;
        start -= line.len();
    }
    &text[start..]
}

/// Token counting for one request: exact for what is sent, line by line (cached across
/// requests) for deciding what to send.
struct Counter<'a> {
    tokenizer: &'a Tokenizer,
    name: &'a str,
}

impl Counter<'_> {
    fn exact(&self, text: &str) -> usize {
        self.tokenizer.count(text)
    }

    fn lines(&self, text: &str) -> Vec<usize> {
        cache::line_counts(text, self.tokenizer, self.name)
    }
}
