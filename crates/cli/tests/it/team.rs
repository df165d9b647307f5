//! A team on one shared model server: eight people typing at once through their own
//! `pilotfish lsp`, driven as VS Code drives it (a request per keystroke, `$/cancelRequest` for
//! the superseded one, a character every 150 ms), on one real 4-slot llama-server with SmolLM2
//! and on the real vLLM for CPU; and an editor's cancel that stops the model writing. Counted
//! with the servers' own counters (`/metrics`, `/slots`); the bounds are on work and on
//! answers, with margins for a busy machine, not on speed.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use serde_json::json;
use test_utils::{
    LlamaServer, VllmServer,
    team::{self, Engine, Pace, Shared, Workload, lsp::LspClient},
};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_pilotfish"))
}

/// A scratch folder of its own for one test, with a configuration file holding `config`.
fn scratch(name: &str, config: &str) -> (PathBuf, String) {
    let dir = crate::fresh_home("team", name);
    let file = dir.join("team.toml");
    std::fs::write(&file, config).unwrap();
    (dir, file.display().to_string())
}

/// The team's settings: a 128-token prompt in tokens only (no sizing to the server's speed,
/// which would lower it, and warm the whole one at the cursor after the last answer, on a slow
/// machine), so that the bounds do not depend on the machine's speed; limits long enough for a
/// machine so busy that one person waits 10 s for an answer and eight people 55 s (measured
/// at load 13 with vLLM starting beside).
const TEAM_CONFIG: &str = "[backend]\ntimeout_seconds = 300\nfirst_token_timeout_seconds = 240\n\n[completion]\nmax_prompt_tokens = 128\nfirst_token_target_ms = 0\n";

fn workload(config: &str) -> Workload {
    Workload {
        lines: 2,
        pace: Pace {
            every: Duration::from_millis(150),
            answer_limit: Duration::from_secs(300),
        },
        stagger: Duration::ZERO,
        args: vec!["--config".to_owned(), config.to_owned()],
    }
}

/// One person alone, then eight at once, on `shared`: every line's last keystroke is answered,
/// eight people generate per keystroke no more than one (with a margin: timing decides where a
/// stream is cut), and nothing runs 2 s after the last answer. Returns (one, eight).
fn one_then_eight(shared: &Shared, name: &str) -> (team::Outcome, team::Outcome) {
    let (dir, config) = scratch(name, TEAM_CONFIG);
    let work = workload(&config);
    let one = team::type_together(team::Client::Pilotfish(bin()), shared, 1, &work, &dir);
    let eight = team::type_together(team::Client::Pilotfish(bin()), shared, 8, &work, &dir);
    for o in [&one, &eight] {
        eprintln!(
            "{name}: {} people, {} keystrokes, {}/{} lines answered, median {:?}, p95 {:?}; per keystroke {:.2} prompt tokens read, {:.2} generated; cache hit share {:?}; busy 2 s after: {}",
            o.people,
            o.keystrokes,
            o.answered(),
            o.lines.len(),
            o.quantile(0.5),
            o.quantile(0.95),
            o.read_per_keystroke(),
            o.generated_per_keystroke(),
            o.cache_hit_share(),
            o.busy_after
        );
        assert_eq!(o.lines.len(), o.people * 2);
        assert_eq!(
            o.answered(),
            o.lines.len(),
            "every line's last keystroke is answered: {o:?}"
        );
        assert_eq!(
            o.busy_after, 0,
            "nothing still runs 2 s after the last answer: {o:?}"
        );
        assert!(o.work.generated > 0.0, "the model wrote: {o:?}");
    }
    assert!(
        eight.generated_per_keystroke() <= one.generated_per_keystroke() * 1.25 + 1.0,
        "eight people generated {:.2} tokens per keystroke, one person {:.2}",
        eight.generated_per_keystroke(),
        one.generated_per_keystroke()
    );
    let _ = std::fs::remove_dir_all(&dir);
    (one, eight)
}

#[test]
fn eight_people_on_four_slots_are_all_answered_without_waste() {
    // Not beside the vLLM tests (vLLM's start takes both cores for minutes).
    let _turn = crate::vllm::one_at_a_time();
    let server = LlamaServer::smollm2(4096, &["-np", "4", "--metrics"]);
    let shared = Shared {
        engine: Engine::Llama,
        url: server.url.clone(),
    };
    let (_, eight) = one_then_eight(&shared, "llama");
    // Each keystroke re-reads at most 10% of the 128-token prompt.
    assert!(
        eight.read_per_keystroke() <= 12.8,
        "eight people re-read {:.1} prompt tokens per keystroke",
        eight.read_per_keystroke()
    );
}

