//! Module paths from a bundle's source map: the source the most of a module function's mapped
//! code comes from is the module's original file (`src/lib/shapes.js`,
//! `node_modules/ms/index.js`), which its file is then written under. A source shared by
//! two modules names neither (the paths must stay apart).

use rustc_hash::FxHashMap;

/// How many mappings of a module function are looked at: enough to outvote the few of the
/// wrapper's own code esbuild maps to the module's neighbours.
const SAMPLE: usize = 64;

/// A bundle file's source map, read for where its code came from.
pub(crate) struct SourceMap<'m> {
    map: oxc_sourcemap::SourceMap<'m>,
    /// Each mapping's place in the bundle file (line, UTF-16 column) and its source, sorted.
    tokens: Vec<((u32, u32), Option<u32>)>,
}

/// Why a source map could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: the source map does not parse ({message}); give the bundle's own `.map` file")]
pub struct SourceMapError {
    pub file: String,
    pub message: String,
}

/// How much of the JSON parser's account of a map that does not parse the error keeps: the
/// parser quotes the map's text, megabytes of it for a large bundle.
const MESSAGE: usize = 300;

/// The map's own JSON when `json` is a JSON string holding it (ncc's webpack 4 builds wrote
/// their `.map` file so, `"{\"version\":3,...}"`), else `None`: the text is the map itself.
pub(crate) fn unquoted(json: &str) -> Option<String> {
    if !json.trim_start().starts_with('"') {
        return None;
    }
    serde_json::from_str::<String>(json).ok()
}

impl<'m> SourceMap<'m> {
    /// Reads `json`, the source map of the bundle file named `file` (see [`unquoted`] for a
    /// map written as a JSON string).
    pub(crate) fn read(file: &str, json: &'m str) -> Result<Self, SourceMapError> {
        let map = oxc_sourcemap::SourceMap::from_json_string(json).map_err(|e| {
            let mut message = format!("{e:?}");
            if let Some((cut, _)) = message.char_indices().nth(MESSAGE) {
                message.truncate(cut);
                message.push_str("...");
            }
            SourceMapError {
                file: file.to_owned(),
                message,
            }
        })?;
        let mut tokens: Vec<_> = map
            .get_tokens()
            .map(|t| ((t.get_dst_line(), t.get_dst_col()), t.get_source_id()))
            .collect();
        tokens.sort_by_key(|t| t.0);
        Ok(SourceMap { map, tokens })
    }

    /// For each span (byte offsets into `text`, the bundle file), the source most of the
    /// mapped code in it comes from, as a path inside the output (leading `./` and `../`
    /// parts dropped); a source more than one span would get names none of them.
    pub(crate) fn sources(&self, text: &str, spans: &[(usize, usize)]) -> Vec<Option<String>> {
        let starts = positions(text, spans.iter().map(|s| s.0));
        let ends = positions(text, spans.iter().map(|s| s.1));
        let found: Vec<Option<u32>> = starts
            .iter()
            .zip(&ends)
            .map(|(&start, &end)| self.most_mapped(start, end))
            .collect();
        let mut uses: FxHashMap<u32, usize> = FxHashMap::default();
        for source in found.iter().flatten() {
            *uses.entry(*source).or_default() += 1;
        }
        found
            .into_iter()
            .map(|source| {
                let source = source.filter(|s| uses[s] == 1)?;
                within_output(self.map.get_source(source)?)
            })
            .collect()
    }

    /// The source of the most mappings between `start` and `end`, among the first few.
    fn most_mapped(&self, start: (u32, u32), end: (u32, u32)) -> Option<u32> {
        let first = self.tokens.partition_point(|t| t.0 < start);
        let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
        for (_, source) in self.tokens[first..]
            .iter()
            .take_while(|t| t.0 < end)
            .take(SAMPLE)
        {
            if let Some(source) = source {
                *counts.entry(*source).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(s, n)| (n, u32::MAX - s))
            .map(|(s, _)| s)
    }
}

impl SourceMap<'_> {
    /// The map's names by the byte offset in `text` (the bundle file) of the identifier each
    /// is recorded at, sorted.
    pub(crate) fn names(&self, text: &str) -> Vec<(u32, String)> {
        let mut named: Vec<((u32, u32), &str)> = self
            .map
            .get_tokens()
            .filter_map(|t| {
                let name = self.map.get_name(t.get_name_id()?)?;
                Some(((t.get_dst_line(), t.get_dst_col()), name))
            })
            .collect();
        named.sort_unstable_by_key(|n| n.0);
        let mut out = Vec::with_capacity(named.len());
        let (mut line, mut column) = (0u32, 0u32);
        let mut next = named.iter().peekable();
        for (at, c) in text.char_indices() {
            while let Some(&&(place, name)) = next.peek() {
                if place > (line, column) {
                    break;
                }
                if place == (line, column) {
                    out.push((at as u32, name.to_owned()));
                }
                next.next();
            }
            if next.peek().is_none() {
                break;
            }
            if c == '\n' {
                line += 1;
                column = 0;
            } else {
                column += c.len_utf16() as u32;
            }
        }
        out
    }
}

/// A source's path inside the output: a URL's scheme and host dropped (webpack writes
/// `webpack://NAMESPACE/./src/a.js`, its namespace the package's name, or `webpack:///src/a.js`),
/// then leading `./` and `../` parts.
fn within_output(source: &str) -> Option<String> {
    let scheme = source.split_once("://").filter(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let path = match scheme {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_host, path)| path),
        None => source,
    };
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .skip_while(|p| matches!(*p, "." | ".." | ""))
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
#[test]
fn a_url_s_scheme_and_host_are_not_folders_of_the_path() {
    for (source, path) in [
        (
            "webpack://snyk/./node_modules/ms/index.js",
            Some("node_modules/ms/index.js"),
        ),
        ("webpack:///./src/a.js", Some("src/a.js")),
        ("webpack:///src/a.js", Some("src/a.js")),
        ("file:///home/me/src/a.ts", Some("home/me/src/a.ts")),
        ("../../src/a.ts", Some("src/a.ts")),
        ("./src/a:b.js", Some("src/a:b.js")),
        ("webpack://snyk", None),
    ] {
        assert_eq!(within_output(source).as_deref(), path, "{source}");
    }
}

/// The line and UTF-16 column, as source maps count them, of each byte offset of `text`, in
/// one pass over it (a minified bundle's lines are megabytes long).
fn positions(text: &str, offsets: impl Iterator<Item = usize>) -> Vec<(u32, u32)> {
    let mut order: Vec<(usize, usize)> = offsets.enumerate().map(|(i, at)| (at, i)).collect();
    order.sort_unstable();
    let mut out = vec![(0, 0); order.len()];
    let (mut line, mut column, mut at) = (0u32, 0u32, 0usize);
    for (offset, i) in order {
        for c in text[at..offset].chars() {
            if c == '\n' {
                line += 1;
                column = 0;
            } else {
                column += c.len_utf16() as u32;
            }
        }
        at = offset;
        out[i] = (line, column);
    }
    out
}
