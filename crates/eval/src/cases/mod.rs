//! The cases of a run, picked from a repository's own tracked files: cursor positions of the
//! cross-file benchmark's kinds, each with the file as an editor would have it (the expected
//! text taken out) and the neighbours an editor would have open.

mod lines;
mod neighbours;
mod request;

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use syntax::Lang;

use crate::{InputError, rng::Rng};
pub use neighbours::MAX_OPEN;
pub use request::CaseFiles;

/// A repository as the caller read it.
#[derive(Debug, Clone, Default)]
pub struct Repository {
    /// The tracked text files, paths relative to the root with `/` separators.
    pub files: Vec<SourceFile>,
    /// Paths as `git log` names them, the most recently changed first (repeats allowed: the
    /// first time counts).
    pub recency: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// What a case asks of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The rest of a line from an identifier that another file of the repository defines.
    CrossFile,
    /// The rest of a line from an identifier only this file defines.
    SameFile,
    /// A whole line after a blank line, from its indentation.
    WholeLine,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::CrossFile => "cross_file",
            Kind::SameFile => "same_file",
            Kind::WholeLine => "whole_line",
        }
    }
}

/// One cursor position and what belongs there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in UTF-16 units, as editors count.
    pub column: usize,
    pub kind: Kind,
    /// The text taken out: the rest of the line from the cursor.
    pub expected: String,
    /// The identifier the answer needs to write, where the case has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identifier: Option<String>,
    /// A 1-based line of the same file that holds the expected text too, so a model could copy
    /// it from the prompt: such a case is counted apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_from: Option<usize>,
    /// The neighbour files an editor would have open, most recently changed first.
    pub open: Vec<String>,
    /// The file with the expected text taken out, as the editor has it at the cursor.
    #[serde(skip)]
    pub document: String,
    /// The cursor's byte offset in `document`.
    #[serde(skip)]
    pub offset: usize,
}

/// How cases are picked.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub cases: usize,
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cases: 50,
            seed: 46,
        }
    }
}

/// Lines longer than this are never cases (generated or minified code).
pub const MAX_LINE_CHARS: usize = 160;
/// Expected texts shorter than this (trimmed) are never cases: a few characters occur
/// anywhere, so the case could not be kept honest.
pub const MIN_EXPECTED_CHARS: usize = 6;
/// Files larger than this are not picked from (generated data, vendored bundles).
const MAX_FILE_BYTES: usize = 256 * 1024;

/// A cursor position that might become a case.
#[derive(Debug, Clone)]
struct Candidate {
    file: usize,
    line: usize,
    /// Byte offset of the cursor in the line.
    at: usize,
    identifier: Option<String>,
}

/// `options.cases` cases from `repo` (fewer when it has fewer honest positions): half of the
/// cross-file kind, a quarter of the same-file kind and the rest whole lines, a kind short of
/// positions leaving its share to the others. The same repository and seed give the same cases.
pub fn pick(repo: &Repository, options: Options) -> Result<Vec<Case>, InputError> {
    if options.cases == 0 {
        return Err(InputError::NoCases);
    }
    let langs: HashMap<&str, Lang> = repo
        .files
        .iter()
        .filter(|f| f.text.len() <= MAX_FILE_BYTES)
        .filter_map(|f| Some((f.path.as_str(), lang_of(&f.path)?)))
        .collect();
    if langs.is_empty() {
        return Err(InputError::NoSourceFiles);
    }
    let defined = definitions(repo, &langs);
    let mut pools = candidates(repo, &langs, &defined);
    let mut rng = Rng::new(options.seed);
    for pool in &mut pools {
        rng.shuffle(pool);
    }
    let graph = neighbours::Graph::new(repo, &langs);
    let squashed: Vec<String> = repo.files.iter().map(|f| squash(&f.text)).collect();
    let known = Known {
        graph: &graph,
        recency: &recency(repo),
        squashed: &squashed,
    };
    let quotas = [options.cases / 2, options.cases / 4];
    let mut picked: Vec<Case> = Vec::new();
    let mut lines_taken: HashSet<(usize, usize)> = HashSet::new();
    let mut next = [0usize; 3];
    let kinds = [Kind::CrossFile, Kind::SameFile, Kind::WholeLine];
    // Each kind up to its share, then any kind in turn until the total is reached.
    for round in 0..2 {
        for (k, kind) in kinds.iter().enumerate() {
            let quota = if round == 0 {
                quotas.get(k).copied().unwrap_or(options.cases)
            } else {
                options.cases
            };
            let mut taken = picked.iter().filter(|c| c.kind == *kind).count();
            while taken < quota && picked.len() < options.cases && next[k] < pools[k].len() {
                let candidate = &pools[k][next[k]];
                next[k] += 1;
                if !lines_taken.insert((candidate.file, candidate.line)) {
                    continue;
                }
                if let Some(case) = make_case(repo, candidate, *kind, &known) {
                    picked.push(case);
                    taken += 1;
                }
            }
        }
    }
    picked.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok(picked)
}

/// The language cases are picked in for a path, if any.
pub fn lang_of(path: &str) -> Option<Lang> {
    let id = languages::detect_language_from_path(path, "plaintext");
    Lang::from_language_id(&id)
}

