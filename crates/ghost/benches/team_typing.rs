//! A team typing at once on one shared model server: 1, 2, 4 and 8 people, each through their
//! own `pilotfish lsp` driven as VS Code drives it (a request per keystroke, `$/cancelRequest`
//! for the superseded one, a character every 150 ms), against a real 4-slot llama-server with
//! SmolLM2 (and the real vLLM for CPU when `PILOTFISH_TEAM_SERVERS` asks: `llama,vllm` or
//! `vllm`), beside the same typing in llama.vscode's request shape on the same server in the
//! same run (harness: `test_utils::team`).
//!
//! Prints per N: prompt tokens read and tokens generated per keystroke (the server's own
//! counters), the median and 95th percentile time from a line's last keystroke to its answer,
//! the lines answered within 10 s, the share of prompt tokens the server's cache served, and
//! whether the server still worked 2 s after the last answer; then eight people against one,
//! and the load average before and after.
//!
//! `cargo bench -p ghost --bench team_typing`. The language server is `PILOTFISH_BIN`, else
//! `target/release/pilotfish`, else `target/debug/pilotfish` (build one first: `cargo build
//! --release -p cli`). `PILOTFISH_TEAM_SIZES` (default `1,2,4,8`) and `PILOTFISH_TEAM_LINES`
//! (default 2, at most 3) shape the run; `PILOTFISH_TEAM_LLAMA_URL` names a llama-server
//! started by hand (4 slots, `--metrics`, SmolLM2), to read its log.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use test_utils::{
    LlamaServer, VllmServer,
    team::{self, Client, Engine, Outcome, Pace, Shared, Workload},
};

fn pilotfish() -> PathBuf {
    if let Some(bin) = std::env::var_os("PILOTFISH_BIN") {
        return PathBuf::from(bin);
    }
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    ["release", "debug"]
        .iter()
        .map(|p| target.join(p).join("pilotfish"))
        .find(|p| p.exists())
        .expect("no pilotfish binary: run `cargo build --release -p cli` or set PILOTFISH_BIN")
}

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn row(client: &str, o: &Outcome) {
    println!(
        "{client:<14} {:>2}  {:>8.2}  {:>9.2}  {:>8.2}  {:>8.2}  {:>5}/{:<3}  {:>6}  {:>4}",
        o.people,
        o.read_per_keystroke(),
        o.generated_per_keystroke(),
        o.quantile(0.5).as_secs_f64(),
        o.quantile(0.95).as_secs_f64(),
        o.answered(),
        o.lines.len(),
        o.cache_hit_share()
            .map_or("-".to_owned(), |s| format!("{:.0}%", s * 100.0)),
        o.busy_after,
    );
}

fn run(shared: &Shared, model: &str, bin: &Path, sizes: &[usize], lines: usize) {
    let scratch = std::env::temp_dir().join(format!("pilotfish-team-bench-{}", std::process::id()));
    let workload = Workload {
        lines,
        pace: Pace {
            every: Duration::from_millis(150),
            answer_limit: Duration::from_secs(10),
        },
        args: Vec::new(),
    };
    println!(
        "\n{:?} at {} (load {}): pilotfish {}",
        shared.engine,
        shared.url,
        load(),
        bin.display()
    );
    println!("client          N  read/key  gen./key  median s  p95 s     lines     cache  busy");
    let mut medians = Vec::new();
    for &n in sizes {
        let ours = team::type_together(Client::Pilotfish(bin), shared, n, &workload, &scratch);
        row("pilotfish", &ours);
        let anchor =
            team::type_together(Client::LlamaVscode(model), shared, n, &workload, &scratch);
        row("llama.vscode", &anchor);
        medians.push((n, ours, anchor));
    }
    let first = medians.iter().find(|(n, ..)| *n == 1);
    let last = medians.iter().find(|(n, ..)| *n == 8);
    if let (Some((_, one, a1)), Some((_, eight, a8))) = (first, last) {
        let ratio = |e: &Outcome, o: &Outcome| {
            e.quantile(0.5).as_secs_f64() / o.quantile(0.5).as_secs_f64().max(1e-3)
        };
        println!(
            "eight people against one, median time to a line's last answer: pilotfish {:.2}x, llama.vscode {:.2}x; generated per keystroke: pilotfish {:.2}x",
            ratio(eight, one),
            ratio(a8, a1),
            eight.generated_per_keystroke() / one.generated_per_keystroke().max(1e-3),
        );
    }
    println!("load after: {}", load());
    let _ = std::fs::remove_dir_all(&scratch);
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test` of the benches runs nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let bin = pilotfish();
    let sizes: Vec<usize> = env_list("PILOTFISH_TEAM_SIZES", "1,2,4,8")
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    let lines = std::env::var("PILOTFISH_TEAM_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    for server in env_list("PILOTFISH_TEAM_SERVERS", "llama") {
        match server.as_str() {
            "llama" => {
                // A llama-server started by hand (to read its log), else one of our own.
                let own = std::env::var("PILOTFISH_TEAM_LLAMA_URL")
                    .is_err()
                    .then(|| LlamaServer::smollm2(4096, &["-np", "4", "--metrics"]));
                let url = own.as_ref().map_or_else(
                    || std::env::var("PILOTFISH_TEAM_LLAMA_URL").unwrap_or_default(),
                    |l| l.url.clone(),
                );
                let shared = Shared {
                    engine: Engine::Llama,
                    url,
                };
                run(&shared, "", &bin, &sizes, lines);
            }
            "vllm" => {
                let vllm = VllmServer::shared();
                let shared = Shared {
                    engine: Engine::Vllm,
                    url: vllm.url.clone(),
                };
                run(&shared, &vllm.model, &bin, &sizes, lines);
            }
            other => eprintln!("PILOTFISH_TEAM_SERVERS: unknown server {other:?} (llama, vllm)"),
        }
    }
}
