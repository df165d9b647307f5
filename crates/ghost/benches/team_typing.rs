//! A team typing at once on one shared model server: 1, 2, 4 and 8 people, each through their
//! own `pilotfish lsp` driven as VS Code drives it (a request per keystroke, `$/cancelRequest`
//! for the superseded one, a character every 150 ms), against a real 4-slot llama-server with
//! SmolLM2 (and the real vLLM for CPU, in 32-token blocks, when `PILOTFISH_TEAM_SERVERS` asks:
//! `llama,vllm` or `vllm`), beside the same typing in llama.vscode's request shape on the same
//! server in the same run (harness: `test_utils::team`).
//!
//! Prints per N: prompt tokens read and tokens generated per keystroke (the server's own
//! counters), the median and 95th percentile time from a line's last keystroke to its answer,
//! the lines answered within 10 s, the share of prompt tokens the server's cache served, and
//! whether the server still worked 2 s after the last answer, and under each row why each line
//! without a suggestion got none (the language server's log: the answers dropped and the
//! prompt's budget, or the request's failure; else no answer within 10 s); then eight people
//! against one, and the load average before and after.
//!
//! Each size runs twice by default (`PILOTFISH_TEAM_START`, `together,staggered`): everyone
//! starting at once, so that the same lines typed at the same pace end at the same moment
//! (lock-step, the hardest case), and each person 0.75 s after the one before, as people who
//! do not type in step.
//!
//! `cargo bench -p ghost --bench team_typing`. The language server is `PILOTFISH_BIN` (several
//! comma-separated, each typed with in turn at each N, to compare builds in one run), else
//! `target/release/pilotfish`, else `target/debug/pilotfish` (build one first: `cargo build
//! --release -p cli`). `PILOTFISH_TEAM_SIZES` (default `1,2,4,8`) and `PILOTFISH_TEAM_LINES`
//! (default 4, at most 6) shape the run; `PILOTFISH_TEAM_LLAMA_URL` names a llama-server
//! started by hand (4 slots, `--metrics`, SmolLM2), to read its log, and
//! `PILOTFISH_TEAM_VLLM_URL` a vLLM (`PILOTFISH_TEAM_VLLM_MODEL` its model, for llama.vscode's
//! shape), to try its settings; `PILOTFISH_TEAM_ANCHOR=0` leaves llama.vscode's shape out;
//! `PILOTFISH_TEAM_ORDERS=2` types the builds in turn and then in reverse at each N (the one
//! typed first has been faster, whichever it was).

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use test_utils::{
    LlamaServer, VllmServer,
    team::{self, Client, Engine, Outcome, Pace, Shared, Workload},
};

/// The language servers to drive: `PILOTFISH_BIN` (several, comma-separated, to compare
/// builds in one run), else the workspace's own build.
fn pilotfish() -> Vec<PathBuf> {
    if let Ok(bins) = std::env::var("PILOTFISH_BIN") {
        return bins.split(',').map(PathBuf::from).collect();
    }
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    ["release", "debug"]
        .iter()
        .map(|p| target.join(p).join("pilotfish"))
        .find(|p| p.exists())
        .map(|p| vec![p])
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
    for why in o.lines.iter().filter_map(|l| l.why.as_deref()) {
        println!("  no suggestion: {why}");
    }
}

/// One client's name in the table and what it came to per N.
type Rows = Vec<(String, Vec<(usize, Outcome)>)>;

/// How the people start: all at once (lock-step: the same lines at the same pace end at the same
/// moment), or each [`STAGGER`] after the one before, as people who do not type in step.
fn starts() -> Vec<(&'static str, Duration)> {
    env_list("PILOTFISH_TEAM_START", "together,staggered")
        .iter()
        .filter_map(|s| match s.as_str() {
            "together" => Some(("together", Duration::ZERO)),
            "staggered" => Some(("staggered", STAGGER)),
            other => {
                eprintln!("PILOTFISH_TEAM_START: unknown start {other:?} (together, staggered)");
                None
            }
        })
        .collect()
}

/// The order the builds type in at each N: each once in turn, or with `PILOTFISH_TEAM_ORDERS=2`
/// in turn and then in reverse (A B B A). The build typed first at each N was faster in all
/// eight pairs of one session's runs, whichever it was, so two builds are compared in both
/// orders.
fn typing_order(builds: usize) -> Vec<usize> {
    let both = std::env::var("PILOTFISH_TEAM_ORDERS").is_ok_and(|v| v == "2");
    let mut order: Vec<usize> = (0..builds).collect();
    if both {
        order.extend((0..builds).rev());
    }
    order
}

