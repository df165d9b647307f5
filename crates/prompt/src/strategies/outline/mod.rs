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
mod stable;

pub(crate) use stable::Stable;

use std::sync::Arc;

use retrieval::SimilarFilesOptions;
use retrieval::rank::{self, CursorContext};
use tokenizer::{Tokenizer, utf16};

use self::cache::FileOutline;
use self::pack::Ranked;
use crate::components::similar_files::neighbour_snippets;
use crate::request::{ContextRendering, Layout, RequestError, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{approximate_max_characters, reuse_cached_suffix, suffix_after_cursor_line};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, fim, normalize_line_endings,
    trim_last_line,
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
    let super::Document {
        language_id,
        tokenizer,
        cursor,
        relative_path: relative,
    } = super::document(request)?;
    let floor = options
        .context_floor_percent
        .unwrap_or(DEFAULT_CONTEXT_FLOOR_PERCENT);
    if floor > 100 {
        return Err(RequestError::ContextFloor(floor).into());
    }
    let root = request.workspace_root.as_deref();
    let frame = super::frame(options, root, relative.as_deref(), &tokenizer)?;
    let budget = frame.budget;
    let mut notes = Vec::new();

    // The document's own text on each side of the cursor, capped in characters as Copilot does.
    let max_chars = approximate_max_characters(options.max_prompt_tokens);
    let stable = options.layout == Layout::Stable;
    // The stable layout counts the prefix's anchor in the text up to the cursor as sent (line
    // endings normalized), and starts the prefix at a line's start.
    // Copied only where line endings change: this runs on every keystroke over the whole text
    // before the cursor.
    let upto: std::borrow::Cow<'_, str> = if !stable {
        "".into()
    } else if doc.text[..cursor].contains('\r') {
        normalize_line_endings(&doc.text[..cursor]).into()
    } else {
        doc.text[..cursor].into()
    };
    let (before, before_start) = if stable {
        let capped = utf16::last_units(&upto, max_chars);
        let whole = stable::whole_lines(&capped, capped.len() == upto.len()).to_owned();
        let start = upto.len() - whole.len();
        (whole, start)
    } else {
        let before = normalize_line_endings(&utf16::last_units(&doc.text[..cursor], max_chars));
        (before, 0)
    };
    let suffix_raw = suffix_after_cursor_line(&doc.text[cursor..], max_chars);
    let suffix = reuse_cached_suffix(
        session,
        suffix_raw,
        &tokenizer,
        options.suffix_match_threshold,
    );
    let suffix = normalize_line_endings(&suffix);
    let mut suffix_share = budget * options.suffix_percent as usize / 100;
    if stable {
        suffix_share = suffix_share.min(stable::SUFFIX_TOKENS);
    }
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
    let Ranking {
        files,
        outlines,
        index,
        scores,
        ranked,
    } = rank_files(request, reader, &language_id, cursor, &before, &suffix);

    // The context's share: what the whole prefix leaves, but never less than the floor.
    // Counted line by line: an estimate, used to share the budget (what is sent is counted
    // exactly below).
    let before_counts = counter.lines(&before);
    let prefix_cap = options.max_prefix_tokens.unwrap_or(usize::MAX);
    let prefix_all: usize = before_counts.iter().sum::<usize>().min(prefix_cap);
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
    // The stable layout sends the previous context again while it is still true and relevant.
    let still_open = |snippet: &str| {
        std::iter::once(&request.document)
            .chain(&request.open_documents)
            .any(|d| d.text.contains(snippet))
    };
    let reused = if stable {
        stable::reuse_context(
            &session.stable,
            &marker_text,
            &files,
            &outlines,
            &ranked,
            &chosen,
            share,
            &still_open,
        )
    } else {
        None
    };
    let reused_context = reused.is_some();
    if let Some((packed, body, tokens)) = reused {
        (chosen, context_body, context_tokens) = (packed, body, tokens);
        notes.push("the context is the one sent for the previous keystroke, still relevant (stable layout)".to_owned());
    }

    // With room to spare once the whole prefix fits, the windows of open files most like the
    // code before the cursor (Copilot's similar files) fill it: bodies, not only signatures.
    let fits_whole =
        !reused_context && prefix_all + suffix_tokens + marker_tokens + context_tokens < budget;
    // Counted exactly (the prefix is short here), with a few tokens kept back for the seams.
    let spare = if fits_whole {
        budget.saturating_sub(
            suffix_tokens + marker_tokens + context_tokens + counter.exact(&before) + SEAM_TOKENS,
        )
    } else {
        0
    };
    let snippet_elements = if spare >= MIN_SNIPPET_ROOM {
        let found = neighbour_snippets(
            request,
            &language_id,
            &doc.text,
            cursor,
            root,
            &SimilarFilesOptions::for_language(&language_id),
        );
        let mut context = Context {
            body: &mut context_body,
            tokens: &mut context_tokens,
        };
        add_snippets(
            found,
            spare,
            &mut context,
            &sent_marker,
            &tokenizer,
            &render_context,
        )
    } else {
        Vec::new()
    };

    if stable && !reused_context {
        let snippets = snippet_elements
            .iter()
            .filter(|e| e.included)
            .map(|e| {
                let code = e.text.split_once('\n').map_or("", |(_, code)| code);
                code.strip_suffix('\n').unwrap_or(code).to_owned()
            })
            .collect();
        stable::keep_context(
            &mut session.stable,
            &marker_text,
            &files,
            &outlines,
            &chosen,
            snippets,
            &context_body,
            context_tokens,
        );
    }

    // The prefix takes what is left, whole lines nearest the cursor; in the stable layout from
    // an anchor that moves in steps.
    let prefix_start = stable.then(|| {
        let room = budget
            .saturating_sub(suffix_tokens + marker_tokens + context_tokens)
            .min(prefix_cap);
        stable::prefix_start(
            &mut session.stable,
            &upto,
            before_start,
            &before,
            &before_counts,
            room,
        )
    });
    let sent = fit_prefix(
        frame.rendering,
        &sent_marker,
        &context_body,
        context_tokens,
        &before,
        &before_counts,
        prefix_start,
        (budget.saturating_sub(suffix_tokens), prefix_cap),
        &tokenizer,
        &render_context,
    );
    if sent.dropped_context {
        notes.push(format!(
            "the context was dropped: with the suffix's {suffix_tokens} tokens it would have gone over the {budget}-token budget"
        ));
        chosen = pack::Packed::default();
    }
    let Sent {
        prefix,
        trailing_whitespace,
        context,
        prompt_tokens,
        prefix_sent_tokens,
        prefix_cut,
        ..
    } = sent;

    let elements = report(
        &files, &outlines, &ranked, &scores, &index, &chosen, &tokenizer, share, &mut notes,
    );
    let mut elements = elements;
    elements.extend(snippet_elements);
    if !marker.is_empty() {
        elements.insert(
            0,
            marker_element(&marker, relative.as_deref(), marker_tokens),
        );
    }
    let prefix_reason = prefix_cut.then(|| {
        format!("cut to fit the budget: lines far from the cursor dropped (the context took {context_tokens} of its {share}-token share)")
    });
    // Exact when all of it was sent; otherwise the line-by-line estimate of the whole.
    let prefix_whole = if prefix_cut {
        prefix_all.max(prefix_sent_tokens)
    } else {
        prefix_sent_tokens
    };
    elements.push(side_element(
        ElementKind::BeforeCursor,
        relative.as_deref(),
        &before,
        (prefix_whole, prefix_sent_tokens),
        prefix_reason,
    ));
    let suffix_cut = suffix_sent.len() < suffix.len();
    let suffix_all = if suffix_cut {
        counter
            .lines(&suffix)
            .iter()
            .sum::<usize>()
            .max(suffix_tokens)
    } else {
        suffix_tokens
    };
    let suffix_reason = if suffix.is_empty() {
        Some("nothing after the cursor line".to_owned())
    } else if suffix_cut {
        Some("cut to the suffix's share of the budget".to_owned())
    } else {
        None
    };
    elements.push(side_element(
        ElementKind::AfterCursor,
        relative.as_deref(),
        &suffix,
        (suffix_all, suffix_tokens),
        suffix_reason,
    ));

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

