//! Whole prompts against Copilot's production pipeline: chat-lib's split-context component tree
//! and renderer, driven with the same editor state pilotfish is given.

use differential::{Oracle, Rng, random_boundary, random_text, real_files};
use prompt::request::{
    CodeSnippet, Diagnostic, DiagnosticBag, DiagnosticCode, DocumentJson, Options, Position, Range,
    RequestJson, Severity, Snapshot, Trait,
};
use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "def", "return", "self", "cart", "order", "line", "item", "total", "price", "for", "in", "if",
    "(", ")", ":", "=", "+", ".", ",", "[", "]", "0", "1", "é", "名前", "😀", "\"x\"",
];

fn code(rng: &mut Rng, max_lines: usize) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(max_lines + 1) {
        s.push_str(&"    ".repeat(rng.below(3)));
        for k in 0..rng.below(9) {
            if k > 0 {
                s.push(' ');
            }
            s.push_str(rng.pick(WORDS));
        }
        s.push_str(if rng.chance(4) { "\r\n" } else { "\n" });
    }
    s
}

/// Successive versions of a file ending at `last`: lines replaced, inserted and deleted.
fn history(rng: &mut Rng, path: &str, last: &str) -> Vec<Snapshot> {
    let mut versions = vec![last.to_owned()];
    let mut lines: Vec<String> = last.split('\n').map(str::to_owned).collect();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(lines.len() + 1);
        match rng.below(4) {
            0 if at < lines.len() => {
                lines.remove(at);
            }
            1 => lines.insert(at, code(rng, 1).trim_end().to_owned()),
            2 if at < lines.len() => lines[at] = format!("{} {}", lines[at], rng.pick(WORDS)),
            _ => {
                let n = rng.below(14);
                for k in 0..n {
                    lines.insert(at.min(lines.len()), format!("added {k}"));
                }
            }
        }
        versions.push(lines.join("\n"));
    }
    versions.reverse();
    versions
        .into_iter()
        .map(|text| Snapshot {
            path: path.to_owned(),
            text,
        })
        .collect()
}

fn position_of(text: &str, cursor: usize) -> Position {
    let before = &text[..cursor];
    let normalized = before.replace("\r\n", "\n");
    let line_start = normalized.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: normalized.matches('\n').count(),
        character: normalized[line_start..].encode_utf16().count(),
    }
}

