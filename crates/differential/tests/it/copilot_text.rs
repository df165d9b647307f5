//! No passage of Copilot's library text in pilotfish's repository. Every string, template and
//! comment of `@vscode/chat-lib`'s published code (as `oracle/setup.sh` installs it) is cut
//! into runs of `WINDOW` characters, and every file git tracks here is searched for them. Only
//! runs of prose count (at least `WORDS` plain words): the package's module paths, tree-sitter
//! queries and identifiers are facts of its interface, which pilotfish must name to talk to it
//! or to match its format, and short protocol markers (`<|code_to_edit|>`, `Path:`) are far
//! shorter than a run. Copilot's own prompt texts are read at run time instead
//! (`tools/copilot-texts.sh`, `host::copilot_texts`).
//!
//! White space, backslashes and comment leaders are ignored on both sides, so a passage wrapped
//! over lines, continued with `\` in a Rust string or spread over `///` lines is still found.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    process::Command,
};

use differential::{Oracle, repo_root};
use oxc_ast::ast::{StringLiteral, TemplateElement};
use oxc_ast_visit::Visit;

/// The length of the runs compared, in characters after normalizing.
const WINDOW: usize = 40;
/// The plain words a run must hold to be prose.
const WORDS: usize = 5;

#[test]
fn no_passage_of_chatlibs_text_is_in_the_repository() {
    let index = Index::new(chatlib_passages());
    let root = repo_root();
    let mut found = Vec::new();
    for path in tracked_files(&root) {
        // Binary files (images) hold no text to copy.
        let Ok(text) = std::fs::read_to_string(root.join(&path)) else {
            continue;
        };
        for hit in index.search(&text) {
            found.push(format!(
                "{}:{}: {:?} (from chat-lib's {})",
                path.display(),
                hit.line,
                hit.text,
                hit.source
            ));
        }
    }
    assert!(
        found.is_empty(),
        "{} passages of Copilot's library text are in the repository; rewrite them in our own \
         words, or read them from Copilot's package at run time (tools/copilot-texts.sh):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The scan finds what it looks for: a passage of chat-lib's planted in a Rust doc comment,
/// wrapped over lines, and in a Rust string continued with backslashes, is found; the same
/// words in another order are not.
#[test]
fn the_scan_finds_a_planted_passage_however_it_is_wrapped() {
    let passages = chatlib_passages();
    let index = Index::new(passages.clone());
    let (_, passage) = passages
        .iter()
        .find(|(_, t)| {
            let chars: Vec<char> = normalize(t).0.chars().collect();
            chars.len() > 80 && prose(&chars[..WINDOW])
        })
        .expect("chat-lib has prose");
    let words: Vec<&str> = passage.split_whitespace().collect();
    let half = words.len() / 2;
    let doc = format!(
        "fn f() {{}}\n/// {}\n///   {}\nfn g() {{}}\n",
        words[..half].join(" "),
        words[half..].join(" ")
    );
    let string = format!(
        "let s = \"{} \\\n         {}\";\n",
        words[..half].join(" "),
        words[half..].join(" ")
    );
    for (planted, line) in [(doc, 2), (string, 1)] {
        let hits = index.search(&planted);
        assert_eq!(
            hits.first().map(|h| h.line),
            Some(line),
            "not found where planted in {planted:?}"
        );
    }
    let mut shuffled = words.clone();
    shuffled.reverse();
    assert!(index.search(&shuffled.join(" ")).is_empty());
}

/// Every string, template piece and comment of chat-lib's code, with the file it is in.
fn chatlib_passages() -> Vec<(String, String)> {
    Oracle::start();
    let dist = repo_root().join("oracle/node_modules/@vscode/chat-lib/dist/src");
    let mut files = Vec::new();
    walk(&dist, &mut files);
    assert!(
        files.len() > 100,
        "chat-lib's code is not at {}",
        dist.display()
    );
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(&dist).unwrap().display().to_string();
        let allocator = oxc_allocator::Allocator::default();
        let parsed = oxc_parser::Parser::new(&allocator, &text, oxc_span::SourceType::cjs())
            .with_options(oxc_parser::ParseOptions {
                allow_return_outside_function: true,
                ..oxc_parser::ParseOptions::default()
            })
            .parse();
        assert!(
            parsed.diagnostics.errors().next().is_none(),
            "chat-lib's {name} does not parse"
        );
        let mut strings = Strings(Vec::new());
        strings.visit_program(&parsed.program);
        for comment in parsed.program.comments.iter() {
            let span = comment.content_span();
            let comment = &text[span.start as usize..span.end as usize];
            if !licence_notice(comment) {
                strings.0.push(comment.to_owned());
            }
        }
        out.extend(strings.0.into_iter().map(|s| (name.clone(), s)));
    }
    out
}

/// Whether a comment is a standard licence notice (chat-lib carries the MIT licence of code it
/// took from Node.js): its words are the licence's, not Copilot's, and third-party code the
/// tests carry under that licence holds the same notice.
fn licence_notice(comment: &str) -> bool {
    const NOTICES: [&str; 3] = [
        "Permission is hereby granted, free of charge",
        "THE SOFTWARE IS PROVIDED \"AS IS\"",
        "Licensed under the MIT License",
    ];
    NOTICES.iter().any(|n| comment.contains(n))
}

/// The `.js` files under `dir`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "js") {
            out.push(path);
        }
    }
}

