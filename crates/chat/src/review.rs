//! The same instructions as Copilot's code review takes them: one `coding_guideline` record per
//! instruction, with the file patterns of its language (`*` when it has none).

use serde::Serialize;
use serde_json::{Value, json};

use crate::discover::{Customizations, Kind, relative};

#[derive(Debug, Clone, Serialize)]
pub struct Guideline(pub Value);

/// The records, numbered from `first_id`. Instruction files give one record each (their whole
/// text); setting instructions one each, language-scoped ones only for known languages.
pub fn guidelines(found: &Customizations, first_id: u64) -> Vec<Guideline> {
    let mut out = Vec::new();
    let mut id = first_id;
    let mut push = |name: String, description: &str, patterns: Vec<String>| {
        out.push(Guideline(json!({
            "type": "github.coding_guideline",
            "id": id.to_string(),
            "data": {"id": id, "type": "coding-guideline", "name": name,
                     "description": description, "filePatterns": patterns},
        })));
        id += 1;
    };
    for i in found
        .instructions
        .iter()
        .filter(|i| i.kind == Kind::CopilotInstructions)
    {
        let text = i.body.trim();
        if text.is_empty() {
            continue;
        }
        let rel = relative(&i.path, i.folder.as_deref()).unwrap_or_default();
        push(
            format!("Instruction from {rel}"),
            text,
            vec!["*".to_owned()],
        );
    }
    for s in &found.settings {
        let patterns = match &s.language {
            None => vec!["*".to_owned()],
            Some(l) => {
                let p = languages::file_patterns(l);
                if p.is_empty() {
                    continue;
                }
                p
            }
        };
        push("Code Generation Instruction".to_owned(), &s.text, patterns);
    }
    out
}
