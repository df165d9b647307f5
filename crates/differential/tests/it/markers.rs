//! Comment syntax, language and path markers, and language detection against chat-lib.

use differential::{Oracle, Rng, random_text};
use serde_json::{Value, json};

/// Asks the oracle every request and compares with pilotfish's answers, reporting all
/// mismatches at once.
fn compare(oracle: &Oracle, what: &str, cases: Vec<(Value, Value)>) {
    let (requests, ours): (Vec<Value>, Vec<Value>) = cases.into_iter().unzip();
    let answers = oracle.ask_ok(&requests);
    let mismatches: Vec<String> = requests
        .iter()
        .zip(&answers)
        .zip(&ours)
        .filter(|((_, theirs), mine)| theirs != mine)
        .map(|((r, theirs), mine)| format!("{r}: chat-lib {theirs}, pilotfish {mine}"))
        .collect();
    assert!(
        mismatches.is_empty(),
        "{what}: {} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    eprintln!("{what}: {} cases, 0 mismatches", requests.len());
}

fn language_ids() -> Vec<String> {
    let mut ids: Vec<String> = languages::known_language_ids().map(str::to_owned).collect();
    ids.extend(
        [
            "plaintext",
            "json",
            "vue-html",
            "unknown-lang",
            "",
            "Python",
            "TypeScriptReact",
            "C",
            "JADE",
            "cshtml",
        ]
        .map(String::from),
    );
    ids
}

#[test]
fn comments_match_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(10);
    let mut cases = Vec::new();
    for id in language_ids() {
        for _ in 0..6 {
            let pieces = 1 + rng.below(12);
            let text = random_text(&mut rng, pieces, 0);
            cases.push((
                json!({"op": "comment", "text": text, "languageId": id}),
                json!(languages::comment(&text, &id)),
            ));
            cases.push((
                json!({"op": "comment_block", "text": text, "languageId": id}),
                json!(languages::comment_block_as_singles(&text, &id)),
            ));
        }
        for text in ["", "\n", "a\n", "a\nb", "\n\n", "a\r\nb\r\n"] {
            cases.push((
                json!({"op": "comment_block", "text": text, "languageId": id}),
                json!(languages::comment_block_as_singles(text, &id)),
            ));
        }
    }
    compare(&oracle, "comments", cases);
}

#[test]
fn markers_match_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(11);
    let mut cases = Vec::new();
    let sources = [
        "",
        "x = 1\n",
        "#!/bin/bash\necho",
        "#!",
        "<!DOCTYPE html>",
        "<!doctype html>",
        " #!/bin/sh",
        "\u{FEFF}#!/bin/sh",
    ];
    for id in language_ids() {
        for source in sources {
            cases.push((
                json!({"op": "language_marker", "source": source, "languageId": id}),
                json!(languages::language_marker(source, &id)),
            ));
        }
    }
    for source in sources {
        cases.push((
            json!({"op": "has_language_marker", "source": source}),
            json!(languages::has_language_marker(source)),
        ));
    }
    let shebangs = [
        "#!/usr/bin/env python3",
        "#!/usr/bin/env ruby",
        "#!/bin/sh",
        "# YAML data",
        "<!DOCTYPE html>",
    ];
    let pads = [
        "", " ", "\t", "\u{FEFF}", "\u{85}", "\u{A0}", "\u{3000}", "\r\n", "x",
    ];
    for line in shebangs {
        for pad in pads {
            for candidate in [
                format!("{pad}{line}"),
                format!("{line}{pad}"),
                format!("{pad}{line}{pad}"),
            ] {
                cases.push((
                    json!({"op": "is_shebang_line", "line": candidate}),
                    json!(languages::is_shebang_line(&candidate)),
                ));
            }
        }
    }
    for _ in 0..200 {
        let pieces = 1 + rng.below(6);
        let path = random_text(&mut rng, pieces, 0);
        let path = if rng.chance(10) { None } else { Some(path) };
        cases.push((
            json!({"op": "path_marker", "relativePath": path}),
            json!(languages::path_marker(path.as_deref())),
        ));
    }
    compare(&oracle, "markers", cases);
}

