//! One person on a shared server: a stream the editor gives up on is adopted by the same
//! document's next request or cancelled at once (the server sees its connection closed before
//! any text), one request in flight per person, and a request cut by the first-token limit
//! leaves its stream to the next keystroke. Against the scripted model (a FAKE server).

use std::time::Duration;

use backends::{Backend, Kind};
use ghost::{Ask, Pipeline, Source};
use test_utils::scripted::{Reply, ScriptedModel};

use crate::pipeline::{at, settings, typed};

/// Waits (generously) until `what` holds.
async fn until(what: impl Fn() -> bool) -> bool {
    for _ in 0..1500 {
        if what() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    what()
}

/// A pipeline whose exchanges may last five minutes: only pilotfish's own cancellation closes a
/// stream that holds in time.
fn patient(model: &ScriptedModel) -> std::sync::Arc<Pipeline> {
    let backend = Backend::new(
        Kind::OpenAiCompletions,
        &model.url,
        Duration::from_secs(2),
        Duration::from_secs(300),
    )
    .unwrap();
    std::sync::Arc::new(Pipeline::new(backend, settings()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_stream_nobody_adopts_is_cancelled_before_its_first_text() {
    let model = ScriptedModel::start(vec![Reply::HoldUntilClosed], Duration::ZERO).await;
    let p = patient(&model);
    let first = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed(""), None, Ask::default()).await }
    });
    assert!(
        until(|| model.requests() == 1).await,
        "the request was sent"
    );
    // The editor gives up on the request and asks nothing more: the stream, which has sent
    // no text and never will, is closed after the adoption window, not at a next piece.
    first.abort();
    assert!(
        until(|| model.cancelled() == 1).await,
        "the server saw the released stream closed"
    );
    assert_eq!(p.stats().failures, 0, "a cancelled request is no failure");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_request_in_flight_per_person_in_every_document() {
    let model = ScriptedModel::start(
        vec![Reply::HoldUntilClosed, Reply::text("shipping(items)", 4)],
        Duration::ZERO,
    )
    .await;
    let p = patient(&model);
    let first = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed(""), None, Ask::default()).await }
    });
    assert!(
        until(|| model.requests() == 1).await,
        "the request was sent"
    );
    // The same person asks in another document while the first request still waits.
    let other = at(
        "cart.py",
        "def cart_total(items):\n    return $0\n\n\nprint(cart_total([]))\n",
    );
    let second = p.complete(&other, None, Ask::default()).await.unwrap();
    assert_eq!(second.source, Some(Source::Network), "{:?}", second.trace);
    assert_eq!(model.requests(), 2);
    assert!(
        until(|| model.cancelled() == 1).await,
        "the first stream was closed"
    );
    // The first request ends with no suggestion, and that is not a failure.
    let first = first.await.unwrap().unwrap();
    assert!(first.suggestions.is_empty(), "{first:?}");
    assert_eq!(p.stats().failures, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_cut_by_the_first_token_limit_leaves_its_stream_to_the_next_keystroke() {
    // The answer's one piece comes 4 s after the request; each request waits 3 s for it.
    let model = ScriptedModel::start(
        vec![Reply::text("total(items) + shipping(items)\n", 64)],
        Duration::from_secs(4),
    )
    .await;
    let mut backend = Backend::new(
        Kind::OpenAiCompletions,
        &model.url,
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .unwrap();
    backend.first_token_timeout = Some(Duration::from_secs(3));
    let p = std::sync::Arc::new(Pipeline::new(backend, settings()));
    let first = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed(""), None, Ask::default()).await }
    });
    assert!(
        until(|| model.requests() == 1).await,
        "the request was sent"
    );
    // The next keystroke, 2 s later, adopts the stream; the first request's limit cuts it
    // (for the editor) a second later, and the stream goes on to answer the second.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let second = tokio::spawn({
        let p = p.clone();
        async move { p.complete(&typed("tot"), None, Ask::default()).await }
    });
    let error = first.await.unwrap().unwrap_err();
    assert!(error.to_string().contains("first"), "{error}");
    let second = second.await.unwrap().unwrap();
    assert_eq!(second.source, Some(Source::InFlight), "{:?}", second.trace);
    assert_eq!(second.suggestions[0].text, "al(items) + shipping(items)");
    assert_eq!(model.requests(), 1, "the stream went on: no second request");
    assert_eq!(model.cancelled(), 0);
}
