//! Generated next-edit cases for the differential tests: open documents of code-like text, the
//! edits a user made to them (renames, typed characters, inserted and deleted lines, edits in
//! other files), the cursor and the ranges viewed, each with a short description.
//!
//! Every case is made from its kind and a seed alone, so that a failing case can be made again
//! with [`generate`]. The kinds aim at the places where Copilot's next-edit prompt is delicate:
//! UTF-16 offsets, line ends, file edges, the budgets of the current file, of the edit history
//! and of the other files' snippets, and the cases in which Copilot sends nothing at all.

use nes::request::{CursorJson, DocumentJson, EditJson, RangeJson, Request};
use serde_json::Value;

use crate::{Rng, utf16_offset};

/// What a case exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An identifier renamed where it is declared, the cursor on a later use.
    Rename,
    InsertLines,
    DeleteLines,
    /// Many one-character edits on one line, with typos taken back.
    Typing,
    /// Edits in several other files (more than five, some of 40 lines and more), the cursor in
    /// this one: the recently-edited snippets and their budget.
    OtherFiles,
    /// Accents, CJK and emoji (surrogate pairs) before the edits and the cursor.
    Multibyte,
    /// Edits and the cursor at the very start and end of short files, with and without a
    /// trailing line break, and in empty files.
    Edges,
    /// Any of the other shapes with `\r\n` line ends.
    Crlf,
    /// Files of 300 to 1000 lines, so that the current file is clipped to pages.
    LongFile,
    /// Long lines around the cursor, up to a window too large to send.
    LongLines,
    /// More than 25 edits and more than 1000 tokens of diff history.
    ManyEdits,
    /// The cursor at offset 0, where Copilot falls back to the end of the last edit.
    CursorAtZero,
    /// No edits at all: Copilot sends nothing.
    NoEdits,
    /// Ranges viewed in several documents, before the edits.
    Viewed,
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::Rename,
        Kind::InsertLines,
        Kind::DeleteLines,
        Kind::Typing,
        Kind::OtherFiles,
        Kind::Multibyte,
        Kind::Edges,
        Kind::Crlf,
        Kind::LongFile,
        Kind::LongLines,
        Kind::ManyEdits,
        Kind::CursorAtZero,
        Kind::NoEdits,
        Kind::Viewed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Rename => "rename",
            Kind::InsertLines => "insert lines",
            Kind::DeleteLines => "delete lines",
            Kind::Typing => "typing",
            Kind::OtherFiles => "other files",
            Kind::Multibyte => "multi-byte",
            Kind::Edges => "file edges",
            Kind::Crlf => "crlf",
            Kind::LongFile => "long file",
            Kind::LongLines => "long lines",
            Kind::ManyEdits => "many edits",
            Kind::CursorAtZero => "cursor at 0",
            Kind::NoEdits => "no edits",
            Kind::Viewed => "viewed",
        }
    }
}

mod code;
mod kinds;

pub use code::Language;
use code::*;

/// One generated case.
#[derive(Debug, Clone)]
pub struct Case {
    pub kind: Kind,
    pub seed: u64,
    /// What the user did, in a few words, with the cursor's line and column.
    pub description: String,
    /// The language of the cursor's document.
    pub language: Language,
    pub request: Request,
    /// Each document's text after the edits, by URI, in the order of `request.documents`.
    pub texts_now: Vec<(String, String)>,
}

impl Case {
    /// The oracle's request for this case: the contract's JSON with the operation named.
    pub fn oracle_request(&self, op: &str) -> Value {
        let mut value = serde_json::to_value(&self.request).expect("requests serialize");
        value["op"] = Value::from(op);
        value
    }

    /// The cursor's document as it is after the edits.
    pub fn cursor_text(&self) -> &str {
        self.text_now(&self.request.cursor.uri)
            .expect("the cursor names a document of the case")
    }

    /// A document's text after the edits.
    pub fn text_now(&self, uri: &str) -> Option<&str> {
        self.texts_now
            .iter()
            .find(|(u, _)| u == uri)
            .map(|(_, t)| t.as_str())
    }
}

