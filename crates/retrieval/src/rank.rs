//! Ranking definitions by what the code at the cursor is about to need: each candidate
//! definition (from an open or imported file) is scored on signals of relevance to the cursor,
//! and every score keeps its parts so that a person can see why a definition was chosen.
//!
//! The signals, as measured on the cross-file benchmark's dev split: how rare the name is among
//! the candidates; the definition's name split into sub-tokens (`sendRequest` → `send`,
//! `request`) against the document, the cursor's line and the words near the cursor (also by
//! their stems); the name occurring after the cursor or before it; the owner type's words and
//! the file's name near the cursor; the file or the name being imported by the document, or the
//! module's alias used near the cursor; BM25 of the signature against the cursor's window; how
//! many other candidate files use the name; on an unindented line, types, functions and values.
//! Fields, methods, private, local and test definitions and the same folder count against.
//! File-level priors are kept weak on purpose: a strong one fills the budget with one file.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::search::terms;

/// What ranking knows of one candidate definition.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub name: &'a str,
    /// The type it belongs to (class, `impl` type, receiver).
    pub owner: Option<&'a str>,
    /// Its file, workspace-relative.
    pub path: &'a str,
    /// Sub-token terms of its signature (see [`crate::search::terms`]), computed once per file.
    pub terms: &'a [String],
    /// Sub-token terms of its name, computed once per file.
    pub name_terms: &'a [String],
    pub field: bool,
    pub private: bool,
    pub local: bool,
    pub test: bool,
    /// A type (class, struct, interface, ...), as opposed to a function or value.
    pub type_def: bool,
    /// A free function (not a method).
    pub function: bool,
    /// A method of a type.
    pub method: bool,
    /// A constant or variable (not a field).
    pub value_def: bool,
    /// Sub-token terms of its owner type's name (empty without an owner).
    pub owner_terms: &'a [String],
    /// Sub-token terms of its file's module name (`money_utils.py` → `money`, `utils`).
    pub file_terms: &'a [String],
    /// How many other candidate files use its name as a whole word.
    pub used_elsewhere: u32,
    /// Share of its file's distinct definition names that the document uses.
    pub file_use: f64,
    /// The document imports its file.
    pub file_imported: bool,
    /// The document imports this name from its file.
    pub name_imported: bool,
    /// The document reaches the file's module through an alias used near the cursor
    /// (`np.`, `money.Round`).
    pub alias_near_cursor: bool,
}

/// What ranking knows of the cursor: built once per request by [`CursorContext::new`].
#[derive(Debug, Clone, Default)]
pub struct CursorContext {
    /// Whole identifiers before the cursor, with the distance in lines of their nearest use.
    prefix_words: FxHashMap<String, usize>,
    /// Whole identifiers after the cursor, with the line of their first use (0: the line
    /// after the cursor).
    suffix_words: FxHashMap<String, usize>,
    /// Sub-token terms of the lines around the cursor, with counts.
    near_terms: FxHashMap<String, u32>,
    /// Sub-token terms of the whole document (both sides of the cursor).
    doc_terms: FxHashSet<String>,
    /// The document's folder, workspace-relative.
    dir: String,
    /// Sub-token terms of the cursor's own line (both sides of the cursor).
    line_terms: FxHashSet<String>,
    /// Stems ([`stem`]) of the terms near the cursor.
    near_stems: FxHashSet<String>,
    /// The cursor's line starts at column 0: code there declares or imports something.
    top_level: bool,
}

/// Lines around the cursor whose terms count as "near": before, and after.
const NEAR_BEFORE: usize = 15;
const NEAR_AFTER: usize = 5;
/// A prefix name this many lines from the cursor counts fully; farther ones decay.
const PREFIX_NEAR_LINES: usize = 20;

/// Calls `f` with each term of `word`, remembered per word across requests: a document's
/// words barely change between keystrokes, and splitting them is most of building the context.
fn word_terms(word: &str, mut f: impl FnMut(&str)) {
    thread_local! {
        static TERMS: std::cell::RefCell<FxHashMap<String, Box<[String]>>> =
            std::cell::RefCell::new(FxHashMap::default());
    }
    TERMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(known) = cache.get(word) {
            known.iter().for_each(|t| f(t));
            return;
        }
        if cache.len() > 100_000 {
            cache.clear();
        }
        let found: Box<[String]> = terms(word).into_boxed_slice();
        found.iter().for_each(|t| f(t));
        cache.insert(word.to_owned(), found);
    });
}