/// The candidate files, their outlines, and every definition scored and ranked best first.
struct Ranking<'r> {
    files: Vec<sources::SourceFile<'r>>,
    outlines: Vec<Arc<FileOutline>>,
    /// (file, definition) of each score.
    index: Vec<(usize, usize)>,
    scores: Vec<rank::Score>,
    ranked: Vec<Ranked>,
}

fn rank_files<'r>(
    request: &'r RequestJson,
    reader: &OpenFirst<'r>,
    language_id: &str,
    cursor: usize,
    before: &str,
    suffix: &str,
) -> Ranking<'r> {
    let options = &request.options;
    let doc = &request.document;
    let doc_lang = syntax::Lang::from_language_id(language_id);
    let files = sources::source_files(request, reader, doc_lang);
    let outlines: Vec<Arc<FileOutline>> = files
        .iter()
        .map(|f| {
            let lang = f.lang.filter(|_| f.text.len() <= MAX_PARSED_BYTES);
            cache::outline(&f.text, lang, &options.tokenizer)
        })
        .collect();
    let near = candidates::near_cursor(&doc.text[..cursor], &doc.text[cursor..]);
    let cursor_context = CursorContext::new(&reader.relative(&doc.path), before, suffix);
    let (candidates, index) = candidates::candidates(&files, &outlines, &near, &cursor_context);
    let weights = options.context_weights.clone().unwrap_or_default();
    let scores = rank::score_all(&candidates, &cursor_context, &weights);
    drop(candidates);
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
    Ranking {
        files,
        outlines,
        index,
        scores,
        ranked,
    }
}