/// For each name, the files that define it (outside function bodies).
fn definitions<'r>(
    repo: &'r Repository,
    langs: &HashMap<&str, Lang>,
) -> HashMap<String, Vec<(&'r str, usize)>> {
    let mut out: HashMap<String, Vec<(&str, usize)>> = HashMap::new();
    for file in &repo.files {
        let Some(&lang) = langs.get(file.path.as_str()) else {
            continue;
        };
        for d in syntax::outline::outline(lang, &file.text) {
            if d.local || d.kind == syntax::outline::DefKind::Block || d.name.len() < 2 {
                continue;
            }
            out.entry(d.name)
                .or_default()
                .push((file.path.as_str(), d.line));
        }
    }
    out
}

/// Every position of each kind: [cross-file, same-file, whole line].
fn candidates(
    repo: &Repository,
    langs: &HashMap<&str, Lang>,
    defined: &HashMap<String, Vec<(&str, usize)>>,
) -> [Vec<Candidate>; 3] {
    let mut pools: [Vec<Candidate>; 3] = Default::default();
    for (index, file) in repo.files.iter().enumerate() {
        let Some(&lang) = langs.get(file.path.as_str()) else {
            continue;
        };
        let scanned = lines::scan(lang, &file.text);
        let texts: Vec<&str> = file.text.split('\n').collect();
        for (n, line) in scanned.iter().enumerate() {
            let text = texts[n];
            if !line.code || text.chars().count() > MAX_LINE_CHARS {
                continue;
            }
            for (at, name) in &line.identifiers {
                let Some(places) = defined.get(name) else {
                    continue;
                };
                let here = places.iter().any(|(p, _)| *p == file.path);
                let elsewhere = places.iter().any(|(p, _)| *p != file.path);
                let defining_line = places.iter().any(|(p, l)| *p == file.path && *l == n);
                let kind = match (here, elsewhere) {
                    (false, true) => 0,
                    (true, false) if !defining_line => 1,
                    _ => continue,
                };
                pools[kind].push(Candidate {
                    file: index,
                    line: n,
                    at: *at,
                    identifier: Some(name.clone()),
                });
            }
            if n > 0 && texts[n - 1].trim().is_empty() {
                let indent = text.len() - text.trim_start().len();
                // The first name the line uses that is defined elsewhere (not on this line).
                let identifier = line
                    .identifiers
                    .iter()
                    .find(|(_, name)| {
                        defined.get(name).is_some_and(|places| {
                            !places.iter().any(|(p, l)| *p == file.path && *l == n)
                        })
                    })
                    .map(|(_, name)| name.clone());
                pools[2].push(Candidate {
                    file: index,
                    line: n,
                    at: indent,
                    identifier,
                });
            }
        }
    }
    pools
}

/// Each path's place in the order `git log` changed them, newest first.
fn recency(repo: &Repository) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for (i, p) in repo.recency.iter().enumerate() {
        out.entry(p.as_str()).or_insert(i);
    }
    out
}

/// What every candidate is checked against, worked out once per pick.
#[derive(Debug)]
struct Known<'a> {
    graph: &'a neighbours::Graph,
    recency: &'a HashMap<&'a str, usize>,
    /// Each file's text with every run of white space made one space.
    squashed: &'a [String],
}

/// `text` with every run of white space (line breaks too) made one space.
pub fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The case for a candidate, unless it cannot be kept honest: its expected text is too short,
/// or occurs in another file (which a strategy may put into the prompt).
fn make_case(repo: &Repository, c: &Candidate, kind: Kind, known: &Known<'_>) -> Option<Case> {
    let file = &repo.files[c.file];
    let line_start: usize = file
        .text
        .split('\n')
        .take(c.line)
        .map(|l| l.len() + 1)
        .sum();
    let line = file.text[line_start..]
        .split('\n')
        .next()
        .unwrap_or_default();
    let line = line.strip_suffix('\r').unwrap_or(line);
    let expected = line[c.at..].trim_end().to_owned();
    let needle = expected.trim();
    if needle.chars().count() < MIN_EXPECTED_CHARS || !needle.chars().any(char::is_alphanumeric) {
        return None;
    }
    // White space is squashed on both sides: a strategy may join a signature's lines.
    let squashed_needle = squash(needle);
    if repo
        .files
        .iter()
        .zip(known.squashed)
        .any(|(f, text)| f.path != file.path && text.contains(&squashed_needle))
    {
        return None;
    }
    let offset = line_start + c.at;
    let mut document = String::with_capacity(file.text.len());
    document.push_str(&file.text[..offset]);
    document.push_str(&file.text[line_start + line.len()..]);
    let copy_from = squash(&document).contains(&squashed_needle).then(|| {
        // Found only across white space: the line of its first word, else this line.
        let first_word = needle.split_whitespace().next().unwrap_or(needle);
        let at = document
            .find(needle)
            .or_else(|| document.find(first_word))
            .unwrap_or(offset);
        let original = if at < offset {
            at
        } else {
            at + line.len() - c.at
        };
        file.text[..original].matches('\n').count() + 1
    });
    Some(Case {
        file: file.path.clone(),
        line: c.line + 1,
        column: line[..c.at].encode_utf16().count() + 1,
        kind,
        expected,
        identifier: c.identifier.clone(),
        copy_from,
        open: known.graph.neighbours(&file.path, known.recency),
        document,
        offset,
    })
}
