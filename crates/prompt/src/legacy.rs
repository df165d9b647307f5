//! Copilot's older prompt engine, the priority wishlist (seeds 001 and 002), selectable as the
//! `copilot-legacy` strategy.
//!
//! Elements are appended in prompt order, each with a priority. `fulfill` takes them by
//! priority (the latest first among equals), skipping those whose required elements were not
//! taken or that a taken element excludes, until the budget is spent; the taken ones are then
//! put back in prompt order. The text before the cursor is appended line by line, each line
//! requiring the next, so lines are kept from the cursor up. Priorities are made relative to
//! each other: `just_below(p)` is halfway between `p` and the next priority below it.

use tokenizer::Tokenizer;

/// Where priorities come from: numbers in [0, 1], each new one halfway between two known ones.
#[derive(Debug, Clone)]
pub struct Priorities {
    registered: Vec<f64>,
}

/// The highest and lowest priorities.
pub const TOP: f64 = 1.0;
pub const BOTTOM: f64 = 0.0;

/// A priority asked for between two that are not neighbours.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("priorities {0} and {1} are not adjacent in the list of priorities")]
pub struct NotAdjacent(pub f64, pub f64);

impl Default for Priorities {
    fn default() -> Self {
        Priorities {
            registered: vec![BOTTOM, TOP],
        }
    }
}

impl Priorities {
    fn register(&mut self, p: f64) -> f64 {
        self.registered.push(p);
        p
    }

    /// A new priority just above all of `ps`: halfway to the next registered one above.
    pub fn just_above(&mut self, ps: &[f64]) -> f64 {
        let top = ps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let next = self
            .registered
            .iter()
            .copied()
            .filter(|&r| r > top)
            .fold(f64::INFINITY, f64::min);
        self.register((next + top) / 2.0)
    }

    /// A new priority just below all of `ps`: halfway to the next registered one below.
    pub fn just_below(&mut self, ps: &[f64]) -> f64 {
        let bottom = ps.iter().copied().fold(f64::INFINITY, f64::min);
        let next = self
            .registered
            .iter()
            .copied()
            .filter(|&r| r < bottom)
            .fold(f64::NEG_INFINITY, f64::max);
        self.register((next + bottom) / 2.0)
    }

    /// A new priority halfway between two adjacent registered ones.
    pub fn between(&mut self, low: f64, high: f64) -> Result<f64, NotAdjacent> {
        let adjacent = self.registered.contains(&low)
            && self.registered.contains(&high)
            && !self.registered.iter().any(|&r| r > low && r < high);
        if !adjacent {
            return Err(NotAdjacent(low, high));
        }
        Ok(self.register((low + high) / 2.0))
    }
}

/// What an element is, for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    LanguageMarker,
    PathMarker,
    ImportedFile,
    SimilarFile,
    Trait,
    CodeSnippet,
    TooltipSignature,
    BeforeCursor,
}

#[derive(Debug, Clone)]
pub struct Element {
    pub id: usize,
    pub text: String,
    pub kind: Kind,
    pub priority: f64,
    pub tokens: usize,
    requires: Vec<usize>,
    excludes: Vec<usize>,
}

/// The elements of a prompt, in prompt order.
#[derive(Debug)]
pub struct Wishlist<'t> {
    tokenizer: &'t Tokenizer,
    content: Vec<Element>,
}

/// What `fulfill` chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fulfilled {
    pub prefix: String,
    /// Tokens of the joined prefix (counted whole, not per element).
    pub prefix_tokens: usize,
    /// The ids of the elements taken, in prompt order.
    pub used: Vec<usize>,
}

