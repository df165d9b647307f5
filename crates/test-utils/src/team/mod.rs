//! N people typing at once on one shared model server, each through their own `pilotfish lsp`
//! driven as VS Code drives it ([`typist`]): a request per keystroke, `$/cancelRequest` for the
//! superseded one, a character every 150 ms. What the server read and generated per keystroke
//! and whether anything still runs after the typing are read off the server itself
//! ([`server`]). Shared by the team tests (`crates/cli/tests/it/team.rs`) and the benchmark
//! (`crates/ghost/benches/team_typing.rs`).

pub mod llama_vscode;
pub mod lsp;
pub mod server;
pub mod typist;

use std::{
    path::Path,
    time::{Duration, Instant},
};

pub use server::{Counters, Engine, Shared};
pub use typist::{Line, Pace, Typed};

/// What the people type and how.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Lines each person types (at most [`LINES`]).
    pub lines: usize,
    pub pace: Pace,
    /// Person `n` starts typing `n` times this after the first. Zero: everyone starts at once
    /// and, typing the same lines at the same pace, ends each line at the same moment
    /// (lock-step, the hardest case for a shared server); real people do not.
    pub stagger: Duration,
    /// `pilotfish lsp`'s arguments after the endpoint (`--config FILE`, …).
    pub args: Vec<String>,
}

/// The lines typed, `{n}` standing for the person's number.
pub const LINES: [&str; 6] = [
    "    subtotal = order_total_{n}(",
    "    saved = subtotal * ",
    "    heavy = heaviest_{n}(",
    "    if heavy is not None and heavy.quantity > ",
    "    labels = names_{n}(",
    "    return round(subtotal - ",
];

/// Person `n`'s document (a Python module of their own), with `<CURSOR>` where they type.
pub fn document(n: usize) -> String {
    let mut text = format!(
        "\"\"\"The orders of shop number {n}: items, totals, taxes and discounts.\"\"\"\n\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Item{n}:\n    name: str\n    price: float\n    quantity: int\n\n\n"
    );
    for (what, body) in [
        (
            "order_total",
            "    amount = 0.0\n    for item in items:\n        amount += item.price * item.quantity\n    return amount\n",
        ),
        (
            "heaviest",
            "    best = None\n    for item in items:\n        if best is None or item.quantity > best.quantity:\n            best = item\n    return best\n",
        ),
        ("names", "    return sorted(item.name for item in items)\n"),
        ("tax", "    return order_total_{n}(items) * 0.2\n"),
    ] {
        text.push_str(&format!(
            "def {what}_{n}(items):\n{}\n\n",
            body.replace("{n}", &n.to_string())
        ));
    }
    text.push_str(&format!(
        "def discount_{n}(items, rate):\n<CURSOR>\n\n\ndef receipt_{n}(items):\n    return [item.name for item in items]\n"
    ));
    text
}

/// What a team's typing came to.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub people: usize,
    pub keystrokes: usize,
    pub lines: Vec<Line>,
    /// The server's counters over the typing (after every document was warmed).
    pub work: Counters,
    /// Requests the server still worked on 2 s after the last answer.
    pub busy_after: usize,
}

impl Outcome {
    pub fn answered(&self) -> usize {
        self.lines.iter().filter(|l| l.answered).count()
    }

    pub fn generated_per_keystroke(&self) -> f64 {
        self.work.generated / self.keystrokes.max(1) as f64
    }

    pub fn read_per_keystroke(&self) -> f64 {
        self.work.prompt_read / self.keystrokes.max(1) as f64
    }

    /// The share of prompt tokens the server's cache served, where it says.
    pub fn cache_hit_share(&self) -> Option<f64> {
        (self.work.cache_queries > 0.0).then(|| self.work.cache_hits / self.work.cache_queries)
    }

    /// The `q` quantile (0 to 1) of the time to a line's last answer.
    pub fn quantile(&self, q: f64) -> Duration {
        let mut all: Vec<Duration> = self.lines.iter().map(|l| l.after).collect();
        all.sort();
        if all.is_empty() {
            return Duration::ZERO;
        }
        all[((all.len() - 1) as f64 * q).round() as usize]
    }
}

