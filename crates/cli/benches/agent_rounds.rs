//! What is measured: the agent loop's own cost per round, the model excluded. A scripted chat
//! model (a fake that answers at once) plays 400 rounds of `list_dir` calls for
//! `pilotfish agent`; the same 400 exchanges sent straight through the chat client, with the
//! conversation growing the same way, are the baseline (HTTP, JSON and the fake's time), and
//! a one-round run gives the process's fixed cost (start-up, discovery of customizations, the
//! system prompt). Per round:
//! (run of 401 rounds - run of 1 round - baseline) / 400. Medians of 5, same run.

use std::{path::Path, process::Command, time::Instant};

use backends::chat::{ChatBackend, ChatKind, ChatMessage};
use serde_json::json;
use test_utils::scripted_chat::{ScriptedChat, Turn};

const ROUNDS: usize = 400;

fn script(rounds: usize) -> Vec<Turn> {
    let mut turns: Vec<Turn> = (0..rounds)
        .map(|_| Turn::call("list_dir", json!({"path": "."})))
        .collect();
    turns.push(Turn::Text("done".into()));
    turns
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = std::env::temp_dir().join(format!("pilotfish-bench-agent-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("repo/src")).unwrap();
    std::fs::write(dir.join("repo/src/a.py"), "x = 1\n").unwrap();
    let run_agent = |url: &str| {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .args(["agent", "--format", "json", "--folder"])
            .arg(dir.join("repo"))
            .args(["--endpoint", url, "--max-rounds", "1000", "look"])
            .env("XDG_STATE_HOME", dir.join("state"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        started.elapsed().as_secs_f64() * 1e3
    };
    let (mut full, mut one, mut base) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        let model = runtime.block_on(ScriptedChat::start(script(ROUNDS)));
        full.push(run_agent(&model.url));
        let model = runtime.block_on(ScriptedChat::start(script(0)));
        one.push(run_agent(&model.url));
        let model = runtime.block_on(ScriptedChat::start(script(ROUNDS)));
        let backend = ChatBackend::new(
            ChatKind::OpenAi,
            &model.url,
            std::time::Duration::from_secs(2),
            std::time::Duration::from_secs(30),
        )
        .unwrap();
        // The baseline's conversation grows as the agent's does (each call and its result
        // sent back), so both send the same bytes; only the loop's own work differs.
        let mut messages = vec![
            ChatMessage::new("system", &"You are pilotfish. ".repeat(150)),
            ChatMessage::new("user", "look"),
        ];
        let started = Instant::now();
        for _ in 0..ROUNDS {
            let answer = runtime
                .block_on(backend.chat(&messages, &[], |_| {}))
                .unwrap();
            assert_eq!(answer.tool_calls.len(), 1);
            messages.push(ChatMessage {
                role: "assistant".into(),
                content: String::new(),
                tool_calls: answer.tool_calls.clone(),
                tool_call_id: None,
            });
            let mut result = ChatMessage::new("tool", "src/");
            result.tool_call_id = Some(answer.tool_calls[0].id.clone());
            messages.push(result);
        }
        base.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let (full, one, base) = (median(full), median(one), median(base));
    let per_round = (full - one - base) / ROUNDS as f64;
    println!(
        "agent loop: {ROUNDS} rounds {full:.1} ms, 1 round {one:.1} ms, baseline {ROUNDS} chat exchanges {base:.1} ms ({:.2} ms each)",
        base / ROUNDS as f64
    );
    println!(
        "the loop's own cost per round (model and HTTP excluded): {per_round:.2} ms; process fixed cost {one:.1} ms"
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
