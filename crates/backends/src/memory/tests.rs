//! The memory's tests: hashes of a prompt's start, smoothing, and the writing behind.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use super::*;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// What another process would read from the file now.
fn on_disk(path: &std::path::Path, endpoint: &str, fingerprint: &str) -> Option<Learned> {
    Memory::at(path).recall(endpoint, fingerprint)
}

/// Waits (generously: a busy machine) until `check` holds of the file, or panics.
fn eventually(what: &str, check: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(Instant::now() < until, "{what} was never written");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_shared_start_of_two_prompts_is_found_to_within_a_chunk() {
    let a = "x".repeat(1000) + "tail one";
    let b = "x".repeat(1000) + "other tail, longer";
    let shared = Sent::of(&a).shared_with(&b);
    assert!(shared <= 1000 && shared > 1000 - CHUNK, "{shared}");
    assert_eq!(Sent::of(&a).shared_with(&a), a.len());
    assert_eq!(Sent::of("abc").shared_with("xbc"), 0);
}

#[test]
fn a_changed_fingerprint_starts_afresh_and_a_broken_file_is_ignored() {
    let path = temp("servers.json");
    let memory = Memory::at(&path);
    memory.update("http://h:1", "model a", |l| l.fim = Some(false));
    assert_eq!(
        memory.recall("http://h:1", "model a").and_then(|l| l.fim),
        Some(false)
    );
    assert_eq!(memory.recall("http://h:1", "model b"), None);
    memory.update("http://h:1", "model b", |l| {
        l.speed = Some(Speed::with(None, 100.0, None));
    });
    let b = memory.recall("http://h:1", "model b").unwrap();
    assert_eq!((b.fim, b.speed.map(|s| s.samples)), (None, Some(1)));
    memory.flush();
    assert_eq!(on_disk(&path, "http://h:1", "model b"), Some(b));
    std::fs::write(&path, "{ not json").unwrap();
    let memory = Memory::at(&path);
    assert_eq!(memory.recall("http://h:1", "model b"), None);
    memory.update("http://h:1", "model b", |l| l.fim = Some(true));
    memory.flush();
    assert_eq!(
        on_disk(&path, "http://h:1", "model b").and_then(|l| l.fim),
        Some(true)
    );
}

#[test]
fn one_slow_answer_moves_the_speed_only_part_of_the_way() {
    let s = Speed::with(None, 300.0, Some(50.0));
    let s = Speed::with(Some(s), 100.0, None);
    assert!((s.prompt_per_second - 240.0).abs() < 1e-9);
    assert_eq!(s.predicted_per_second, Some(50.0));
    assert_eq!(s.samples, 2);
}

/// With the rest held for ten minutes, what matters to the next process (fill-in-the-middle
/// learnt, a new model, a speed moved by more than a quarter) is written by the memory's
/// thread without a flush, and the rest (the last prompt sent, a speed that barely moved)
/// only at the flush. No change is written by `update` itself.
#[test]
fn what_matters_is_written_behind_soon_and_the_rest_later() {
    let path = temp("behind.json");
    let memory = Memory::with_delay(&path, Duration::from_secs(600));
    let (at, model) = ("http://h:2", "model a");
    // A new model's entry matters at once.
    memory.update(at, model, |l| l.budget = Some(100));
    eventually("a new model", || on_disk(&path, at, model).is_some());
    // The last prompt sent does not.
    memory.update(at, model, |l| l.last_sent = Some(Sent::of("def f():")));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(on_disk(&path, at, model).unwrap().last_sent, None);
    // Fill-in-the-middle learnt does, and takes the change waiting with it.
    memory.update(at, model, |l| l.fim = Some(true));
    eventually("fill-in-the-middle", || {
        on_disk(&path, at, model).is_some_and(|l| l.fim == Some(true) && l.last_sent.is_some())
    });
    // A first speed matters; one moved by a tenth does not; one moved by a half does.
    memory.update(at, model, |l| {
        l.speed = Some(Speed::with(None, 100.0, None))
    });
    eventually("the first speed", || {
        on_disk(&path, at, model).is_some_and(|l| l.speed.is_some())
    });
    memory.update(at, model, |l| {
        l.speed = Some(Speed::with(l.speed, 130.0, None));
    });
    std::thread::sleep(Duration::from_millis(300));
    let written = on_disk(&path, at, model).unwrap().speed.unwrap();
    assert_eq!(written.samples, 1, "a speed moved by 9% waits");
    memory.update(at, model, |l| {
        l.speed = Some(Speed::with(l.speed, 400.0, None));
    });
    eventually("a speed moved by more than a quarter", || {
        on_disk(&path, at, model).is_some_and(|l| l.speed.is_some_and(|s| s.samples == 3))
    });
    // The flush writes what waits.
    memory.update(at, model, |l| l.budget = Some(200));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(on_disk(&path, at, model).unwrap().budget, Some(100));
    memory.flush();
    assert_eq!(on_disk(&path, at, model).unwrap().budget, Some(200));
}

/// Two processes' memories on one file, each with threads updating its own servers and its
/// own parts of a shared one at once, flushing as they go: every server and every part either
/// learned is in the file at the end.
#[test]
fn two_writers_at_once_lose_nothing() {
    let path = temp("two.json");
    let shared = "http://shared:1";
    let one = Memory::with_delay(&path, Duration::ZERO);
    // Both know the shared server's model before they start.
    one.update(shared, "m", |l| l.budget = Some(1));
    one.flush();
    let two = Memory::with_delay(&path, Duration::ZERO);
    // 2 writers x 2 threads x 7 servers, and the shared one: within the 32 entries kept.
    let rounds = 7;
    std::thread::scope(|s| {
        for (name, memory) in [("one", &one), ("two", &two)] {
            for t in 0..2 {
                s.spawn(move || {
                    for i in 0..rounds {
                        let endpoint = format!("http://{name}-{t}:{i}");
                        memory.update(&endpoint, "m", |l| l.budget = Some(i));
                        if i % 3 == 0 {
                            memory.flush();
                        }
                    }
                });
            }
        }
        s.spawn(|| one.update(shared, "m", |l| l.fim = Some(true)));
        s.spawn(|| {
            two.update(shared, "m", |l| {
                l.speed = Some(Speed::with(None, 250.0, None));
            });
        });
    });
    one.flush();
    two.flush();
    let after = Memory::at(&path);
    let learned = after.recall(shared, "m").expect("the shared server");
    assert_eq!(learned.fim, Some(true), "{learned:?}");
    assert!(learned.speed.is_some(), "{learned:?}");
    for name in ["one", "two"] {
        for t in 0..2 {
            for i in 0..rounds {
                let endpoint = format!("http://{name}-{t}:{i}");
                let budget = after.recall(&endpoint, "m").and_then(|l| l.budget);
                assert_eq!(budget, Some(i), "{endpoint} was lost");
            }
        }
    }
}
