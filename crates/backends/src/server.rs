//! What a model server says about itself: which server it is, the model it serves, its context
//! size and whether the model does fill-in-the-middle; and token counts in the model's own
//! vocabulary where the server offers them. The budget of a prompt comes from these.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::{Backend, BackendError, Kind, read_limited};

/// A readable summary of a server, for `config check` and for fitting prompts to the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServerInfo {
    /// What answered: `llama.cpp`, `Ollama`, `vLLM`, `OpenAI-compatible` or `Codestral`.
    pub server: String,
    /// The URL that was asked.
    pub probed: String,
    pub model: Option<String>,
    /// The context window in the model's tokens, prompt and answer together, when the server
    /// tells it.
    pub context_size: Option<u32>,
    /// Whether the model has fill-in-the-middle tokens, when the server tells it.
    pub fim: Option<bool>,
    /// How `fim` was learned, in words (`/infill answered 501: ...`), for `config check` and
    /// `--explain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fim_evidence: Option<String>,
    /// Whether the model carries a chat template of its own (an instruction-tuned model), when
    /// the server tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template: Option<bool>,
    /// Whether that template has a place for tools (agent mode's tools reach the model), when
    /// the server tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_tools: Option<bool>,
    /// Whether the server counts tokens for us (llama.cpp's `/tokenize`).
    pub tokenizes: bool,
    /// The models the server has, when it lists them (Ollama).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// The requests the server works on at once (llama.cpp's slots), when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    /// What the server says of its model in one line (model file, build, context, slots):
    /// what is remembered of the server holds while this stays the same.
    #[serde(skip)]
    pub fingerprint: String,
}

impl ServerInfo {
    pub fn is_llama_cpp(&self) -> bool {
        self.server == "llama.cpp"
    }
}

impl Backend {
    /// Asks the server what it is, within `limit`. llama.cpp answers `GET /props`; vLLM and
    /// other OpenAI-compatible servers `GET /v1/models`; Ollama `GET /api/tags` and
    /// `POST /api/show` for the model.
    ///
    /// Nothing is asked that changes what the server holds: whether a llama.cpp model does
    /// fill-in-the-middle is left unknown here (`/props` does not say), to be learned from the
    /// first real request or from [`Self::probe_fim`], and remembered.
    pub async fn server_info(&self, limit: Duration) -> Result<ServerInfo, BackendError> {
        match self.kind {
            Kind::Ollama | Kind::OllamaRaw => self.ollama_info(limit).await,
            Kind::Codestral => self.models_info(limit, "Codestral").await,
            _ => match self.get_json("/props", limit).await {
                Ok(props) if props.get("default_generation_settings").is_some() => {
                    Ok(llama_info(&self.endpoint, &props))
                }
                // Not llama.cpp (or an old one): the OpenAI-compatible model list.
                Err(
                    e @ (BackendError::Connect { .. }
                    | BackendError::Timeout { .. }
                    | BackendError::Unauthorized { .. }),
                ) => Err(e),
                _ => self.models_info(limit, "OpenAI-compatible").await,
            },
        }
    }

    /// Counts `text` in the model's own vocabulary with the server's tokenizer (llama.cpp's
    /// `POST /tokenize`); `Ok(None)` where the server has none.
    pub async fn count_tokens(
        &self,
        text: &str,
        limit: Duration,
    ) -> Result<Option<usize>, BackendError> {
        let url = format!("{}/tokenize", self.endpoint);
        let response = self
            .signed(
                self.client
                    .post(&url)
                    .json(&json!({"content": text, "add_special": false}))
                    .timeout(limit),
            )
            .send()
            .await
            .map_err(|e| self.transport_error_at(&url, e))?;
        if !response.status().is_success() {
            return Ok(None);
        }
        let body = read_limited(response, crate::MAX_RESPONSE_BYTES)
            .await
            .unwrap_or_default();
        let value: Value = serde_json::from_slice(&body).unwrap_or_default();
        Ok(value["tokens"].as_array().map(Vec::len))
    }

