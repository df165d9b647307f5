//! What a server says of the time an answer took (llama.cpp's `timings`, Ollama's prompt
//! evaluation counts): how many prompt tokens it read, how long that took, and how many it had
//! cached. Budgets in seconds are sized from these.

use serde::Serialize;
use serde_json::Value;

use crate::Kind;

/// What the server said of the time an answer took: llama.cpp's `timings`, Ollama's
/// `prompt_eval_count` and `prompt_eval_duration`. Budgets in seconds are sized from these.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Timings {
    /// Prompt tokens the server read for this answer (what it had cached is not among them).
    pub prompt_n: u64,
    /// How long reading them took.
    pub prompt_ms: f64,
    /// Prompt tokens the server had cached and did not read again, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_n: Option<u64>,
    /// Answer tokens written per second, when the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_per_second: Option<f64>,
}

impl Timings {
    /// The timings in one answer or streamed event, where the server put them there.
    pub(crate) fn of(kind: Kind, value: &Value) -> Option<Timings> {
        match kind {
            Kind::LlamaCppInfill | Kind::LlamaCppCompletion => {
                let t = &value["timings"];
                Some(Timings {
                    prompt_n: t["prompt_n"].as_u64()?,
                    prompt_ms: t["prompt_ms"].as_f64()?,
                    cache_n: t["cache_n"]
                        .as_u64()
                        .or_else(|| value["tokens_cached"].as_u64()),
                    predicted_per_second: t["predicted_per_second"].as_f64().filter(|v| *v > 0.0),
                })
            }
            Kind::Ollama | Kind::OllamaRaw => {
                let eval = |count: &str, duration: &str| {
                    Some((value[count].as_u64()?, value[duration].as_f64()? / 1e6))
                };
                let (prompt_n, prompt_ms) = eval("prompt_eval_count", "prompt_eval_duration")?;
                Some(Timings {
                    prompt_n,
                    prompt_ms,
                    cache_n: None,
                    predicted_per_second: eval("eval_count", "eval_duration")
                        .filter(|(_, ms)| *ms > 0.0)
                        .map(|(n, ms)| n as f64 / ms * 1e3),
                })
            }
            _ => None,
        }
    }

    /// Prompt tokens read per second, where enough were read to tell: a handful of tokens
    /// measures the request's overhead more than the reading.
    pub fn prompt_per_second(&self) -> Option<f64> {
        (self.prompt_n >= MIN_TOKENS_TIMED && self.prompt_ms > 0.0)
            .then(|| self.prompt_n as f64 / self.prompt_ms * 1e3)
    }
}

/// Fewer prompt tokens read than this say little about the server's speed.
pub const MIN_TOKENS_TIMED: u64 = 32;