/// The prompt's text as sent, and what fitting it did.
struct Sent {
    prefix: String,
    trailing_whitespace: String,
    context: Vec<String>,
    prompt_tokens: usize,
    prefix_sent_tokens: usize,
    prefix_cut: bool,
    dropped_context: bool,
}

/// Fits the prefix after the marker and the context into `room` tokens (the budget less the
/// suffix): the last whole lines of `before`, counted line by line to choose, then the prompt
/// as sent counted exactly once, cutting far lines while it is over (tokens can merge across a
/// line break). If even an empty prefix is over, which only the seams between the pieces can
/// cause, the context is dropped rather than send more than the budget.
#[allow(clippy::too_many_arguments)]
fn fit_prefix(
    rendering: ContextRendering,
    marker: &Marker<'_>,
    context_body: &str,
    context_tokens: usize,
    before: &str,
    before_counts: &[usize],
    prefix_start: Option<usize>,
    (room, prefix_cap): (usize, usize),
    tokenizer: &Tokenizer,
    render_context: &dyn Fn(&str) -> String,
) -> Sent {
    let context_text = if context_body.is_empty() {
        String::new()
    } else {
        render_context(context_body)
    };
    let prefix_room = room
        .saturating_sub(marker.tokens + context_tokens)
        .min(prefix_cap);
    let mut prefix_sent = match prefix_start {
        Some(start) => &before[start..],
        None => lines_from_end(before, before_counts, prefix_room),
    };
    let mut context = match rendering {
        ContextRendering::Split => {
            let group = format!("{}{context_text}", marker.text);
            let group = group.trim_end();
            if group.is_empty() {
                vec![]
            } else {
                vec![group.to_owned()]
            }
        }
        ContextRendering::Inline => Vec::new(),
    };
    let context_sent_tokens: usize = context.iter().map(|c| tokenizer.count(c)).sum();
    let (mut prefix, trailing_whitespace, mut prompt_tokens) = loop {
        let whole = match rendering {
            ContextRendering::Split => prefix_sent.to_owned(),
            ContextRendering::Inline => format!("{}{context_text}{prefix_sent}", marker.text),
        };
        let (prefix, trailing) = trim_last_line(&whole);
        let tokens = context_sent_tokens + tokenizer.count(&prefix);
        if tokens <= room || prefix_sent.is_empty() {
            break (prefix, trailing, tokens);
        }
        let cut = prefix_sent.find('\n').map_or(prefix_sent.len(), |i| i + 1);
        prefix_sent = &prefix_sent[cut..];
    };
    let prefix_sent_tokens = match rendering {
        ContextRendering::Split => prompt_tokens - context_sent_tokens,
        ContextRendering::Inline => prompt_tokens.saturating_sub(marker.tokens + context_tokens),
    };
    let dropped_context = prompt_tokens > room;
    if dropped_context {
        context.clear();
        prefix.clear();
        prompt_tokens = 0;
    }
    Sent {
        prefix,
        trailing_whitespace,
        context,
        prompt_tokens,
        prefix_sent_tokens,
        prefix_cut: prefix_sent.len() < before.len(),
        dropped_context,
    }
}