#[test]
fn language_ids_match_chat_lib() {
    let oracle = Oracle::start();
    let mut cases = Vec::new();
    let mut md: Vec<String> = languages::markdown_language_ids()
        .map(str::to_owned)
        .collect();
    md.extend(["", "PY", "unknown", "objc", "c++", "jsx", "tsx", "sh"].map(String::from));
    for id in &md {
        cases.push((
            json!({"op": "markdown_language", "id": id}),
            json!(languages::language_for_markdown_id(id)),
        ));
    }
    for id in language_ids() {
        for variant in [id.clone(), id.to_uppercase(), id.to_lowercase()] {
            cases.push((
                json!({"op": "normalize_language_id", "languageId": variant}),
                json!(languages::normalize_language_id(&variant)),
            ));
        }
    }
    compare(&oracle, "language ids", cases);
}

#[test]
fn language_detection_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(12);
    let mut names: Vec<String> = Vec::new();
    let known: Vec<&str> = languages::known_file_extensions_and_names().collect();
    let templates = [
        ".ejs",
        ".erb",
        ".haml",
        ".hbs",
        ".j2",
        ".jinja",
        ".jinja2",
        ".liquid",
        ".mustache",
        ".njk",
        ".php",
        ".pug",
        ".slim",
        ".webc",
    ];
    for k in &known {
        if k.starts_with('.') {
            names.push(format!("file{k}"));
            names.push(format!("FILE{}", k.to_uppercase()));
            names.push((*k).to_owned());
            names.push(format!("a.b{k}"));
            names.push(format!("file{k}{}", rng.pick(&templates)));
        } else {
            names.push((*k).to_owned());
            names.push(format!("{k}.dev"));
            names.push(format!("{k}.x.y"));
            names.push(k.to_lowercase());
        }
    }
    for _ in 0..300 {
        let mut name = String::new();
        for _ in 0..1 + rng.below(4) {
            if rng.chance(50) {
                name.push('.');
            }
            if rng.chance(60) {
                let k = rng.pick(&known);
                name.push_str(k.trim_start_matches('.'));
            } else {
                name.push_str(rng.pick(&["x", "view", "..", "README", "é", "a b", "%", "#"]));
            }
        }
        names.push(name);
    }
    names.extend(
        [
            ".",
            "..",
            "...",
            "a.",
            ".env.local",
            "Makefile",
            "makefile",
            "x.BLADE.PHP",
            "x.blade.php",
            "x.html.php",
            "x.txt",
            "noext",
        ]
        .map(String::from),
    );
    let mut cases = Vec::new();
    for name in &names {
        for dir in ["", "src/", "deep/er/"] {
            let path = format!("{dir}{name}");
            cases.push((
                json!({"op": "detect_language_path", "path": path, "languageId": "client-lang"}),
                json!(languages::detect_language_from_path(&path, "client-lang")),
            ));
        }
    }
    let uris = [
        "file:///a/b/My%20File.PY",
        "file:///a/b/c.ts?query=1#frag",
        "file:///a/b/",
        "untitled:Untitled-1",
        "vscode-notebook-cell:/a/b.ipynb#X",
        "file:///a/b%2Fc.rs",
        "file:///a/%E2%82%AC.go",
        "file:///a/%E2%82.go",
        "file:///a/x%zz.py",
        "c:\\x\\y.cpp",
        "file:///a/Dockerfile",
        "vscode-remote://ssh/a/b.rb",
    ];
    for uri in uris {
        cases.push((
            json!({"op": "detect_language_uri", "uri": uri, "languageId": "client-lang"}),
            json!(languages::detect_language_from_uri(uri, "client-lang")),
        ));
    }
    compare(&oracle, "language detection", cases);
}
