//! The `copilot` strategy: the request Copilot's own library (`@vscode/chat-lib`'s
//! `createNESProvider`) sends for its default next-edit model (`copilot-nes-oct`, the `xtab275`
//! prompt), and the model's answer read back as that library reads it.
//!
//! The user message holds, in a code fence: the other files edited lately, the current file
//! clipped to pages around the cursor, the edit history as diffs, and the area around the
//! cursor with the lines to rewrite (two above the cursor, five below) marked
//! `<|code_to_edit|>` and the cursor marked `<|cursor|>`; then the instructions. The model
//! answers the rewritten lines, which are also sent as the predicted output. Every count is in
//! UTF-16 code units and every budget in the library's estimate of a quarter token per unit,
//! so `text` works in code units throughout.

mod answer;
mod converge;
mod edits;
mod filters;
mod line_diff;
mod sections;
mod text;
mod tracker;
mod wording;

use crate::{
    prompt::{Answer, Body, Message, Prompt, Skip, Suggestion, Window},
    request::Replayed,
};
use text::{Positions, join_lines, lines_cost, split_lines, string, units};
use tracker::History;
pub use wording::Wording;

/// Lines of the edit window above and below the cursor's line, and of the area around it.
const LINES_ABOVE: usize = 2;
const LINES_BELOW: usize = 5;
const LINES_AROUND: usize = 15;
/// The edit window's limit (`xtabProvider.editWindowMaxTokens`) and the whole request's, in
/// characters.
const WINDOW_TOKENS: usize = 2000;
const MAX_CHARS: usize = 120_000;

const CURSOR: &str = "<|cursor|>";

/// Builds Copilot's request, or says why Copilot would send none. With Copilot's own texts in
/// `wording` the request is the one its library sends (`XtabProvider`'s request for the
/// `xtab275` prompt); with pilotfish's, only the two fixed texts differ.
pub fn build(replayed: &Replayed, wording: &Wording) -> Result<Prompt, Skip> {
    // A `Replayed` that no checked request gives (its fields are public) is refused, not
    // indexed out of range.
    if replayed.cursor_document >= replayed.documents.len() {
        return Err(Skip::NoCursor);
    }
    let history = History::replay(replayed);
    if history.entries.is_empty() {
        return Err(Skip::NoEdits);
    }
    let doc = replayed.cursor_document;
    let current = &replayed.documents[doc];
    let content = units(&current.text);
    let cursor = if replayed.cursor == 0 {
        tracker::cursor_from_last_edit(replayed, doc).ok_or(Skip::NoCursor)?
    } else {
        replayed.cursor
    };
    let lines = split_lines(&content);
    let positions = Positions::new(&content);
    let (cursor_line, _) = positions.position(cursor);
    let ranges = Ranges::around(cursor_line, lines.len());
    let window_lines = &lines[ranges.window.0..ranges.window.1];
    let window_cost = lines_cost(window_lines);
    if window_cost > WINDOW_TOKENS {
        return Err(Skip::WindowTooLarge(window_cost));
    }
    let kept = sections::current_file_range(&lines, ranges.area).ok_or(Skip::AreaTooLarge)?;

    let paths: Vec<String> = replayed
        .documents
        .iter()
        .map(|d| uri_path(&d.uri))
        .collect();
    // Only the current file's path is made relative to the workspace folder; the other files'
    // and the history's paths stay absolute, as in Copilot's prompt.
    let path = relative_path(&paths[doc], replayed.workspace_root.as_deref());
    let sections = Sections {
        recent: sections::recent_snippets(&history, doc, &paths),
        current_file: string(&join_lines(&lines[kept.0..kept.1])),
        diffs: sections::diff_history(&history, &paths),
        area: string(&join_lines(&area_around(&content, cursor, ranges))),
    };
    let user = user_message(&sections, &path, wording);
    let chars = tokenizer::utf16::utf16_len(wording.system()) + tokenizer::utf16::utf16_len(&user);
    if chars > MAX_CHARS {
        return Err(Skip::PromptTooLarge(chars));
    }
    let start = positions.line_start(ranges.window.0);
    let end = if ranges.window.1 > ranges.window.0 {
        positions.line_end(ranges.window.1 - 1)
    } else {
        start
    };
    let byte = |u: usize| crate::history::byte_offset(&current.text, u).unwrap_or(0);
    Ok(Prompt {
        body: Body::Chat {
            messages: vec![
                Message {
                    role: "system".into(),
                    content: wording.system().into(),
                },
                Message {
                    role: "user".into(),
                    content: user,
                },
            ],
            prediction: Some(string(&join_lines(window_lines))),
        },
        window: Window {
            uri: current.uri.clone(),
            start: byte(start),
            end: byte(end),
            text: current.text[byte(start)..byte(end)].to_owned(),
        },
        answer: Answer::Lines,
    })
}

/// The lines the prompt is built around, as `[start, end)` line ranges of the current file.
#[derive(Debug, Clone, Copy)]
struct Ranges {
    /// The lines the model rewrites (chat-lib's edit window).
    window: (usize, usize),
    /// The lines shown around them (chat-lib's area around the code to edit).
    area: (usize, usize),
}

