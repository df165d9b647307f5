//! Snapshot tests. Each `test_data/NAME.fixture` holds files separated by `//- /path` lines (an
//! optional `//- options {json}` line first); the file containing `$0` is the document being
//! edited, the others are open tabs, most recent first. `NAME.expected` holds the prompt as
//! `pilotfish prompt` prints it. Run with `UPDATE_EXPECT=1` to rewrite the expectations after a
//! deliberate change, then read the diff.

use std::path::{Path, PathBuf};

use prompt::request::{DocumentJson, Options, Position, RequestJson};

pub(crate) fn parse_fixture(text: &str) -> RequestJson {
    let mut options = Options::default();
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("//- ") {
            let rest = rest.trim_end();
            if let Some(json) = rest.strip_prefix("options ") {
                options = serde_json::from_str(json).expect("fixture options are JSON");
            } else {
                files.push((rest.trim_start_matches('/').to_owned(), String::new()));
            }
        } else if let Some((_, body)) = files.last_mut() {
            body.push_str(line);
        }
    }
    let current = files
        .iter()
        .position(|(_, t)| t.contains("$0"))
        .expect("a fixture marks the cursor with $0");
    let (path, marked) = files.remove(current);
    let cursor = marked.find("$0").unwrap();
    let text = marked.replacen("$0", "", 1);
    let before = &text[..cursor];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[line_start..].encode_utf16().count();
    RequestJson {
        workspace_root: None,
        document: DocumentJson {
            path,
            language_id: None,
            text,
        },
        position: Position { line, character },
        open_documents: files
            .into_iter()
            .map(|(path, text)| DocumentJson {
                path,
                language_id: None,
                text,
            })
            .collect(),
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options,
    }
}

fn test_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data")
}

#[test]
fn fixtures_render_their_expected_prompts() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(test_data())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fixture" || e == "json"))
        .collect();
    entries.sort();
    assert!(entries.len() >= 5, "fixtures missing from test_data/");
    let mut failures = Vec::new();
    for path in &entries {
        let text = std::fs::read_to_string(path).unwrap();
        let request: RequestJson = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).expect("request fixtures are contract JSON")
        } else {
            parse_fixture(&text)
        };
        let actual = match prompt::assemble(&request, &mut prompt::Session::default()) {
            Ok(p) => prompt::render_text(&p),
            Err(e) => format!("error: {e}\n"),
        };
        let expected_path = path.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ (UPDATE_EXPECT=1 rewrites):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