impl<'t> Wishlist<'t> {
    pub fn new(tokenizer: &'t Tokenizer) -> Wishlist<'t> {
        Wishlist {
            tokenizer,
            content: Vec::new(),
        }
    }

    pub fn elements(&self) -> &[Element] {
        &self.content
    }

    /// Appends an element (line endings made `\n`) and returns its id.
    pub fn append(&mut self, text: &str, kind: Kind, priority: f64) -> usize {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let tokens = self.tokenizer.count(&text);
        let id = self.content.len();
        self.content.push(Element {
            id,
            text,
            kind,
            priority,
            tokens,
            requires: Vec::new(),
            excludes: Vec::new(),
        });
        id
    }

    /// Appends `text` line by line (a blank line joins the line before it, up to one blank
    /// line), each line requiring the one after it. Returns the ids.
    pub fn append_line_for_line(&mut self, text: &str, kind: Kind, priority: f64) -> Vec<usize> {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let mut raw: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let last = raw.len() - 1;
        for line in &mut raw[..last] {
            line.push('\n');
        }
        let mut lines: Vec<String> = Vec::new();
        for line in raw {
            match lines.last_mut() {
                Some(prev) if line == "\n" && !prev.ends_with("\n\n") => prev.push('\n'),
                _ => lines.push(line),
            }
        }
        let mut ids = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.is_empty() {
                continue;
            }
            ids.push(self.append(line, kind, priority));
            if i > 0 {
                // The element appended before this one requires it (and only it).
                let n = self.content.len();
                if n >= 2 {
                    self.content[n - 2].requires = vec![self.content[n - 1].id];
                }
            }
        }
        ids
    }

    /// `element` is taken only if `required` was taken before it.
    pub fn require(&mut self, element: usize, required: usize) {
        if required < self.content.len()
            && let Some(e) = self.content.get_mut(element)
        {
            e.requires.push(required);
        }
    }

    /// Taking `element` keeps `excluded` out.
    pub fn exclude(&mut self, element: usize, excluded: usize) {
        if excluded < self.content.len()
            && let Some(e) = self.content.get_mut(element)
        {
            e.excludes.push(excluded);
        }
    }

    /// Takes elements by priority into `max_tokens`, then puts them in prompt order.
    pub fn fulfill(&self, max_tokens: i64) -> Fulfilled {
        let mut order: Vec<usize> = (0..self.content.len()).collect();
        // Highest priority first; among equals the later element first.
        order.sort_by(|&a, &b| {
            let (ea, eb) = (&self.content[a], &self.content[b]);
            if ea.priority == eb.priority {
                b.cmp(&a)
            } else {
                eb.priority.total_cmp(&ea.priority)
            }
        });
        let mut used = vec![false; self.content.len()];
        let mut excluded = vec![false; self.content.len()];
        let mut first_misfit: Option<usize> = None;
        let mut taken: Vec<usize> = Vec::new();
        // Taken indices in order, to find the next taken element after one in log time.
        let mut taken_set: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
        let mut budget = max_tokens;
        for &i in &order {
            let e = &self.content[i];
            let eligible = budget >= 0
                && (budget > 0 || first_misfit.is_none())
                && e.requires.iter().all(|&r| used[r])
                && !excluded[i];
            if !eligible {
                continue;
            }
            let mut tokens = e.tokens as i64;
            // Text ending in a blank line costs one more token when the next taken element
            // does not start with white space (the newlines tokenize differently joined).
            let next = taken_set.range(i + 1..).next().copied();
            if e.text.ends_with("\n\n")
                && let Some(n) = next
                && !self.content[n]
                    .text
                    .starts_with(languages::is_js_whitespace)
            {
                tokens += 1;
            }
            if budget >= tokens {
                budget -= tokens;
                used[i] = true;
                for &x in &e.excludes {
                    excluded[x] = true;
                }
                taken.push(i);
                taken_set.insert(i);
            } else if first_misfit.is_none() {
                first_misfit = Some(i);
            }
        }
        taken.sort_unstable();
        let join = |ids: &[usize]| {
            ids.iter()
                .map(|&i| self.content[i].text.as_str())
                .collect::<String>()
        };
        let mut prefix = join(&taken);
        let mut prefix_tokens = self.tokenizer.count(&prefix);
        // Joined text can count more than its parts: drop the least important until it fits.
        while prefix_tokens as i64 > max_tokens && !taken.is_empty() {
            let worst = taken
                .iter()
                .enumerate()
                .min_by(|&(_, &a), &(_, &b)| {
                    let (ea, eb) = (&self.content[a], &self.content[b]);
                    // The lowest priority; among equals the earliest element.
                    ea.priority.total_cmp(&eb.priority).then(a.cmp(&b))
                })
                .map(|(pos, _)| pos)
                .expect("taken is not empty");
            taken.remove(worst);
            first_misfit = None;
            prefix = join(&taken);
            prefix_tokens = self.tokenizer.count(&prefix);
        }
        // The first element that did not fit by its own count may fit in the joined text.
        if let Some(m) = first_misfit {
            let mut with = taken.clone();
            with.push(m);
            with.sort_unstable();
            let text = join(&with);
            let tokens = self.tokenizer.count(&text);
            if tokens as i64 <= max_tokens {
                return Fulfilled {
                    prefix: text,
                    prefix_tokens: tokens,
                    used: with,
                };
            }
        }
        Fulfilled {
            prefix,
            prefix_tokens,
            used: taken,
        }
    }
}

