//! Differential testing against Copilot's own completions library: runs `@vscode/chat-lib`
//! under node as an oracle (see `oracle/` at the repository root) and generates the inputs that
//! both it and pilotfish are given.
//!
//! The oracle is installed by `oracle/setup.sh` from the npm registry. When it cannot be
//! installed or started, [`Oracle::start`] panics with the reason: a differential test never
//! skips silently.

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use serde_json::Value;

pub mod nes_cases;

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A running chat-lib oracle process.
#[derive(Debug)]
pub struct Oracle {
    script: PathBuf,
}

impl Oracle {
    /// Installs the oracle if needed (node, chat-lib, vocabularies) and checks it answers.
    pub fn start() -> Oracle {
        let dir = repo_root().join("oracle");
        let status = Command::new("bash")
            .arg(dir.join("setup.sh"))
            .status()
            .unwrap_or_else(|e| panic!("could not run oracle/setup.sh: {e}"));
        assert!(
            status.success(),
            "oracle/setup.sh failed ({status}); the differential tests need node and the npm registry"
        );
        Oracle {
            script: dir.join("oracle.js"),
        }
    }

    /// Asks all `requests` of one node process and returns the answers in order: `Ok` with the
    /// result, or `Err` with the oracle's error message.
    pub fn ask(&self, requests: &[Value]) -> Vec<Result<Value, String>> {
        let mut child = Command::new("node")
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start node: {e}"));
        let mut stdin = child.stdin.take().expect("piped stdin");
        let lines: Vec<String> = requests
            .iter()
            .map(|r| serde_json::to_string(r).expect("requests serialize"))
            .collect();
        // Write from another thread so that neither pipe can fill while the other waits.
        let writer = std::thread::spawn(move || {
            for line in lines {
                if writeln!(stdin, "{line}").is_err() {
                    break;
                }
            }
        });
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut answers = Vec::with_capacity(requests.len());
        for line in stdout.lines() {
            let line = line.expect("oracle output is UTF-8");
            let v: Value = serde_json::from_str(&line).expect("oracle answers are JSON");
            answers.push(match (v.get("ok"), v.get("err")) {
                (Some(ok), _) => Ok(ok.clone()),
                (_, Some(err)) => Err(err.as_str().unwrap_or_default().to_owned()),
                _ => panic!("malformed oracle answer {line}"),
            });
        }
        writer.join().expect("writer thread");
        let status = child.wait().expect("oracle exits");
        assert!(
            status.success(),
            "the oracle failed ({status}); see its message above"
        );
        assert_eq!(
            answers.len(),
            requests.len(),
            "the oracle answered {} of {} requests",
            answers.len(),
            requests.len()
        );
        answers
    }

    /// [`Oracle::ask`] where every request must succeed.
    pub fn ask_ok(&self, requests: &[Value]) -> Vec<Value> {
        self.ask(requests)
            .into_iter()
            .zip(requests)
            .map(|(a, r)| a.unwrap_or_else(|e| panic!("oracle failed on {r}: {e}")))
            .collect()
    }
}

/// A small deterministic random number generator (SplitMix64), so that every run generates the
/// same cases and a failure can be reproduced from its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub fn pick_ref<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pieces that exercise tokenizers where they are delicate: contractions, digit runs, white
/// space runs of every kind, line ends, accents and combining marks, scripts without spaces,
/// emoji (four UTF-8 bytes, two UTF-16 units) and joined emoji.
const PIECES: &[&str] = &[
    "the",
    "The",
    "THE",
    " quick",
    " brown",
    "fox",
    "'s",
    "'S",
    "'ll",
    "'Ve",
    "'d",
    "don't",
    "0",
    "12",
    "123",
    "1234567",
    "3.14159",
    "0x1F",
    "_",
    "__init__",
    "snake_case",
    "camelCase",
    "HTTPServer",
    " ",
    "  ",
    "    ",
    "        ",
    "\t",
    "\t\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " \n",
    "\n    ",
    "{",
    "}",
    "();",
    "=>",
    "->",
    "::",
    "//",
    "/*",
    "*/",
    "#",
    "<|endoftext|>",
    "<div>",
    "é",
    "e\u{301}",
    "ñ",
    "ß",
    "Ω",
    "Привет",
    "мир",
    "中文",
    "日本語のテキスト",
    "한국어",
    "العربية",
    "עברית",
    "ไทย",
    "😀",
    "👍🏽",
    "👨\u{200D}👩\u{200D}👧",
    "🇫🇷",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "\u{200B}",
    "\u{A0}",
    "\u{2028}",
    "\u{3000}",
    "\u{1680}",
    "…",
    "—",
    "“quoted”",
    "\u{7F}",
    "\u{1}",
    "\\",
    "\"",
    "'",
    "`",
    "~",
    "$",
    "%",
    "^",
    "&&",
    "||",
    "!=",
    "===",
    "+=",
    "<<=",
    "...",
    "?.",
    "@decorator",
];

/// Characters on which chat-lib's tokenizer is known to depart from OpenAI's: NUL (its
/// vocabulary lookup), U+FEFF (JavaScript counts it as white space) and U+0085 (JavaScript does
/// not, OpenAI's Rust regex does).
pub const DIVERGENT_CHARS: &[char] = &['\u{0}', '\u{FEFF}', '\u{85}'];

/// A random text of about `pieces` pieces drawn from [`PIECES`], random ASCII and, at
/// `divergent_percent`, characters from [`DIVERGENT_CHARS`].
pub fn random_text(rng: &mut Rng, pieces: usize, divergent_percent: usize) -> String {
    let mut s = String::new();
    for _ in 0..pieces {
        if rng.chance(divergent_percent) {
            s.push(rng.pick(DIVERGENT_CHARS));
        } else if rng.chance(30) {
            let len = 1 + rng.below(12);
            for _ in 0..len {
                s.push((b' ' + rng.below(95) as u8) as char);
            }
        } else if rng.chance(3) {
            // A long line without breaks.
            let c = rng.pick(&['a', ' ', '=', '-', '中', '😀']);
            let n = 100 + rng.below(900);
            s.extend(std::iter::repeat_n(c, n));
        } else {
            let piece = rng.pick(PIECES);
            s.push_str(piece);
        }
    }
    s
}

/// Real source files to feed both sides: this repository's own code and documents, each read
/// as text.
pub fn real_files() -> Vec<(String, String)> {
    let root = repo_root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path)
                && text.len() < 200_000
            {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, text));
            }
        }
    }
    out.sort();
    out
}

/// The UTF-16 offset of byte offset `byte` in `s`.
pub fn utf16_offset(s: &str, byte: usize) -> usize {
    tokenizer::utf16::utf16_len(&s[..byte])
}

/// A byte offset on a character boundary, chosen at random.
pub fn random_boundary(rng: &mut Rng, s: &str) -> usize {
    let mut b = rng.below(s.len() + 1);
    while !s.is_char_boundary(b) {
        b -= 1;
    }
    b
}