    /// Whether a llama.cpp server's model does fill-in-the-middle, asked with an empty
    /// `/infill`: it refuses at once (HTTP 501, before reading anything) when the vocabulary
    /// lacks the FIM tokens; otherwise it reads the three tokens of an empty hole and samples
    /// one, which replaces the prompt a slot held. So it is asked of an idle slot other than
    /// the first where the server has several (`id_slot`) unless the server is shared (see
    /// [`Backend::is_shared`]), and only where nothing remembers the answer (`config check`);
    /// completions learn it from their own requests instead.
    pub async fn probe_fim(
        &self,
        info: &ServerInfo,
        limit: Duration,
    ) -> (Option<bool>, Option<String>) {
        if !info.is_llama_cpp() {
            return (None, None);
        }
        let url = format!("{}/infill", self.endpoint);
        let mut probe = json!({
            "input_prefix": "",
            "input_suffix": "",
            "n_predict": 0,
            "cache_prompt": true,
        });
        // Never on a shared server: the slot pinned may hold another person's prompt.
        if info.slots.is_some_and(|n| n > 1) && !self.is_shared() {
            probe["id_slot"] = json!(info.slots.unwrap_or(1) - 1);
        }
        let sent = self
            .signed(self.client.post(&url).json(&probe).timeout(limit))
            .send()
            .await;
        let Ok(response) = sent else {
            return (None, None);
        };
        let status = response.status().as_u16();
        let body = read_limited(response, 1 << 16).await.unwrap_or_default();
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| {
                String::from_utf8_lossy(&body)
                    .trim()
                    .chars()
                    .take(200)
                    .collect()
            });
        match status {
            200..=299 => (
                Some(true),
                Some("llama.cpp's /infill accepts an empty hole".to_owned()),
            ),
            501 => (
                Some(false),
                Some(format!(
                    "llama.cpp's /infill answered 501: {}",
                    message.trim()
                )),
            ),
            _ => (None, None),
        }
    }

    async fn get_json(&self, path: &str, limit: Duration) -> Result<Value, BackendError> {
        let url = format!("{}{path}", self.endpoint);
        let response = self
            .signed(self.client.get(&url).timeout(limit))
            .send()
            .await
            .map_err(|e| self.timed_error(&url, e, limit))?;
        self.json_answer(&url, response).await
    }

    async fn json_answer(
        &self,
        url: &str,
        response: reqwest::Response,
    ) -> Result<Value, BackendError> {
        let status = response.status();
        let body = read_limited(response, 1 << 20).await.unwrap_or_default();
        if !status.is_success() {
            let body = String::from_utf8_lossy(&body)
                .trim()
                .chars()
                .take(300)
                .collect();
            return Err(crate::status_error(
                url.to_owned(),
                status.as_u16(),
                body,
                self.api_key.is_some(),
            ));
        }
        serde_json::from_slice(&body).map_err(|e| BackendError::Json {
            url: url.to_owned(),
            detail: e.to_string(),
        })
    }

    fn timed_error(&self, url: &str, e: reqwest::Error, limit: Duration) -> BackendError {
        if e.is_timeout() {
            BackendError::Timeout {
                url: url.to_owned(),
                after: limit,
            }
        } else {
            self.transport_error_at(url, e)
        }
    }

    async fn models_info(&self, limit: Duration, server: &str) -> Result<ServerInfo, BackendError> {
        let models = self.get_json("/v1/models", limit).await?;
        let all = models["data"].as_array().cloned().unwrap_or_default();
        let chosen = all
            .iter()
            .find(|m| self.model.is_some() && m["id"].as_str() == self.model.as_deref())
            .or_else(|| all.first());
        let context_size = chosen.and_then(|m| {
            // vLLM says `max_model_len`; llama.cpp's list has the trained size in `meta`.
            m["max_model_len"]
                .as_u64()
                .or_else(|| m["meta"]["n_ctx"].as_u64())
                .or_else(|| m["meta"]["n_ctx_train"].as_u64())
        });
        let server = if chosen.is_some_and(|m| m.get("max_model_len").is_some()) {
            "vLLM"
        } else {
            server
        };
        Ok(ServerInfo {
            server: server.to_owned(),
            probed: format!("{}/v1/models", self.endpoint),
            model: chosen.and_then(|m| m["id"].as_str()).map(str::to_owned),
            context_size: context_size.map(|n| n.min(u64::from(u32::MAX)) as u32),
            fim: None,
            fim_evidence: None,
            chat_template: None,
            chat_tools: None,
            tokenizes: false,
            models: all
                .iter()
                .filter_map(|m| m["id"].as_str().map(str::to_owned))
                .collect(),
            slots: None,
            fingerprint: format!(
                "{server} {} {}",
                chosen.and_then(|m| m["id"].as_str()).unwrap_or_default(),
                context_size.unwrap_or_default()
            ),
        })
    }

    async fn ollama_info(&self, limit: Duration) -> Result<ServerInfo, BackendError> {
        let tags = self.get_json("/api/tags", limit).await?;
        let models: Vec<String> = tags["models"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["name"].as_str().map(str::to_owned))
            .collect();
        let mut info = ServerInfo {
            server: "Ollama".to_owned(),
            probed: format!("{}/api/tags", self.endpoint),
            model: self.model.clone(),
            models,
            ..ServerInfo::default()
        };
        let Some(model) = &self.model else {
            return Ok(info);
        };
        let url = format!("{}/api/show", self.endpoint);
        let response = self
            .signed(
                self.client
                    .post(&url)
                    .json(&json!({"model": model}))
                    .timeout(limit),
            )
            .send()
            .await
            .map_err(|e| self.timed_error(&url, e, limit))?;
        let shown = self.json_answer(&url, response).await?;
        // The trained window is `<architecture>.context_length`; a `num_ctx` parameter in the
        // model file is what Ollama runs it with.
        let trained = shown["model_info"].as_object().and_then(|m| {
            m.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| v.as_u64())
        });
        let configured = shown["parameters"].as_str().and_then(|p| {
            p.lines().find_map(|l| {
                let mut words = l.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u64>().ok())
                    .flatten()
            })
        });
        info.context_size = configured
            .or(trained)
            .map(|n| n.min(u64::from(u32::MAX)) as u32);
        info.fim = shown["capabilities"]
            .as_array()
            .map(|c| c.iter().any(|c| c == "insert"));
        info.fim_evidence = info.fim.map(|fim| {
            let listed = if fim { "lists" } else { "does not list" };
            format!("Ollama's /api/show {listed} \"insert\" among the model's capabilities")
        });
        info.chat_template = shown["template"]
            .as_str()
            .map(|t| t.contains(".Messages") || t.contains("<|im_start|>"));
        info.fingerprint = format!(
            "Ollama {model} {} {}",
            shown["modified_at"].as_str().unwrap_or_default(),
            info.context_size.unwrap_or_default()
        );
        Ok(info)
    }
}

