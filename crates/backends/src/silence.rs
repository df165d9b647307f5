//! Why a server that took a completion request sent nothing back in time: still loading its
//! model, busy (every slot working), still working (vLLM, whose `/metrics` counts the requests
//! it runs and queues), or hung (it says it is ready and idle, yet nothing came). Asked after a
//! first-token limit passed, so that the user's message names the cause; and, for a limit
//! pilotfish sized itself, while the request waits on past it (see [`Backend::working`]).

use std::time::Duration;

use serde_json::Value;

use crate::{Backend, read_limited};

/// What the server says of itself after it sent no text within the first-token limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Silence {
    /// The server is still loading its model (llama.cpp's `/health` answers 503 "Loading
    /// model" until it is ready).
    Loading(String),
    /// Every slot is working (`/slots` shows each one processing), or `/health` says no slot
    /// is free: on other requests, or still reading this prompt.
    Busy { busy: usize, slots: usize },
    /// A vLLM that answers its health check: it reads a long prompt cold slowly on a CPU, and
    /// `/metrics` says how many requests it runs and queues.
    Working { running: u64, waiting: u64 },
    /// The server says it is ready and has an idle slot, yet sent nothing.
    Hung(String),
    /// The server answers nothing now, not even its health check.
    Unresponsive,
}

impl Silence {
    /// One sentence for the user: the cause, and what to do about it.
    pub fn explain(&self) -> String {
        match self {
            Silence::Loading(said) => format!(
                "The server is still loading its model ({said}); try again when it is ready."
            ),
            Silence::Busy { busy, slots } => format!(
                "The server is busy: {busy} of its {slots} slot(s) are processing (other requests, or this prompt still being read cold); try again, give the server more slots (llama-server -np), or raise first_token_timeout_seconds in [backend]."
            ),
            Silence::Working { running, waiting } => format!(
                "The server is still working: vLLM reports {running} request(s) running and {waiting} waiting (a long prompt read cold on a CPU takes a while); try again, or raise first_token_timeout_seconds in [backend]."
            ),
            Silence::Hung(said) => {
                format!("The server looks hung: {said}, yet it sent no text; restart it.")
            }
            Silence::Unresponsive => {
                "The server looks hung: it answers nothing now, not even /health; restart it."
                    .to_owned()
            }
        }
    }
}

impl Backend {
    /// Asks the server's health and slots (llama.cpp's `/health` and `/slots`), each within
    /// `limit`, to tell loading, busy and hung apart.
    pub async fn why_silent(&self, limit: Duration) -> Silence {
        let (health, slots, metrics) = tokio::join!(
            self.peek("/health", limit),
            self.peek("/slots", limit),
            self.peek("/metrics", limit)
        );
        if let Some((200..300, _)) = &health
            && let Some((running, waiting)) = metrics.as_ref().and_then(vllm_requests)
        {
            return Silence::Working { running, waiting };
        }
        if let Some((503, body)) = &health {
            let said = message(body);
            if said.to_ascii_lowercase().contains("loading") {
                return Silence::Loading(format!("/health answered 503: {said}"));
            }
        }
        if let Some((200, Value::Array(all))) = &slots
            && !all.is_empty()
        {
            let busy = all.iter().filter(|s| processing(s)).count();
            if busy == all.len() {
                return Silence::Busy {
                    busy,
                    slots: all.len(),
                };
            }
            return Silence::Hung(format!(
                "/slots shows {} of {} slot(s) idle",
                all.len() - busy,
                all.len()
            ));
        }
        match health {
            // An older llama.cpp says "no slot available" with 503 when every slot works.
            Some((503, body)) => {
                let said = message(&body);
                if said.to_ascii_lowercase().contains("slot") {
                    Silence::Busy { busy: 1, slots: 1 }
                } else {
                    Silence::Hung(format!("/health answered 503: {said}"))
                }
            }
            Some((status, _)) if (200..300).contains(&status) => {
                Silence::Hung("/health says it is ready".to_owned())
            }
            Some((status, body)) => Silence::Hung(format!(
                "/health answered HTTP {status}: {}",
                message(&body)
            )),
            None => Silence::Unresponsive,
        }
    }

