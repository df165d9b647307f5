//! One person typing as VS Code drives a language server: the whole document sent after each
//! keystroke, an inline completion asked per keystroke, `$/cancelRequest` for the one still
//! unanswered, a character every so often; after a line's last keystroke, the answer waited
//! for.

use std::time::{Duration, Instant};

use serde_json::json;

use super::lsp::LspClient;

/// What happened to one line's last keystroke.
#[derive(Debug, Clone)]
pub struct Line {
    /// Whether its answer held a suggestion within the limit.
    pub answered: bool,
    /// From the request to its answer (the limit when none came).
    pub after: Duration,
    /// When it got none: the line typed, and why (the language server's log, else the answer).
    pub why: Option<String>,
}

/// What one person's typing came to.
#[derive(Debug, Clone, Default)]
pub struct Typed {
    pub keystrokes: usize,
    pub lines: Vec<Line>,
}

/// A document being typed into at one place.
#[derive(Debug)]
pub struct Document {
    pub uri: String,
    before: String,
    typed: String,
    after: String,
    version: i64,
}

impl Document {
    /// `text` with the cursor where `cursor` (a marker, taken out) is.
    pub fn new(uri: &str, text: &str, cursor: &str) -> Document {
        let at = text
            .find(cursor)
            .expect("the cursor marker is in the document");
        Document {
            uri: uri.to_owned(),
            before: text[..at].to_owned(),
            typed: String::new(),
            after: text[at + cursor.len()..].to_owned(),
            version: 1,
        }
    }

    pub fn text(&self) -> String {
        format!("{}{}{}", self.before, self.typed, self.after)
    }

    /// The cursor's line and character (the text is ASCII: UTF-16 units are bytes).
    fn position(&self) -> (usize, usize) {
        let head = format!("{}{}", self.before, self.typed);
        let line = head.matches('\n').count();
        let character = head.rsplit('\n').next().unwrap_or_default().len();
        (line, character)
    }

    /// Opens the document in the language server.
    pub fn open(&self, lsp: &mut LspClient, language: &str) {
        lsp.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": self.uri, "languageId": language,
                "version": self.version, "text": self.text()}}),
        );
    }
}

/// How the person types.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Between two keystrokes.
    pub every: Duration,
    /// How long a line's last keystroke waits for its answer.
    pub answer_limit: Duration,
}

/// Types `lines` into `doc` (each on a new line after the first), as VS Code drives the
/// language server.
pub fn type_lines(lsp: &mut LspClient, doc: &mut Document, lines: &[String], pace: Pace) -> Typed {
    let mut typed = Typed::default();
    for (n, line) in lines.iter().enumerate() {
        let mut outstanding: Option<i64> = None;
        let mut tick = Instant::now();
        let chars: Vec<char> = line.chars().collect();
        for (k, c) in chars.iter().enumerate() {
            if n > 0 && k == 0 {
                doc.typed.push('\n');
            }
            doc.typed.push(*c);
            doc.version += 1;
            lsp.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": doc.uri, "version": doc.version},
                    "contentChanges": [{"text": doc.text()}]}),
            );
            if let Some(previous) = outstanding.take() {
                lsp.notify("$/cancelRequest", json!({"id": previous}));
            }
            let (l, ch) = doc.position();
            let sent = Instant::now();
            let id = lsp.request(
                "textDocument/inlineCompletion",
                json!({"textDocument": {"uri": doc.uri}, "position": {"line": l, "character": ch},
                    "context": {"triggerKind": 2}}),
            );
            typed.keystrokes += 1;
            if k + 1 == chars.len() {
                let (answer, logged) = lsp.wait_answer_logged(id, pace.answer_limit);
                let after = sent.elapsed().min(pace.answer_limit);
                let answered = answer.as_ref().is_some_and(|a| {
                    a["result"]["items"].as_array().is_some_and(|items| {
                        items.iter().any(|i| {
                            i["insertText"]
                                .as_str()
                                .is_some_and(|t| !t.trim().is_empty())
                        })
                    })
                });
                let why = (!answered).then(|| {
                    let said = logged
                        .iter()
                        .rev()
                        .find(|m| m.contains("no suggestion") || m.contains("no completion"));
                    let why = match (said, &answer) {
                        (Some(said), _) => said.clone(),
                        (None, Some(a)) => format!("answered {}", a),
                        (None, None) => "no answer within the limit".to_owned(),
                    };
                    format!("{line:?}: {why}")
                });
                typed.lines.push(Line {
                    answered,
                    after,
                    why,
                });
                break;
            }
            outstanding = Some(id);
            tick += pace.every;
            // The answers that come meanwhile: one to the request still open closes it.
            while let Some(left) = tick.checked_duration_since(Instant::now()) {
                match lsp.next(left) {
                    Some(m)
                        if m.get("method").is_none()
                            && Some(&m["id"])
                                == outstanding.map(serde_json::Value::from).as_ref() =>
                    {
                        outstanding = None;
                    }
                    Some(_) => {}
                    None => break,
                }
            }
        }
    }
    typed
}
