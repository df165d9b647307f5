//! What a shared model server says of its work: the prompt tokens it read and the tokens it
//! generated (llama-server's `/metrics`, vLLM's), its cache's hits, and whether
//! anything is still running (llama-server's `/slots`, vLLM's running and waiting requests).

use crate::vllm::get;

/// Which server, for the names of its counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Llama,
    Vllm,
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// Prompt tokens the server read (evaluated, not served from a cache).
    pub prompt_read: f64,
    pub generated: f64,
    /// Prompt tokens the server was sent, and those it found in its cache (llama-server's
    /// slot, vLLM's prefix cache).
    pub cache_queries: f64,
    pub cache_hits: f64,
}

impl std::ops::Sub for Counters {
    type Output = Counters;
    fn sub(self, o: Counters) -> Counters {
        Counters {
            prompt_read: self.prompt_read - o.prompt_read,
            generated: self.generated - o.generated,
            cache_queries: self.cache_queries - o.cache_queries,
            cache_hits: self.cache_hits - o.cache_hits,
        }
    }
}

/// A shared server as the team's measurements see it.
#[derive(Debug, Clone)]
pub struct Shared {
    pub engine: Engine,
    pub url: String,
}

impl Shared {
    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .and_then(|p| p.trim_end_matches('/').parse().ok())
            .expect("a loopback URL with a port")
    }

    /// The counters now (0 for those the server does not have).
    pub fn counters(&self) -> Counters {
        let metrics = get(self.port(), "/metrics").unwrap_or_default();
        let sum = |name: &str| -> f64 {
            metrics
                .lines()
                .filter(|l| !l.starts_with('#'))
                .filter(|l| {
                    l.strip_prefix(name)
                        .is_some_and(|r| r.starts_with('{') || r.starts_with(' '))
                })
                .filter_map(|l| l.rsplit(' ').next()?.trim().parse::<f64>().ok())
                .sum()
        };
        match self.engine {
            Engine::Llama => {
                let (read, cached) = (
                    sum("llamacpp:prompt_tokens_total"),
                    sum("llamacpp:prompt_tokens_cached_total"),
                );
                Counters {
                    prompt_read: read,
                    generated: sum("llamacpp:tokens_predicted_total"),
                    cache_queries: read + cached,
                    cache_hits: cached,
                }
            }
            Engine::Vllm => {
                let (queries, hits) = (
                    sum("vllm:prefix_cache_queries_total"),
                    sum("vllm:prefix_cache_hits_total"),
                );
                Counters {
                    prompt_read: queries - hits,
                    generated: sum("vllm:generation_tokens_total"),
                    cache_queries: queries,
                    cache_hits: hits,
                }
            }
        }
    }

    /// Whether the model is writing an answer now: a llama-server slot processing with tokens
    /// decoded, or a vLLM request running (its generation counter tells the rest).
    pub fn writing(&self) -> bool {
        match self.engine {
            Engine::Llama => self.slots().iter().any(|s| {
                s["is_processing"].as_bool().unwrap_or(false)
                    && s["next_token"][0]["n_decoded"].as_u64().unwrap_or(0) > 0
            }),
            Engine::Vllm => self.busy() > 0,
        }
    }

    fn slots(&self) -> Vec<serde_json::Value> {
        let slots = get(self.port(), "/slots").unwrap_or_default();
        let body = slots.split("\r\n\r\n").nth(1).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        value.as_array().cloned().unwrap_or_default()
    }

    /// How many requests the server is still working on: llama-server's slots processing,
    /// vLLM's requests running or waiting.
    pub fn busy(&self) -> usize {
        match self.engine {
            Engine::Llama => self
                .slots()
                .iter()
                .filter(|s| s["is_processing"].as_bool().unwrap_or(false))
                .count(),
            Engine::Vllm => {
                let metrics = get(self.port(), "/metrics").unwrap_or_default();
                metrics
                    .lines()
                    .filter(|l| {
                        l.starts_with("vllm:num_requests_running")
                            || l.starts_with("vllm:num_requests_waiting")
                    })
                    .filter_map(|l| l.rsplit(' ').next()?.trim().parse::<f64>().ok())
                    .sum::<f64>() as usize
            }
        }
    }
}