/// `per_kind` cases of every kind, the kinds interleaved.
pub fn cases(per_kind: usize) -> Vec<Case> {
    let mut out = Vec::with_capacity(per_kind * Kind::ALL.len());
    for seed in 0..per_kind as u64 {
        for &kind in Kind::ALL {
            out.push(generate(kind, seed));
        }
    }
    out
}

/// The case of `kind` made from `seed`.
pub fn generate(kind: Kind, seed: u64) -> Case {
    // Each kind draws from its own stream, so that adding a kind changes no other kind's cases.
    let position = Kind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u64;
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (position + 1) << 48);
    let language = rng.pick(Language::ALL);
    let mut g = Gen {
        rng,
        eol: "\n",
        docs: Vec::new(),
        langs: Vec::new(),
        texts: Vec::new(),
        edits: Vec::new(),
        viewed: Vec::new(),
        cursor: None,
        notes: Vec::new(),
    };
    match kind {
        Kind::Crlf => {
            g.eol = "\r\n";
            let shape = g.rng.pick(&[
                Kind::Rename,
                Kind::InsertLines,
                Kind::DeleteLines,
                Kind::Typing,
                Kind::OtherFiles,
                Kind::Edges,
                Kind::Multibyte,
                Kind::ManyEdits,
                Kind::CursorAtZero,
            ]);
            g.notes.push(format!("CRLF {}", shape.name()));
            g.shape(shape, language);
        }
        _ => g.shape(kind, language),
    }
    // Viewed ranges come with some cases of every kind; the `viewed` kind has them always.
    if kind != Kind::Viewed && g.rng.chance(20) {
        let n = 1 + g.rng.below(2);
        for _ in 0..n {
            let doc = g.rng.below(g.docs.len());
            g.view(doc);
        }
    }
    g.finish(kind, seed)
}

/// Where on a line a cursor goes.
#[derive(Debug, Clone, Copy)]
enum At {
    Start,
    End,
    Anywhere,
}

/// The state of one case being made.
struct Gen {
    rng: Rng,
    eol: &'static str,
    docs: Vec<DocumentJson>,
    /// The language each document is written in (its id may say otherwise).
    langs: Vec<Language>,
    /// Each document's text now.
    texts: Vec<String>,
    edits: Vec<EditJson>,
    viewed: Vec<RangeJson>,
    /// Document and byte offset.
    cursor: Option<(usize, usize)>,
    notes: Vec<String>,
}

/// The primitives the kinds (`kinds.rs`) are made of.
impl Gen {
    // ---- Documents.

    /// A document of `min` lines and up to `spread - 1` more.
    fn new_doc(&mut self, language: Language, min: usize, spread: usize, flavor: Flavor) -> usize {
        let lines = min + self.rng.below(spread);
        let trailing = self.rng.chance(80);
        self.new_doc_with(language, lines, flavor, trailing)
    }

    fn new_doc_with(
        &mut self,
        language: Language,
        lines: usize,
        flavor: Flavor,
        trailing: bool,
    ) -> usize {
        let lines = code(&mut self.rng, language, lines, flavor);
        self.add_doc(language, &lines, trailing)
    }

    fn add_doc(&mut self, language: Language, lines: &[String], trailing: bool) -> usize {
        let mut text = lines.join(self.eol);
        if trailing && !lines.is_empty() {
            text.push_str(self.eol);
        }
        let dir = self.rng.pick(&[
            "src",
            "lib",
            "pkg/util",
            "app/models",
            "my%20lib",
            "caf%C3%A9",
        ]);
        let uri = loop {
            // A document never saved has no path, only a name.
            if self.rng.chance(3) {
                let uri = format!("untitled:Untitled-{}", 1 + self.rng.below(9));
                if !self.docs.iter().any(|d| d.uri == uri) {
                    break uri;
                }
                continue;
            }
            let name = if language.snake() {
                format!("{}_{}", self.rng.pick(WORDS), self.rng.pick(WORDS))
            } else {
                format!("{}{}", self.rng.pick(WORDS), cap(self.rng.pick(WORDS)))
            };
            let uri = format!("file:///ws/{dir}/{name}.{}", language.extension());
            if !self.docs.iter().any(|d| d.uri == uri) {
                break uri;
            }
        };
        // The language id an editor gives is not always the language's own name: chat-lib's
        // import filter knows some ids and not others.
        let language_id = match (language, self.rng.below(20)) {
            (_, 0) => "plaintext",
            (Language::TypeScript, 1) => "typescriptreact",
            (Language::TypeScript, 2) => "javascript",
            (Language::TypeScript, 3) => "javascriptreact",
            (Language::Python, 1) => "",
            _ => language.id(),
        };
        self.docs.push(DocumentJson {
            uri,
            language_id: language_id.to_owned(),
            text: text.clone(),
        });
        self.langs.push(language);
        self.texts.push(text);
        self.docs.len() - 1
    }