/// Whole identifiers (letters, digits, `_`, `$`) of a text.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
}

impl CursorContext {
    /// Whether the document uses `name` as a whole identifier, on either side of the cursor.
    pub fn uses(&self, name: &str) -> bool {
        self.prefix_words.contains_key(name) || self.suffix_words.contains_key(name)
    }

    /// `before` and `after` are the document's text on each side of the cursor.
    pub fn new(path: &str, before: &str, after: &str) -> CursorContext {
        let mut prefix_words: FxHashMap<String, usize> = FxHashMap::default();
        // From the cursor backwards, so the first sighting of a word is its nearest. A word is
        // copied once, not at every occurrence.
        for (distance, line) in before.lines().rev().enumerate() {
            for w in identifiers(line) {
                if !prefix_words.contains_key(w) {
                    prefix_words.insert(w.to_owned(), distance);
                }
            }
        }
        let mut suffix_words: FxHashMap<String, usize> = FxHashMap::default();
        for (distance, line) in after.lines().enumerate() {
            for w in identifiers(line) {
                if !suffix_words.contains_key(w) {
                    suffix_words.insert(w.to_owned(), distance);
                }
            }
        }
        let mut near_terms: FxHashMap<String, u32> = FxHashMap::default();
        let near_before = before.lines().rev().take(NEAR_BEFORE);
        let near_after = after.lines().take(NEAR_AFTER + 1);
        for line in near_before.chain(near_after) {
            for t in terms(line) {
                *near_terms.entry(t).or_default() += 1;
            }
        }
        // The document's terms from its distinct words: splitting each word once is much less
        // work than splitting the whole text.
        let mut doc_terms: FxHashSet<String> = FxHashSet::default();
        for w in prefix_words.keys().chain(suffix_words.keys()) {
            word_terms(w, |t| {
                if !doc_terms.contains(t) {
                    doc_terms.insert(t.to_owned());
                }
            });
        }
        let line_before = before.rsplit('\n').next().unwrap_or("");
        let line_after = after.split('\n').next().unwrap_or("");
        let line_terms = terms(line_before)
            .into_iter()
            .chain(terms(line_after))
            .collect();
        let near_stems = near_terms.keys().map(|t| stem(t).to_owned()).collect();
        let top_level = !line_before.starts_with([' ', '\t']);
        CursorContext {
            line_terms,
            near_stems,
            top_level,
            doc_terms,
            prefix_words,
            suffix_words,
            near_terms,
            dir: path.rsplit_once('/').map_or("", |(d, _)| d).to_owned(),
        }
    }
}

/// How much each signal counts; [`Weights::default`] holds the values tuned on the benchmark's
/// dev split. Requests may override any of them (`options.context_weights`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    pub subtokens: f64,
    pub in_suffix: f64,
    pub in_prefix: f64,
    pub owner_near: f64,
    pub bm25: f64,
    pub file_imported: f64,
    pub name_imported: f64,
    pub alias_near: f64,
    pub same_dir: f64,
    pub field: f64,
    pub private: f64,
    pub local: f64,
    pub test: f64,
    pub rare: f64,
    pub rare_in_suffix: f64,
    pub type_def: f64,
    pub long_name: f64,
    pub owner_in_doc: f64,
    pub file_use: f64,
    pub doc_subtokens: f64,
    pub line_subtokens: f64,
    pub near_stems: f64,
    pub owner_words: f64,
    pub file_name: f64,
    pub method: f64,
    pub value: f64,
    pub used_elsewhere: f64,
    pub top_level_type: f64,
    pub top_level_function: f64,
    pub top_level_value: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        // Fitted on the dev split of the cross-file benchmark: a conditional logit over each
        // case's candidates (the gold definition against the rest), with an L2 penalty chosen
        // by cross-validation over the split's repositories, rounded. Scores compare only
        // within one request; a score is a log-odds, which packing divides by tokens.
        Weights {
            rare: 6.93,
            top_level_type: 2.81,
            file_use: 2.21,
            doc_subtokens: 2.20,
            top_level_function: 2.11,
            rare_in_suffix: 1.73,
            bm25: 1.67,
            top_level_value: 1.62,
            name_imported: 1.05,
            owner_words: 1.01,
            owner_in_doc: 0.94,
            file_imported: 0.89,
            near_stems: 0.67,
            used_elsewhere: 0.54,
            file_name: 0.46,
            line_subtokens: 0.45,
            alias_near: 0.43,
            type_def: 0.37,
            value: 0.35,
            long_name: -0.03,
            in_suffix: -0.29,
            owner_near: -0.48,
            in_prefix: -0.50,
            subtokens: -0.56,
            method: -0.70,
            private: -0.73,
            test: -1.06,
            same_dir: -1.53,
            local: -1.77,
            field: -4.85,
        }
    }
}

