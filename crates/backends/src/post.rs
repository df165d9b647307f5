//! One POST to a model server, the way every backend sends: with its key, session header and
//! time limit, sent again once on a fresh connection when a kept-alive one the server had
//! already closed dies under it, and checked as a model server's answer.

use std::time::Duration;

use serde_json::Value;

use crate::{BackendError, Identity, Secret};

/// Sends `body` to `url` and gives back the accepted response with its content type.
///
/// llama-server closes a kept-alive connection after a request that took longer than its
/// keep-alive time (a long answer does), and a request sent right after, as `--batch` sends
/// them, can go out on that connection before the client has seen it close. The server never
/// read it, so sending it once more on a new connection is safe; curl does the same. Any other
/// failure, and a second one, is reported.
///
/// Each request carries `identity`'s session header and the key (see [`crate::identity`]).
pub(crate) async fn post(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    total_timeout: Duration,
    (identity, key): (&Identity, Option<&Secret>),
) -> Result<(reqwest::Response, String), BackendError> {
    let send = || {
        identity
            .sign(client.post(url).json(body).timeout(total_timeout), key)
            .send()
    };
    let key_sent = key.is_some();
    let response = match send().await {
        Err(e) if closed_before_answer(&e) => send().await,
        other => other,
    }
    .map_err(|e| crate::transport_error(url, total_timeout, e))?;
    crate::accepted(url.to_owned(), response, key_sent).await
}

/// Whether a request failed because its connection was closed before any answer arrived: the
/// HTTP library's "closed before message completed", or a reset or broken pipe while sending.
/// Time-outs and refused connections are not this: the server is slow or not there.
fn closed_before_answer(e: &reqwest::Error) -> bool {
    if e.is_timeout() || e.is_connect() || e.is_status() || e.is_body() || e.is_decode() {
        return false;
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(h) = c.downcast_ref::<hyper::Error>()
            && h.is_incomplete_message()
        {
            return true;
        }
        if let Some(io) = c.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
            )
        {
            return true;
        }
        cause = c.source();
    }
    false
}