fn llama_info(endpoint: &str, props: &Value) -> ServerInfo {
    let settings = &props["default_generation_settings"];
    let slots = props["total_slots"].as_u64().map(|n| n.min(1024) as u32);
    let context_size = settings["n_ctx"]
        .as_u64()
        .or_else(|| props["n_ctx"].as_u64());
    let model = props["model_alias"]
        .as_str()
        .or_else(|| props["model_path"].as_str())
        .or_else(|| settings["model"].as_str())
        .map(|m| m.rsplit('/').next().unwrap_or(m).to_owned());
    ServerInfo {
        server: "llama.cpp".to_owned(),
        probed: format!("{endpoint}/props"),
        model,
        context_size: context_size.map(|n| n.min(u64::from(u32::MAX)) as u32),
        fim: None,
        fim_evidence: None,
        chat_template: props["chat_template"]
            .as_str()
            .map(|t| !t.trim().is_empty() && !is_llama_default_template(t)),
        chat_tools: props["chat_template_caps"]["supports_tools"].as_bool(),
        tokenizes: true,
        models: Vec::new(),
        slots,
        fingerprint: format!(
            "llama.cpp {} {} n_ctx={} slots={}",
            props["model_path"].as_str().unwrap_or_default(),
            props["build_info"].as_str().unwrap_or_default(),
            context_size.unwrap_or_default(),
            slots.unwrap_or_default()
        ),
    }
}

/// llama.cpp's own ChatML template, which `/props` shows for a model that carries none: the
/// model then has no chat template of its own.
const LLAMA_DEFAULT_TEMPLATE: &str = "{%- for message in messages -%}\n  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n  {{- '<|im_start|>assistant\n' -}}\n{%- endif -%}";

/// Whether `template` is llama.cpp's default, white space aside.
fn is_llama_default_template(template: &str) -> bool {
    let compact = |t: &str| t.split_whitespace().collect::<String>();
    compact(template) == compact(LLAMA_DEFAULT_TEMPLATE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_props_tell_a_models_template_from_the_servers_default() {
        let default = json!({
            "default_generation_settings": {"n_ctx": 1024},
            "model_path": "/m/tiny.gguf",
            "chat_template": LLAMA_DEFAULT_TEMPLATE,
            "chat_template_caps": {"supports_tools": false},
        });
        let info = llama_info("http://h", &default);
        assert_eq!(info.chat_template, Some(false));
        assert_eq!(info.chat_tools, Some(false));
        assert_eq!(info.context_size, Some(1024));
        assert_eq!(info.model.as_deref(), Some("tiny.gguf"));
        let own = json!({
            "default_generation_settings": {"n_ctx": 4096},
            "chat_template": "{% for message in messages %}<|im_start|>{{ message['role'] }}{% endfor %}",
            "chat_template_caps": {"supports_tools": true},
        });
        let info = llama_info("http://h", &own);
        assert_eq!(
            (info.chat_template, info.chat_tools),
            (Some(true), Some(true))
        );
    }
}
