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
                serde_saphyr::from_str::<Frontmatter>(yaml)
                    .map_err(|e| FrontmatterError::Yaml(one_line(&e.to_string())))?
            };
            return Ok((Some(header), body));
        }
        at += line.len();
    }
    Err(FrontmatterError::Unclosed)
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

    proptest! {
        #[test]
        fn any_text_is_a_header_or_an_error(text in ".{0,200}", yamlish in "(---\n)?[a-zA-Z:\\[\\]{}'\" \n-]{0,80}(---\n)?") {
            let _ = split(&text);
            let _ = split(&yamlish);
        }
    }
}