    /// Whether the server works on any request now, asked within `limit`: llama.cpp's `/slots`
    /// shows a slot processing, vLLM's `/metrics` counts a request running or waiting. `None`
    /// when it does not say (no such endpoint, or no answer in time). On a server several
    /// people share, a request of anyone's.
    pub async fn working_now(&self, limit: Duration) -> Option<bool> {
        if self.kind == crate::Kind::OpenAiCompletions {
            let metrics = self.peek("/metrics", limit).await?;
            let (running, waiting) = vllm_requests(&metrics)?;
            return Some(running + waiting > 0);
        }
        match self.peek("/slots", limit).await? {
            (200, Value::Array(all)) if !all.is_empty() => Some(all.iter().any(processing)),
            _ => None,
        }
    }

    /// Whether a server several people share is contended now, asked within `limit`: at least
    /// half of llama.cpp's slots (every slot of a one-slot server) are processing someone
    /// else's request (`/slots`; `mine` are this client's own still at the server, which are
    /// not counted: one person on a one-slot server is not contended by their own request), or
    /// vLLM queues a request or runs several (`/metrics`), at least one of them someone else's.
    /// Half, not every slot: eight people typing on four slots left a slot free now and then,
    /// and each such moment counted as not contended sent a burst of mid-word requests that
    /// the next keystrokes superseded (three quarters of the slots' time went to those). Then a
    /// new request waits behind others', and one the typing soon supersedes only takes a slot
    /// from someone's last keystroke. `Some` says what the server said; `None` when it is not
    /// contended or does not say. A llama.cpp whose `/slots` does not answer in time while
    /// `/health` does is in a long batch, which is someone else's when this client has nothing
    /// at the server.
    pub async fn contended(&self, limit: Duration, mine: usize) -> Option<String> {
        if self.kind == crate::Kind::OpenAiCompletions
            && let Some((running, waiting)) = self
                .peek("/metrics", limit)
                .await
                .as_ref()
                .and_then(vllm_requests)
        {
            let all = (running + waiting) as usize;
            return (all > mine && (waiting > 0 || running >= VLLM_CONTENDED)).then(|| {
                format!("vLLM reports {running} request(s) running and {waiting} waiting")
            });
        }
        let (health, slots) = tokio::join!(self.peek("/health", limit), self.peek("/slots", limit));
        match slots {
            Some((200, Value::Array(all))) if others_hold_half(&all, mine) => Some(format!(
                "{} of its {} slot(s) are processing",
                all.iter().filter(|s| processing(s)).count(),
                all.len()
            )),
            // llama.cpp answers `/slots` between two batches, `/health` at once.
            None if mine == 0 && matches!(health, Some((200..300, _))) => Some(format!(
                "its /slots did not answer within {} ms while /health did: a long batch is under way",
                limit.as_millis()
            )),
            _ => None,
        }
    }

    /// Whether the server says it is still working, asked within `limit`: its `/health`
    /// answers, and it is a vLLM (its `/metrics` says so) or a llama.cpp whose `/slots` shows a
    /// slot processing (this request, or others' it queues behind on a shared server) or does
    /// not answer in time (llama.cpp answers `/slots` between two batches, which take long on
    /// a loaded machine, while `/health` is answered at once). vLLM's counts are not required
    /// to show the request: one still being tokenized or scheduled is not counted as running
    /// yet. A request whose first-token limit may give way (see
    /// [`Backend::first_token_patience`]) waits on while it is.
    pub async fn working(&self, limit: Duration) -> bool {
        let (health, metrics, slots) = tokio::join!(
            self.peek("/health", limit),
            self.peek("/metrics", limit),
            self.peek("/slots", limit)
        );
        matches!(health, Some((200..300, _)))
            && (metrics.as_ref().and_then(vllm_requests).is_some()
                || slots.as_ref().is_none_or(any_slot_processing))
    }

    /// `future`'s output, or the first-token error once `deadline` passed; with
    /// [`Backend::first_token_patience`], the deadline moves on by [`crate::PATIENCE_STEP`] each time the
    /// server says it is still working.
    pub async fn first_wait<F: std::future::Future>(
        &self,
        future: F,
        deadline: &mut Option<(tokio::time::Instant, Duration)>,
    ) -> Result<F::Output, crate::BackendError> {
        let Some((at, after)) = deadline else {
            return Ok(future.await);
        };
        tokio::pin!(future);
        loop {
            match tokio::time::timeout_at(*at, &mut future).await {
                Ok(output) => return Ok(output),
                Err(_)
                    if self.first_token_patience
                        && self.working(crate::PATIENCE_STEP / 4).await =>
                {
                    *at = tokio::time::Instant::now() + crate::PATIENCE_STEP;
                }
                Err(_) => {
                    return Err(crate::BackendError::FirstTokenTimeout {
                        url: self.url(),
                        after: *after,
                    });
                }
            }
        }
    }