struct Strings(Vec<String>);

impl<'a> Visit<'a> for Strings {
    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        self.0.push(it.value.to_string());
    }

    fn visit_template_element(&mut self, it: &TemplateElement<'a>) {
        let value = it.value.cooked.as_ref().unwrap_or(&it.value.raw);
        self.0.push(value.to_string());
    }
}

/// The files git tracks in the repository.
fn tracked_files(root: &Path) -> Vec<PathBuf> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .expect("git runs: the scan needs the repository's list of files");
    assert!(
        out.status.success(),
        "git ls-files failed in {}",
        root.display()
    );
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
        .collect()
}

/// A text with comment leaders at the start of its lines and backslashes dropped and every run
/// of white space made one space; and the line of the original text each character is on.
fn normalize(text: &str) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut lines = Vec::new();
    let mut space = true;
    for (n, line) in text.lines().enumerate() {
        let mut rest = line.trim_start();
        for leader in ["//!", "///", "//", "#", "*", ">"] {
            if let Some(r) = rest.strip_prefix(leader) {
                rest = r;
                break;
            }
        }
        for c in rest.chars().chain([' ']) {
            if c == '\\' {
                continue;
            }
            if c.is_whitespace() {
                if !space {
                    out.push(' ');
                    lines.push(n + 1);
                }
                space = true;
            } else {
                out.push(c);
                lines.push(n + 1);
                space = false;
            }
        }
    }
    (out, lines)
}

/// Whether a run of characters is prose: at least `WORDS` words of letters alone (an
/// apostrophe inside, punctuation after).
fn prose(run: &[char]) -> bool {
    let text: String = run.iter().collect();
    text.split(' ')
        .filter(|w| {
            let w = w.trim_end_matches(['.', ',', ';', ':', '!', '?']);
            !w.is_empty()
                && w.chars().all(|c| c.is_alphabetic() || c == '\'')
                && w.chars().next().is_some_and(char::is_alphabetic)
        })
        .count()
        >= WORDS
}

/// chat-lib's prose runs by their rolling hash.
struct Index {
    passages: Vec<(String, Vec<char>)>,
    /// The hash of a run → the passage and where in it the run starts.
    runs: HashMap<u64, (usize, usize)>,
}

/// A run of chat-lib's prose found in a text, made as long as the match goes.
struct Hit {
    line: usize,
    text: String,
    source: String,
}

const BASE: u64 = 1_000_003;

impl Index {
    fn new(passages: Vec<(String, String)>) -> Index {
        let passages: Vec<(String, Vec<char>)> = passages
            .into_iter()
            .map(|(f, t)| (f, normalize(&t).0.chars().collect()))
            .filter(|(_, t): &(String, Vec<char>)| t.len() >= WINDOW)
            .collect();
        let mut runs = HashMap::new();
        for (p, (_, chars)) in passages.iter().enumerate() {
            for (start, hash) in rolling(chars) {
                if prose(&chars[start..start + WINDOW]) {
                    runs.entry(hash).or_insert((p, start));
                }
            }
        }
        Index { passages, runs }
    }

    fn search(&self, text: &str) -> Vec<Hit> {
        let (normal, lines) = normalize(text);
        let chars: Vec<char> = normal.chars().collect();
        let mut hits = Vec::new();
        let mut next = 0;
        for (start, hash) in rolling(&chars) {
            if start < next {
                continue;
            }
            let Some(&(p, at)) = self.runs.get(&hash) else {
                continue;
            };
            let (source, passage) = &self.passages[p];
            if passage[at..at + WINDOW] != chars[start..start + WINDOW] {
                continue;
            }
            let mut len = WINDOW;
            while at + len < passage.len()
                && start + len < chars.len()
                && passage[at + len] == chars[start + len]
            {
                len += 1;
            }
            hits.push(Hit {
                line: lines[start],
                text: chars[start..start + len].iter().collect(),
                source: source.clone(),
            });
            next = start + len;
        }
        hits
    }
}

/// The rolling hash of every run of `WINDOW` characters, by where it starts.
fn rolling(chars: &[char]) -> impl Iterator<Item = (usize, u64)> + '_ {
    let top = (1..WINDOW).fold(1u64, |p, _| p.wrapping_mul(BASE));
    let mut hash = 0u64;
    let mut i = 0;
    std::iter::from_fn(move || {
        if chars.len() < WINDOW || i + WINDOW > chars.len() {
            return None;
        }
        if i == 0 {
            hash = chars[..WINDOW]
                .iter()
                .fold(0u64, |h, &c| h.wrapping_mul(BASE).wrapping_add(c as u64));
        } else {
            hash = hash
                .wrapping_sub((chars[i - 1] as u64).wrapping_mul(top))
                .wrapping_mul(BASE)
                .wrapping_add(chars[i + WINDOW - 1] as u64);
        }
        i += 1;
        Some((i - 1, hash))
    })
}