/// vLLM for CPU caches whole blocks of 128 tokens, so re-reading is not bounded here (the
/// prefix cache is asserted with longer prompts in `vllm.rs`).
#[test]
fn eight_people_on_vllm_are_all_answered_without_waste() {
    let _turn = crate::vllm::one_at_a_time();
    let server = VllmServer::shared();
    let shared = Shared {
        engine: Engine::Vllm,
        url: server.url.clone(),
    };
    one_then_eight(&shared, "vllm");
}

/// One person whose editor cancels a request once the model is writing its answer (a line of
/// numbers it would go on with for its whole 400-token limit): the editor gets the cancelled
/// error, the server stops, and far fewer tokens than the limit were written. The server is
/// idle 0.3 to 0.5 s after the cancel on a quiet machine (the 300 ms adoption window, then the
/// next token written to the closed connection); 1.6 s at load 12 on two cores, where a token
/// takes 0.4 s: the bound is 5 s.
fn cancel_while_writing(shared: &Shared, name: &str) {
    let (dir, config) = scratch(
        name,
        "[backend]\ntimeout_seconds = 300\nfirst_token_timeout_seconds = 240\nmax_tokens = 400\n\n[completion]\nwarm = false\n",
    );
    // The server is shared with other tests: counted from here, and quiet first.
    let idle_until = Instant::now() + Duration::from_secs(60);
    while shared.busy() > 0 && Instant::now() < idle_until {
        std::thread::sleep(Duration::from_millis(100));
    }
    let before = shared.counters();
    let mut lsp = LspClient::start(
        bin(),
        &["--endpoint", &shared.url, "--config", &config],
        &dir,
    );
    let uri = format!("file://{}/numbers.py", dir.display());
    let numbers: Vec<String> = (1..=24).map(|n| n.to_string()).collect();
    let line = format!("NUMBERS = [{},", numbers.join(", "));
    let text = format!("\"\"\"The first numbers.\"\"\"\n\n{line}\n");
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}),
    );
    let id = lsp.request(
        "textDocument/inlineCompletion",
        json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": line.len()},
            "context": {"triggerKind": 1}}),
    );
    let until = Instant::now() + Duration::from_secs(120);
    while !shared.writing() {
        assert!(Instant::now() < until, "the model never started writing");
        std::thread::sleep(Duration::from_millis(20));
    }
    lsp.notify("$/cancelRequest", json!({"id": id}));
    let cancelled = Instant::now();
    let answer = lsp
        .wait_answer(id, Duration::from_secs(60))
        .expect("the cancelled request is answered");
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    // The server stops: nothing runs within 5 s of the cancel.
    let mut stopped = None;
    while cancelled.elapsed() < Duration::from_secs(5) {
        if shared.busy() == 0 {
            stopped = Some(cancelled.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let written = (shared.counters() - before).generated;
    eprintln!(
        "{name}: after the editor's cancel, the server was idle after {stopped:?}, having written {written} tokens of the 400 allowed"
    );
    assert!(
        stopped.is_some(),
        "the server still ran 5 s after the cancel"
    );
    assert!(written > 0.0, "the model wrote before the cancel");
    assert!(
        written <= 200.0,
        "the model wrote {written} of 400 tokens: it was not stopped"
    );
    drop(lsp);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_request_the_editor_cancels_stops_generating_at_once() {
    let _turn = crate::vllm::one_at_a_time();
    let server = LlamaServer::smollm2(4096, &["-np", "4", "--metrics"]);
    let shared = Shared {
        engine: Engine::Llama,
        url: server.url.clone(),
    };
    cancel_while_writing(&shared, "cancel-llama");
}

#[test]
fn a_request_the_editor_cancels_stops_generating_at_once_on_vllm() {
    let _turn = crate::vllm::one_at_a_time();
    let server = VllmServer::shared();
    let shared = Shared {
        engine: Engine::Vllm,
        url: server.url.clone(),
    };
    cancel_while_writing(&shared, "cancel-vllm");
}
