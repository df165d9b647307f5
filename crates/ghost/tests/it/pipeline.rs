//! The pipeline's behaviour against the scripted model: what is asked, what is reused, what
//! is cut, what is retried.

use std::{sync::Arc, time::Duration};

use backends::{Backend, Kind};
use engine::debounce::Debounce;
use ghost::{Ask, Multiline, Pipeline, Settings, Source};
use prompt::request::RequestJson;

use test_utils::scripted::{Reply, ScriptedModel};

/// A request for `text` with the cursor at `$0`.
pub(crate) fn at(path: &str, text: &str) -> RequestJson {
    let offset = text.find("$0").expect("a $0 cursor marker");
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let character = before.rsplit('\n').next().unwrap().encode_utf16().count();
    serde_json::from_value(serde_json::json!({
        "document": {"path": path, "text": text.replacen("$0", "", 1)},
        "position": {"line": line, "character": character},
    }))
    .unwrap()
}

pub(crate) fn settings() -> Settings {
    Settings {
        debounce: None,
        ..Settings::default()
    }
}

pub(crate) fn pipeline(model: &ScriptedModel, settings: Settings) -> Arc<Pipeline> {
    let backend = Backend::new(
        Kind::OpenAiCompletions,
        &model.url,
        Duration::from_secs(2),
        Duration::from_secs(20),
    )
    .unwrap();
    Arc::new(Pipeline::new(backend, settings))
}

const ORDERS: &str =
    "from cart import total\n\n\ndef order_total(items):\n    amount = $0\n    return amount\n";

pub(crate) fn typed(extra: &str) -> RequestJson {
    at("orders.py", &ORDERS.replace("$0", &format!("{extra}$0")))
}

#[tokio::test]
async fn typing_through_a_suggestion_is_served_from_the_cache() {
    let model = ScriptedModel::start(
        vec![Reply::text("total(items)\n        extra = 1", 3)],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let first = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert_eq!(first.source, Some(Source::Network));
    assert_eq!(first.suggestions[0].text, "total(items)", "one line here");
    for (i, typed_so_far) in ["t", "to", "tot", "total("].iter().enumerate() {
        let next = p
            .complete(&typed(typed_so_far), None, Ask::default())
            .await
            .unwrap();
        assert_eq!(next.source, Some(Source::Cache), "keystroke {i}");
        assert_eq!(
            next.suggestions[0].text,
            &"total(items)"[typed_so_far.len()..]
        );
    }
    // A keystroke that leaves the suggestion asks again.
    let other = p.complete(&typed("x"), None, Ask::default()).await.unwrap();
    assert_eq!(other.source, Some(Source::Network));
    assert_eq!(model.requests(), 2);
    let stats = p.stats();
    assert_eq!((stats.requests, stats.cache_hits, stats.network), (6, 4, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_still_arriving_serves_the_next_keystrokes() {
    let model = ScriptedModel::start(
        vec![Reply::text("total(items) + shipping(items)", 2)],
        Duration::from_millis(40),
    )
    .await;
    let p = pipeline(&model, settings());
    let first = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed(""), None, Ask::default()).await }
    });
    // Some pieces have arrived when the user types "tot".
    arrived(&model).await;
    // The editor gives up on the first request when the next keystroke comes.
    first.abort();
    let second = p
        .complete(&typed("tot"), None, Ask::default())
        .await
        .unwrap();
    assert_eq!(second.source, Some(Source::InFlight));
    assert_eq!(second.suggestions[0].text, "al(items) + shipping(items)");
    assert_eq!(model.requests(), 1, "no second request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keystroke_that_leaves_the_stream_cancels_it() {
    let long: String = "total(items)".repeat(40);
    let model = ScriptedModel::start(
        vec![Reply::text(&long, 2), Reply::text("shipping(items)", 4)],
        Duration::from_millis(20),
    )
    .await;
    let p = pipeline(&model, settings());
    let first = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed(""), None, Ask::default()).await }
    });
    arrived(&model).await;
    let second = p.complete(&typed("s"), None, Ask::default()).await.unwrap();
    assert_eq!(second.source, Some(Source::Network), "{:?}", second.trace);
    assert_eq!(
        second.suggestions[0].text, "shipping(items)",
        "{:?}",
        second.trace
    );
    // The first request ends early with what it had; the server sees the stream closed.
    let first = first.await.unwrap().unwrap();
    assert!(first.suggestions.iter().all(|s| s.text.len() < long.len()));
    for _ in 0..50 {
        if model.cancelled() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(model.cancelled(), 1, "the abandoned stream was closed");
}

