//! The sweep strategy's tests. `test_data/sweep/NAME.json` holds a request and `NAME.prompt`
//! the prompt it makes, byte for byte; `UPDATE_EXPECT=1` rewrites the expectations after a deliberate change (then
//! read the diff). Tables below cover reading answers and naming files; a property test
//! covers any text and edits.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::request::Request;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/sweep");
    let mut requests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test_data/sweep exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    requests.sort();
    requests
}

fn prompt_text(prompt: &Prompt) -> &str {
    match &prompt.body {
        Body::Completion { prompt, .. } => prompt,
        Body::Chat { .. } => "",
    }
}

#[test]
fn prompts_match_fixtures() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let requests = fixtures();
    assert!(requests.len() >= 10, "fixtures are missing");
    for path in requests {
        let request: Request =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable"))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let replayed = request.replay().expect("a valid request");
        let prompt = build(&replayed);
        check_window(&replayed, &prompt);
        let got = prompt_text(&prompt);
        let expected_path = path.with_extension("prompt");
        if update {
            std::fs::write(&expected_path, got).expect("writable");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} is missing", expected_path.display()));
        assert_eq!(got, expected, "{}", path.display());
    }
}

/// The window lies on character boundaries in the document now, holds the cursor, and the
/// model repeating it reads back as the window unchanged.
fn check_window(replayed: &Replayed, prompt: &Prompt) {
    let doc = &replayed.documents[replayed.cursor_document];
    let w = &prompt.window;
    assert_eq!(w.uri, doc.uri);
    assert!(w.start <= w.end && w.end <= doc.text.len());
    assert!(doc.text.is_char_boundary(w.start) && doc.text.is_char_boundary(w.end));
    assert_eq!(w.text, doc.text[w.start..w.end]);
    let cursor = byte_at(&doc.text, replayed.cursor);
    assert!(
        w.start <= cursor && cursor <= w.end,
        "the window holds the cursor"
    );
    let text = prompt_text(prompt);
    assert!(text.ends_with('\n') && text.contains("<|file_sep|>updated/"));
    // Line breaks all of one kind read back as they were.
    let uniform = !w.text.replace("\r\n", "").contains('\r')
        && (!w.text.contains("\r\n")
            || w.text.matches('\n').count() == w.text.matches("\r\n").count());
    if uniform && !w.text.trim().is_empty() {
        // The section's body as the prompt shows it: the answer the model repeats.
        let mut repeat = String::new();
        push_section(&mut repeat, "", &prepare(&w.text));
        let repeat = &repeat[FILE_SEP.len() + 1..];
        assert_eq!(
            read_answer(prompt, repeat).as_deref(),
            Some(w.text.as_str())
        );
    }
}

fn prompt_for(window: &str, stop: &[&str]) -> Prompt {
    Prompt {
        body: Body::Completion {
            prompt: String::new(),
            stop: stop.iter().map(|s| s.to_string()).collect(),
        },
        window: Window {
            uri: "file:///ws/a.ts".into(),
            start: 0,
            end: window.len(),
            text: window.to_owned(),
        },
        answer: Answer::Window,
    }
}

