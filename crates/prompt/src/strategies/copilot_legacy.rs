//! The `copilot-legacy` strategy: Copilot's older prompt engine, a priority wishlist filled
//! by `fulfill` (see [`crate::legacy`]), the suffix given its share first.

use crate::components::similar_files::neighbour_snippets;
use crate::request::{self, RequestError, RequestJson};
use crate::skip::copilot_skip_reason;
use crate::suffix::{MAX_EDIT_DISTANCE_LENGTH, edit_distance_score};
use crate::{
    AssembleError, Element, ElementKind, OpenFirst, Prompt, Session, detected_language, legacy,
    relative_path,
};
use retrieval::SimilarFilesOptions;
use tokenizer::Tokenizer;

/// Assembles the older engine's prompt for `request`.
///
/// The steps follow the older engine's own: priorities are handed out relative to each other
/// ([`Ranks`]), the wishlist is filled in prompt order (markers, context from language
/// services, similar files, the text before the cursor), then fulfilled with the suffix given
/// its share first ([`fulfill_with_suffix`]).
pub(crate) fn assemble(
    request: &RequestJson,
    session: &mut Session,
    files: &OpenFirst<'_>,
) -> Result<Prompt, AssembleError> {
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

    let mut ranks = Ranks::new();
    let mut wishlist = legacy::Wishlist::new(&tokenizer);
    let markers = append_markers(
        &mut wishlist,
        &ranks,
        &doc.text,
        &language,
        shown_path.as_deref(),
    );
    if options.imports.unwrap_or(true) {
        append_imported(&mut wishlist, &ranks, request, &detected, files);
    }
    append_language_services(&mut wishlist, &ranks, request, &language, root);
    let scores = append_similar_files(
        &mut wishlist,
        &mut ranks,
        request,
        (&detected, &language),
        cursor,
        root,
    );
    let before = &doc.text[..cursor];
    append_before_cursor(&mut wishlist, &ranks, request, before, &language, markers);

    match options.legacy_preset.as_deref() {
        None | Some("priorities") => {}
        Some("order-list") => {
            return Ok(legacy_order_list(
                request, &tokenizer, &wishlist, &scores, before, cursor, &detected,
            ));
        }
        Some(other) => return Err(RequestError::LegacyPreset(other.to_owned()).into()),
    }

    let (fulfilled, suffix, suffix_tokens) =
        fulfill_with_suffix(&wishlist, session, request, &doc.text[cursor..], &tokenizer);
    let elements = wishlist_elements(&wishlist, &fulfilled);
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

/// The priority of each kind of element, handed out relative to each other in the old engine's
/// order (the order matters: each new priority is halfway to a neighbour registered before).
struct Ranks {
    priorities: legacy::Priorities,
    before_cursor: f64,
    language: f64,
    path: f64,
    imported: f64,
    /// The next similar-file snippet's priority; each one takes a lower one than the last.
    low_snippet: f64,
    context: f64,
    tooltip: f64,
}

impl Ranks {
    fn new() -> Ranks {
        let mut priorities = legacy::Priorities::default();
        let before_cursor = priorities.just_below(&[legacy::TOP]);
        let language = priorities.just_below(&[before_cursor]);
        let path = priorities.just_below(&[before_cursor]);
        let imported = priorities.just_below(&[before_cursor]);
        let low_snippet = priorities.just_below(&[imported]);
        let _high_snippet = priorities.just_above(&[before_cursor]);
        // Seeds are silent on where traits, code snippets and tooltip signatures rank:
        // pilotfish puts context from language services with imported files, and the
        // signature of the member being typed just above the text before the cursor.
        let context = priorities.just_below(&[imported]);
        let tooltip = priorities.just_above(&[before_cursor]);
        Ranks {
            priorities,
            before_cursor,
            language,
            path,
            imported,
            low_snippet,
            context,
            tooltip,
        }
    }
}

/// The wishlist ids of the language marker and of the path marker (when the document has a
/// path).
#[derive(Clone, Copy)]
struct Markers {
    language: usize,
    path: Option<usize>,
}

/// Appends the language marker and the path marker.
fn append_markers(
    wishlist: &mut legacy::Wishlist<'_>,
    ranks: &Ranks,
    text: &str,
    language: &str,
    shown_path: Option<&str>,
) -> Markers {
    let language_marker =
        languages::new_line_ended(&legacy_language_marker(text, language)).into_owned();
    let language_id = wishlist.append(
        &language_marker,
        legacy::Kind::LanguageMarker,
        ranks.language,
    );
    let path_id = shown_path.map(|p| {
        let marker =
            languages::new_line_ended(&languages::comment(&format!("Path: {p}"), language))
                .into_owned();
        wishlist.append(&marker, legacy::Kind::PathMarker, ranks.path)
    });
    Markers {
        language: language_id,
        path: path_id,
    }
}

/// Appends each declaration of the files the document imports.
fn append_imported(
    wishlist: &mut legacy::Wishlist<'_>,
    ranks: &Ranks,
    request: &RequestJson,
    detected: &str,
    files: &OpenFirst<'_>,
) {
    for imported in crate::components::imported::imported(request, detected, files) {
        for declaration in imported.text.split("\n\n") {
            wishlist.append(
                &languages::new_line_ended(declaration),
                legacy::Kind::ImportedFile,
                ranks.imported,
            );
        }
    }
}

/// Appends the context from language services: traits, then code snippets, commented.
fn append_language_services(
    wishlist: &mut legacy::Wishlist<'_>,
    ranks: &Ranks,
    request: &RequestJson,
    language: &str,
    root: Option<&str>,
) {
    if !request.traits.is_empty() {
        let body: String = request
            .traits
            .iter()
            .map(|t| languages::new_line_ended(&format!("{}: {}", t.name, t.value)).into_owned())
            .collect();
        let text = languages::comment_block_as_singles(
            &format!("Consider this related information:{body}"),
            language,
        );
        wishlist.append(&text, legacy::Kind::Trait, ranks.context);
    }
    for part in crate::components::code_snippets::code_snippets(&request.code_snippets, root) {
        let text = part
            .values
            .iter()
            .map(|(v, _)| v.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let text = languages::comment_block_as_singles(&languages::new_line_ended(&text), language);
        wishlist.append(&text, legacy::Kind::CodeSnippet, ranks.context);
    }
}

/// Appends the similar-file snippets: the best four, the best taking the highest of the low
/// priorities and standing last. Returns (wishlist id, score) of each.
fn append_similar_files(
    wishlist: &mut legacy::Wishlist<'_>,
    ranks: &mut Ranks,
    request: &RequestJson,
    (detected, language): (&str, &str),
    cursor: usize,
    root: Option<&str>,
) -> Vec<(usize, f64)> {
    let mut ranked =
        legacy_similar_snippets(request, detected, &request.document.text, cursor, root);
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
            ranks.low_snippet,
            languages::comment_block_as_singles(&announced, language),
        ));
        ranks.low_snippet = ranks.priorities.just_below(&[ranks.low_snippet]);
    }
    with_priority.sort_by(|a, b| b.0.total_cmp(&a.0));
    with_priority.reverse();
    let mut scores: Vec<(usize, f64)> = Vec::new();
    for (score, priority, text) in &with_priority {
        let id = wishlist.append(text, legacy::Kind::SimilarFile, *priority);
        scores.push((id, *score));
    }
    scores
}

