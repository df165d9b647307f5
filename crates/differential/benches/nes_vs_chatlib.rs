//! What is measured: building a next edit suggestion's request, pilotfish's `copilot` strategy
//! against Copilot's own library (chat-lib's `createNESProvider` under node), on the same
//! generated cases (`differential::nes_cases`) in the same run. Both go from the editor's
//! events (the documents as they were, the edits, the cursor) to the chat request: pilotfish
//! replays the request and builds the prompt in process; chat-lib is timed in process by
//! `oracle/nes-bench.js` (a fresh provider per request, as the differential tests use it,
//! the network answered at once). Each side warms up, then the median of the runs' mean time
//! per request is reported, for all kinds of cases and for the long files alone.
//!
//! Run with `cargo bench -p differential --bench nes_vs_chatlib`.

use std::{
    io::Write,
    process::{Command, Stdio},
    time::Instant,
};

use differential::{
    Oracle,
    nes_cases::{Case, Kind, cases},
    repo_root,
};
use serde_json::{Value, json};

const RUNS: usize = 9;

/// pilotfish's median time per request, in nanoseconds.
fn ours(cases: &[Case]) -> f64 {
    // Copilot's texts where they were fetched, else pilotfish's: the time is the same.
    let wording = host::copilot_texts::load(None).wording;
    let mut per_run: Vec<f64> = (0..RUNS + 2)
        .map(|_| {
            let t = Instant::now();
            for c in cases {
                let replayed = c.request.replay().expect("generated requests are valid");
                let prompt = nes::strategies::build(&replayed, &wording);
                std::hint::black_box(&prompt);
            }
            t.elapsed().as_nanos() as f64 / cases.len() as f64
        })
        .skip(2)
        .collect();
    per_run.sort_by(f64::total_cmp);
    per_run[per_run.len() / 2]
}

/// chat-lib's median time per request, in nanoseconds.
fn theirs(cases: &[Case]) -> f64 {
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| c.oracle_request("nes_request"))
        .collect();
    let mut child = Command::new("node")
        .arg(repo_root().join("oracle/nes-bench.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    let input = json!({"runs": RUNS, "requests": requests}).to_string();
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("node reads the workload");
    let out = child.wait_with_output().expect("node finishes");
    assert!(out.status.success(), "oracle/nes-bench.js failed");
    let v: Value = serde_json::from_slice(&out.stdout).expect("nes-bench.js prints JSON");
    v["nes_request"].as_f64().expect("a time")
}

fn main() {
    // Installs node and chat-lib when they are missing, as the differential tests do.
    let _oracle = Oracle::start();
    let all = cases(10);
    let long: Vec<Case> = all
        .iter()
        .filter(|c| c.kind == Kind::LongFile)
        .cloned()
        .collect();
    println!("next edit request building, median time per request (same cases, same run):");
    for (name, set) in [("all kinds", &all), ("long files", &long)] {
        let (p, c) = (ours(set), theirs(set));
        println!(
            "  {name:<11} {:>4} cases: pilotfish {:>9.1} µs, chat-lib {:>9.1} µs, chat-lib/pilotfish = {:.1}x",
            set.len(),
            p / 1e3,
            c / 1e3,
            c / p
        );
    }
}
