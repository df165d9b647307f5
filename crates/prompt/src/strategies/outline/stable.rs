//! The `stable` layout of the outline prompt: consecutive keystrokes send prompts that share
//! the longest possible start, so that a model server's prompt cache (llama.cpp's
//! `cache_prompt`) reads again only what changed.
//!
//! Three things move in a plain layout on every keystroke, and each makes the server read
//! everything after it again: the context (the ranking shifts as an identifier is typed), the
//! first line of the prefix (the window drops a line at the top as the prefix grows), and the
//! suffix (for a fill-in-the-middle model it comes after the prefix, so all of it is read
//! again on every keystroke). Here the context stays as it was while it stays relevant, the
//! prefix starts at an anchor that moves in steps, with room to grow, and the suffix is kept
//! short.

use std::hash::Hasher;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use super::cache::FileOutline;
use super::pack::{Packed, Ranked};
use super::sources::SourceFile;

/// The suffix's tokens at most: a fill-in-the-middle model needs the next lines to know where
/// its answer ends, not the rest of the file, and every suffix token is read again on every
/// keystroke.
pub(crate) const SUFFIX_TOKENS: usize = 32;

/// A kept context is sent again while the definitions it holds weigh at least this share of
/// what a fresh choice would weigh (summed scores under the current ranking).
const KEEP_RELEVANCE: f64 = 0.7;

/// When the prefix no longer fits from its anchor, the new anchor leaves this share of the
/// prefix's room free for the typing to come.
const HEADROOM_PERCENT: usize = 25;

/// What the layout remembers of a document between keystrokes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stable {
    anchor: Option<Anchor>,
    kept: Option<Kept>,
}

/// Where the prefix started: a byte offset in the document and a hash of the text before it,
/// so that an edit above it is noticed. A caller that runs once per keystroke (a command line
/// process) keeps it between runs, so that each run's prefix starts where the last one's did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Anchor {
    offset: usize,
    hash: u64,
}

impl Stable {
    pub(crate) fn anchor(&self) -> Option<Anchor> {
        self.anchor
    }

    /// Starts from an anchor kept by the caller, where none is known yet.
    pub(crate) fn resume(&mut self, anchor: Anchor) {
        self.anchor.get_or_insert(anchor);
    }
}

/// The context last sent: its definitions (by file and signature, which survive edits that move
/// them), the similar-file snippets after them, and its text and tokens as sent.
#[derive(Debug, Clone)]
struct Kept {
    marker: String,
    blocks: Vec<(String, Vec<String>)>,
    chosen: Vec<(String, String)>,
    blocks_body: String,
    snippets: Vec<String>,
    body: String,
    tokens: usize,
}

fn hash_of(text: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(text.as_bytes());
    h.finish()
}

/// `before` without a partial first line: the prefix starts at a line's start, so that the
/// character cap on the text before the cursor does not change the prompt's first line on
/// every keystroke. `at_document_start` says whether `before` already starts the document.
pub(crate) fn whole_lines(before: &str, at_document_start: bool) -> &str {
    if at_document_start {
        return before;
    }
    match before.find('\n') {
        Some(i) => &before[i + 1..],
        None => "",
    }
}

/// Where in `before` (whole lines ending at the cursor, starting at byte `before_start` of
/// `text`) the prefix starts. `counts` are the tokens of each line of `before`; `room` the
/// prefix's tokens. The previous anchor is kept while the prefix fits from it; otherwise the
/// first request fills the room, and later ones leave headroom so the anchor moves in steps.
pub(crate) fn prefix_start(
    stable: &mut Stable,
    text: &str,
    before_start: usize,
    before: &str,
    counts: &[usize],
    room: usize,
) -> usize {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            before
                .split_inclusive('\n')
                .scan(0, |at, line| {
                    *at += line.len();
                    Some(*at)
                })
                .take(counts.len().saturating_sub(1)),
        )
        .collect();
    let tokens_from = |line: usize| counts[line..].iter().sum::<usize>();
    if let Some(anchor) = &stable.anchor
        && anchor.offset >= before_start
        && let Some(line) = starts
            .iter()
            .position(|&s| before_start + s == anchor.offset)
        && hash_of(&text[..anchor.offset]) == anchor.hash
    {
        let used = tokens_from(line);
        // Kept while it fits and leaves at most half the room unused with lines left above.
        if used <= room && (line == 0 || room - used <= room / 2) {
            return starts[line];
        }
    }
    let limit = if stable.anchor.is_some() {
        room - room * HEADROOM_PERCENT / 100
    } else {
        room
    };
    let mut line = counts.len();
    let mut used = 0;
    while line > 0 && used + counts[line - 1] <= limit {
        line -= 1;
        used += counts[line];
    }
    let start = starts.get(line).copied().unwrap_or(before.len());
    let offset = before_start + start;
    stable.anchor = Some(Anchor {
        offset,
        hash: hash_of(&text[..offset]),
    });
    start
}

