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
mod fit;
mod pack;
mod ranking;
mod report;
mod sources;
mod stable;

pub use stable::Anchor;
pub(crate) use stable::Stable;

use std::borrow::Cow;
use std::sync::Arc;

use retrieval::SimilarFilesOptions;
use tokenizer::{Tokenizer, utf16};

use self::cache::FileOutline;
use self::fit::{Counter, Marker};
use self::pack::Ranked;
use self::ranking::{MIN_SCORE, Ranking, rank_files};
use crate::components::similar_files::neighbour_snippets;
use crate::request::{ContextRendering, Layout, Options, RequestError, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{approximate_max_characters, reuse_cached_suffix, suffix_after_cursor_line};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, fim, normalize_line_endings,
};

/// The context's share of the budget at least, in percent, when the request does not say.
const DEFAULT_CONTEXT_FLOOR_PERCENT: u32 = 35;
/// Tokens kept back where pieces are joined (a line break and what follows can merge).
const SEAM_TOKENS: usize = 8;
/// Spare tokens below which no similar-file snippet is looked for.
const MIN_SNIPPET_ROOM: usize = 64;
/// Passes at most of packing the context against a target lowered by the last pass's excess.
const CALIBRATION_PASSES: usize = 3;

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
    let floor = context_floor(options)?;
    let root = request.workspace_root.as_deref();
    let frame = super::frame(options, root, relative.as_deref(), &tokenizer)?;
    let budget = frame.budget;
    let stable = options.layout == Layout::Stable;
    let counter = Counter {
        tokenizer: &tokenizer,
        name: &options.tokenizer,
    };
    let mut notes = Vec::new();
    let sides = cut_sides(request, session, cursor, &counter, budget);

    // The marker naming the document (the path, or the language without one).
    let marker = match relative.as_deref() {
        Some(p) => languages::path_marker(Some(p)),
        None => languages::language_marker(&doc.text, &language_id),
    };
    let render_context = |text: &str| match frame.rendering {
        ContextRendering::Split => text.to_owned(),
        ContextRendering::Inline => languages::comment_block_as_singles(text, &language_id),
    };
    let (marker_text, marker_tokens) =
        marker_as_sent(&marker, &render_context, &tokenizer, &sides, budget);
    let a = Assembly {
        request,
        language_id: &language_id,
        counter,
        budget,
        stable,
        rendering: frame.rendering,
        marker: Marker {
            text: &marker_text,
            tokens: marker_tokens,
        },
        render_context: &render_context,
    };

    // Candidates from every open and imported file, ranked against the cursor.
    let ranking = rank_files(
        request,
        reader,
        &language_id,
        cursor,
        &sides.before,
        &sides.suffix,
        &tokenizer,
    );
    let share = context_share(&a, &sides, floor);
    let mut context = pick_context(&a, session, &ranking, share.tokens, &mut notes);
    let snippet_elements = similar_snippets(&a, cursor, &sides, &share, &mut context);
    if stable && !context.reused {
        remember_context(session, &a, &ranking, &context, &snippet_elements);
    }
    let sent = send_prefix(&a, session, &sides, &share, &mut context, &mut notes);

    let mut elements = report::report(
        &ranking,
        &context.packed,
        &tokenizer,
        share.tokens,
        &mut notes,
    );
    elements.extend(snippet_elements);
    if !marker.is_empty() {
        elements.insert(
            0,
            report::marker_element(&marker, relative.as_deref(), marker_tokens),
        );
    }
    elements.push(prefix_element(
        relative.as_deref(),
        &sides,
        &share,
        context.tokens,
        &sent,
    ));
    elements.push(suffix_element(relative.as_deref(), &sides, &a.counter));
    let skip = copilot_skip_reason(&doc.text, cursor, options.suffix_percent, &language_id);
    Ok(into_prompt(&frame, sides, sent, elements, skip, notes))
}

/// The prompt as sent, with the FIM template's one string where there is one.
fn into_prompt(
    frame: &super::Frame,
    sides: Sides<'_>,
    sent: fit::Sent,
    elements: Vec<Element>,
    skip: Option<String>,
    notes: Vec<String>,
) -> Prompt {
    let fit::Sent {
        prefix,
        trailing_whitespace,
        context,
        prompt_tokens,
        ..
    } = sent;
    let fim_prompt = frame.fim.as_ref().map(|t| {
        t.render(&fim::FimParts {
            path: &frame.shown_path,
            repo_name: &frame.repo_name,
            context: &context,
            prefix: &prefix,
            suffix: &sides.suffix_sent,
        })
    });
    Prompt {
        prefix,
        suffix: sides.suffix_sent,
        context,
        prompt_tokens,
        suffix_tokens: sides.suffix_tokens,
        trailing_whitespace,
        elements,
        copilot_would_request: skip.is_none(),
        copilot_skip_reason: skip,
        fim_prompt,
        fim_template_tokens: frame.fim_overhead,
        notes,
    }
}