/// The element of the marker naming the document.
fn marker_element(marker: &str, path: Option<&str>, tokens: usize) -> Element {
    Element {
        kind: if path.is_some() {
            ElementKind::PathMarker
        } else {
            ElementKind::LanguageMarker
        },
        path: path.map(str::to_owned),
        text: marker.to_owned(),
        tokens,
        score: None,
        included: true,
        included_tokens: tokens,
        reason: None,
        why: Vec::new(),
    }
}

/// The element of one side of the cursor: its text, (its tokens, the tokens sent), and why it
/// was cut.
fn side_element(
    kind: ElementKind,
    path: Option<&str>,
    text: &str,
    (tokens, sent): (usize, usize),
    reason: Option<String>,
) -> Element {
    Element {
        kind,
        path: path.map(str::to_owned),
        text: text.to_owned(),
        tokens,
        score: None,
        included: sent > 0,
        included_tokens: sent,
        reason,
        why: Vec::new(),
    }
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
        context_body = render_blocks(files, outlines, &chosen.blocks);
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

/// The context's text before rendering: one block per file, in the packing's order.
fn render_blocks(
    files: &[sources::SourceFile<'_>],
    outlines: &[Arc<FileOutline>],
    blocks: &[(usize, Vec<usize>)],
) -> String {
    blocks
        .iter()
        .map(|(f, defs)| pack::render_block(&files[*f].shown, &outlines[*f], defs))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The context built so far: its text before rendering and its tokens as sent.
struct Context<'a> {
    body: &'a mut String,
    tokens: &'a mut usize,
}

/// Adds similar-file snippets (best last in `found`, taken best first) to the context while
/// they fit in `spare` tokens, and reports each.
fn add_snippets(
    found: Vec<retrieval::SimilarSnippet>,
    spare: usize,
    context: &mut Context<'_>,
    marker: &Marker<'_>,
    tokenizer: &Tokenizer,
    render_context: &dyn Fn(&str) -> String,
) -> Vec<Element> {
    let mut left = spare;
    let mut elements = Vec::new();
    // Best last, as Copilot returns them.
    for snippet in found.into_iter().rev() {
        let block = format!(
            "Compare this snippet from {}:\n{}\n",
            snippet.relative_path, snippet.text
        );
        let body = if context.body.is_empty() {
            block.clone()
        } else {
            format!("{}\n{block}", context.body)
        };
        let with_marker = format!("{}{}", marker.text, render_context(&body));
        let tokens = tokenizer
            .count(with_marker.trim_end())
            .saturating_sub(marker.tokens);
        let cost = tokens.saturating_sub(*context.tokens);
        let fits = cost <= left;
        if fits {
            left -= cost;
            *context.body = body;
            *context.tokens = tokens;
        }
        elements.push(Element {
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
    elements
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
        for (i, &d) in defs.iter().enumerate() {
            let tokens = outlines[*f].tokens(d, tokenizer);
            let score = score_of(*f, d);
            let for_itself = chosen.contains(&(*f, d));
            elements.push(Element {
                kind: ElementKind::Definition,
                path: Some(files[*f].shown.clone()),
                // What was sent, which for a container shown with its members is its
                // opening line.
                text: pack::shown_signature(&outlines[*f], defs, i),
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