#[test]
fn answers() {
    let stops: &[&str] = &["<|file_sep|>", "</s>", "<|endoftext|>"];
    let long = "x\n".repeat(60);
    // (window, answer, the window's new text)
    let cases: &[(&str, &str, Option<&str>)] = &[
        // A repeat of the window reads back unchanged (the caller then suggests nothing).
        ("a\nb\n", "a\nb\n", Some("a\nb\n")),
        (
            "let p = Point(1);\n",
            "let p = Point3D(1);\n",
            Some("let p = Point3D(1);\n"),
        ),
        // Stopped at the end of text, without the last line break.
        ("a\nb\n", "a\nB", Some("a\nB\n")),
        // Stop sequences in the text, where the server did not stop.
        (
            "a\nb\n",
            "a\nc\n<|file_sep|>original/a.ts\nzzz",
            Some("a\nc\n"),
        ),
        ("a\nb\n", "a\nc\n</s>junk", Some("a\nc\n")),
        ("a\nb\n", "a\nc\n<|endoftext|>", Some("a\nc\n")),
        // Nothing, or only blanks.
        ("a\nb\n", "", None),
        ("a\nb\n", "<|file_sep|>", None),
        ("a\nb\n", "  \n\n", None),
        // Tokens of the format in what the model wrote.
        ("a\nb\n", "a\n<|fim_middle|>b\n", None),
        ("a\nb\n", "<|im_start|>assistant\nb\n", None),
        // Much longer than the window.
        ("a\nb\n", &long, None),
        // The window at the end of a file without a last line break.
        ("}\n// done", "}\n// done!\n", Some("}\n// done!")),
        // CRLF windows get CRLF back, whatever the model wrote.
        ("a\r\nb\r\n", "a\nc\n", Some("a\r\nc\r\n")),
        ("a\r\nb\r\n", "a\r\nc\r\n", Some("a\r\nc\r\n")),
        // Mixed breaks: the majority's.
        ("a\r\nb\r\nc\n", "a\nb\nd\n", Some("a\r\nb\r\nd\r\n")),
        ("a\r\nb\nc\n", "a\nb\nd\n", Some("a\nb\nd\n")),
        // A token spelled in the document comes back as it was spelled.
        (
            "SEP = \"<|file_sep|>\"\n",
            "SEP = \"<\u{200B}|file_sep|>\" # kept\n",
            Some("SEP = \"<|file_sep|>\" # kept\n"),
        ),
    ];
    for (window, answer, want) in cases {
        let prompt = prompt_for(window, stops);
        assert_eq!(
            read_answer(&prompt, answer).as_deref(),
            *want,
            "{window:?} answered {answer:?}"
        );
    }
    // A window holding `</s>` is not cut there: its prompt does not stop on it.
    let prompt = prompt_for("<s>old</s>\n", &["<|file_sep|>", "<|endoftext|>"]);
    assert_eq!(
        read_answer(&prompt, "<s>new</s>\n").as_deref(),
        Some("<s>new</s>\n")
    );
}

#[test]
fn stops_follow_the_window() {
    let request = |text: &str| -> Request {
        serde_json::from_value(serde_json::json!({
            "documents": [{"uri": "file:///ws/a.html", "text": text}],
            "cursor": {"uri": "file:///ws/a.html", "offset": 0},
            "options": {"strategy": "sweep"}
        }))
        .expect("a request")
    };
    let stops = |text: &str| match build(&request(text).replay().expect("valid")).body {
        Body::Completion { stop, .. } => stop,
        Body::Chat { .. } => vec![],
    };
    assert_eq!(
        stops("<p>x</p>\n"),
        ["<|file_sep|>", "</s>", "<|endoftext|>"]
    );
    assert_eq!(stops("<s>x</s>\n"), ["<|file_sep|>", "<|endoftext|>"]);
}

#[test]
fn paths() {
    // (document URIs, the names they go by)
    let cases: &[(&[&str], &[&str])] = &[
        (&["file:///ws/src/point.ts"], &["point.ts"]),
        (
            &["file:///ws/src/main.ts", "file:///ws/lib/util.ts"],
            &["src/main.ts", "lib/util.ts"],
        ),
        (
            &["file:///ws/src/a.ts", "file:///ws/src/deep/b.ts"],
            &["a.ts", "deep/b.ts"],
        ),
        (&["file:///c%3A/My%20Work/x.py"], &["x.py"]),
        (
            &["file:///ws/src/gr%C3%BC%C3%9Fe.py", "untitled:Untitled-1"],
            &["grüße.py", "Untitled-1"],
        ),
        (
            &["file://server/share/a/b.rs", "file:///"],
            &["share/a/b.rs", "untitled"],
        ),
        (&["file://server/share/a/b.rs"], &["b.rs"]),
        (&["file:///ws/bad%zz%4.txt"], &["bad%zz%4.txt"]),
        (&[""], &["untitled"]),
    ];
    for (uris, want) in cases {
        let docs: Vec<History> = uris.iter().map(|u| History::new(u, "", "")).collect();
        assert_eq!(prompt_paths(&docs), *want, "{uris:?}");
    }
}

