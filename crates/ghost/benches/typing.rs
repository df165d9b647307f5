//! What is measured: the pipeline's own cost per request (everything but the model's time)
//! and its cache hit rate over a replayed typing session.
//!
//! The model is the scripted fake server on loopback (it answers at once, so what is timed is
//! pilotfish plus one loopback HTTP exchange). It is a "perfect" model that knows the file
//! being typed and answers with its true continuation, and a "half-right" one that gets the
//! first half of the rest of the line right and then goes wrong: the hit rate depends on how
//! often the model is right, so both are reported.
//!
//! Baseline, in the same run: prompt assembly alone for the same requests. Criterion then
//! times one network request (cache off), one cache hit, and the assembly.

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use backends::{Backend, Kind};
use criterion::Criterion;
use ghost::{Ask, Pipeline, Settings, Source};
use prompt::request::RequestJson;
use test_utils::scripted::{Reply, ScriptedModel};

/// The file typed: this repository's Python example, the two modules back to back.
fn target() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop");
    ["cart.py", "inventory.py"]
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where in `target` the prompt ends: its last characters located in the file.
fn cursor_in(target: &str, prompt: &str) -> Option<usize> {
    let mut start = prompt.len().saturating_sub(300);
    while !prompt.is_char_boundary(start) {
        start += 1;
    }
    let tail = &prompt[start..];
    target.find(tail).map(|i| i + tail.len())
}

fn model(target: String, half_right: bool) -> impl Fn(&serde_json::Value) -> Reply {
    move |body| {
        let prompt = body["prompt"].as_str().unwrap_or_default();
        let Some(k) = cursor_in(&target, prompt) else {
            return Reply::text("", 1);
        };
        let rest = &target[k..];
        let end = rest.len().min(400);
        let mut end_b = end;
        while !rest.is_char_boundary(end_b) {
            end_b -= 1;
        }
        let mut answer = rest[..end_b].to_owned();
        if half_right {
            let line_end = answer.find('\n').unwrap_or(answer.len());
            let mut half = line_end / 2;
            while !answer.is_char_boundary(half) {
                half -= 1;
            }
            answer.truncate(half);
            answer.push_str("wrong_guess()\n");
        }
        Reply::text(&answer, 8)
    }
}

fn request(doc: &str) -> RequestJson {
    let line = doc.matches('\n').count();
    let character = doc.rsplit('\n').next().unwrap().encode_utf16().count();
    serde_json::from_value(serde_json::json!({
        "document": {"path": "shop/cart.py", "text": doc},
        "position": {"line": line, "character": character},
    }))
    .unwrap()
}

fn backend(url: &str) -> Backend {
    Backend::new(
        Kind::OpenAiCompletions,
        url,
        Duration::from_secs(2),
        Duration::from_secs(20),
    )
    .unwrap()
}

fn settings(cache: bool) -> Settings {
    Settings {
        debounce: None,
        cache,
        ..Settings::default()
    }
}

/// Types `target` after its first lines one character at a time, asking at every keystroke
/// (as an editor does when the typist is slower than the debounce), and accepting nothing:
/// a suggestion counts only when typing goes through it.
fn replay(rt: &tokio::runtime::Runtime, half_right: bool) {
    let target = target();
    let server = rt.block_on(ScriptedModel::answering(
        model(target.clone(), half_right),
        Duration::ZERO,
    ));
    let pipeline = Arc::new(Pipeline::new(backend(&server.url), settings(true)));
    let start = target.match_indices('\n').nth(2).map_or(0, |(i, _)| i + 1);
    let mut network = Vec::new();
    let mut cached = Vec::new();
    let mut assembly = Vec::new();
    let mut useful = 0;
    for k in start..=target.len() {
        if !target.is_char_boundary(k) {
            continue;
        }
        let req = request(&target[..k]);
        let t = Instant::now();
        let outcome = rt
            .block_on(pipeline.complete(&req, None, Ask::default()))
            .unwrap();
        let took = t.elapsed();
        match outcome.source {
            Some(Source::Cache) => cached.push(took),
            Some(Source::Network) => network.push(took),
            _ => {}
        }
        if outcome
            .suggestions
            .first()
            .is_some_and(|s| target[k..].starts_with(&s.text))
        {
            useful += 1;
        }
        if k % 7 == 0 {
            let t = Instant::now();
            black_box(prompt::assemble(&req, &mut prompt::Session::default()).unwrap());
            assembly.push(t.elapsed());
        }
    }
    let stats = pipeline.stats();
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v.get(v.len() / 2).copied().unwrap_or_default()
    };
    let (n, c, a) = (
        median(&mut network),
        median(&mut cached),
        median(&mut assembly),
    );
    println!(
        "typing replay ({} model): {} keystrokes, {} requests to the model, {} cache hits, {} in-flight hits, {} skipped; hit rate {:.1}%; suggestions matching what was typed next {:.1}%",
        if half_right { "half-right" } else { "perfect" },
        stats.requests,
        server.requests(),
        stats.cache_hits,
        stats.in_flight_hits,
        stats.skipped,
        100.0 * (stats.cache_hits + stats.in_flight_hits) as f64 / stats.requests as f64,
        100.0 * useful as f64 / stats.requests as f64,
    );
    println!(
        "  medians: network request {n:?} ({:.2}x prompt assembly alone, {a:?}), cache hit {c:?} ({:.3}x assembly)",
        n.as_secs_f64() / a.as_secs_f64(),
        c.as_secs_f64() / a.as_secs_f64(),
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    replay(&rt, false);
    replay(&rt, true);

    let target = target();
    let server = rt.block_on(ScriptedModel::answering(
        model(target.clone(), false),
        Duration::ZERO,
    ));
    let k = target.find("def ").unwrap() + 20;
    let req = request(&target[..k]);
    let uncached = Pipeline::new(backend(&server.url), settings(false));
    let cached = Pipeline::new(backend(&server.url), settings(true));
    rt.block_on(cached.complete(&req, None, Ask::default()))
        .unwrap();
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("pipeline");
    group.bench_function("prompt assembly alone (baseline)", |b| {
        b.iter(|| prompt::assemble(black_box(&req), &mut prompt::Session::default()).unwrap())
    });
    group.bench_function("request to the model (instant loopback fake)", |b| {
        b.iter(|| rt.block_on(uncached.complete(black_box(&req), None, Ask::default())))
    });
    group.bench_function("cache hit", |b| {
        b.iter(|| rt.block_on(cached.complete(black_box(&req), None, Ask::default())))
    });
    group.finish();
    c.final_summary();
}