/// Between two people's starts when staggered: five keystrokes, so that eight people's line
/// ends spread over about one line's typing.
const STAGGER: Duration = Duration::from_millis(750);

fn run(shared: &Shared, model: &str, bins: &[PathBuf], sizes: &[usize], lines: usize) {
    for (start, stagger) in starts() {
        let workload = Workload {
            lines,
            pace: Pace {
                every: Duration::from_millis(150),
                answer_limit: Duration::from_secs(10),
            },
            stagger,
            args: Vec::new(),
        };
        println!("\nstarting {start}");
        run_workload(shared, model, bins, sizes, &workload);
    }
}

fn run_workload(
    shared: &Shared,
    model: &str,
    bins: &[PathBuf],
    sizes: &[usize],
    workload: &Workload,
) {
    let scratch = std::env::temp_dir().join(format!("pilotfish-team-bench-{}", std::process::id()));
    println!("{:?} at {} (load {})", shared.engine, shared.url, load());
    for (n, bin) in bins.iter().enumerate() {
        println!("pilotfish #{n}: {}", bin.display());
    }
    println!("client          N  read/key  gen./key  median s  p95 s     lines     cache  busy");
    let anchor = std::env::var("PILOTFISH_TEAM_ANCHOR").map_or(true, |v| v != "0");
    let mut rows: Rows = (0..bins.len())
        .map(|n| (format!("pilotfish #{n}"), Vec::new()))
        .collect();
    if anchor {
        rows.push(("llama.vscode".to_owned(), Vec::new()));
    }
    for &n in sizes {
        for k in typing_order(bins.len()) {
            let ours =
                team::type_together(Client::Pilotfish(&bins[k]), shared, n, workload, &scratch);
            row(&rows[k].0, &ours);
            rows[k].1.push((n, ours));
        }
        if anchor {
            let theirs =
                team::type_together(Client::LlamaVscode(model), shared, n, workload, &scratch);
            row("llama.vscode", &theirs);
            rows[bins.len()].1.push((n, theirs));
        }
    }
    for (client, outcomes) in &rows {
        let of = |people: usize| outcomes.iter().find(|(n, _)| *n == people).map(|(_, o)| o);
        if let (Some(one), Some(eight)) = (of(1), of(8)) {
            // A median line answered from a stream already under way takes no time: no ratio.
            if one.quantile(0.5) < Duration::from_millis(20) {
                println!(
                    "{client}: one person's median line was answered at once (from a stream under way), so eight against one has no median ratio; eight people's median {:.2} s, p95 {:.2}x one person's",
                    eight.quantile(0.5).as_secs_f64(),
                    eight.quantile(0.95).as_secs_f64() / one.quantile(0.95).as_secs_f64().max(1e-3),
                );
                continue;
            }
            println!(
                "{client}: eight people against one, median time to a line's last answer {:.2}x, p95 {:.2}x; generated per keystroke {:.2}x",
                eight.quantile(0.5).as_secs_f64() / one.quantile(0.5).as_secs_f64().max(1e-3),
                eight.quantile(0.95).as_secs_f64() / one.quantile(0.95).as_secs_f64().max(1e-3),
                eight.generated_per_keystroke() / one.generated_per_keystroke().max(1e-3),
            );
        }
    }
    println!("load after: {}", load());
    let _ = std::fs::remove_dir_all(&scratch);
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test` of the benches runs nothing.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let bins = pilotfish();
    let sizes: Vec<usize> = env_list("PILOTFISH_TEAM_SIZES", "1,2,4,8")
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    let lines = std::env::var("PILOTFISH_TEAM_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
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
                run(&shared, "", &bins, &sizes, lines);
            }
            "vllm" => {
                // A vLLM started by hand (other settings, its log), else one of our own.
                if let Ok(url) = std::env::var("PILOTFISH_TEAM_VLLM_URL") {
                    let model = std::env::var("PILOTFISH_TEAM_VLLM_MODEL").unwrap_or_default();
                    let shared = Shared {
                        engine: Engine::Vllm,
                        url,
                    };
                    run(&shared, &model, &bins, &sizes, lines);
                    continue;
                }
                // In 32-token blocks, as `docs/team.md` recommends for a team's vLLM for CPU.
                let vllm = VllmServer::shared_in_blocks(test_utils::vllm::TEAM_BLOCK_SIZE);
                let shared = Shared {
                    engine: Engine::Vllm,
                    url: vllm.url.clone(),
                };
                run(&shared, &vllm.model, &bins, &sizes, lines);
            }
            other => eprintln!("PILOTFISH_TEAM_SERVERS: unknown server {other:?} (llama, vllm)"),
        }
    }
}