/// Waits until the scripted model has been asked and has had time to send a few pieces (the
/// first assembly in a process also loads the tokenizer's vocabulary, which takes a while in a
/// debug build).
async fn arrived(model: &ScriptedModel) {
    for _ in 0..500 {
        if model.requests() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(model.requests(), 1);
    tokio::time::sleep(Duration::from_millis(90)).await;
}

#[tokio::test]
async fn a_request_dropped_while_debouncing_sends_nothing() {
    let model = ScriptedModel::start(vec![Reply::text("x", 1)], Duration::ZERO).await;
    let p = pipeline(
        &model,
        Settings {
            debounce: Some(Debounce::Fixed(200.0)),
            ..Settings::default()
        },
    );
    let request = typed("");
    let quick = tokio::time::timeout(
        Duration::from_millis(50),
        p.complete(&request, None, Ask::default()),
    )
    .await;
    assert!(quick.is_err(), "still debouncing after 50 ms");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(model.requests(), 0);
    // Not dropped, it asks after the wait.
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert!(
        outcome.trace.debounce_ms > 150.0,
        "{}",
        outcome.trace.debounce_ms
    );
    assert_eq!(model.requests(), 1);
}

#[tokio::test]
async fn an_empty_block_gets_its_body_and_the_stream_stops_at_its_end() {
    // The prompt leaves out the cursor line's indentation; the model writes it.
    let body = "    total = 0\n    for item in items:\n        total += item.price\n    return total\n\n\ndef unrelated():\n    pass\n";
    let junk = "# more\n".repeat(60);
    let model = ScriptedModel::start(
        vec![Reply::text(&format!("{body}{junk}"), 4)],
        Duration::from_millis(2),
    )
    .await;
    let p = pipeline(
        &model,
        Settings {
            max_tokens: 500,
            ..settings()
        },
    );
    let request = at("orders.py", "def order_total(items):\n    $0\n");
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert!(
        outcome.trace.multiline,
        "{}",
        outcome.trace.multiline_reason
    );
    assert_eq!(
        outcome.suggestions[0].text,
        "total = 0\n    for item in items:\n        total += item.price\n    return total"
    );
    for _ in 0..50 {
        if model.cancelled() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        model.cancelled(),
        1,
        "the stream was stopped, not read to its end"
    );
}

#[tokio::test]
async fn elsewhere_one_line_is_asked_for() {
    let model = ScriptedModel::start(
        vec![Reply::text("total(items)\n    print(amount)\n", 3)],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let outcome = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert!(!outcome.trace.multiline);
    assert_eq!(outcome.suggestions.len(), 1);
    assert_eq!(outcome.suggestions[0].text, "total(items)");
    // Never: even at an empty block start.
    let p = pipeline(
        &model,
        Settings {
            multiline: Multiline::Never,
            ..settings()
        },
    );
    let request = at("orders.py", "def order_total(items):\n    $0\n");
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert!(!outcome.trace.multiline);
}

#[tokio::test]
async fn busy_servers_are_asked_again_and_bad_requests_are_not() {
    let model = ScriptedModel::start(
        vec![Reply::Status(503), Reply::text("total(items)", 4)],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let outcome = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert_eq!(outcome.suggestions[0].text, "total(items)");
    assert_eq!(outcome.trace.attempts, 2);
    assert_eq!(model.requests(), 2);

    let model = ScriptedModel::start(vec![Reply::Status(400)], Duration::ZERO).await;
    let p = pipeline(&model, settings());
    let err = p
        .complete(&typed(""), None, Ask::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("400"), "{err}");
    assert_eq!(model.requests(), 1, "a 400 is not retried");
    assert_eq!(p.stats().failures, 1);
}

#[tokio::test]
async fn cycling_gets_several_distinct_candidates() {
    let model = ScriptedModel::start(
        vec![
            Reply::text("total(items)", 4),
            Reply::text("sum(items)", 4),
            Reply::text("total(items)", 4),
        ],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let outcome = p
        .complete(
            &typed(""),
            None,
            Ask {
                candidates: 3,
                ..Ask::default()
            },
        )
        .await
        .unwrap();
    let mut texts: Vec<&str> = outcome
        .suggestions
        .iter()
        .map(|s| s.text.as_str())
        .collect();
    texts.sort();
    assert_eq!(texts, ["sum(items)", "total(items)"], "duplicates merged");
    assert_eq!(model.requests(), 3);
    // Copilot's temperature for three samples.
    let bodies = model.bodies.lock().unwrap();
    assert!(
        bodies
            .iter()
            .all(|b| b["temperature"].as_f64().unwrap() > 0.0)
    );
}

#[tokio::test]
async fn answers_are_reindented_and_overlaps_measured() {
    let model = ScriptedModel::start(
        vec![Reply::text("x = 1\n\tif x:\n\t\treturn x", 5)],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(
        &model,
        Settings {
            multiline: Multiline::Always,
            ..settings()
        },
    );
    let mut request = at("orders.py", "def f():\n    $0\n");
    request.options.insert_spaces = Some(true);
    request.options.tab_size = Some(4);
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert_eq!(
        outcome.suggestions[0].text,
        "x = 1\n    if x:\n        return x"
    );
    assert!(
        outcome.suggestions[0]
            .notes
            .iter()
            .any(|n| n.contains("re-indented"))
    );
    // The model wrote `x = 1` at the left margin, less than the cursor line's four spaces:
    // the suggestion replaces them.
    assert_eq!(outcome.suggestions[0].replaces_before, 4);

    // The rest of the line is `)`: the answer that contains it replaces it.
    let model = ScriptedModel::start(vec![Reply::text("items)", 2)], Duration::ZERO).await;
    let p = pipeline(&model, settings());
    let request = at("orders.py", "print(total($0))\n");
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert_eq!(outcome.suggestions[0].replaces, 1);
}

#[tokio::test]
async fn where_copilot_would_not_ask_nothing_is_asked() {
    let model = ScriptedModel::start(vec![Reply::text("x", 1)], Duration::ZERO).await;
    let p = pipeline(&model, settings());
    let outcome = p
        .complete(&at("a.py", "x = $0"), None, Ask::default())
        .await
        .unwrap();
    assert!(outcome.skipped.unwrap().contains("Copilot would not ask"));
    assert_eq!(model.requests(), 0);
    // A position outside the document is an error, not a panic.
    let mut bad = typed("");
    bad.position.line = 999;
    assert!(p.complete(&bad, None, Ask::default()).await.is_err());
}

#[tokio::test]
async fn the_contextual_filter_learns_to_stay_quiet() {
    let model = ScriptedModel::start(vec![Reply::text("tal(items)", 3)], Duration::ZERO).await;
    let p = pipeline(
        &model,
        Settings {
            contextual_filter: true,
            cache: false,
            ..settings()
        },
    );
    // A user who rejects every suggestion in the middle of a word.
    let mid_word = typed("to");
    let mut asked = 0;
    for _ in 0..60 {
        let outcome = p.complete(&mid_word, None, Ask::default()).await.unwrap();
        if outcome.skipped.is_some() {
            break;
        }
        asked += 1;
        p.record_decision(false);
    }
    let outcome = p.complete(&mid_word, None, Ask::default()).await.unwrap();
    let reason = outcome.skipped.expect("suppressed once learned");
    assert!(reason.contains("contextual filter"), "{reason}");
    assert!(outcome.trace.filter_score.unwrap() < 0.35);
    assert!(asked < 60, "learned within {asked} rejections");
    assert_eq!(model.requests(), asked);
    assert!(p.stats().filtered >= 1);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_cleanly() {
    let model = ScriptedModel::start(vec![Reply::Hang], Duration::ZERO).await;
    let backend = Backend::new(
        Kind::OpenAiCompletions,
        &model.url,
        Duration::from_secs(1),
        Duration::from_millis(300),
    )
    .unwrap();
    let p = Pipeline::new(backend, settings());
    let started = std::time::Instant::now();
    let err = p
        .complete(&typed(""), None, Ask::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did not answer"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(model.requests(), 1, "a timeout is not retried");
}

/// A server that refuses a prompt as longer than its context gets it again, smaller, once;
/// the trace says so.
#[tokio::test]
async fn a_prompt_refused_for_length_is_sent_again_smaller() {
    let refusal = r#"{"error":{"code":400,"message":"request (9000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}"#;
    let model = ScriptedModel::start(
        vec![
            Reply::StatusBody(400, refusal.to_owned()),
            Reply::text("total(items)", 4),
        ],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let long = format!(
        "{}def total(items):\n    return $0\n",
        "x = 1\n".repeat(3000)
    );
    let outcome = p
        .complete(&at("shop/long.py", &long), None, Ask::default())
        .await
        .unwrap();
    assert_eq!(outcome.suggestions[0].text, "total(items)");
    assert_eq!(model.requests(), 2);
    assert!(
        outcome
            .trace
            .notes
            .iter()
            .any(|n| n.contains("refused the prompt as too long")),
        "{:?}",
        outcome.trace.notes
    );
    let sent: Vec<usize> = model
        .bodies
        .lock()
        .unwrap()
        .iter()
        .map(|b| b["prompt"].as_str().unwrap().len())
        .collect();
    assert!(sent[1] < sent[0], "{sent:?}");
    // Refused twice: the error reaches the caller, with the prompt in its trace.
    let model = ScriptedModel::start(
        vec![Reply::StatusBody(400, refusal.to_owned())],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    match p
        .complete(&at("shop/long.py", &long), None, Ask::default())
        .await
    {
        Err(ghost::PipelineError::Backend { error, trace }) => {
            assert!(error.is_context_overflow());
            assert!(trace.prompt.is_some());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(model.requests(), 2);
}

/// Cycling asks for more than the suggestion already shown: the cache, which holds that one,
/// does not answer it.
#[tokio::test]
async fn cycling_after_a_suggestion_asks_the_model_for_more() {
    let model = ScriptedModel::start(
        vec![Reply::text("total(items)", 4), Reply::text("sum(items)", 4)],
        Duration::ZERO,
    )
    .await;
    let p = pipeline(&model, settings());
    let first = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert_eq!(first.suggestions.len(), 1);
    let again = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert_eq!(again.source, Some(Source::Cache));
    let cycling = p
        .complete(
            &typed(""),
            None,
            Ask {
                candidates: 3,
                ..Ask::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(cycling.source, Some(Source::Network));
    assert!(model.requests() >= 4, "{}", model.requests());
}

/// The prompt's context follows the strategy setting: pilotfish's outline by default, Copilot's
/// similar-file snippet when `strategy` says `copilot`.
#[tokio::test]
async fn the_strategy_setting_chooses_the_context() {
    let cart = "def total(items):\n    return sum(i.price for i in items)\n\n\ndef discount(total, code):\n    return total\n";
    let mut request = typed("");
    request.open_documents = vec![prompt::request::DocumentJson {
        path: "cart.py".into(),
        language_id: None,
        text: cart.into(),
    }];
    for (strategy, expected) in [
        (None, "Outline of cart.py:"),
        (Some("copilot"), "Compare this snippet from cart.py:"),
    ] {
        let model =
            ScriptedModel::start(vec![Reply::text("total(items)", 2)], Duration::ZERO).await;
        let p = pipeline(
            &model,
            Settings {
                strategy: strategy.map(str::to_owned),
                ..settings()
            },
        );
        p.complete(&request, None, Ask::default()).await.unwrap();
        let sent = model.bodies.lock().unwrap()[0]["prompt"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(sent.contains(expected), "{strategy:?}: {sent}");
    }
}

/// A model that loops at temperature 0 (SmolLM2 on a team's last line wrote `heavy *
/// heavy.quantity * heavy.quantity …`) is asked once more, sampled, and its answer is shown;
/// the note says why. The FAKE model loops whenever it is asked at temperature 0.
#[tokio::test]
async fn an_answer_that_only_repeats_a_pattern_is_asked_again_sampled() {
    let looping = format!(" heavy{}", " * heavy.quantity".repeat(20));
    let model = ScriptedModel::answering(
        move |body| {
            if body["temperature"].as_f64().unwrap_or(0.0) > 0.0 {
                Reply::text("total(items) * rate", 4)
            } else {
                Reply::text(&looping, 8)
            }
        },
        // A pause between pieces: the loop shows after about a third of its pieces, long
        // before its end.
        Duration::from_millis(200),
    )
    .await;
    let p = pipeline(&model, settings());
    let out = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert_eq!(
        out.suggestions.first().map(|s| s.text.as_str()),
        Some("total(items) * rate"),
        "{:?}",
        out.trace
    );
    assert_eq!(model.requests(), 2, "asked once more: {:?}", out.trace);
    // The loop was cut once it showed (after about 2.6 s), not streamed to its end (8.6 s).
    assert_eq!(model.cancelled(), 1, "{:?}", out.trace);
    assert!(
        out.trace
            .notes
            .iter()
            .any(|n| n.contains("asked once more")),
        "{:?}",
        out.trace.notes
    );
}

/// A model that loops however it is asked costs one more request, not more: the answer is
/// then empty, and says why.
#[tokio::test]
async fn an_answer_that_repeats_a_pattern_again_is_not_asked_a_third_time() {
    let looping = format!(" heavy{}", " * heavy.quantity".repeat(20));
    let model = ScriptedModel::answering(move |_| Reply::text(&looping, 8), Duration::ZERO).await;
    let p = pipeline(&model, settings());
    let out = p.complete(&typed(""), None, Ask::default()).await.unwrap();
    assert!(out.suggestions.is_empty(), "{:?}", out.suggestions);
    assert_eq!(model.requests(), 2, "{:?}", out.trace);
    assert!(
        out.trace
            .cuts
            .iter()
            .all(|c| c.contains("repeats a pattern")),
        "{:?}",
        out.trace.cuts
    );
}
