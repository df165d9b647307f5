//! The pipeline against the real llama-server with the tiny generated model.

use std::time::Duration;

use backends::{Backend, Kind};
use ghost::{Ask, Pipeline, Settings, Source};
use test_utils::LlamaServer;

use crate::pipeline::at;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_server_completes_and_the_answer_is_cached() {
    let server = LlamaServer::start();
    let backend = Backend::new(
        Kind::LlamaCppInfill,
        &server.url,
        Duration::from_secs(2),
        Duration::from_secs(60),
    )
    .unwrap();
    let p = Pipeline::new(
        backend,
        Settings {
            debounce: None,
            skip_like_copilot: false,
            max_tokens: 16,
            ..Settings::default()
        },
    );
    let request = at(
        "shop/orders.py",
        "def order_total(items):\n    amount = $0\n    return amount\n",
    );
    let outcome = p.complete(&request, None, Ask::default()).await.unwrap();
    assert_eq!(outcome.source, Some(Source::Network));
    assert_eq!(outcome.trace.attempts, 1);
    assert!(outcome.trace.first_token_ms.is_some(), "tokens streamed");
    assert!(outcome.trace.assembly_ms.is_some());
    assert_eq!(p.stats().network, 1);
    // Greedy random weights still give text; when some survives post-processing, asking
    // again at the same place is served from the cache.
    if let Some(first) = outcome.suggestions.first() {
        let again = p.complete(&request, None, Ask::default()).await.unwrap();
        assert_eq!(again.source, Some(Source::Cache));
        assert_eq!(again.suggestions[0].text, first.text);
    } else {
        eprintln!("every answer was dropped: {:?}", outcome.trace.cuts);
    }
}
