//! A workspace index for natural-language questions about code (the agent's `search_codebase`):
//! files cut into overlapping chunks of lines, each ranked by BM25 against the query with
//! code-aware terms (`sendRequest` and `send_request` both give `send` and `request`), plus a
//! bonus for chunks that define something the query names.

use std::collections::HashMap;

/// Lines per chunk, and how far one chunk starts after the previous.
const CHUNK_LINES: usize = 40;
const CHUNK_STEP: usize = 30;
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// A piece of a file the index ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub path: String,
    /// 0-based, both included.
    pub start_line: usize,
    pub end_line: usize,
    pub text: String,
}

/// A ranked chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub chunk: Chunk,
    pub score: f64,
}

/// The index of a set of files.
#[derive(Debug, Default)]
pub struct Index {
    chunks: Vec<Chunk>,
    /// Term counts per chunk.
    terms: Vec<HashMap<String, u32>>,
    lengths: Vec<usize>,
    /// How many chunks have each term.
    df: HashMap<String, usize>,
}

/// The terms of a text: identifiers split at case changes, underscores and digits, lowercased,
/// short and common words left out.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let mut current = String::new();
        let mut prev_lower = false;
        for c in word.chars() {
            let boundary = c == '_' || c.is_ascii_digit() || (c.is_uppercase() && prev_lower);
            if boundary && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if c != '_' && !c.is_ascii_digit() {
                current.extend(c.to_lowercase());
            }
            prev_lower = c.is_lowercase();
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out.retain(|t| t.chars().count() > 1 && !crate::words::is_stop_word(t));
    out
}

impl Index {
    /// Indexes `files` (path, text).
    pub fn build<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Index {
        let mut index = Index::default();
        for (path, text) in files {
            let lines: Vec<&str> = text.lines().collect();
            let mut start = 0;
            loop {
                let end = (start + CHUNK_LINES).min(lines.len());
                if end > start {
                    index.add(Chunk {
                        path: path.to_owned(),
                        start_line: start,
                        end_line: end - 1,
                        text: lines[start..end].join("\n"),
                    });
                }
                if end >= lines.len() {
                    break;
                }
                start += CHUNK_STEP;
            }
        }
        index
    }

    fn add(&mut self, chunk: Chunk) {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let all = terms(&chunk.text);
        for t in &all {
            *counts.entry(t.clone()).or_default() += 1;
        }
        for t in counts.keys() {
            *self.df.entry(t.clone()).or_default() += 1;
        }
        self.lengths.push(all.len());
        self.terms.push(counts);
        self.chunks.push(chunk);
    }

    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The `k` chunks that best answer `query`, best first; chunks of one file do not overlap.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        let query_terms = terms(query);
        if query_terms.is_empty() || self.chunks.is_empty() {
            return Vec::new();
        }
        let n = self.chunks.len() as f64;
        let average = self.lengths.iter().sum::<usize>() as f64 / n;
        let mut scored: Vec<(usize, f64)> = (0..self.chunks.len())
            .map(|i| {
                let mut score = 0.0;
                for t in &query_terms {
                    let Some(&tf) = self.terms[i].get(t) else {
                        continue;
                    };
                    let df = self.df.get(t).copied().unwrap_or(0) as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    let tf = f64::from(tf);
                    score += idf * tf * (K1 + 1.0)
                        / (tf + K1 * (1.0 - B + B * self.lengths[i] as f64 / average.max(1.0)));
                }
                // A chunk that defines what the query names answers it best.
                if self.chunks[i]
                    .text
                    .lines()
                    .any(|l| defines(l, &query_terms))
                {
                    score *= 1.5;
                }
                (i, score)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut hits: Vec<Hit> = Vec::new();
        for (i, score) in scored {
            let c = &self.chunks[i];
            let overlaps = hits.iter().any(|h| {
                h.chunk.path == c.path
                    && h.chunk.start_line <= c.end_line
                    && c.start_line <= h.chunk.end_line
            });
            if !overlaps {
                hits.push(Hit {
                    chunk: c.clone(),
                    score,
                });
            }
            if hits.len() == k {
                break;
            }
        }
        hits
    }
}

/// Whether a line defines a name made of query terms (`def`, `fn`, `class`, `function`, ...).
fn defines(line: &str, query_terms: &[String]) -> bool {
    let t = line.trim_start();
    let keywords = [
        "def ",
        "fn ",
        "pub fn ",
        "class ",
        "function ",
        "struct ",
        "enum ",
        "trait ",
        "interface ",
        "type ",
        "func ",
        "impl ",
        "export function ",
        "export class ",
        "async def ",
    ];
    keywords.iter().any(|k| t.starts_with(k)) && {
        let name_terms = terms(t.split(['(', '{', ':', '<']).next().unwrap_or(t));
        name_terms.iter().any(|n| query_terms.contains(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_identifiers() {
        assert_eq!(
            terms("sendRequest(send_request, HTTPServer2)"),
            ["send", "request", "send", "request", "httpserver"]
        );
    }

    #[test]
    fn the_defining_chunk_ranks_first() {
        let cart = "class Cart:\n    def total_price(self):\n        return sum(i.price for i in self.items)\n";
        let other = "def log(msg):\n    print(msg)\n\n# the price is shown elsewhere\n";
        let index = Index::build([("cart.py", cart), ("log.py", other)]);
        let hits = index.search("where is the total price computed?", 5);
        assert_eq!(hits[0].chunk.path, "cart.py");
        assert!(hits.iter().all(|h| h.score > 0.0));
        assert!(index.search("", 5).is_empty());
        // Long files give several chunks that do not overlap in the results.
        let long: String = (0..200)
            .map(|i| format!("value_{i} = compute_total({i})\n"))
            .collect();
        let index = Index::build([("long.py", long.as_str())]);
        let hits = index.search("compute total", 3);
        assert_eq!(hits.len(), 3);
        for (a, b) in hits.iter().zip(hits.iter().skip(1)) {
            assert!(a.chunk.end_line < b.chunk.start_line || b.chunk.end_line < a.chunk.start_line);
        }
    }
}