    /// Puts the documents in a random order (the indices used while generating stay valid,
    /// since they are only read back through URIs).
    fn shuffle_documents(&mut self) {
        let mut order: Vec<usize> = (0..self.docs.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        let cursor = self.cursor.map(|(d, at)| (self.docs[d].uri.clone(), at));
        self.docs = order.iter().map(|&i| self.docs[i].clone()).collect();
        self.texts = order.iter().map(|&i| self.texts[i].clone()).collect();
        self.langs = order.iter().map(|&i| self.langs[i]).collect();
        if let Some((uri, at)) = cursor {
            let d = self.docs.iter().position(|x| x.uri == uri).expect("kept");
            self.cursor = Some((d, at));
        }
    }

    // ---- Edits. Each records the edit in UTF-16 units of the text at that moment.

    fn replace(&mut self, doc: usize, start: usize, end: usize, text: &str) {
        let now = &self.texts[doc];
        self.edits.push(EditJson {
            uri: self.docs[doc].uri.clone(),
            start: utf16_offset(now, start),
            end: utf16_offset(now, end),
            text: text.to_owned(),
        });
        self.texts[doc].replace_range(start..end, text);
    }

    /// Inserts `unit` at `caret` and returns the caret after it.
    fn type_unit(&mut self, doc: usize, caret: usize, unit: &str) -> usize {
        self.replace(doc, caret, caret, unit);
        caret + unit.len()
    }

    /// Types `text` one character at a time from `caret`, now and then a wrong character
    /// taken back with a backspace, and returns the caret after it.
    fn type_text(&mut self, doc: usize, mut caret: usize, text: &str, typos: bool) -> usize {
        for c in text.chars() {
            if typos && self.rng.chance(10) {
                let wrong = self.rng.pick(&['x', 'q', ';', ' ']);
                caret = self.type_unit(doc, caret, wrong.encode_utf8(&mut [0; 4]));
                self.replace(doc, caret - 1, caret, "");
                caret -= 1;
            }
            caret = self.type_unit(doc, caret, c.encode_utf8(&mut [0; 4]));
        }
        caret
    }

    /// Inserts one to five lines of code, in one of the ways an editor does: whole lines at a
    /// line start, Enter at the end of a line, or line by line.
    fn insert_lines(&mut self, doc: usize, line: Option<usize>) {
        let lines = lines_of(&self.texts[doc]);
        let line = line
            .unwrap_or_else(|| self.rng.below(lines.len()))
            .min(lines.len() - 1);
        let language = self.language_of(doc);
        let names: Vec<String> = words(&self.texts[doc])
            .into_iter()
            .filter(|_| self.rng.chance(5))
            .map(|(s, e)| self.texts[doc][s..e].to_owned())
            .filter(|w| !KEYWORDS.contains(&w.as_str()))
            .collect();
        let k = 1 + self.rng.below(5);
        let new: Vec<String> = (0..k)
            .map(|_| {
                if self.rng.chance(10) {
                    language.import_line(&mut self.rng)
                } else if self.rng.chance(10) {
                    String::new()
                } else {
                    language.statement(&mut self.rng, 1, &names)
                }
            })
            .collect();
        let (start, end) = lines[line];
        match self.rng.below(3) {
            0 => {
                let t: String = new.iter().map(|l| format!("{l}{}", self.eol)).collect();
                self.replace(doc, start, start, &t);
                self.notes
                    .push(format!("inserted {k} lines at line {line}"));
            }
            1 => {
                let t: String = new.iter().map(|l| format!("{}{l}", self.eol)).collect();
                self.replace(doc, end, end, &t);
                self.notes
                    .push(format!("inserted {k} lines after line {line}"));
            }
            _ => {
                let mut at = start;
                for l in &new {
                    let t = format!("{l}{}", self.eol);
                    self.replace(doc, at, at, &t);
                    at += t.len();
                }
                self.notes
                    .push(format!("inserted {k} lines one by one at line {line}"));
            }
        }
    }

    fn delete_lines(&mut self, doc: usize) {
        let text = self.texts[doc].clone();
        let lines = lines_of(&text);
        if lines.len() < 2 {
            self.replace(doc, 0, text.len(), "");
            self.notes.push("deleted everything".into());
            return;
        }
        let line = self.rng.below(lines.len() - 1);
        let k = (1 + self.rng.below(6)).min(lines.len() - 1 - line);
        match self.rng.below(3) {
            0 => {
                self.replace(doc, lines[line].0, lines[line + k].0, "");
                self.notes.push(format!("deleted {k} lines at line {line}"));
            }
            1 => {
                for _ in 0..k {
                    let now = lines_of(&self.texts[doc]);
                    self.replace(doc, now[line].0, now[line + 1].0, "");
                }
                self.notes
                    .push(format!("deleted {k} lines one by one at line {line}"));
            }
            _ => {
                // From inside one line to inside another: the lines are joined.
                let from = self.boundary_in_text(&text, lines[line].0, lines[line].1);
                let last = lines[line + k];
                let to = self.boundary_in_text(&text, last.0, last.1);
                self.replace(doc, from, to, "");
                self.notes
                    .push(format!("deleted from line {line} into line {}", line + k));
            }
        }
    }

    /// Replaces, types, inserts or deletes somewhere in the document, noting what it did.
    fn random_edit(&mut self, doc: usize) {
        let before = self.notes.len();
        let lines = lines_of(&self.texts[doc]);
        let line = self.rng.below(lines.len());
        let (start, end) = lines[line];
        let language = self.language_of(doc);
        match self.rng.below(14) {
            0..=3 => {
                self.edit_on_line(doc, line);
                self.notes.push(format!("edited line {line}"));
            }
            4 | 5 => self.insert_lines(doc, Some(line)),
            6 | 7 => self.delete_lines(doc),
            8 => {
                // Only white space: the history leaves out hunks whose lines are all blank.
                if self.rng.chance(50) {
                    self.replace(doc, start, start, language.indent());
                    self.notes.push(format!("indented line {line}"));
                } else {
                    self.replace(doc, end, end, "  ");
                    self.notes
                        .push(format!("added trailing spaces to line {line}"));
                }
            }
            9 => {
                let t = self.eol.repeat(1 + self.rng.below(2));
                self.replace(doc, start, start, &t);
                self.notes
                    .push(format!("inserted blank lines at line {line}"));
            }
            10 => {
                // A paste of many lines: a focal range longer than a page, and more changed
                // lines than Copilot's per-document history keeps.
                let n = 10 + self.rng.below(40);
                let mut t = code(&mut self.rng, language, n, Flavor::default()).join(self.eol);
                t.push_str(self.eol);
                self.replace(doc, start, start, &t);
                self.notes.push(format!("pasted {n} lines at line {line}"));
            }
            11 => {
                // Typed and taken back: the document is as it was.
                let word = self.rng.pick(WORDS);
                let caret = self.type_text(doc, end, word, false);
                self.replace(doc, end, caret, "");
                self.notes
                    .push(format!("typed and deleted {word:?} on line {line}"));
            }
            12 if self.rng.chance(15) => {
                // The whole document replaced, as a formatter does: indentation changed and
                // trailing white space trimmed, the code the same.
                let text = &self.texts[doc];
                let indent = language.indent();
                let other = if indent == "\t" { "    " } else { "\t" };
                let formatted = text
                    .split('\n')
                    .map(|l| {
                        let cr = l.ends_with('\r');
                        let l = l.trim_end();
                        let body = l.trim_start();
                        let depth = (l.len() - body.len()) / indent.len().max(1);
                        format!(
                            "{}{body}{}",
                            other.repeat(depth),
                            if cr { "\r" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let len = text.len();
                self.replace(doc, 0, len, &formatted);
                self.notes.push("reformatted the whole document".into());
            }
            12 => {
                // A replacement by the same text.
                let same = self.texts[doc][start..end].to_owned();
                self.replace(doc, start, end, &same);
                self.notes.push(format!("replaced line {line} by itself"));
            }
            _ => {
                let text = format!(" {}", self.rng.pick(WORDS));
                self.type_text(doc, end, &text, false);
                self.notes
                    .push(format!("typed {text:?} at the end of line {line}"));
            }
        }
        let uri = &self.docs[doc].uri;
        let name = uri.rsplit('/').next().unwrap_or(uri).to_owned();
        for note in &mut self.notes[before..] {
            *note = format!("{name}: {note}");
        }
    }

    /// [`Gen::random_edit`] without notes, for cases of many edits.
    fn random_edit_quiet(&mut self, doc: usize) {
        let saved = std::mem::take(&mut self.notes);
        self.random_edit(doc);
        self.notes = saved;
    }

    /// Renames a word of the line, or types at its end when it has none.
    fn edit_on_line(&mut self, doc: usize, line: usize) {
        let (start, end) = lines_of(&self.texts[doc])[line];
        let spans = words(&self.texts[doc][start..end]);
        if spans.is_empty() || self.rng.chance(30) {
            let text = format!(" {}", self.rng.pick(WORDS));
            let typos = self.rng.chance(30);
            self.type_text(doc, end, &text, typos);
        } else {
            let (s, e) = spans[self.rng.below(spans.len())];
            let new = format!(
                "{}{}",
                &self.texts[doc][start + s..start + e],
                cap(self.rng.pick(WORDS))
            );
            self.replace(doc, start + s, start + e, &new);
        }
    }

    // ---- The cursor and viewed ranges.

    fn cursor_on_line(&mut self, doc: usize, line: usize, at: At) {
        let lines = lines_of(&self.texts[doc]);
        let (start, end) = lines[line.min(lines.len() - 1)];
        let offset = match at {
            At::Start => start,
            At::End => end,
            At::Anywhere => self.boundary_in(doc, start, end),
        };
        self.cursor = Some((doc, offset));
    }

    fn random_cursor(&mut self, doc: usize) {
        let lines = lines_of(&self.texts[doc]).len();
        let line = self.rng.below(lines);
        let at = self
            .rng
            .pick(&[At::Start, At::End, At::Anywhere, At::Anywhere]);
        self.cursor_on_line(doc, line, at);
    }

    /// A random cursor, but not at offset 0 (which Copilot reads as no cursor at all); that
    /// case has its own kind.
    fn random_cursor_not_zero(&mut self, doc: usize) {
        self.random_cursor(doc);
        if self.cursor == Some((doc, 0)) {
            let len = self.texts[doc].len();
            let at = if len == 0 {
                0
            } else {
                lines_of(&self.texts[doc])[0].1
            };
            self.cursor = Some((doc, at));
        }
    }

    fn cursor_after_last_edit(&mut self, doc: usize) {
        let at = self.last_edit_end(doc).unwrap_or(0);
        self.cursor = Some((doc, at));
        self.notes.push("cursor after the last edit".into());
    }

    /// The byte offset just after the last edit of `doc`, in its text now.
    fn last_edit_end(&self, doc: usize) -> Option<usize> {
        let uri = &self.docs[doc].uri;
        let e = self.edits.iter().rev().find(|e| &e.uri == uri)?;
        let units = e.start + e.text.encode_utf16().count();
        nes::history::byte_offset(&self.texts[doc], units).ok()
    }

    /// The line of the last edit of `doc`, and its byte offset.
    fn edit_line(&self, doc: usize) -> (usize, usize) {
        let at = self.last_edit_end(doc).unwrap_or(0);
        let line = self.texts[doc][..at].matches('\n').count();
        (line, at)
    }

    /// A line with text that is not ASCII, or any line when there is none.
    fn multibyte_line(&mut self, doc: usize) -> usize {
        let text = &self.texts[doc];
        let lines = lines_of(text);
        let candidates: Vec<usize> = (0..lines.len())
            .filter(|&i| !text[lines[i].0..lines[i].1].is_ascii())
            .collect();
        if candidates.is_empty() {
            self.rng.below(lines.len())
        } else {
            candidates[self.rng.below(candidates.len())]
        }
    }

    /// A viewed range of the document as it is before the edits.
    fn view(&mut self, doc: usize) {
        let text = self.docs[doc].text.clone();
        let a = self.boundary_in_text(&text, 0, text.len());
        let b = self.boundary_in_text(&text, a, text.len());
        self.viewed.push(RangeJson {
            uri: self.docs[doc].uri.clone(),
            start: utf16_offset(&text, a),
            end: utf16_offset(&text, b),
        });
    }

    fn boundary_in(&mut self, doc: usize, start: usize, end: usize) -> usize {
        let text = std::mem::take(&mut self.texts[doc]);
        let at = self.boundary_in_text(&text, start, end);
        self.texts[doc] = text;
        at
    }

    /// A character boundary in `[start, end]`, never between `\r` and `\n`.
    fn boundary_in_text(&mut self, text: &str, start: usize, end: usize) -> usize {
        let mut at = start + self.rng.below(end - start + 1);
        while !text.is_char_boundary(at)
            || (text[..at].ends_with('\r') && text[at..].starts_with('\n'))
        {
            at -= 1;
        }
        at.max(start)
    }

    fn random_boundary(&mut self, doc: usize) -> usize {
        let len = self.texts[doc].len();
        self.boundary_in(doc, 0, len)
    }

    fn language_of(&self, doc: usize) -> Language {
        self.langs[doc]
    }

    fn finish(self, kind: Kind, seed: u64) -> Case {
        let (doc, at) = self.cursor.unwrap_or((0, 0));
        let text = &self.texts[doc];
        let before = &text[..at];
        let line = before.matches('\n').count();
        let column = utf16_offset(before, before.len())
            - before
                .rfind('\n')
                .map_or(0, |i| utf16_offset(before, i + 1));
        let offset = utf16_offset(text, at);
        let language = self.language_of(doc);
        let mut description = format!(
            "{} #{seed} ({} as {:?}, {} docs, {} edits): {}; cursor at {line}:{column} (offset {offset}) of {}",
            kind.name(),
            language.id(),
            self.docs[doc].language_id,
            self.docs.len(),
            self.edits.len(),
            self.notes.join("; "),
            self.docs[doc].uri,
        );
        if !self.viewed.is_empty() {
            description.push_str(&format!("; {} viewed ranges", self.viewed.len()));
        }
        // Every other case is in a workspace folder, as a file open in VS Code usually is: the
        // current file's path is then relative to it (or not, for a file outside it).
        let workspace_root = match seed % 4 {
            1 => Some("file:///ws".to_owned()),
            3 => Some("file:///ws/lib/".to_owned()),
            _ => None,
        };
        if let Some(root) = &workspace_root {
            description.push_str(&format!("; workspace folder {root}"));
        }
        let texts_now = self
            .docs
            .iter()
            .zip(&self.texts)
            .map(|(d, t)| (d.uri.clone(), t.clone()))
            .collect();
        Case {
            kind,
            seed,
            description,
            language,
            request: Request {
                cursor: CursorJson {
                    uri: self.docs[doc].uri.clone(),
                    offset,
                },
                documents: self.docs,
                edits: self.edits,
                viewed: self.viewed,
                options: Default::default(),
                workspace_root,
            },
            texts_now,
        }
    }
}
