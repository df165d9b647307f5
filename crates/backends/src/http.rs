//! A plain HTTP POST for the synchronous callers that are not model clients: MCP servers over
//! streamable HTTP (`mcp::HttpClient` is served by this, through `host`). The body is read as it
//! arrives, so a stream of events that stays open after the answer does not hold the caller;
//! every wait is bounded and a cancel ends it within 20 ms.

use std::{
    future::Future,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

/// How often a wait looks at its cancel flag.
const POLL: Duration = Duration::from_millis(20);
/// How long connecting may take.
const CONNECT_LIMIT: Duration = Duration::from_secs(10);

/// An HTTP answer: its status, headers (names lowercased) and the body read.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The first header of that (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// POSTs `body` to `url` with `headers` and reads the answer until its body ends or `enough`
/// says what arrived suffices; at most `limit` in all, and no longer once `cancel` is set.
/// The error says what failed in words for the user.
pub fn post(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    limit: Duration,
    cancel: &AtomicBool,
    enough: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<Reply, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("no async runtime: {e}"))?;
    // Rustls needs a crypto provider once per process; installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_LIMIT)
        .build()
        .map_err(|e| format!("the HTTP client could not be made: {e}"))?;
    let deadline = Instant::now() + limit;
    runtime.block_on(async {
        let mut request = client.post(url).body(body.to_vec());
        for (k, v) in headers {
            request = request.header(k, v);
        }
        let mut response = within(request.send(), deadline, limit, cancel)
            .await?
            .map_err(|e| format!("{url}: {e}"))?;
        let mut reply = Reply {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_ascii_lowercase(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: Vec::new(),
        };
        while let Some(chunk) = within(response.chunk(), deadline, limit, cancel)
            .await?
            .map_err(|e| format!("{url}: the answer broke off: {e}"))?
        {
            reply.body.extend_from_slice(&chunk);
            if enough(&reply.body) {
                break;
            }
        }
        Ok(reply)
    })
}

/// `work`, unless the deadline passes or `cancel` is set first.
async fn within<F: Future>(
    work: F,
    deadline: Instant,
    limit: Duration,
    cancel: &AtomicBool,
) -> Result<F::Output, String> {
    tokio::pin!(work);
    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err("cancelled".into());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("no answer within {} s", limit.as_secs()));
        }
        tokio::select! {
            out = &mut work => return Ok(out),
            () = tokio::time::sleep(left.min(POLL)) => {}
        }
    }
}