/// The later wishlist's presets (seed 002): the order kinds stand in the prompt, and a
/// priority per kind (0: taken in order while it fits; above 0: ranked by score × priority).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderListPreset {
    pub order: Vec<Kind>,
    pub priority: Vec<(Kind, f64)>,
}

impl OrderListPreset {
    /// The `default` preset: path, language, traits, similar files, tooltip signature, then the
    /// text before the cursor; only similar files are ranked.
    pub fn default_preset() -> OrderListPreset {
        use Kind::*;
        OrderListPreset {
            order: vec![
                PathMarker,
                LanguageMarker,
                ImportedFile,
                Trait,
                CodeSnippet,
                SimilarFile,
                TooltipSignature,
                BeforeCursor,
            ],
            priority: vec![(SimilarFile, 1.0)],
        }
    }

    fn priority_of(&self, kind: Kind) -> f64 {
        self.priority
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(0.0, |(_, p)| *p)
    }

    fn rank_of(&self, kind: Kind) -> usize {
        self.order
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(self.order.len())
    }
}

/// An element offered to [`fulfill_order_list`].
#[derive(Debug, Clone)]
pub struct Offered {
    pub kind: Kind,
    pub text: String,
    pub tokens: usize,
    /// The element's own score (similarity for snippets, 1 otherwise).
    pub score: f64,
}

/// Seed 002's selection: the text before the cursor first (cut to its last whole lines when it
/// does not fit), then elements of priority 0 in preset order while they fit, then ranked
/// elements by score × priority while they fit; the chosen ones in preset order (and their own
/// order within a kind). Returns the indices chosen and the (possibly cut) before-cursor text.
pub fn fulfill_order_list(
    preset: &OrderListPreset,
    offered: &[Offered],
    max_tokens: usize,
    tokenizer: &Tokenizer,
) -> (Vec<usize>, Option<String>) {
    let mut budget = max_tokens;
    let mut chosen: Vec<usize> = Vec::new();
    let mut before_text = None;
    if let Some(i) = offered.iter().position(|o| o.kind == Kind::BeforeCursor) {
        let o = &offered[i];
        if o.tokens <= budget {
            budget -= o.tokens;
        } else {
            let cut = last_lines_within(tokenizer, &o.text, budget);
            budget = budget.saturating_sub(tokenizer.count(&cut));
            before_text = Some(cut);
        }
        chosen.push(i);
    }
    let mut in_order: Vec<usize> = (0..offered.len())
        .filter(|&i| {
            offered[i].kind != Kind::BeforeCursor && preset.priority_of(offered[i].kind) == 0.0
        })
        .collect();
    in_order.sort_by_key(|&i| preset.rank_of(offered[i].kind));
    let mut ranked: Vec<usize> = (0..offered.len())
        .filter(|&i| {
            offered[i].kind != Kind::BeforeCursor && preset.priority_of(offered[i].kind) > 0.0
        })
        .collect();
    ranked.sort_by(|&a, &b| {
        let score = |i: usize| offered[i].score * preset.priority_of(offered[i].kind);
        score(b).total_cmp(&score(a))
    });
    for i in in_order.into_iter().chain(ranked) {
        if offered[i].tokens <= budget {
            budget -= offered[i].tokens;
            chosen.push(i);
        }
    }
    chosen.sort_by_key(|&i| (preset.rank_of(offered[i].kind), i));
    (chosen, before_text)
}