    /// A GET's status and JSON body (`Null` when the body is not JSON), or `None` when the
    /// server did not answer within `limit`.
    async fn peek(&self, path: &str, limit: Duration) -> Option<(u16, Value)> {
        let builder = self
            .client
            .get(format!("{}{path}", self.endpoint))
            .timeout(limit);
        let response = self.signed(builder).send().await.ok()?;
        let status = response.status().as_u16();
        let body = read_limited(response, 1 << 20).await.unwrap_or_default();
        let value = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).trim().to_owned()));
        Some((status, value))
    }
}

/// The requests vLLM runs at once from which it counts as contended: its steps slow with each
/// one on a CPU, and several at once are other people's.
const VLLM_CONTENDED: u64 = 2;

/// Whether one of llama.cpp's `/slots` is working on a request (`is_processing`, or an older
/// server's non-zero `state`).
fn processing(slot: &Value) -> bool {
    slot["is_processing"].as_bool().unwrap_or(false)
        || slot["state"].as_u64().is_some_and(|state| state != 0)
}

/// Whether others' requests (those processing beyond this client's `mine`) hold at least half
/// of llama.cpp's slots (rounded up: the one slot of a one-slot server).
fn others_hold_half(slots: &[Value], mine: usize) -> bool {
    let busy = slots.iter().filter(|s| processing(s)).count();
    !slots.is_empty() && busy.saturating_sub(mine) >= slots.len().div_ceil(2)
}

/// Whether llama.cpp's `/slots` answer shows any slot working on a request.
fn any_slot_processing((status, body): &(u16, Value)) -> bool {
    *status == 200
        && body
            .as_array()
            .is_some_and(|all| all.iter().any(processing))
}

/// The requests vLLM's `/metrics` counts running and waiting (summed over its models), when
/// the answer is vLLM's metrics.
fn vllm_requests((status, body): &(u16, Value)) -> Option<(u64, u64)> {
    let text = body.as_str().filter(|_| (200..300).contains(status))?;
    let count = |name: &str| {
        text.lines()
            .filter(|l| l.starts_with(name) && !l.starts_with('#'))
            .filter_map(|l| l.rsplit(' ').next()?.trim().parse::<f64>().ok())
            .sum::<f64>()
    };
    text.contains("vllm:num_requests_running").then(|| {
        (
            count("vllm:num_requests_running") as u64,
            count("vllm:num_requests_waiting") as u64,
        )
    })
}

/// The words of an error body: llama.cpp's `error.message`, a `status`, or the text itself.
fn message(body: &Value) -> String {
    let said = body["error"]["message"]
        .as_str()
        .or_else(|| body["status"].as_str())
        .or_else(|| body.as_str())
        .unwrap_or("");
    said.chars().take(160).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn others_holding_half_the_slots_contend_a_llama_server() {
        let slots = |busy: usize| -> Vec<Value> {
            (0..4)
                .map(|i| serde_json::json!({"id": i, "is_processing": i < busy}))
                .collect()
        };
        assert!(!others_hold_half(&slots(1), 0));
        assert!(others_hold_half(&slots(2), 0));
        assert!(
            !others_hold_half(&slots(2), 1),
            "one of the two is this client's own"
        );
        assert!(others_hold_half(&slots(4), 2));
        let one = vec![serde_json::json!({"id": 0, "is_processing": true})];
        assert!(others_hold_half(&one, 0) && !others_hold_half(&one, 1));
        assert!(!others_hold_half(&[], 0));
    }

    #[test]
    fn vllms_metrics_say_how_many_requests_it_runs_and_queues() {
        let metrics = "# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"smol\"} 1.0\nvllm:num_requests_waiting{engine=\"0\",model_name=\"smol\"} 2.0\n";
        let answer = (200, Value::String(metrics.to_owned()));
        assert_eq!(vllm_requests(&answer), Some((1, 2)));
        let llama = (
            200,
            Value::String("llamacpp:prompt_tokens_total 10".to_owned()),
        );
        assert_eq!(vllm_requests(&llama), None);
        let message = Silence::Working {
            running: 1,
            waiting: 0,
        }
        .explain();
        assert!(message.contains("still working") && !message.contains("hung"));
    }
}
