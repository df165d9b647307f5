//! Fitting the text before and after the cursor: whole lines from the start of the suffix and
//! from the end of the prefix, and the prompt as sent counted exactly, cut further while it is
//! over the budget.

use tokenizer::Tokenizer;

use super::cache;
use crate::request::ContextRendering;
use crate::trim_last_line;

/// The prompt's text as sent, and what fitting it did.
pub(super) struct Sent {
    pub(super) prefix: String,
    pub(super) trailing_whitespace: String,
    pub(super) context: Vec<String>,
    pub(super) prompt_tokens: usize,
    pub(super) prefix_sent_tokens: usize,
    pub(super) prefix_cut: bool,
    pub(super) dropped_context: bool,
}

/// Fits the prefix after the marker and the context into `room` tokens (the budget less the
/// suffix): the last whole lines of `before`, counted line by line to choose, then the prompt
/// as sent counted exactly once, cutting far lines while it is over (tokens can merge across a
/// line break). If even an empty prefix is over, which only the seams between the pieces can
/// cause, the context is dropped rather than send more than the budget.
#[allow(clippy::too_many_arguments)]
pub(super) fn fit_prefix(
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

/// The first whole lines of `text` that fit in `limit` tokens, and their exact count.
pub(super) fn lines_from_start(text: &str, limit: usize, counter: &Counter<'_>) -> (String, usize) {
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

/// The marker as sent before the context, and its tokens.
pub(super) struct Marker<'a> {
    pub(super) text: &'a str,
    pub(super) tokens: usize,
}

/// Token counting for one request: exact for what is sent, line by line (cached across
/// requests) for deciding what to send.
pub(super) struct Counter<'a> {
    pub(super) tokenizer: &'a Tokenizer,
    pub(super) name: &'a str,
}

impl Counter<'_> {
    pub(super) fn exact(&self, text: &str) -> usize {
        self.tokenizer.count(text)
    }

    pub(super) fn lines(&self, text: &str) -> Vec<usize> {
        cache::line_counts(text, self.tokenizer, self.name)
    }
}