impl Ranges {
    /// The edit window and the area around it for the cursor's line of a file of `n` lines, as
    /// `XtabProvider` computes them from `N_LINES_ABOVE`, `N_LINES_BELOW` and
    /// `N_LINES_AS_CONTEXT`.
    fn around(cursor_line: usize, n: usize) -> Ranges {
        Ranges {
            window: (
                cursor_line.saturating_sub(LINES_ABOVE),
                n.min(cursor_line + LINES_BELOW + 1),
            ),
            area: (
                cursor_line.saturating_sub(LINES_AROUND),
                n.min(cursor_line + LINES_AROUND + 1),
            ),
        }
    }
}

/// The area around the code to edit: the file with the cursor marked, the area's lines with
/// the edit window tagged inside them, as chat-lib's `constructTaggedFile` lays it out.
fn area_around(content: &[u16], cursor: usize, ranges: Ranges) -> Vec<Vec<u16>> {
    let (window, area) = (ranges.window, ranges.area);
    let at = cursor.min(content.len());
    let mut tagged = content[..at].to_vec();
    tagged.extend(CURSOR.encode_utf16());
    tagged.extend_from_slice(&content[at..]);
    let tagged_lines = split_lines(&tagged);
    let mut block = vec![units("<|area_around_code_to_edit|>")];
    block.extend(tagged_lines[area.0..window.0].iter().map(|l| l.to_vec()));
    block.push(units("<|code_to_edit|>"));
    block.extend(tagged_lines[window.0..window.1].iter().map(|l| l.to_vec()));
    block.push(units("<|/code_to_edit|>"));
    block.extend(tagged_lines[window.1..area.1].iter().map(|l| l.to_vec()));
    block.push(units("<|/area_around_code_to_edit|>"));
    block
}

/// The prompt's four sections, each already rendered.
struct Sections {
    recent: String,
    current_file: String,
    diffs: String,
    area: String,
}

/// The user message: the sections in a code fence, then the instructions, as chat-lib's
/// `getUserPrompt` joins them for the `xtab275` prompt.
fn user_message(s: &Sections, path: &str, wording: &Wording) -> String {
    let Sections {
        recent,
        current_file,
        diffs,
        area,
    } = s;
    let main = format!(
        "<|recently_viewed_code_snippets|>\n{recent}\n<|/recently_viewed_code_snippets|>\n\n\
         <|current_file_content|>\ncurrent_file_path: {path}\n{current_file}\n<|/current_file_content|>\n\n\
         <|edit_diff_history|>\n{diffs}\n<|/edit_diff_history|>\n\n{area}"
    );
    let user = format!("```\n{main}\n```\n\n{}", wording.postscript(path));
    js_trim_end(&user).to_owned()
}

/// The first change of the answer that Copilot keeps, as the smallest edit of the document.
pub fn suggest(replayed: &Replayed, prompt: &Prompt, answer: &str) -> Option<Suggestion> {
    if replayed.cursor_document >= replayed.documents.len() {
        return None;
    }
    answer::suggest(replayed, prompt, answer)
}

/// `path` relative to the workspace folder `root` (a URI) when it lies under it.
fn relative_path(path: &str, root: Option<&str>) -> String {
    let Some(root) = root else {
        return path.to_owned();
    };
    let mut root = uri_path(root);
    if !root.ends_with('/') {
        root.push('/');
    }
    path.strip_prefix(&root).unwrap_or(path).to_owned()
}

/// A text without the white space JavaScript's `trimEnd()` removes.
fn js_trim_end(s: &str) -> &str {
    s.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}')
}

/// The path part of a URI, percent-decoded, as the library's `URI.parse(uri).path` gives it.
pub fn uri_path(uri: &str) -> String {
    let rest = match uri.find(':') {
        Some(i) if i > 0 && !uri[..i].contains(['/', '?', '#']) => &uri[i + 1..],
        _ => uri,
    };
    let scheme = uri.len() - rest.len();
    let scheme = if scheme > 0 { &uri[..scheme - 1] } else { "" };
    let rest = match rest.strip_prefix("//") {
        Some(r) => &r[r.find(['/', '?', '#']).unwrap_or(r.len())..],
        None => rest,
    };
    let raw = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let mut path = percent_decode(raw);
    if matches!(scheme, "file" | "http" | "https") && !path.starts_with('/') {
        path.insert(0, '/');
    }
    path
}