/// One signal's contribution to a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScorePart {
    pub signal: &'static str,
    pub value: f64,
}

/// A candidate's score and its parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub total: f64,
    pub parts: Vec<ScorePart>,
}

/// A term's stem: common English endings taken off (`handlers` → `handl`, `parsed` →
/// `pars`), so that `parse_config` meets `parsing the configs`. At least three letters stay.
pub fn stem(term: &str) -> &str {
    const ENDINGS: [&str; 8] = ["ations", "ation", "ings", "ing", "ers", "er", "ed", "s"];
    let mut t = term;
    for e in ENDINGS {
        if let Some(rest) = t.strip_suffix(e)
            && rest.len() >= 3
        {
            t = rest;
            break;
        }
    }
    t.strip_suffix('e').filter(|r| r.len() >= 3).unwrap_or(t)
}

/// How much a use `distance` lines before the cursor counts: fully nearby, less farther up.
fn decay(distance: usize) -> f64 {
    if distance <= PREFIX_NEAR_LINES {
        1.0
    } else {
        (PREFIX_NEAR_LINES as f64 / distance as f64).sqrt()
    }
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Scores every candidate against the cursor, in the candidates' order: the statistics of
/// all candidates first (term frequencies, BM25, how common each name is), then each
/// candidate's signals in groups: its name, what it is, the cursor's surroundings, imports and
/// place, and penalties.
pub fn score_all(candidates: &[Candidate<'_>], cursor: &CursorContext, w: &Weights) -> Vec<Score> {
    let corpus = Corpus::new(candidates);
    let bm25: Vec<f64> = candidates.iter().map(|c| corpus.bm25(c, cursor)).collect();
    let max_bm25 = bm25.iter().copied().fold(0.0, f64::max);
    candidates
        .iter()
        .zip(bm25)
        .map(|(c, b)| {
            let mut parts = Parts::default();
            parts.name_signals(c, cursor, &corpus, w);
            parts.kind_signals(c, cursor, w);
            parts.cursor_signals(c, cursor, w);
            if max_bm25 > 0.0 {
                parts.add("BM25 against the cursor's lines", w.bm25 * b / max_bm25);
            }
            parts.place_signals(c, cursor, w);
            parts.word_signals(c, cursor, &corpus, w);
            parts.top_level_signals(c, cursor, w);
            parts.penalties(c, w);
            let parts = parts.0;
            let total = parts.iter().map(|p| p.value).sum();
            Score { total, parts }
        })
        .collect()
}

/// What the candidates say as a whole, computed once per request.
struct Corpus<'c> {
    /// The number of candidates (at least 1).
    n: f64,
    /// In how many candidates' signatures each term occurs.
    df: FxHashMap<&'c str, u32>,
    /// The average number of terms of a signature.
    average: f64,
    /// How many candidates share each name: a name defined once says more than `new`.
    same_name: FxHashMap<&'c str, u32>,
}

impl<'c> Corpus<'c> {
    fn new(candidates: &'c [Candidate<'c>]) -> Corpus<'c> {
        let n = candidates.len().max(1) as f64;
        let mut df: FxHashMap<&str, u32> = FxHashMap::default();
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for c in candidates {
            seen.clear();
            for t in c.terms {
                if seen.insert(t) {
                    *df.entry(t).or_default() += 1;
                }
            }
        }
        let average = candidates.iter().map(|c| c.terms.len()).sum::<usize>() as f64 / n;
        let mut same_name: FxHashMap<&str, u32> = FxHashMap::default();
        for c in candidates {
            *same_name.entry(c.name).or_default() += 1;
        }
        Corpus {
            n,
            df,
            average,
            same_name,
        }
    }

    /// Inverse document frequency over the candidates' signatures: a sub-token every
    /// definition has (`get`, `new`) says little.
    fn idf(&self, t: &str) -> f64 {
        let d = f64::from(self.df.get(t).copied().unwrap_or(0));
        ((self.n - d + 0.5) / (d + 0.5) + 1.0).ln()
    }

    /// BM25 of a candidate's signature against the terms near the cursor.
    fn bm25(&self, c: &Candidate<'_>, cursor: &CursorContext) -> f64 {
        // Only terms near the cursor score, and few are: a short list beats a map.
        let mut tf: Vec<(&str, u32)> = Vec::new();
        for t in c.terms {
            if !cursor.near_terms.contains_key(t.as_str()) {
                continue;
            }
            match tf.iter_mut().find(|(x, _)| *x == t.as_str()) {
                Some((_, n)) => *n += 1,
                None => tf.push((t, 1)),
            }
        }
        let len = c.terms.len() as f64;
        tf.iter()
            .map(|&(t, f)| {
                let f = f64::from(f);
                self.idf(t) * f * (K1 + 1.0)
                    / (f + K1 * (1.0 - B + B * len / self.average.max(1.0)))
            })
            .sum()
    }

    /// 1 for a name only one candidate has, less the more share it.
    fn rarity(&self, name: &str) -> f64 {
        1.0 - f64::from(self.same_name.get(name).copied().unwrap_or(1)).ln() / self.n.ln().max(1.0)
    }
}

