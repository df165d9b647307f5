//! A customization file's YAML header: present only when the file's first line is `---`, up to
//! the next line that is `---`. Keys pilotfish does not use are allowed (teams add their own).

use serde::Deserialize;

/// A string, or a list of strings (`tools: [a, b]` and `tools: a, b` both occur).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    /// The items; a single string is split at commas.
    pub fn items(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => s
                .split(',')
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect(),
            OneOrMany::Many(v) => v.iter().map(|s| s.trim().to_owned()).collect(),
        }
    }
}

/// The keys pilotfish reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Frontmatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub apply_to: Option<OneOrMany>,
    pub tools: Option<OneOrMany>,
    pub model: Option<OneOrMany>,
    pub infer: Option<bool>,
}

/// Why a header could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    #[error("the header opened on line 1 with `---` is never closed by another `---` line")]
    Unclosed,
    #[error("the header is not valid YAML: {0}")]
    Yaml(String),
}

/// Splits `text` into its header (if line 1 is `---`) and its body.
pub fn split(text: &str) -> Result<(Option<Frontmatter>, &str), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Ok((None, text));
    };
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Ok((None, text));
    }
    let mut at = first.len();
    for line in lines {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let yaml = &text[first.len()..at];
            let body = &text[at + line.len()..];
            let header = if yaml.trim().is_empty() {
                Frontmatter::default()
            } else {
                match serde_saphyr::from_str::<Frontmatter>(yaml) {
                    Ok(h) => h,
                    // VS Code reads headers that strict YAML refuses (`applyTo: **/*.py`
                    // unquoted, `description: Triggers: review, audit`), and teams write them
                    // so: read those the way VS Code does.
                    Err(strict) => lenient(yaml).map_err(|e| match e {
                        Lenient::Line(line, what) => {
                            // The header's first line is the file's second.
                            FrontmatterError::Yaml(format!("line {}: {what}", line + 2))
                        }
                        Lenient::Unsure => FrontmatterError::Yaml(one_line(&strict.to_string())),
                    })?,
                }
            };
            return Ok((Some(header), body));
        }
        at += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

/// Why the lenient reading failed: a line it cannot read (0-based within the header), or a
/// shape only real YAML describes (then the YAML parser's message is the better one).
enum Lenient {
    Line(usize, String),
    Unsure,
}

/// Reads a header as VS Code's own simple parser does: one `key: value` per line, the value
/// being everything after the first `: ` (quotes taken off), `[a, b]` lists and indented
/// `- item` lines.
fn lenient(yaml: &str) -> Result<Frontmatter, Lenient> {
    let mut header = Frontmatter::default();
    let mut last: Option<&str> = None;
    let mut list: Vec<String> = Vec::new();
    let lines: Vec<&str> = yaml.lines().collect();
    let finish = |key: Option<&str>, list: &mut Vec<String>, header: &mut Frontmatter| {
        if let Some(key) = key
            && !list.is_empty()
        {
            let items = OneOrMany::Many(std::mem::take(list));
            match key {
                "applyTo" => header.apply_to = Some(items),
                "tools" => header.tools = Some(items),
                "model" => header.model = Some(items),
                _ => {}
            }
        }
    };
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // An item of the list the previous key opened; other indented shapes are YAML's.
            match trimmed.strip_prefix('-') {
                Some(item) if last.is_some() => list.push(unquote(item.trim()).to_owned()),
                _ => return Err(Lenient::Unsure),
            }
            continue;
        }
        finish(last.take(), &mut list, &mut header);
        let Some((key, value)) = line.split_once(':') else {
            return Err(Lenient::Line(i, format!("`{trimmed}` is not `key: value`")));
        };
        let key = key.trim();
        let value = value.trim();
        if value.is_empty() {
            last = Some(key);
            continue;
        }
        let many = if let Some(inner) = value.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(Lenient::Line(
                    i,
                    format!("the list of `{key}` is not closed by `]`"),
                ));
            };
            Some(
                inner
                    .split(',')
                    .map(|p| unquote(p.trim()).to_owned())
                    .filter(|p| !p.is_empty())
                    .collect::<Vec<_>>(),
            )
        } else {
            None
        };
        let text = || unquote(value).to_owned();
        let one_or_many = || match &many {
            Some(items) => OneOrMany::Many(items.clone()),
            None => OneOrMany::One(text()),
        };
        match key {
            "name" | "description" if many.is_some() => {
                return Err(Lenient::Line(
                    i,
                    format!("`{key}` must be text, not a list"),
                ));
            }
            "name" => header.name = Some(text()),
            "description" => header.description = Some(text()),
            "applyTo" => header.apply_to = Some(one_or_many()),
            "tools" => header.tools = Some(one_or_many()),
            "model" => header.model = Some(one_or_many()),
            "infer" => {
                header.infer = Some(match unquote(value) {
                    "true" => true,
                    "false" => false,
                    other => {
                        return Err(Lenient::Line(
                            i,
                            format!("`infer` must be true or false, not `{other}`"),
                        ));
                    }
                })
            }
            // Keys pilotfish does not use are allowed, whatever their shape.
            _ => {}
        }
    }
    finish(last, &mut list, &mut header);
    Ok(header)
}

fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if s.len() >= 2
            && let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q))
        {
            return inner;
        }
    }
    s
}

fn one_line(s: &str) -> String {
    // The parser's message, without the source excerpt it draws after ` --> `.
    let s = s.split(" --> ").next().unwrap_or(s);
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn headers() {
        let (h, body) = split(
            "---\ndescription: Python rules\napplyTo: '**/*.py, src/**'\n---\nUse type hints.\n",
        )
        .unwrap();
        let h = h.unwrap();
        assert_eq!(h.description.as_deref(), Some("Python rules"));
        assert_eq!(h.apply_to.unwrap().items(), ["**/*.py", "src/**"]);
        assert_eq!(body, "Use type hints.\n");
        let (h, _) = split("---\ntools: [read, 'search']\ninfer: false\nowner: me\n---\n").unwrap();
        let h = h.unwrap();
        assert_eq!(h.tools.unwrap().items(), ["read", "search"]);
        assert_eq!(h.infer, Some(false));
        // Not on line 1: no header.
        let (h, body) = split("\n---\na: b\n---\n").unwrap();
        assert!(h.is_none());
        assert_eq!(body, "\n---\na: b\n---\n");
        assert_eq!(
            split("---\na: b\n").unwrap_err(),
            FrontmatterError::Unclosed
        );
        assert!(matches!(
            split("---\na: [b\n---\n"),
            Err(FrontmatterError::Yaml(_))
        ));
        assert!(matches!(
            split("---\ndescription: [1, 2]\n---\n"),
            Err(FrontmatterError::Yaml(_))
        ));
        let (h, _) = split("---\r\ndescription: crlf\r\n---\r\nbody").unwrap();
        assert_eq!(h.unwrap().description.as_deref(), Some("crlf"));
    }

    #[test]
    fn headers_vs_code_reads_and_yaml_refuses() {
        // An unquoted glob starts with `*`, a YAML alias: VS Code takes the text.
        let (h, body) = split("---\napplyTo: **/*.py\n---\nUse type hints.\n").unwrap();
        assert_eq!(h.unwrap().apply_to.unwrap().items(), ["**/*.py"]);
        assert_eq!(body, "Use type hints.\n");
        // A second `: ` in a value is text.
        let (h, _) = split(
            "---\nname: reviewer\ndescription: Reviews code. Triggers: review, audit\ntools: [read, 'search']\ninfer: false\n---\n",
        )
        .unwrap();
        let h = h.unwrap();
        assert_eq!(
            h.description.as_deref(),
            Some("Reviews code. Triggers: review, audit")
        );
        assert_eq!(h.tools.unwrap().items(), ["read", "search"]);
        assert_eq!(h.infer, Some(false));
        let (h, _) = split("---\napplyTo: **/*.ts\ntools:\n  - read\n  - edit\n---\n").unwrap();
        assert_eq!(h.unwrap().tools.unwrap().items(), ["read", "edit"]);
        // What neither reads is reported with the file's line number (the header starts on 2).
        assert_eq!(
            split("---\napplyTo: **/*.py\nnot a pair\n---\n").unwrap_err(),
            FrontmatterError::Yaml("line 3: `not a pair` is not `key: value`".into())
        );
        assert_eq!(
            split("---\ndescription: a\ninfer: maybe\n---\n").unwrap_err(),
            FrontmatterError::Yaml("line 3: `infer` must be true or false, not `maybe`".into())
        );
    }

    proptest! {
        #[test]
        fn any_text_is_a_header_or_an_error(text in ".{0,200}", yamlish in "(---\n)?[a-zA-Z:\\[\\]{}'\" \n-]{0,80}(---\n)?") {
            let _ = split(&text);
            let _ = split(&yamlish);
        }
    }
}
