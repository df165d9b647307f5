//! Imported context: for each language, a small workspace in `test_data/workspace/`, the
//! document's imports resolved to files there and the declarations of the imported names in
//! the prompt, bodies left out.

use std::path::{Path, PathBuf};

use prompt::request::{DocumentJson, Options, Position, RequestJson};

/// The test workspace on disk.
struct Dir(PathBuf);

impl syntax::WorkspaceFiles for Dir {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(path)).ok()
    }
    fn list(&self, dir: &str) -> Vec<String> {
        std::fs::read_dir(self.0.join(dir))
            .map(|e| {
                e.flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn prompt_for(project: &str, file: &str, strategy: &str) -> prompt::Prompt {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test_data/workspace")
        .join(project);
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let lines = text.lines().count();
    let request = RequestJson {
        workspace_root: Some(root.to_string_lossy().into_owned()),
        document: DocumentJson {
            path: format!("{}/{file}", root.display()),
            language_id: None,
            text,
        },
        position: Position {
            line: lines,
            character: 0,
        },
        open_documents: vec![],
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: Options {
            strategy: strategy.to_owned(),
            imports: Some(true),
            ..Options::default()
        },
    };
    prompt::assemble_with_files(&request, &mut prompt::Session::default(), Some(&Dir(root)))
        .unwrap()
}

fn imported_text(p: &prompt::Prompt) -> Vec<String> {
    p.elements
        .iter()
        .filter(|e| e.kind == prompt::ElementKind::ImportedFile)
        .map(|e| e.text.clone())
        .collect()
}

#[test]
fn every_language_brings_in_the_declarations_it_imports() {
    let cases = [
        (
            "ts",
            "src/app.ts",
            vec![
                "export function total(lines: Line[], price: (sku: string) => number): number { ... }",
                "export interface Line {",
            ],
        ),
        (
            "ts",
            "src/app.js",
            vec!["export function total(lines, price) { ... }"],
        ),
        (
            "py",
            "shop/app.py",
            vec![
                "def round_cents(amount: float) -> float:\n    \"\"\"Round to whole cents.\"\"\"...",
                "class Price:\n    def __init__(self, cents: int) -> None:\n        ...",
            ],
        ),
        (
            "rs",
            "src/main.rs",
            vec![
                "pub fn round(amount: f64) -> Money { ... }",
                "pub struct Money {",
            ],
        ),
        (
            "go",
            "main.go",
            vec!["func Round(amount float64) float64 { ... }"],
        ),
        (
            "java",
            "src/main/java/com/shop/App.java",
            vec!["public class Cart {", "public void add(int amount) { ... }"],
        ),
    ];
    for (project, file, expected) in cases {
        let p = prompt_for(project, file, "copilot");
        let all = imported_text(&p).join("\n");
        for e in &expected {
            assert!(
                all.contains(e),
                "{project}/{file}: {e:?} missing from imported context:\n{all}"
            );
        }
        assert!(
            !all.contains("internal") && !all.contains("hidden") && !all.contains("Unused"),
            "{project}: a name that was not imported came in:\n{all}"
        );
        assert!(
            p.context[0].contains(expected[0]),
            "{project}: not in the context sent"
        );
        let legacy = prompt_for(project, file, "copilot-legacy");
        assert!(
            legacy.prefix.contains(expected[0]),
            "{project}: legacy prompt lacks the import:\n{}",
            legacy.prefix
        );
    }
}

#[test]
fn without_files_or_when_off_nothing_is_imported() {
    let p = prompt_for("py", "shop/app.py", "copilot");
    assert!(!imported_text(&p).is_empty());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/workspace/py");
    let text = std::fs::read_to_string(root.join("shop/app.py")).unwrap();
    let request = RequestJson {
        workspace_root: Some(root.to_string_lossy().into_owned()),
        document: DocumentJson {
            path: format!("{}/shop/app.py", root.display()),
            language_id: None,
            text,
        },
        position: Position {
            line: 0,
            character: 0,
        },
        open_documents: vec![],
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: Options::default(),
    };
    let off =
        prompt::assemble_with_files(&request, &mut prompt::Session::default(), Some(&Dir(root)))
            .unwrap();
    assert!(
        imported_text(&off).is_empty(),
        "imports are off by default for copilot"
    );
}