/// A score's parts, in the order they were added; a part worth nothing is left out.
#[derive(Default)]
struct Parts(Vec<ScorePart>);

impl Parts {
    fn add(&mut self, signal: &'static str, value: f64) {
        if value != 0.0 {
            self.0.push(ScorePart { signal, value });
        }
    }

    /// The name: its sub-tokens near the cursor and in the document, how rare it is, and
    /// whether it is written after the cursor.
    fn name_signals(
        &mut self,
        c: &Candidate<'_>,
        cursor: &CursorContext,
        corpus: &Corpus<'_>,
        w: &Weights,
    ) {
        // Sub-tokens of the name met near the cursor, weighted by how telling each is.
        let name_terms = c.name_terms;
        if !name_terms.is_empty() {
            let total: f64 = name_terms.iter().map(|t| corpus.idf(t)).sum();
            let met: f64 = name_terms
                .iter()
                .filter(|t| cursor.near_terms.contains_key(*t))
                .map(|t| corpus.idf(t))
                .sum();
            if total > 0.0 {
                self.add("name sub-tokens near the cursor", w.subtokens * met / total);
                let in_doc: f64 = name_terms
                    .iter()
                    .filter(|t| cursor.doc_terms.contains(*t))
                    .map(|t| corpus.idf(t))
                    .sum();
                self.add(
                    "name sub-tokens in the document",
                    w.doc_subtokens * in_doc / total,
                );
            }
        }
        let rarity = corpus.rarity(c.name);
        self.add("rare name", w.rare * rarity);
        if let Some(&d) = cursor.suffix_words.get(c.name) {
            let near = if d <= 5 { 1.0 } else { (5.0 / d as f64).sqrt() };
            self.add("name after the cursor", w.in_suffix * near);
            self.add(
                "rare name after the cursor",
                w.rare_in_suffix * near * rarity,
            );
        }
    }

    /// What the definition is: its type named in the document, its file's share of the
    /// document's names, a type, a long name.
    fn kind_signals(&mut self, c: &Candidate<'_>, cursor: &CursorContext, w: &Weights) {
        if let Some(owner) = c.owner
            && (cursor.prefix_words.contains_key(owner) || cursor.suffix_words.contains_key(owner))
        {
            self.add("its type named in the document", w.owner_in_doc);
        }
        self.add(
            "its file's names used in the document",
            w.file_use * c.file_use,
        );
        if c.type_def {
            self.add("a type", w.type_def);
        }
        self.add(
            "long name",
            w.long_name * (c.name.chars().count() as f64 / 20.0).min(1.0),
        );
    }