/// `%XX` sequences decoded as UTF-8 where they form it; anything else stays as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{CursorJson, DocumentJson, EditJson, Request};
    use proptest::prelude::*;

    /// Pieces of text that exercise line breaks of every kind, characters outside the basic
    /// plane, imports, blank lines and the prompt's own tags.
    const PIECES: &[&str] = &[
        "a",
        "Point",
        " ",
        "\n",
        "\r\n",
        "\r",
        "é",
        "😀",
        "import x from 'y';\n",
        "use a::b;\n",
        "    ",
        "}",
        "{",
        "<|cursor|>",
        "<|code_to_edit|>",
        "\t",
        "x = 1\n",
        "",
    ];

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..40).prop_map(|p| p.concat())
    }

    /// A UTF-16 offset of `text` that does not split a character, from a random fraction.
    fn boundary(text: &str, f: f64) -> usize {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.chars().scan(0, |n, c| {
                *n += c.len_utf16();
                Some(*n)
            }))
            .collect();
        starts[((starts.len() - 1) as f64 * f) as usize]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Whatever the documents, edits, cursor and answer, building the prompt and reading
        /// the answer never panic, and a suggestion lies within the document as it is now.
        #[test]
        fn never_panics(
            first in text(),
            second in text(),
            edits in proptest::collection::vec((any::<bool>(), 0.0..1.0f64, 0.0..1.0f64, text()), 0..12),
            cursor in 0.0..1.0f64,
            answer in text(),
        ) {
            let uris = ["file:///ws/a.ts", "file:///ws/b%20c.py"];
            let mut now = [first.clone(), second.clone()];
            let mut list = Vec::new();
            for (which, a, b, t) in edits {
                let d = usize::from(which);
                let (x, y) = (boundary(&now[d], a), boundary(&now[d], b));
                let (s, e) = (x.min(y), x.max(y));
                let bs = crate::history::byte_offset(&now[d], s).unwrap();
                let be = crate::history::byte_offset(&now[d], e).unwrap();
                now[d].replace_range(bs..be, &t);
                list.push(EditJson { uri: uris[d].into(), start: s, end: e, text: t });
            }
            let request = Request {
                documents: vec![
                    DocumentJson { uri: uris[0].into(), language_id: "typescript".into(), text: first },
                    DocumentJson { uri: uris[1].into(), language_id: "python".into(), text: second },
                ],
                edits: list,
                cursor: CursorJson { uri: uris[0].into(), offset: boundary(&now[0], cursor) },
                workspace_root: Some("file:///ws".into()),
                ..Request::default()
            };
            let replayed = request.replay().expect("valid by construction");
            if let Ok(prompt) = build(&replayed, &Wording::pilotfish()) {
                let units = tokenizer::utf16::utf16_len(&now[0]);
                for a in [answer.as_str(), prompt.window.text.as_str()] {
                    if let Some(s) = suggest(&replayed, &prompt, a) {
                        prop_assert!(s.start <= s.end && s.end <= units, "{s:?} in {units}");
                        prop_assert!(crate::history::byte_offset(&now[0], s.start).is_ok());
                        prop_assert!(crate::history::byte_offset(&now[0], s.end).is_ok());
                    }
                }
                // The window repeated is no change (a lone carriage return splits lines for
                // Copilot's lines but not for its positions, so it is left out here).
                let lone_cr = now[0].replace("\r\n", "").contains('\r');
                prop_assert!(lone_cr || suggest(&replayed, &prompt, &prompt.window.text).is_none());
            }
        }
    }

    /// `Point` renamed `Point3D` in its class; the cursor on a later use.
    fn rename() -> Replayed {
        let text = "class Point {\n}\n\nconst a = 1;\nconst p = new Point();\n";
        Request {
            documents: vec![DocumentJson {
                uri: "file:///ws/p.ts".into(),
                language_id: "typescript".into(),
                text: text.into(),
            }],
            edits: vec![EditJson {
                uri: "file:///ws/p.ts".into(),
                start: 11,
                end: 11,
                text: "3D".into(),
            }],
            cursor: CursorJson {
                uri: "file:///ws/p.ts".into(),
                offset: 42,
            },
            ..Request::default()
        }
        .replay()
        .unwrap()
    }

    #[test]
    fn answers_read_with_pilotfishs_two_departures() {
        let replayed = rename();
        let prompt = build(&replayed, &Wording::pilotfish()).unwrap();
        let Body::Chat {
            prediction: Some(window),
            ..
        } = &prompt.body
        else {
            panic!("a chat request")
        };
        let renamed = window.replace("new Point(", "new Point3D(");
        let plain = suggest(&replayed, &prompt, &renamed).expect("the rename is suggested");
        assert_eq!(plain.text, "3D");
        // A fenced answer is read without its fences.
        for fenced in [
            format!("```ts\n{renamed}\n```"),
            format!("```\n{renamed}\n```\n"),
        ] {
            assert_eq!(
                suggest(&replayed, &prompt, &fenced),
                Some(plain.clone()),
                "{fenced:?}"
            );
        }
        // Nothing, a refusal, or unrelated text: no suggestion.
        for junk in [
            "",
            "\n\n",
            "Sorry, I can't assist with that.",
            "lorem ipsum dolor",
        ] {
            assert_eq!(suggest(&replayed, &prompt, junk), None, "{junk:?}");
        }
    }

    #[test]
    fn uri_paths_are_decoded() {
        assert_eq!(uri_path("file:///ws/src/a%20b.ts"), "/ws/src/a b.ts");
        assert_eq!(uri_path("untitled:Untitled-1"), "Untitled-1");
        assert_eq!(uri_path("file://host/x/y.rs"), "/x/y.rs");
    }
}