/// The context as last sent, if it is still true and still relevant: every definition it holds
/// is still a candidate with the same signature, its snippets are still in an open file, it
/// fits `share` with a quarter to spare, and it weighs at least [`KEEP_RELEVANCE`] of the
/// fresh choice. Returns the packing (in this request's indices), its text and tokens.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reuse_context(
    stable: &Stable,
    marker: &str,
    files: &[SourceFile<'_>],
    outlines: &[Arc<FileOutline>],
    ranked: &[Ranked],
    fresh: &Packed,
    share: usize,
    still_open: &dyn Fn(&str) -> bool,
) -> Option<(Packed, String, usize)> {
    let kept = stable.kept.as_ref()?;
    if kept.marker != marker || kept.tokens > share + share / 4 {
        return None;
    }
    let file_of: FxHashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.shown.as_str(), i))
        .collect();
    let def_of = |shown: &str, signature: &str| -> Option<(usize, usize)> {
        let f = *file_of.get(shown)?;
        let d = outlines[f]
            .definitions
            .iter()
            .position(|d| d.signature == signature)?;
        Some((f, d))
    };
    let mut packed = Packed::default();
    for (shown, signatures) in &kept.blocks {
        let mut defs = Vec::with_capacity(signatures.len());
        let mut file = None;
        for s in signatures {
            let (f, d) = def_of(shown, s)?;
            file = Some(f);
            defs.push(d);
        }
        packed.blocks.push((file?, defs));
    }
    for (shown, signature) in &kept.chosen {
        packed.chosen.push(def_of(shown, signature)?);
    }
    let blocks_body = super::render_blocks(files, outlines, &packed.blocks);
    if blocks_body != kept.blocks_body || !kept.snippets.iter().all(|s| still_open(s)) {
        return None;
    }
    let score: FxHashMap<(usize, usize), f64> =
        ranked.iter().map(|r| ((r.file, r.def), r.score)).collect();
    let weight = |chosen: &[(usize, usize)]| -> f64 {
        chosen
            .iter()
            .map(|k| score.get(k).copied().unwrap_or(0.0).max(0.0))
            .sum()
    };
    let (was, now) = (weight(&packed.chosen), weight(&fresh.chosen));
    if now > 0.0 && was < KEEP_RELEVANCE * now {
        return None;
    }
    packed.tokens = kept.tokens;
    Some((packed, kept.body.clone(), kept.tokens))
}

/// Remembers the context as sent for the next keystroke.
#[allow(clippy::too_many_arguments)]
pub(crate) fn keep_context(
    stable: &mut Stable,
    marker: &str,
    files: &[SourceFile<'_>],
    outlines: &[Arc<FileOutline>],
    packed: &Packed,
    snippets: Vec<String>,
    body: &str,
    tokens: usize,
) {
    let signature = |f: usize, d: usize| outlines[f].definitions[d].signature.clone();
    let blocks_body = super::render_blocks(files, outlines, &packed.blocks);
    stable.kept = Some(Kept {
        marker: marker.to_owned(),
        blocks: packed
            .blocks
            .iter()
            .map(|(f, defs)| {
                (
                    files[*f].shown.clone(),
                    defs.iter().map(|&d| signature(*f, d)).collect(),
                )
            })
            .collect(),
        chosen: packed
            .chosen
            .iter()
            .map(|&(f, d)| (files[f].shown.clone(), signature(f, d)))
            .collect(),
        blocks_body,
        snippets,
        body: body.to_owned(),
        tokens,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_first_line_is_dropped_unless_the_document_starts_there() {
        assert_eq!(whole_lines("ab\ncd\nef", false), "cd\nef");
        assert_eq!(whole_lines("ab\ncd\nef", true), "ab\ncd\nef");
        assert_eq!(whole_lines("abc", false), "");
    }

    #[test]
    fn the_anchor_holds_while_the_prefix_fits_then_moves_with_headroom() {
        let mut text = String::new();
        for i in 0..40 {
            text.push_str(&format!("line {i}\n"));
        }
        let mut stable = Stable::default();
        let counts =
            |before: &str| -> Vec<usize> { before.split_inclusive('\n').map(|_| 3).collect() };
        // 40 lines of 3 tokens, room 60: the first request fills it (the last 20 lines).
        let before = text.as_str();
        let start = prefix_start(&mut stable, &text, 0, before, &counts(before), 60);
        assert!(before[start..].starts_with("line 20\n"));
        // Typing on the last line keeps the start while it fits.
        let mut typed = text.clone();
        typed.push('x');
        let again = prefix_start(&mut stable, &typed, 0, &typed, &counts(&typed), 63);
        assert_eq!(&typed[again..], &typed[start..]);
        // Once over, the new start leaves a quarter of the room free.
        let c = counts(&typed);
        let moved = prefix_start(&mut stable, &typed, 0, &typed, &c, 60);
        let used = c.len() - typed[..moved].matches('\n').count();
        assert!(used * 3 <= 45, "{used} lines");
        // An edit above the anchor moves it.
        let edited = format!("# new\n{typed}");
        let after_edit = prefix_start(&mut stable, &edited, 0, &edited, &counts(&edited), 60);
        assert!(edited[after_edit..].ends_with("x"));
    }
}