    /// The code before the cursor: the name used there (less the farther up), and the
    /// definition's type named near the cursor.
    fn cursor_signals(&mut self, c: &Candidate<'_>, cursor: &CursorContext, w: &Weights) {
        if let Some(&d) = cursor.prefix_words.get(c.name) {
            self.add("name before the cursor", w.in_prefix * decay(d));
        }
        if let Some(owner) = c.owner {
            let decay = if cursor.suffix_words.contains_key(owner) {
                Some(1.0)
            } else {
                cursor.prefix_words.get(owner).map(|&d| decay(d))
            };
            if let Some(decay) = decay {
                self.add("its type named near the cursor", w.owner_near * decay);
            }
        }
    }

    /// Imports and place: the name or its file imported, the module's alias near the cursor,
    /// the document's own folder.
    fn place_signals(&mut self, c: &Candidate<'_>, cursor: &CursorContext, w: &Weights) {
        if c.name_imported {
            self.add("name imported", w.name_imported);
        }
        if c.file_imported {
            self.add("file imported", w.file_imported);
        }
        if c.alias_near_cursor {
            self.add("module alias used near the cursor", w.alias_near);
        }
        if c.path.rsplit_once('/').map_or("", |(d, _)| d) == cursor.dir {
            self.add("same folder", w.same_dir);
        }
    }

    /// Words around the cursor against the definition: its name's sub-tokens on the cursor's
    /// own line and their stems near the cursor, its owner type's words and its file's name
    /// near the cursor; and how many other candidate files use its name.
    fn word_signals(
        &mut self,
        c: &Candidate<'_>,
        cursor: &CursorContext,
        corpus: &Corpus<'_>,
        w: &Weights,
    ) {
        let share = |terms: &[String], met: &dyn Fn(&str) -> bool| {
            let total: f64 = terms.iter().map(|t| corpus.idf(t)).sum();
            if total <= 0.0 {
                return 0.0;
            }
            let found: f64 = terms.iter().filter(|t| met(t)).map(|t| corpus.idf(t)).sum();
            found / total
        };
        let on_line = share(c.name_terms, &|t| cursor.line_terms.contains(t));
        self.add("name sub-tokens at the cursor", w.line_subtokens * on_line);
        let stems = share(c.name_terms, &|t| cursor.near_stems.contains(stem(t)));
        self.add("name word stems near the cursor", w.near_stems * stems);
        let owner = share(c.owner_terms, &|t| cursor.near_terms.contains_key(t));
        self.add("its type's words near the cursor", w.owner_words * owner);
        let file = share(c.file_terms, &|t| cursor.near_terms.contains_key(t));
        self.add("its file's name near the cursor", w.file_name * file);
        self.add(
            "used in other files",
            w.used_elsewhere * f64::from(c.used_elsewhere).ln_1p(),
        );
        if c.method {
            self.add("a method", w.method);
        }
        if c.value_def {
            self.add("a value", w.value);
        }
    }

    /// On an unindented line, which imports or declares something, the names wanted are
    /// types, functions and values rather than methods or fields.
    fn top_level_signals(&mut self, c: &Candidate<'_>, cursor: &CursorContext, w: &Weights) {
        if !cursor.top_level {
            return;
        }
        if c.type_def {
            self.add("a type, at the top level", w.top_level_type);
        }
        if c.function {
            self.add("a function, at the top level", w.top_level_function);
        }
        if c.value_def {
            self.add("a value, at the top level", w.top_level_value);
        }
    }

    /// What makes a definition less likely wanted: a field, private, local, test code.
    fn penalties(&mut self, c: &Candidate<'_>, w: &Weights) {
        if c.field {
            self.add("field", w.field);
        }
        if c.private {
            self.add("private", w.private);
        }
        if c.local {
            self.add("local", w.local);
        }
        if c.test {
            self.add("test code", w.test);
        }
    }
}

#[cfg(test)]
mod tests;
