//! Prompt components: each turns one kind of editor state into text blocks with a weight
//! (how much Copilot cares to keep it) and tells how to report it.

pub(crate) mod code_snippets;
pub(crate) mod diagnostics;
pub(crate) mod imported;
pub(crate) mod marker;
pub(crate) mod recent_edits;
pub(crate) mod similar_files;
pub(crate) mod traits;

use crate::ElementKind;

/// Copilot's context weights, from least to most important to keep.
pub(crate) const WEIGHT_TRAITS: f64 = 0.6;
pub(crate) const WEIGHT_DIAGNOSTICS: f64 = 0.65;
pub(crate) const WEIGHT_DOCUMENT_MARKER: f64 = 0.7;
pub(crate) const WEIGHT_SIMILAR_FILES: f64 = 0.8;
pub(crate) const WEIGHT_CODE_SNIPPETS: f64 = 0.9;
pub(crate) const WEIGHT_RECENT_EDITS: f64 = 0.99;

/// A component's contribution: its blocks (value and chunk) and how to report it.
#[derive(Debug)]
pub(crate) struct Part {
    pub kind: ElementKind,
    pub path: Option<String>,
    pub score: Option<f64>,
    pub weight: f64,
    pub values: Vec<(String, Option<usize>)>,
    /// Which entry of the split context list it goes to: 0 for stable context, 1 for recent
    /// edits.
    pub context_index: usize,
}

/// Chunk ids only need to differ between chunks; each component takes its own range.
pub(crate) fn chunk_id(component: usize, index: usize) -> Option<usize> {
    Some(component * 1_000_000 + index)
}