/// The last lines of `text` that fit in `budget` tokens. A cut through a character decodes to
/// U+FFFD, which can count as more tokens than the ones it came from, so the cut is taken again
/// with fewer tokens until its own count fits.
fn last_lines_within(tokenizer: &Tokenizer, text: &str, budget: usize) -> String {
    let mut n = budget;
    loop {
        let cut = tokenizer.take_last_lines_tokens(text, n);
        let tokens = tokenizer.count(&cut);
        if tokens <= budget || n == 0 {
            return cut;
        }
        n -= (tokens - budget).min(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizer::Encoding;

    #[test]
    fn priorities_as_in_the_seed() {
        let mut p = Priorities::default();
        let before_cursor = p.just_below(&[TOP]);
        let language = p.just_below(&[before_cursor]);
        let path = p.just_below(&[before_cursor]);
        let imported = p.just_below(&[before_cursor]);
        let low_snippet = p.just_below(&[imported]);
        let high_snippet = p.just_above(&[before_cursor]);
        assert_eq!(
            [
                before_cursor,
                language,
                path,
                imported,
                low_snippet,
                high_snippet
            ],
            [0.5, 0.25, 0.375, 0.4375, 0.40625, 0.75]
        );
        assert_eq!(p.between(0.375, 0.40625), Ok(0.390625));
        assert!(p.between(0.0, 1.0).is_err());
    }

    #[test]
    fn a_cut_through_characters_still_fits_its_budget() {
        // Rare characters take several tokens each; a cut through one decodes to U+FFFD, which
        // alone counted more than the tokens it replaced (CI found this at a 9-token budget).
        let text = "ૐ aA0\u{113c7}®\u{10a38}  0aવA®®0𑰊&Aῆ𞹟ਪ𑌵𞥐 0\u{dca}0aຆAa  0𐮩0ΣஙԱ🌀Σa\u{11357}";
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let t = Tokenizer::exact(encoding);
            for budget in 0..=t.count(text) {
                let cut = last_lines_within(&t, text, budget);
                assert!(t.count(&cut) <= budget, "{encoding:?} {budget}: {cut:?}");
            }
        }
    }

    #[test]
    fn lines_are_kept_from_the_cursor_up() {
        let t = Tokenizer::exact(Encoding::O200kBase);
        let mut w = Wishlist::new(&t);
        let ids = w.append_line_for_line(
            "alpha beta\n\n\ngamma delta\nepsilon",
            Kind::BeforeCursor,
            0.5,
        );
        assert_eq!(
            ids.len(),
            4,
            "{:?}",
            w.elements().iter().map(|e| &e.text).collect::<Vec<_>>()
        );
        assert_eq!(w.elements()[0].text, "alpha beta\n\n");
        assert_eq!(w.elements()[1].text, "\n");
        let all = w.fulfill(100);
        assert_eq!(all.prefix, "alpha beta\n\n\ngamma delta\nepsilon");
        // Just enough for the last two lines: the earlier ones go, whatever their priority.
        let budget = (t.count("gamma delta\n") + t.count("epsilon")) as i64;
        let few = w.fulfill(budget);
        assert_eq!(few.prefix, "gamma delta\nepsilon");
    }

    #[test]
    fn order_list_keeps_the_cursor_and_ranks_snippets() {
        let t = Tokenizer::exact(Encoding::O200kBase);
        let offer = |kind, text: &str, score| Offered {
            kind,
            text: text.to_owned(),
            tokens: t.count(text),
            score,
        };
        let offered = vec![
            offer(Kind::BeforeCursor, "line one\nline two\n", 1.0),
            offer(Kind::SimilarFile, "weak snippet\n", 0.1),
            offer(Kind::SimilarFile, "strong snippet\n", 0.9),
            offer(Kind::PathMarker, "# Path: a.py\n", 1.0),
        ];
        let preset = OrderListPreset::default_preset();
        let room = offered[0].tokens + offered[2].tokens + offered[3].tokens;
        let (chosen, cut) = fulfill_order_list(&preset, &offered, room, &t);
        assert_eq!(
            chosen,
            vec![3, 2, 0],
            "path, the stronger snippet, then the cursor text"
        );
        assert!(cut.is_none());
        let (chosen, cut) = fulfill_order_list(&preset, &offered, 3, &t);
        assert_eq!(chosen, vec![0]);
        assert_eq!(cut.as_deref(), Some("line two\n"));
    }

    #[test]
    fn requires_and_excludes() {
        let t = Tokenizer::exact(Encoding::O200kBase);
        let mut w = Wishlist::new(&t);
        let a = w.append("a\n", Kind::LanguageMarker, 0.25);
        let b = w.append("b\n", Kind::PathMarker, 0.375);
        let c = w.append("c\n", Kind::BeforeCursor, 0.5);
        w.require(a, c);
        w.require(b, c);
        w.exclude(b, a);
        // b is taken before a (higher priority) and keeps a out.
        assert_eq!(w.fulfill(100).prefix, "b\nc\n");
    }
}
