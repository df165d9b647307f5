//! Block parsing against chat-lib's tree-sitter block parser: is the cursor at the start of an
//! empty block (Copilot then asks for several lines), and where has an answer finished the
//! block body it was writing (Copilot then stops the stream there).

use differential::{Oracle, Rng, utf16_offset};
use serde_json::{Value, json};

const PYTHON: &[&str] = &[
    "def foo(a, b):",
    "class A:",
    "    def m(self):",
    "if x:",
    "elif y:",
    "else:",
    "for i in range(3):",
    "while True:",
    "try:",
    "except ValueError:",
    "finally:",
    "with open(f) as g:",
    "    return x",
    "    pass",
    "x = 1",
    "    \"\"\"Doc.\"\"\"",
    "    \"\"\"",
    "# comment",
    "    # comment",
    "",
    "    ",
    "        y = 2",
    "print(x)",
    "def f(x: int",
    "):",
    "    ex",
    "    finall",
    "async def g():",
    "    if a: b()",
];

const JS: &[&str] = &[
    "function f(a) {",
    "}",
    "if (x) {",
    "} else {",
    "for (let i = 0; i < n; i++) {",
    "while (x)",
    "  return 1;",
    "const o = {",
    "class A {",
    "  m() {",
    "try {",
    "} catch (e) {",
    "} finally {",
    "do {",
    "} while (x);",
    "const g = () => {",
    "const h = (a) =>",
    "  x++;",
    "",
    "  ",
    "// comment",
    "let x = 1;",
    "if (y)",
    "else",
    "  ;",
    "function* gen() {",
    "  foo()",
    "});",
];

const TS_ONLY: &[&str] = &[
    "namespace N {",
    "declare module 'm' {",
    "function s(a: number): void;",
    "function t(a: number): void",
    "interface I {",
    "  x: number;",
    "abstract class B {",
    "  private y: string = '';",
];

const GO: &[&str] = &[
    "package main",
    "func f() {",
    "}",
    "if x {",
    "} else {",
    "for i := 0; i < 3; i++ {",
    "x := 1",
    "\treturn x",
    "switch x {",
    "case 1:",
    "default:",
    "",
    "\t",
    "go func() {",
    "}()",
    "func (s *S) m() int {",
    "\tif err != nil {",
    "\t}",
];

fn lines_for(language: &str) -> Vec<&'static str> {
    match language {
        "python" => PYTHON.to_vec(),
        "go" => GO.to_vec(),
        "typescript" | "typescriptreact" => JS.iter().chain(TS_ONLY).copied().collect(),
        _ => JS.to_vec(),
    }
}

fn document(rng: &mut Rng, lines: &[&str], n: usize) -> String {
    let mut out: Vec<String> = (0..n).map(|_| rng.pick(lines).to_owned()).collect();
    // Now and then a non-ASCII identifier, so that byte and UTF-16 offsets differ.
    if rng.chance(15) && !out.is_empty() {
        let i = rng.below(out.len());
        out[i].push_str(" // héllo 😀");
    }
    out.join("\n")
}

fn compare(oracle: &Oracle, what: &str, cases: Vec<(Value, Value)>) -> usize {
    let (requests, ours): (Vec<Value>, Vec<Value>) = cases.into_iter().unzip();
    let answers = oracle.ask_ok(&requests);
    let bad: Vec<String> = requests
        .iter()
        .zip(&answers)
        .zip(&ours)
        .filter(|((_, a), o)| a != o)
        .map(|((r, a), o)| format!("{r}: chat-lib {a}, pilotfish {o}"))
        .collect();
    let shown: Vec<&String> = bad.iter().take(5).collect();
    eprintln!(
        "{what}: {} cases, {} mismatches{}",
        requests.len(),
        bad.len(),
        if shown.is_empty() {
            String::new()
        } else {
            format!(
                "\n{}",
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }
    );
    bad.len()
}

const LANGUAGES: &[&str] = &[
    "python",
    "javascript",
    "javascriptreact",
    "typescript",
    "typescriptreact",
    "go",
];

#[test]
fn empty_block_start_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(61);
    let mut cases = Vec::new();
    let mut positives = 0;
    for _ in 0..2400 {
        let language = rng.pick(LANGUAGES);
        let lines = lines_for(language);
        let n = 1 + rng.below(7);
        let text = document(&mut rng, &lines, n);
        // Mostly the end of a line, where the question matters; sometimes anywhere.
        let offset = if rng.chance(70) {
            let ends: Vec<usize> = text
                .match_indices('\n')
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            *rng.pick_ref(&ends)
        } else {
            differential::random_boundary(&mut rng, &text)
        };
        let ours = syntax::blocks::is_empty_block_start(language, &text, offset);
        positives += usize::from(ours);
        cases.push((
            json!({"op": "empty_block_start", "languageId": language, "text": text,
                   "offset": utf16_offset(&text, offset)}),
            json!(ours),
        ));
    }
    eprintln!("empty block start: {positives} positives");
    assert_eq!(compare(&oracle, "empty block start", cases), 0);
}

