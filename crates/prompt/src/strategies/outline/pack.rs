//! Packing ranked definitions into the context's share of the budget: best first, each costing
//! its signature's tokens plus, the first time, its file's header and its container's header,
//! and passed over when its twin (same kind, name and owner) is already shown; then rendered
//! as one `Outline of PATH:` block per file, definitions in file order.

use syntax::outline::Definition;
use tokenizer::Tokenizer;

use super::cache::FileOutline;

/// One ranked candidate: file `file`, definition `def` of that file's outline.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub file: usize,
    pub def: usize,
    pub score: f64,
}

/// What packing chose.
#[derive(Debug, Default)]
pub(crate) struct Packed {
    /// Per file (in the order their blocks are rendered): the file index and the chosen
    /// definitions, in file order.
    pub blocks: Vec<(usize, Vec<usize>)>,
    /// (file, def) chosen for their rank, as opposed to shown as a container's header.
    pub chosen: Vec<(usize, usize)>,
    /// Estimated tokens used.
    pub tokens: usize,
}

/// The header line of a file's block.
pub(crate) fn header(shown_path: &str) -> String {
    format!("Outline of {shown_path}:")
}

/// The containers of definition `def`, outermost first.
fn containers(defs: &[Definition], def: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = defs[def].container;
    let mut below = def;
    // Containers come before what they contain; anything else would be a cycle.
    while let Some(c) = at.filter(|&c| c < below) {
        out.push(c);
        below = c;
        at = defs[c].container;
    }
    out.reverse();
    out
}

/// Chooses definitions in `ranked`'s order (best first) while their cost fits in `share` tokens; candidates whose
/// score is below `min_score` are not taken.
pub(crate) fn pack(
    ranked: &[Ranked],
    outlines: &[&FileOutline],
    headers: &[usize],
    share: usize,
    min_score: f64,
    tokenizer: &Tokenizer,
) -> Packed {
    let mut packed = Packed::default();
    let mut shown: Vec<Vec<usize>> = vec![Vec::new(); outlines.len()];
    let mut order: Vec<usize> = Vec::new();
    for r in ranked {
        if r.score < min_score {
            continue;
        }
        let outline = outlines[r.file];
        if shown[r.file].contains(&r.def) {
            // Already shown as a container's header; now it is chosen for itself too.
            packed.chosen.push((r.file, r.def));
            continue;
        }
        if has_twin(outline, &shown[r.file], r.def) {
            continue;
        }
        let mut cost = outline.tokens(r.def, tokenizer);
        let new_file = shown[r.file].is_empty();
        if new_file {
            cost += headers[r.file];
        }
        let missing: Vec<usize> = containers(&outline.definitions, r.def)
            .into_iter()
            .filter(|c| !shown[r.file].contains(c))
            .collect();
        cost += missing
            .iter()
            .map(|&c| outline.tokens(c, tokenizer))
            .sum::<usize>();
        if packed.tokens + cost > share {
            continue;
        }
        packed.tokens += cost;
        if new_file {
            order.push(r.file);
        }
        shown[r.file].extend(missing);
        shown[r.file].push(r.def);
        packed.chosen.push((r.file, r.def));
    }
    packed.blocks = order
        .into_iter()
        .map(|f| {
            let mut defs = std::mem::take(&mut shown[f]);
            defs.sort_by_key(|&d| (outlines[f].definitions[d].line, d));
            (f, defs)
        })
        .collect();
    packed
}

/// Whether `shown` (definitions of `outline` already in its block) holds a twin of `def`: a
/// definition of the same kind, name and owner (an overload, a property's getter and setter,
/// a declaration and its definition). One tells the model the name and how to call it; its
/// twins would spend the share on what it already knows.
pub(crate) fn has_twin(outline: &FileOutline, shown: &[usize], def: usize) -> bool {
    let d = &outline.definitions[def];
    shown.iter().any(|&s| {
        let other = &outline.definitions[s];
        s != def && other.kind == d.kind && other.name == d.name && other.owner == d.owner
    })
}

/// A file's block: its header, then its definitions' signatures. A container shown with its
/// members opens its braces instead of eliding them (`impl Cart {` above its methods).
pub(crate) fn render_block(shown_path: &str, outline: &FileOutline, defs: &[usize]) -> String {
    let mut out = header(shown_path);
    for i in 0..defs.len() {
        out.push('\n');
        out.push_str(&shown_signature(outline, defs, i));
    }
    out.push('\n');
    out
}

/// The signature of `defs[i]` as its block shows it: a container followed by its members
/// opens its braces (`impl Cart {`) instead of eliding them.
pub(crate) fn shown_signature(outline: &FileOutline, defs: &[usize], i: usize) -> String {
    let d = defs[i];
    let signature = &outline.definitions[d].signature;
    let has_members = defs[i + 1..]
        .iter()
        .any(|&m| outline.definitions[m].container == Some(d));
    match signature.strip_suffix(" {...}") {
        Some(open) if has_members => format!("{open} {{"),
        _ => signature.clone(),
    }
}