/// The context's share of the budget at least, in percent: the request's, within 100.
fn context_floor(options: &Options) -> Result<u32, AssembleError> {
    let floor = options
        .context_floor_percent
        .unwrap_or(DEFAULT_CONTEXT_FLOOR_PERCENT);
    if floor > 100 {
        return Err(RequestError::ContextFloor(floor).into());
    }
    Ok(floor)
}

/// What every stage of one assembly reads, settled once the sides of the cursor and the
/// marker are cut.
struct Assembly<'a> {
    request: &'a RequestJson,
    language_id: &'a str,
    counter: Counter<'a>,
    budget: usize,
    stable: bool,
    rendering: ContextRendering,
    /// The marker naming the document, as sent before the context.
    marker: Marker<'a>,
    /// The context as sent: apart, or commented into the prefix.
    render_context: &'a dyn Fn(&str) -> String,
}

/// The document's own text on each side of the cursor.
struct Sides<'d> {
    /// The text up to the cursor as sent (line endings normalized), in which the stable
    /// layout counts the prefix's anchor; empty in the plain layout.
    upto: Cow<'d, str>,
    /// The text before the cursor, capped in characters (in the stable layout, at a line's
    /// start).
    before: String,
    /// Where `before` starts in `upto`.
    before_start: usize,
    /// The text after the cursor line, capped in characters.
    suffix: String,
    /// Its first whole lines within the suffix's share, and their tokens.
    suffix_sent: String,
    suffix_tokens: usize,
}

/// The text on each side of the cursor, capped in characters as Copilot does; the suffix then
/// cut to its share of the budget (in the stable layout, to a fixed size as well).
fn cut_sides<'d>(
    request: &'d RequestJson,
    session: &mut Session,
    cursor: usize,
    counter: &Counter<'_>,
    budget: usize,
) -> Sides<'d> {
    let options = &request.options;
    let doc = &request.document;
    let max_chars = approximate_max_characters(options.max_prompt_tokens);
    let stable = options.layout == Layout::Stable;
    // The stable layout counts the prefix's anchor in the text up to the cursor as sent (line
    // endings normalized), and starts the prefix at a line's start.
    // Copied only where line endings change: this runs on every keystroke over the whole text
    // before the cursor.
    let upto: Cow<'_, str> = if !stable {
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
        counter.tokenizer,
        options.suffix_match_threshold,
    );
    let suffix = normalize_line_endings(&suffix);
    let mut suffix_share = budget * options.suffix_percent as usize / 100;
    if stable {
        suffix_share = suffix_share.min(stable::SUFFIX_TOKENS);
    }
    let (suffix_sent, suffix_tokens) = fit::lines_from_start(&suffix, suffix_share, counter);
    Sides {
        upto,
        before,
        before_start,
        suffix,
        suffix_sent,
        suffix_tokens,
    }
}

/// The marker as sent (rendered as the context is) and its tokens; nothing when the suffix
/// took the whole budget.
fn marker_as_sent(
    marker: &str,
    render_context: &dyn Fn(&str) -> String,
    tokenizer: &Tokenizer,
    sides: &Sides<'_>,
    budget: usize,
) -> (String, usize) {
    let mut marker_text = if marker.is_empty() {
        String::new()
    } else {
        render_context(&format!("{marker}\n"))
    };
    let mut marker_tokens = tokenizer.count(&marker_text);
    if marker_tokens + sides.suffix_tokens > budget {
        // The suffix took the whole budget: even the marker has no room.
        marker_text.clear();
        marker_tokens = 0;
    }
    (marker_text, marker_tokens)
}

/// How the budget is shared between the context and the prefix.
struct Share {
    /// The tokens of each line of the text before the cursor, counted line by line.
    before_counts: Vec<usize>,
    /// The prefix's own cap, if the request sets one.
    prefix_cap: usize,
    /// The whole prefix's tokens (estimated line by line), within its cap.
    prefix_all: usize,
    /// The context's share.
    tokens: usize,
}

/// The context's share: what the whole prefix leaves, but never less than the floor. Counted
/// line by line: an estimate, used to share the budget (what is sent is counted exactly).
fn context_share(a: &Assembly<'_>, sides: &Sides<'_>, floor: u32) -> Share {
    let before_counts = a.counter.lines(&sides.before);
    let prefix_cap = a.request.options.max_prefix_tokens.unwrap_or(usize::MAX);
    let prefix_all: usize = before_counts.iter().sum::<usize>().min(prefix_cap);
    let rest = a
        .budget
        .saturating_sub(sides.suffix_tokens + a.marker.tokens);
    let floor_tokens = a.budget * floor as usize / 100;
    let tokens = rest.saturating_sub(prefix_all).max(floor_tokens).min(rest);
    Share {
        before_counts,
        prefix_cap,
        prefix_all,
        tokens,
    }
}

