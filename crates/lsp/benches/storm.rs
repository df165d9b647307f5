//! What is measured: the language server's own latency under a typing storm, the issue's
//! scenario: 1,000 `didChange` notifications per second (for `PILOTFISH_STORM_SECONDS`,
//! default 60) on one document while a completion is requested at every tenth change, as an
//! editor does when typing pauses are short. Latency is the server's, from a request's arrival
//! to its answer being queued, as the server records it (`pilotfish/stats`); superseded
//! requests count with the (immediate) empty answer they get.
//!
//! The model is the scripted loopback fake from `test-utils`, answering at once, so the figures
//! hold pilotfish plus one loopback HTTP exchange, not a model's time. Also reported: the
//! process's resident memory before and after (it must stay bounded), and, as the baseline in
//! the same run, the time to assemble the same prompt alone.

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use lsp::transport::{Decoder, Frame, encode};
use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn config(url: &str, debounce: bool) -> lsp::ServerConfig {
    let url = url.to_owned();
    lsp::ServerConfig {
        configure: Arc::new(move |_| {
            let backend = backends::Backend::new(
                backends::Kind::OpenAiCompletions,
                &url,
                Duration::from_secs(1),
                Duration::from_secs(10),
            )
            .map_err(|e| e.to_string())?;
            // With Copilot's debounce every request waits 75 ms unless superseded first;
            // without it every request does its work at once.
            let mut settings = ghost::Settings::default();
            if !debounce {
                settings.debounce = None;
            }
            Ok((backend, settings).into())
        }),
        model_server: lsp::no_model_server(),
        excluded: Arc::new(|_| false),
        files: lsp::no_files(),
        version: "bench".into(),
        next_edit: None,
    }
}

fn document(n: usize) -> String {
    let unit = "def price(item):\n    return item.cost * (1 + item.tax)\n\n";
    format!(
        "{}def order_total(items):\n    amount = {n}\n",
        unit.repeat(60)
    )
}

fn main() {
    let seconds: u64 = std::env::var("PILOTFISH_STORM_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for debounce in [false, true] {
        storm(&rt, seconds, debounce);
    }
}

fn storm(rt: &tokio::runtime::Runtime, seconds: u64, debounce: bool) {
    rt.block_on(async move {
        let model = ScriptedModel::start(vec![Reply::text(" + shipping(items)", 6)], Duration::ZERO).await;
        let (mut client_write, server_read) = tokio::io::duplex(1 << 20);
        let (server_write, mut client_read) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(lsp::serve(server_read, server_write, config(&model.url, debounce)));
        // Read and discard everything the server says, keeping the last answer to stats.
        let (stats_tx, mut stats_rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
        tokio::spawn(async move {
            let mut decoder = Decoder::default();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let Ok(n) = client_read.read(&mut buf).await else { return };
                if n == 0 {
                    return;
                }
                for f in decoder.push(&buf[..n]) {
                    if let Frame::Message(m) = f
                        && m["id"] == "stats"
                    {
                        let _ = stats_tx.send(m);
                    }
                }
            }
        });
        let send = |m: Value| encode(&m);
        client_write.write_all(&send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))).await.unwrap();
        let uri = "file:///w/storm.py";
        client_write
            .write_all(&send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": document(0)}}})))
            .await
            .unwrap();
        let line = document(0).matches('\n').count() - 1;
        let mut rss_warm = 0.0;
        let started = Instant::now();
        let total = seconds * 1000;
        for v in 1..=total {
            // Pace: change number v goes out at v milliseconds.
            let due = Duration::from_millis(v);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                tokio::time::sleep(wait).await;
            }
            let text = format!("    amount = {v}\n");
            client_write
                .write_all(&send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": uri, "version": v},
                               "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}}, "text": text}]}})))
                .await
                .unwrap();
            if v % 1000 == 0 {
                // The fake records every request body; that is the test harness's memory, not
                // the server's, so it is let go.
                model.bodies.lock().unwrap().clear();
            }
            if v == 1000 {
                // After a second: vocabularies loaded, caches warm.
                rss_warm = rss_mb();
            }
            if v % 10 == 0 {
                let character = text.len() - 1;
                client_write
                    .write_all(&send(json!({"jsonrpc": "2.0", "id": v, "method": "textDocument/inlineCompletion",
                        "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}})))
                    .await
                    .unwrap();
            }
        }
        let sent_in = started.elapsed();
        tokio::time::sleep(Duration::from_millis(500)).await;
        client_write.write_all(&send(json!({"jsonrpc": "2.0", "id": "stats", "method": "pilotfish/stats"}))).await.unwrap();
        let stats = stats_rx.recv().await.unwrap();
        let rss_after = rss_mb();
        // Baseline: assembling the same prompt alone.
        let request: prompt::request::RequestJson = serde_json::from_value(json!({
            "document": {"path": "/w/storm.py", "text": document(total as usize)},
            "position": {"line": line, "character": format!("    amount = {total}").len()},
        }))
        .unwrap();
        let mut times = Vec::new();
        for _ in 0..200 {
            let t = Instant::now();
            black_box(prompt::assemble(&request, &mut prompt::Session::default()).unwrap());
            times.push(t.elapsed());
        }
        times.sort();
        let assembly = times[times.len() / 2].as_secs_f64() * 1e3;
        let latency = &stats["result"]["latency"];
        let p50 = latency["p50_ms"].as_f64().unwrap();
        let p99 = latency["p99_ms"].as_f64().unwrap();
        println!("typing storm, {}:", if debounce { "Copilot's 75 ms debounce" } else { "no debounce (every request does its work)" });
        println!("  {total} didChange in {sent_in:.1?} ({:.0}/s), {} completion requests", total as f64 / sent_in.as_secs_f64(), total / 10);
        println!("  server latency (arrival to answer): p50 {p50:.2} ms, p99 {p99:.2} ms, max {:.2} ms", latency["max_ms"].as_f64().unwrap());
        println!("  baseline, prompt assembly alone for this document: {assembly:.3} ms (p50 {:.1}x, p99 {:.1}x)", p50 / assembly, p99 / assembly);
        println!("  pipeline: {}", stats["result"]["pipeline"]);
        println!("  model requests: {}; resident memory after the first second {rss_warm:.1} MB, at the end {rss_after:.1} MB", model.requests());
        drop(client_write);
        let _ = server.await;
    });
}
