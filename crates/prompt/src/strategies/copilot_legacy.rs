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
pub(crate) fn assemble(
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
        for imported in crate::components::imported::imported(request, &detected, files) {
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
    for part in crate::components::code_snippets::code_snippets(&request.code_snippets, root) {
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
                why: Vec::new(),
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