/// The context chosen: the packing, its text before rendering, and its tokens as sent.
struct Chosen {
    packed: pack::Packed,
    body: String,
    tokens: usize,
    /// Whether it is the previous keystroke's context sent again (stable layout).
    reused: bool,
}

/// The definitions packed best first into the context's share; in the stable layout, the
/// previous context instead while it is still true and relevant.
fn pick_context(
    a: &Assembly<'_>,
    session: &Session,
    ranking: &Ranking<'_>,
    share: usize,
    notes: &mut Vec<String>,
) -> Chosen {
    let (packed, body, tokens) = choose(
        &ranking.ranked,
        &ranking.files,
        &ranking.outlines,
        share,
        a.counter.tokenizer,
        &a.marker,
        a.render_context,
    );
    let still_open = |snippet: &str| {
        std::iter::once(&a.request.document)
            .chain(&a.request.open_documents)
            .any(|d| d.text.contains(snippet))
    };
    let reused = if a.stable {
        stable::reuse_context(
            &session.stable,
            a.marker.text,
            &ranking.files,
            &ranking.outlines,
            &ranking.ranked,
            &packed,
            share,
            &still_open,
        )
    } else {
        None
    };
    match reused {
        Some((packed, body, tokens)) => {
            notes.push("the context is the one sent for the previous keystroke, still relevant (stable layout)".to_owned());
            Chosen {
                packed,
                body,
                tokens,
                reused: true,
            }
        }
        None => Chosen {
            packed,
            body,
            tokens,
            reused: false,
        },
    }
}

/// With room to spare once the whole prefix fits, the windows of open files most like the code
/// before the cursor (Copilot's similar files) fill it: bodies, not only signatures. Returns
/// an element for each snippet looked at.
fn similar_snippets(
    a: &Assembly<'_>,
    cursor: usize,
    sides: &Sides<'_>,
    share: &Share,
    context: &mut Chosen,
) -> Vec<Element> {
    let fixed = sides.suffix_tokens + a.marker.tokens + context.tokens;
    let fits_whole = !context.reused && share.prefix_all + fixed < a.budget;
    // Counted exactly (the prefix is short here), with a few tokens kept back for the seams.
    let spare = if fits_whole {
        a.budget
            .saturating_sub(fixed + a.counter.exact(&sides.before) + SEAM_TOKENS)
    } else {
        0
    };
    if spare < MIN_SNIPPET_ROOM {
        return Vec::new();
    }
    let found = neighbour_snippets(
        a.request,
        a.language_id,
        &a.request.document.text,
        cursor,
        a.request.workspace_root.as_deref(),
        &SimilarFilesOptions::for_language(a.language_id),
    );
    let mut grown = Context {
        body: &mut context.body,
        tokens: &mut context.tokens,
    };
    add_snippets(
        found,
        spare,
        &mut grown,
        &a.marker,
        a.counter.tokenizer,
        a.render_context,
    )
}

/// Keeps the context just chosen, with the snippets it took, for the next keystroke to send
/// again (stable layout).
fn remember_context(
    session: &mut Session,
    a: &Assembly<'_>,
    ranking: &Ranking<'_>,
    context: &Chosen,
    snippet_elements: &[Element],
) {
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
        a.marker.text,
        &ranking.files,
        &ranking.outlines,
        &context.packed,
        snippets,
        &context.body,
        context.tokens,
    );
}

/// The prefix takes what is left, whole lines nearest the cursor; in the stable layout from an
/// anchor that moves in steps. The prompt as sent is then fitted exactly; if the context had
/// to be dropped for it, the choice is emptied and a note says why.
fn send_prefix(
    a: &Assembly<'_>,
    session: &mut Session,
    sides: &Sides<'_>,
    share: &Share,
    context: &mut Chosen,
    notes: &mut Vec<String>,
) -> fit::Sent {
    let prefix_start = a.stable.then(|| {
        let room = a
            .budget
            .saturating_sub(sides.suffix_tokens + a.marker.tokens + context.tokens)
            .min(share.prefix_cap);
        stable::prefix_start(
            &mut session.stable,
            &sides.upto,
            sides.before_start,
            &sides.before,
            &share.before_counts,
            room,
        )
    });
    let sent = fit::fit_prefix(
        a.rendering,
        &a.marker,
        &context.body,
        context.tokens,
        &sides.before,
        &share.before_counts,
        prefix_start,
        (
            a.budget.saturating_sub(sides.suffix_tokens),
            share.prefix_cap,
        ),
        a.counter.tokenizer,
        a.render_context,
    );
    if sent.dropped_context {
        let (suffix_tokens, budget) = (sides.suffix_tokens, a.budget);
        notes.push(format!(
            "the context was dropped: with the suffix's {suffix_tokens} tokens it would have gone over the {budget}-token budget"
        ));
        context.packed = pack::Packed::default();
    }
    sent
}