/// Who asks the server.
#[derive(Debug, Clone, Copy)]
pub enum Client<'a> {
    /// Each person through their own `pilotfish lsp` of this binary.
    Pilotfish(&'a Path),
    /// Each person in llama.vscode's request shape (see [`llama_vscode`]); the model's name
    /// for vLLM.
    LlamaVscode(&'a str),
}

/// The lines person `n` types.
fn lines_of(n: usize, workload: &Workload) -> Vec<String> {
    LINES[..workload.lines.min(LINES.len())]
        .iter()
        .map(|l| l.replace("{n}", &n.to_string()))
        .collect()
}

/// `people` people typing at once on `shared`, as `client` asks. Returns once every line's
/// last keystroke was answered or gave up, and 2 s more passed.
pub fn type_together(
    client: Client<'_>,
    shared: &Shared,
    people: usize,
    workload: &Workload,
    scratch: &Path,
) -> Outcome {
    match client {
        Client::Pilotfish(bin) => pilotfish_together(bin, shared, people, workload, scratch),
        Client::LlamaVscode(model) => {
            let before = shared.counters();
            let port = shared.port();
            let typed: Vec<Typed> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..people)
                    .map(|n| {
                        let lines = lines_of(n, workload);
                        let start = workload.stagger * n as u32;
                        s.spawn(move || {
                            std::thread::sleep(start);
                            let text = document(n);
                            let (engine, pace) = (shared.engine, workload.pace);
                            llama_vscode::type_lines(
                                engine, port, model, &text, "<CURSOR>", &lines, pace,
                            )
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a typist finishes"))
                    .collect()
            });
            outcome(shared, people, before, typed)
        }
    }
}

/// What the typing came to, the server's counters since `before`, and 2 s later whether it
/// still works.
fn outcome(shared: &Shared, people: usize, before: Counters, typed: Vec<Typed>) -> Outcome {
    let work = shared.counters() - before;
    std::thread::sleep(Duration::from_secs(2));
    let busy_after = shared.busy();
    Outcome {
        people,
        keystrokes: typed.iter().map(|t| t.keystrokes).sum(),
        lines: typed.iter().flat_map(|t| t.lines.clone()).collect(),
        work,
        busy_after,
    }
}

/// [`type_together`] through `bin`'s language server; each person has a home of its own under
/// `scratch`.
fn pilotfish_together(
    bin: &Path,
    shared: &Shared,
    people: usize,
    workload: &Workload,
    scratch: &Path,
) -> Outcome {
    let mut args = vec!["--endpoint".to_owned(), shared.url.clone()];
    args.extend(workload.args.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Everyone starts and opens their document, and waits for its warming, before anyone
    // types: the typing is what is measured.
    let mut team = Vec::new();
    for n in 0..people {
        let home = scratch.join(format!("person-{n}"));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).expect("a home for each person");
        let mut lsp = lsp::LspClient::start(bin, &args, &home);
        let uri = format!("file://{}/shop_{n}.py", home.display());
        let doc = typist::Document::new(&uri, &document(n), "<CURSOR>");
        doc.open(&mut lsp, "python");
        team.push((lsp, doc));
    }
    for (lsp, _) in &mut team {
        wait_for_warming(lsp);
    }
    let before = shared.counters();
    let lines: Vec<Vec<String>> = (0..people).map(|n| lines_of(n, workload)).collect();
    let pace = workload.pace;
    let typed: Vec<(Typed, lsp::LspClient)> = std::thread::scope(|s| {
        let handles: Vec<_> = team
            .into_iter()
            .zip(&lines)
            .enumerate()
            .map(|(n, ((mut lsp, mut doc), lines))| {
                let start = workload.stagger * n as u32;
                s.spawn(move || {
                    std::thread::sleep(start);
                    (typist::type_lines(&mut lsp, &mut doc, lines, pace), lsp)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a typist finishes"))
            .collect()
    });
    // The language servers live until the server was asked whether it still works.
    let (typed, _lsps): (Vec<Typed>, Vec<lsp::LspClient>) = typed.into_iter().unzip();
    outcome(shared, people, before, typed)
}

/// Waits (at most three minutes) for the language server's line on warming the document.
fn wait_for_warming(lsp: &mut lsp::LspClient) {
    let until = Instant::now() + Duration::from_secs(180);
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        let Some(m) = lsp.next(left) else { return };
        if m["params"]["message"]
            .as_str()
            .is_some_and(|t| t.contains("cache for"))
        {
            return;
        }
    }
}