#[test]
fn prompts_match_copilots_pipeline() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(40);
    let real = real_files();
    let dirs = ["src", "src/deep er", "lib/ünï", "a#b"];
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    for case in 0..600 {
        let root = "/home/dev/proj";
        let ext = rng.pick(&["py", "ts", "cpp", "h", "go"]);
        let path = format!("{root}/{}/main{case}.{ext}", rng.pick(&dirs));
        let mut text = if case % 5 == 0 {
            rng.pick_ref(&real).1.clone()
        } else {
            code(&mut rng, 120)
        };
        if text.is_empty() {
            text.push_str("x = 1\n");
        }
        let mut cursor = random_boundary(&mut rng, &text);
        if text[..cursor].ends_with('\r') && text[cursor..].starts_with('\n') {
            cursor -= 1;
        }
        let open: Vec<DocumentJson> = (0..rng.below(5))
            .map(|i| {
                let text = if rng.chance(20) {
                    text.clone()
                } else {
                    code(&mut rng, 150)
                };
                let e = if rng.chance(80) { ext } else { "md" };
                DocumentJson {
                    path: format!("{root}/{}/n{i}.{e}", rng.pick(&dirs)),
                    language_id: None,
                    text,
                }
            })
            .collect();
        let traits: Vec<Trait> = if rng.chance(30) {
            (0..1 + rng.below(3))
                .map(|i| Trait {
                    name: format!("trait {i}"),
                    value: random_text(&mut rng, 3, 0),
                })
                .collect()
        } else {
            vec![]
        };
        let code_snippets: Vec<CodeSnippet> = if rng.chance(25) {
            (0..1 + rng.below(4))
                .map(|i| CodeSnippet {
                    path: format!("{root}/src/s{}.{ext}", i % 2),
                    value: code(&mut rng, 6),
                    importance: Some(rng.below(10) as f64 / 10.0),
                })
                .collect()
        } else {
            vec![]
        };
        let diagnostics: Vec<DiagnosticBag> = if rng.chance(30) {
            (0..1 + rng.below(3))
                .map(|b| DiagnosticBag {
                    path: if b == 0 {
                        path.clone()
                    } else {
                        format!("{root}/src/d{b}.{ext}")
                    },
                    importance: if rng.chance(50) {
                        Some(rng.below(5) as f64)
                    } else {
                        None
                    },
                    values: (0..rng.below(4))
                        .map(|_| Diagnostic {
                            range: Range {
                                start: Position {
                                    line: rng.below(80),
                                    character: rng.below(30),
                                },
                                end: None,
                            },
                            severity: rng.pick(&[
                                Severity::Error,
                                Severity::Warning,
                                Severity::Information,
                                Severity::Hint,
                            ]),
                            message: random_text(&mut rng, 4, 0),
                            code: match rng.below(3) {
                                0 => None,
                                1 => Some(DiagnosticCode::Number(rng.below(9999) as i64)),
                                _ => Some(DiagnosticCode::Text(format!("E{}", rng.below(99)))),
                            },
                            source: if rng.chance(50) {
                                Some("ts".to_owned())
                            } else {
                                None
                            },
                        })
                        .collect(),
                })
                .collect()
        } else {
            vec![]
        };
        let mut recent_edits: Vec<Snapshot> = Vec::new();
        if rng.chance(35) {
            let mut files: Vec<(String, String)> = vec![(path.clone(), text.clone())];
            files.extend(open.iter().map(|d| (d.path.clone(), d.text.clone())));
            files.push((format!("{root}/closed.{ext}"), code(&mut rng, 20)));
            let mut histories: Vec<Vec<Snapshot>> =
                files.iter().map(|(p, t)| history(&mut rng, p, t)).collect();
            // Interleave the files' histories, each in its own order.
            while histories.iter().any(|h| !h.is_empty()) {
                let i = rng.below(histories.len());
                if !histories[i].is_empty() {
                    recent_edits.push(histories[i].remove(0));
                }
            }
        }
        let max_prompt_tokens = if rng.chance(40) {
            20 + rng.below(300)
        } else {
            7692
        };
        let suffix_percent = rng.pick(&[0u32, 15, 15, 40]);
        let tokenizer = rng.pick(&["o200k_base", "cl100k_base"]);
        let request = RequestJson {
            workspace_root: Some(root.to_owned()),
            document: DocumentJson {
                path: path.clone(),
                language_id: None,
                text: text.clone(),
            },
            position: position_of(&text, cursor),
            open_documents: open.clone(),
            recent_edits: recent_edits.clone(),
            diagnostics: diagnostics.clone(),
            traits: traits.clone(),
            code_snippets: code_snippets.clone(),
            tooltip_signature: None,
            options: Options {
                tokenizer: tokenizer.to_owned(),
                max_prompt_tokens,
                suffix_percent,
                strategy: "copilot".to_owned(),
                recent_edits_heading: Some(copilots_recent_edits_heading().to_owned()),
                ..Options::default()
            },
        };
        let language = prompt::detected_language(&path, None);
        requests.push(json!({
            "op": "prompt",
            "workspaceRoot": root,
            "document": {"path": path, "languageId": language, "text": text},
            "position": request.position,
            "openDocuments": open.iter().map(|d| json!({"path": d.path, "languageId": prompt::detected_language(&d.path, None), "text": d.text})).collect::<Vec<_>>(),
            "traits": traits,
            "diagnostics": diagnostics,
            "recentEdits": recent_edits,
            "codeSnippets": code_snippets.iter().map(|c| json!({"path": c.path, "value": c.value, "importance": c.importance})).collect::<Vec<_>>(),
            "maxPromptTokens": max_prompt_tokens,
            "suffixPercent": suffix_percent,
            "tokenizer": tokenizer,
        }));
        ours.push(match prompt::assemble(&request, &mut prompt::Session::default()) {
            Ok(p) => Ok(json!({
                "prefix": p.prefix, "suffix": p.suffix, "context": p.context,
                "prefixTokens": p.prompt_tokens, "suffixTokens": p.suffix_tokens, "trailingWs": p.trailing_whitespace,
            })),
            Err(e) => Err(e.to_string()),
        });
    }
    let answers = oracle.ask(&requests);
    let mut mismatches = Vec::new();
    let mut errors_both = 0;
    for ((request, theirs), mine) in requests.iter().zip(&answers).zip(&ours) {
        match (theirs, mine) {
            (Ok(a), Ok(b)) if a == b => {}
            (Err(_), Err(_)) => errors_both += 1,
            (a, b) => mismatches.push(format!("{request}\nchat-lib:  {a:?}\npilotfish: {b:?}")),
        }
    }
    if let Ok(dir) = std::env::var("PILOTFISH_DUMP_MISMATCHES") {
        for (i, (request, (theirs, mine))) in
            requests.iter().zip(answers.iter().zip(&ours)).enumerate()
        {
            if theirs.as_ref().ok() != mine.as_ref().ok() {
                std::fs::write(format!("{dir}/mismatch{i}.json"), request.to_string()).unwrap();
            }
        }
    }
    let _: &Value = &requests[0];
    assert!(
        mismatches.is_empty(),
        "{} of {} prompts differ:\n{}",
        mismatches.len(),
        requests.len(),
        mismatches
            .iter()
            .take(2)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // The cases must exercise every component, and elision.
    let context_of = |m: &Result<Value, String>| {
        m.as_ref()
            .ok()
            .map(|v| v["context"].to_string())
            .unwrap_or_default()
    };
    for (what, needle) in [
        ("diagnostics", "diagnostics from"),
        ("similar files", "Compare this snippet from"),
        ("code snippets", "---"),
        ("traits", "related information"),
        ("recent edits", "End of recent edits"),
    ] {
        let n = ours
            .iter()
            .filter(|m| context_of(m).contains(needle))
            .count();
        assert!(n >= 20, "only {n} prompts with {what}");
        eprintln!("  {n} prompts with {what}");
    }
    assert!(
        errors_both < requests.len() / 10,
        "too many cases refused by both ({errors_both})"
    );
    eprintln!(
        "whole prompts: {} cases, 0 mismatches ({errors_both} refused by both)",
        requests.len()
    );
}

/// Copilot's heading of the recent-edits block as pilotfish finds it where
/// `tools/copilot-texts.sh` put it. Without it the comparison cannot hold, so the test fails
/// and says what to run.
fn copilots_recent_edits_heading() -> &'static str {
    static HEADING: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HEADING.get_or_init(|| {
        let loaded = host::copilot_texts::load(None);
        loaded.recent_edits_heading.unwrap_or_else(|| {
            panic!(
                "the differential tests need Copilot's texts: {}",
                loaded.notice.unwrap_or_default()
            )
        })
    })
}