/// The element of the text before the cursor, and why it was cut.
fn prefix_element(
    path: Option<&str>,
    sides: &Sides<'_>,
    share: &Share,
    context_tokens: usize,
    sent: &fit::Sent,
) -> Element {
    let prefix_reason = sent.prefix_cut.then(|| {
        let share = share.tokens;
        format!("cut to fit the budget: lines far from the cursor dropped (the context took {context_tokens} of its {share}-token share)")
    });
    // Exact when all of it was sent; otherwise the line-by-line estimate of the whole.
    let prefix_whole = if sent.prefix_cut {
        share.prefix_all.max(sent.prefix_sent_tokens)
    } else {
        sent.prefix_sent_tokens
    };
    report::side_element(
        ElementKind::BeforeCursor,
        path,
        &sides.before,
        (prefix_whole, sent.prefix_sent_tokens),
        prefix_reason,
    )
}

/// The element of the text after the cursor line, and why it was cut.
fn suffix_element(path: Option<&str>, sides: &Sides<'_>, counter: &Counter<'_>) -> Element {
    let suffix_tokens = sides.suffix_tokens;
    let suffix_cut = sides.suffix_sent.len() < sides.suffix.len();
    let suffix_all = if suffix_cut {
        counter
            .lines(&sides.suffix)
            .iter()
            .sum::<usize>()
            .max(suffix_tokens)
    } else {
        suffix_tokens
    };
    let suffix_reason = if sides.suffix.is_empty() {
        Some("nothing after the cursor line".to_owned())
    } else if suffix_cut {
        Some("cut to the suffix's share of the budget".to_owned())
    } else {
        None
    };
    report::side_element(
        ElementKind::AfterCursor,
        path,
        &sides.suffix,
        (suffix_all, suffix_tokens),
        suffix_reason,
    )
}

/// Packs the ranked definitions into `share` tokens and renders them: the choice, the context's
/// text before rendering, and its exact tokens as sent after the marker.
///
/// Packing adds up each definition's tokens (its signature and newline, counted together), an
/// estimate of what the rendered context counts: rendering as comments adds tokens. When the
/// rendered context is over its share, packing is tried again against a target lowered by the
/// excess; only if that still does not fit are the weakest choices dropped one by one.
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
        // The header with its newline, and the blank line between blocks.
        .map(|f| tokenizer.count(&format!("{}\n", pack::header(&f.shown))) + 1)
        .collect();
    let render = |packed: &pack::Packed| {
        let body = render_blocks(files, outlines, &packed.blocks);
        // Counted with the marker it is sent with, so that the seam between them is counted
        // too.
        let with_marker = format!("{}{}", marker.text, render_context(&body));
        let tokens = tokenizer
            .count(with_marker.trim_end())
            .saturating_sub(marker.tokens);
        (body, tokens)
    };
    let mut target = share;
    let mut first_over = None;
    for _ in 0..CALIBRATION_PASSES {
        let packed = pack::pack(
            ranked,
            &outline_refs,
            &headers,
            target,
            MIN_SCORE,
            tokenizer,
        );
        let (body, tokens) = render(&packed);
        if tokens <= share {
            return (packed, body, tokens);
        }
        let next = target.saturating_sub(tokens - share);
        first_over.get_or_insert(packed);
        if next == target {
            break;
        }
        target = next;
    }
    let over = first_over.unwrap_or_default();
    drop_weakest(
        ranked,
        &outline_refs,
        &headers,
        share,
        over,
        tokenizer,
        &render,
    )
}

/// Drops the weakest choices of `packed` until the rendered context fits its share.
fn drop_weakest(
    ranked: &[Ranked],
    outline_refs: &[&FileOutline],
    headers: &[usize],
    share: usize,
    mut chosen: pack::Packed,
    tokenizer: &Tokenizer,
    render: &dyn Fn(&pack::Packed) -> (String, usize),
) -> (pack::Packed, String, usize) {
    loop {
        let (body, tokens) = render(&chosen);
        if tokens <= share || chosen.chosen.is_empty() {
            return (chosen, body, tokens);
        }
        let keep = chosen.chosen.len() - 1;
        let kept: Vec<Ranked> = ranked
            .iter()
            .filter(|r| chosen.chosen[..keep].contains(&(r.file, r.def)))
            .cloned()
            .collect();
        chosen = pack::pack(&kept, outline_refs, headers, share, MIN_SCORE, tokenizer);
    }
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
