//! `applyTo` patterns, as Copilot matches them: comma-separated globs, case-insensitive, `*`
//! not crossing `/`; `**`, `**/*` and `*` apply everywhere; any other pattern is matched
//! anywhere in the tree (`**/` put in front) unless it starts with `/` (anchored at the
//! workspace folder) or already with `**/`.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The compiled patterns of one file.
#[derive(Debug, Clone)]
pub struct ApplyTo {
    always: bool,
    set: GlobSet,
    pub patterns: Vec<String>,
}

/// A pattern that is not a glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("applyTo pattern {pattern:?} is not a valid glob: {reason}")]
pub struct BadPattern {
    pub pattern: String,
    pub reason: String,
}

impl ApplyTo {
    /// Compiles the patterns; bad ones are returned as problems and left out.
    pub fn new(patterns: &[String]) -> (ApplyTo, Vec<BadPattern>) {
        let mut builder = GlobSetBuilder::new();
        let mut bad = Vec::new();
        let mut always = false;
        for p in patterns {
            let p = p.trim();
            if p.is_empty() {
                continue;
            }
            if matches!(p, "**" | "**/*" | "*") {
                always = true;
                continue;
            }
            let full = if let Some(anchored) = p.strip_prefix('/') {
                anchored.to_owned()
            } else if p.starts_with("**/") {
                p.to_owned()
            } else {
                format!("**/{p}")
            };
            match GlobBuilder::new(&full)
                .literal_separator(true)
                .case_insensitive(true)
                .build()
            {
                Ok(g) => {
                    builder.add(g);
                }
                Err(e) => bad.push(BadPattern {
                    pattern: p.to_owned(),
                    reason: e.kind().to_string(),
                }),
            }
        }
        let set = builder.build().unwrap_or_else(|_| GlobSet::empty());
        (
            ApplyTo {
                always,
                set,
                patterns: patterns.to_vec(),
            },
            bad,
        )
    }

    /// Whether the file at `relative` (to its workspace folder, `/`-separated) is covered.
    pub fn matches(&self, relative: &str) -> bool {
        self.always || self.set.is_match(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(p: &str) -> ApplyTo {
        let patterns: Vec<String> = p.split(',').map(str::to_owned).collect();
        let (a, bad) = ApplyTo::new(&patterns);
        assert!(bad.is_empty(), "{bad:?}");
        a
    }

    #[test]
    fn copilot_rules() {
        assert!(compile("**").matches("a/b/c.rs"));
        assert!(
            compile("*").matches("deep/x.md"),
            "`*` alone applies everywhere"
        );
        let py = compile("*.py");
        assert!(
            py.matches("x.py") && py.matches("src/deep/x.py"),
            "`**/` put in front"
        );
        assert!(compile("*.PY").matches("src/x.py"), "case-insensitive");
        let anchored = compile("/src/*.ts");
        assert!(anchored.matches("src/a.ts"));
        assert!(!anchored.matches("lib/src/a.ts"));
        assert!(!anchored.matches("src/deep/a.ts"), "`*` does not cross `/`");
        let two = compile("docs/**, **/*.md");
        assert!(two.matches("x/docs/a.txt") && two.matches("README.md"));
        assert!(!two.matches("src/main.rs"));
        let (_, bad) = ApplyTo::new(&["src/[".to_owned(), "*.rs".to_owned()]);
        assert_eq!(bad.len(), 1);
    }
}
