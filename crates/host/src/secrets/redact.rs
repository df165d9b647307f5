//! Command output with the workspace's `.env` values replaced by `[.env: NAME]`: commands may
//! read `.env` (test suites load it), but what they print reaches the model only redacted.

use std::path::Path;

use super::Secrets;

/// Values shorter than this are left alone (a `PORT=80` would blank every "80").
const SHORTEST: usize = 4;
/// Values too common to be secrets, left alone.
const PLAIN: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "production",
    "development",
    "test",
];

/// The values to replace, longest first, with their names.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    values: Vec<(String, String)>,
}

impl Redactor {
    /// The values of every `.env` file at the workspace's root that the list counts as secret.
    pub fn load(root: &Path, secrets: &Secrets) -> Redactor {
        let mut values = Vec::new();
        for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if !(name == ".env" || name.starts_with(".env.")) || !secrets.is_workspace_secret(&path)
            {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                values.extend(parse(&text));
            }
        }
        values.sort_by_key(|(_, value): &(String, String)| std::cmp::Reverse(value.len()));
        values.dedup_by(|a, b| a.1 == b.1);
        Redactor { values }
    }

    /// `text` with every value replaced.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (name, value) in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("[.env: {name}]"));
            }
        }
        out
    }
}

/// `NAME=value` lines (an `export ` prefix and quotes allowed, comments skipped).
fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("export ").unwrap_or(line);
            if line.starts_with('#') {
                return None;
            }
            let (name, value) = line.split_once('=')?;
            let value = value.trim();
            let value = ['"', '\'']
                .iter()
                .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
                .unwrap_or(value);
            let plain = PLAIN.iter().any(|p| p.eq_ignore_ascii_case(value));
            (value.chars().count() >= SHORTEST && !plain)
                .then(|| (name.trim().to_owned(), value.to_owned()))
        })
        .collect()
}