/// Appends the signature of the member being typed, then the text before the cursor line for
/// line, and ties the markers to it.
fn append_before_cursor(
    wishlist: &mut legacy::Wishlist<'_>,
    ranks: &Ranks,
    request: &RequestJson,
    before: &str,
    language: &str,
    markers: Markers,
) {
    if let Some(signature) = &request.tooltip_signature
        && ends_with_member_access(before)
    {
        let text = languages::new_line_ended(&languages::comment_block_as_singles(
            &format!("Use {signature}"),
            language,
        ))
        .into_owned();
        wishlist.append(&text, legacy::Kind::TooltipSignature, ranks.tooltip);
    }
    let lines =
        wishlist.append_line_for_line(before, legacy::Kind::BeforeCursor, ranks.before_cursor);
    let language_id = markers.language;
    if let Some(&first) = lines.first() {
        wishlist.require(language_id, first);
        // The old code chose what the path marker requires with a truthiness test on the
        // language marker's id, which is 0 (it is appended first): so the path marker requires
        // the first line before the cursor, not the language marker. Taken at its higher
        // priority, it then excludes the language marker, which is why old prompts show a
        // path and no language line.
        if let Some(path) = markers.path {
            let required = if language_id != 0 { language_id } else { first };
            wishlist.require(path, required);
        }
    }
    if let Some(path) = markers.path {
        wishlist.exclude(path, language_id);
    }
}

/// Fulfills the wishlist with the suffix given its share first, the prefix filling the rest; a
/// suffix much like the last one sent is sent again. Returns what was taken, the suffix and
/// its tokens.
fn fulfill_with_suffix(
    wishlist: &legacy::Wishlist<'_>,
    session: &mut Session,
    request: &RequestJson,
    after: &str,
    tokenizer: &Tokenizer,
) -> (legacy::Fulfilled, String, usize) {
    let options = &request.options;
    let max = options.max_prompt_tokens as i64;
    if options.suffix_percent == 0 {
        return (wishlist.fulfill(max), String::new(), 0);
    }
    let reserved = max - 5;
    // Math.floor, as in the old code (it matters only for budgets under 5 tokens).
    let mut prefix_budget = (reserved * (100 - i64::from(options.suffix_percent))).div_euclid(100);
    let mut fulfilled = wishlist.fulfill(prefix_budget);
    let available = reserved - fulfilled.prefix_tokens as i64;
    let trimmed = after.trim_start_matches(languages::is_js_whitespace);
    let taken = tokenizer.take_first_tokens(trimmed, available.max(0) as usize);
    let taken_ids = first_token_ids_of(tokenizer, &taken.text, taken.tokens);
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
        100 * edit_distance_score(&a, &b) < threshold * MAX_EDIT_DISTANCE_LENGTH.min(taken.tokens)
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
}

/// One element per wishlist entry, with its priority as its score.
fn wishlist_elements(
    wishlist: &legacy::Wishlist<'_>,
    fulfilled: &legacy::Fulfilled,
) -> Vec<Element> {
    wishlist
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
                why: Vec::new(),
            }
        })
        .collect()
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
                why: Vec::new(),
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
        notes: vec!["copilot-legacy order-list preset: reconstructed from a published write-up of Copilot's older prompt, which leaves parts of its fulfill unstated".to_owned()],
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