#[test]
fn block_body_finished_matches_chat_lib() {
    let oracle = Oracle::start();
    let mut rng = Rng::new(62);
    let mut cases = Vec::new();
    let mut finished = 0;
    for _ in 0..2400 {
        let language = rng.pick(LANGUAGES);
        let lines = lines_for(language);
        let n = 1 + rng.below(5);
        let mut prefix = document(&mut rng, &lines, n);
        prefix.push('\n');
        prefix.push_str(rng.pick(&["", "  ", "    ", "\t"]));
        let m = 1 + rng.below(5);
        let mut completion = document(&mut rng, &lines, m);
        if rng.chance(50) {
            completion.push('\n');
        }
        let ours = syntax::blocks::block_body_finished(language, &prefix, &completion);
        finished += usize::from(ours.is_some());
        let ours = ours.map(|n| utf16_offset(&completion, n));
        cases.push((
            json!({"op": "block_finished", "languageId": language, "prefix": prefix,
                   "completion": completion}),
            json!(ours),
        ));
    }
    eprintln!("block body finished: {finished} finished");
    assert_eq!(compare(&oracle, "block body finished", cases), 0);
}

const INDENTED: &[&str] = &[
    "x = 1",
    "if x:",
    "} else {",
    "end",
    "done",
    "elsewhere()",
    "\"\"\"",
    "\"\"\"Doc.\"\"\"",
    "  \"\"\"Starts",
    "ends.\"\"\"",
    "",
    "\r",
    "ü = 2",
    "(",
    "catch_all()",
    "then",
];

fn indented_lines(rng: &mut Rng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let indent = rng.pick(&["", "  ", "    ", "\t", "        ", " \t"]);
            format!("{indent}{}", rng.pick(INDENTED))
        })
        .collect()
}

fn context_json(c: engine::indentation::ContextIndentation) -> Value {
    let mut v = json!({"current": c.current});
    if let Some(p) = c.prev {
        v["prev"] = json!(p);
    }
    if let Some(n) = c.next {
        v["next"] = json!(n);
    }
    v
}

#[test]
fn indentation_mode_matches_chat_lib() {
    use engine::indentation::{context_indentation, indentation_block_finished};
    let oracle = Oracle::start();
    let mut rng = Rng::new(63);
    let mut contexts = Vec::new();
    let mut finishes = Vec::new();
    for _ in 0..1500 {
        let n = rng.below(9);
        let source = indented_lines(&mut rng, n).join("\n");
        let offset = differential::random_boundary(&mut rng, &source);
        let language = rng.pick(&["python", "ruby", "plaintext"]);
        let ours = context_indentation(&source, offset, language);
        contexts.push((
            json!({"op": "context_indentation", "source": source, "languageId": language,
                   "offset": utf16_offset(&source, offset)}),
            context_json(ours),
        ));
        let m = 1 + rng.below(6);
        let completion = indented_lines(&mut rng, m).join("\n");
        let cut = indentation_block_finished(&completion, ours);
        finishes.push((
            json!({"op": "indentation_finished", "context": context_json(ours),
                   "completion": completion}),
            json!(cut.map(|b| utf16_offset(&completion, b))),
        ));
    }
    assert_eq!(compare(&oracle, "context indentation", contexts), 0);
    assert_eq!(compare(&oracle, "indentation block finished", finishes), 0);
}