#[test]
fn out_of_range_replays_do_not_panic() {
    // A hand-made `Replayed` that no request would give: indices and offsets out of range.
    let mut doc = History::new("file:///ws/a.ts", "", "😀 a\nb\n");
    doc.edits.push(crate::history::Edit {
        start: 1,
        end: 99,
        text: "x".into(),
    });
    let replayed = Replayed {
        documents: vec![doc],
        cursor_document: 3,
        cursor: 1,
        viewed: vec![crate::request::RangeJson {
            uri: "file:///ws/a.ts".into(),
            start: 1,
            end: 1,
        }],
        options: crate::request::Options::default(),
        edit_order: vec![0, 0, 7],
        workspace_root: None,
    };
    let prompt = build(&replayed);
    assert_eq!(prompt.window.text, "");
    let replayed = Replayed {
        cursor_document: 0,
        cursor: 1,
        ..replayed
    };
    let prompt = build(&replayed);
    assert_eq!(prompt.window.start, 0);
}

/// A text of characters of one, two, three and four bytes (two UTF-16 units), line breaks
/// of both kinds, and the pieces of the format's tokens.
fn text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "b", " ", "\n", "\n", "\r\n", "é", "😀", "中", "<|", "|>", "x_y", "</s>",
    ]);
    prop::collection::vec(pieces, 0..120).prop_map(|p| p.concat())
}

/// An edit as fractions of the text at that moment, so that it always fits.
fn edits() -> impl Strategy<Value = Vec<(usize, f64, f64, String)>> {
    prop::collection::vec((0..2usize, 0.0..1.0f64, 0.0..0.3f64, text()), 0..8)
}

/// The UTF-16 offset of a character boundary picked by `fraction`.
fn boundary(text: &str, fraction: f64) -> (usize, usize) {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = bounds[((bounds.len() - 1) as f64 * fraction) as usize];
    (at, tokenizer::utf16::utf16_len(&text[..at]))
}

fn request(
    texts: [String; 2],
    edits: &[(usize, f64, f64, String)],
    cursor: f64,
    viewed: &[(usize, usize)],
    tokens: Option<usize>,
) -> serde_json::Value {
    let uris = ["file:///ws/src/a.ts", "file:///ws/lib/b.ts"];
    let mut now = texts.clone();
    let mut edits_json = Vec::new();
    for (doc, start, len, insert) in edits {
        let text = &now[*doc];
        let (s, su) = boundary(text, *start);
        let (e, eu) = boundary(text, (*start + len).min(1.0));
        let (e, eu) = if e < s { (s, su) } else { (e, eu) };
        edits_json
            .push(serde_json::json!({"uri": uris[*doc], "start": su, "end": eu, "text": insert}));
        now[*doc].replace_range(s..e, insert);
    }
    serde_json::json!({
        "documents": [{"uri": uris[0], "text": texts[0]}, {"uri": uris[1], "text": texts[1]}],
        "edits": edits_json,
        "cursor": {"uri": uris[0], "offset": boundary(&now[0], cursor).1},
        "viewed": viewed.iter().map(|(s, e)| serde_json::json!({"uri": uris[1], "start": s, "end": e})).collect::<Vec<_>>(),
        "options": {"strategy": "sweep", "max_prompt_tokens": tokens},
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// For any texts and edits: no panic, a window on character boundaries that holds the
    /// cursor, a prompt within its budget (the window sections aside), and a repeat of the
    /// window read back as the window.
    #[test]
    fn any_request(
        a in text(),
        b in text(),
        edits in edits(),
        cursor in 0.0..=1.0f64,
        viewed in prop::collection::vec((0..200usize, 0..200usize), 0..3),
        tokens in prop::option::of(1..400usize),
    ) {
        let json = request([a, b], &edits, cursor, &viewed, tokens);
        let request: Request = serde_json::from_value(json).expect("a request");
        let replayed = request.replay().expect("a valid request");
        let prompt = build(&replayed);
        check_window(&replayed, &prompt);
        let budget = tokens.unwrap_or(DEFAULT_PROMPT_TOKENS) * CHARS_PER_TOKEN;
        let window = 2 * ((budget / 4).max(MIN_WINDOW_BYTES) + 8) + 3 * 40;
        prop_assert!(prompt_text(&prompt).len() <= budget.max(window) + 3 * 40);
    }
}
