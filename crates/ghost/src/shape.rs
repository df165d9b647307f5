//! How a completion request is shaped for what the model can do: fill-in-the-middle where the
//! model has it, a prefix-only continuation where it has not (most chat-tuned models have no
//! FIM tokens, and llama.cpp's `/infill` refuses them with HTTP 501), as the server says or as
//! the user forces.

use backends::{Kind, server::ServerInfo};
use serde::Serialize;

/// Whether to ask for fill-in-the-middle: `auto` follows what the server says of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FimMode {
    #[default]
    Auto,
    /// Always fill-in-the-middle (the backend's own way).
    On,
    /// Never: the model continues the code before the cursor and sees nothing after it.
    Off,
}

impl FimMode {
    /// The mode for a name as written in configuration or on the command line.
    pub fn parse(name: &str) -> Option<FimMode> {
        Some(match name {
            "auto" => FimMode::Auto,
            "on" | "yes" | "true" => FimMode::On,
            "off" | "no" | "false" => FimMode::Off,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            FimMode::Auto => "auto",
            FimMode::On => "on",
            FimMode::Off => "off",
        }
    }
}

/// The request chosen: fill-in-the-middle or prefix-only, the kind of request that carries it,
/// and why, in words for `config check` and `--explain`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Whether the model sees the code after the cursor.
    pub fim: bool,
    /// The endpoint's kind as sent (a prefix-only request to llama.cpp goes to `/completion`).
    #[serde(skip)]
    pub kind: Kind,
    pub reason: String,
}

impl Shape {
    /// One line: what is asked, where, and why.
    pub fn describe(&self) -> String {
        let what = if self.kind == Kind::OpenAiChat {
            "a chat model asked in words"
        } else if self.fim {
            "fill-in-the-middle"
        } else {
            "prefix-only (the code after the cursor is not sent)"
        };
        format!("{what}, {} backend: {}", self.kind.name(), self.reason)
    }
}

/// The shape for `kind` under `mode`, given what the server said of the model (`info`), whether
/// a FIM template is applied here, and a refusal of fill-in-the-middle the server gave earlier.
pub fn choose(
    mode: FimMode,
    kind: Kind,
    template: Option<&str>,
    info: Option<&ServerInfo>,
    refused: Option<&str>,
) -> Shape {
    // llama.cpp's `/infill` (the default kind) does not exist on an OpenAI-compatible server
    // such as vLLM; its `/v1/completions` takes the same prefix and suffix, so a user who only
    // gave the address gets an answer rather than a 404.
    if kind == Kind::LlamaCppInfill
        && let Some(i) = info
        && matches!(i.server.as_str(), "vLLM" | "OpenAI-compatible")
    {
        let mut shape = choose_for(mode, Kind::OpenAiCompletions, template, info, refused);
        shape.reason = format!(
            "{} ({} has no llama.cpp /infill: its /v1/completions is asked)",
            shape.reason, i.server
        );
        return shape;
    }
    choose_for(mode, kind, template, info, refused)
}

fn choose_for(
    mode: FimMode,
    kind: Kind,
    template: Option<&str>,
    info: Option<&ServerInfo>,
    refused: Option<&str>,
) -> Shape {
    let prefix_only = |reason: String| Shape {
        fim: false,
        kind: kind.prefix_only().unwrap_or(kind),
        reason,
    };
    let fim = |reason: String| Shape {
        fim: true,
        kind,
        reason,
    };
    if kind == Kind::OpenAiChat {
        return fim(
            "the code on both sides of the cursor is in the message, whatever the model's tokens"
                .to_owned(),
        );
    }
    match mode {
        FimMode::Off => return prefix_only("fim = off".to_owned()),
        FimMode::On => return fim("fim = on".to_owned()),
        FimMode::Auto => {}
    }
    if let Some(why) = refused {
        return prefix_only(format!(
            "the server refused fill-in-the-middle for this model ({why})"
        ));
    }
    let evidence = info.and_then(|i| i.fim_evidence.clone());
    match info.and_then(|i| i.fim) {
        Some(false) => prefix_only(format!(
            "the model has no fill-in-the-middle ({})",
            evidence.as_deref().unwrap_or("the server says so")
        )),
        Some(true) => fim(format!(
            "the model does fill-in-the-middle ({})",
            evidence.as_deref().unwrap_or("the server says so")
        )),
        None => match template {
            Some(t) => fim(format!("the FIM template {t} is applied here")),
            None => fim(
                "the server does not say whether the model does fill-in-the-middle, so it is asked for (fim = off forces prefix-only)"
                    .to_owned(),
            ),
        },
    }
}

/// Whether a failed fill-in-the-middle request says the model cannot do it, so that `auto`
/// falls back to prefix-only: llama.cpp's 501 "Infill is not supported by this model", or
/// vLLM's 400 "suffix is only supported for models with FIM completion rendering" (and other
/// OpenAI-compatible servers' 400s that name `suffix` as unsupported).
pub(crate) fn refuses_fim(error: &backends::BackendError) -> Option<String> {
    match error {
        backends::BackendError::Status { status, body, .. }
            if *status == 501 || says_no_fim(*status, body) =>
        {
            Some(format!(
                "HTTP {status}: {}",
                body.chars().take(160).collect::<String>()
            ))
        }
        _ => None,
    }
}

/// Whether an error body says the model does no fill-in-the-middle, in any server's words.
fn says_no_fim(status: u16, body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    if body.contains("infill is not supported") {
        return true;
    }
    // A 400 that names `suffix` and says it is not (or only sometimes) supported; a 400 about
    // anything else (a prompt too long, a bad parameter) is not a refusal of FIM.
    status == 400
        && body.contains("suffix")
        && (body.contains("not supported")
            || body.contains("only supported")
            || body.contains("unsupported")
            || body.contains("does not support"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(fim: Option<bool>) -> ServerInfo {
        ServerInfo {
            server: "llama.cpp".into(),
            fim,
            fim_evidence: fim.map(|_| "from /infill".to_owned()),
            ..ServerInfo::default()
        }
    }

    #[test]
    fn auto_follows_the_server() {
        let no = choose(
            FimMode::Auto,
            Kind::LlamaCppInfill,
            None,
            Some(&told(Some(false))),
            None,
        );
        assert!(!no.fim);
        assert_eq!(no.kind, Kind::LlamaCppCompletion);
        assert!(no.reason.contains("no fill-in-the-middle (from /infill)"));
        let yes = choose(
            FimMode::Auto,
            Kind::LlamaCppInfill,
            None,
            Some(&told(Some(true))),
            None,
        );
        assert!(yes.fim);
        assert_eq!(yes.kind, Kind::LlamaCppInfill);
        let unknown = choose(FimMode::Auto, Kind::OpenAiCompletions, None, None, None);
        assert!(unknown.fim);
    }

    #[test]
    fn the_default_kind_asks_an_openai_compatible_server_on_v1_completions() {
        for server in ["vLLM", "OpenAI-compatible"] {
            let info = ServerInfo {
                server: server.into(),
                ..ServerInfo::default()
            };
            let shape = choose(FimMode::Auto, Kind::LlamaCppInfill, None, Some(&info), None);
            assert_eq!((shape.fim, shape.kind), (true, Kind::OpenAiCompletions));
            assert!(
                shape.reason.contains("has no llama.cpp /infill"),
                "{shape:?}"
            );
            // Refused once, the same server gets the prefix-only request there too.
            let refused = choose(
                FimMode::Auto,
                Kind::LlamaCppInfill,
                None,
                Some(&info),
                Some("HTTP 400"),
            );
            assert_eq!(
                (refused.fim, refused.kind),
                (false, Kind::OpenAiCompletions)
            );
        }
        // llama.cpp and Ollama keep what was configured.
        let llama = choose(
            FimMode::Auto,
            Kind::LlamaCppInfill,
            None,
            Some(&told(None)),
            None,
        );
        assert_eq!(llama.kind, Kind::LlamaCppInfill);
    }

    #[test]
    fn the_user_forces_either_way_and_a_refusal_sticks() {
        let info = told(Some(true));
        let off = choose(FimMode::Off, Kind::Ollama, None, Some(&info), None);
        assert_eq!((off.fim, off.kind), (false, Kind::OllamaRaw));
        let on = choose(
            FimMode::On,
            Kind::LlamaCppInfill,
            None,
            Some(&told(Some(false))),
            None,
        );
        assert_eq!((on.fim, on.kind), (true, Kind::LlamaCppInfill));
        let refused = choose(
            FimMode::Auto,
            Kind::LlamaCppInfill,
            None,
            None,
            Some("HTTP 501"),
        );
        assert_eq!(
            (refused.fim, refused.kind),
            (false, Kind::LlamaCppCompletion)
        );
        let chat = choose(FimMode::Off, Kind::OpenAiChat, None, None, None);
        assert_eq!(chat.kind, Kind::OpenAiChat);
    }

    #[test]
    fn only_a_refusal_of_infill_counts_as_one() {
        let refusal = backends::BackendError::Status {
            url: "u".into(),
            status: 501,
            body: "Infill is not supported by this model".into(),
        };
        assert!(refuses_fim(&refusal).is_some());
        let busy = backends::BackendError::Status {
            url: "u".into(),
            status: 503,
            body: "busy".into(),
        };
        assert!(refuses_fim(&busy).is_none());
    }

    #[test]
    fn every_servers_refusal_of_a_suffix_counts_and_nothing_else_does() {
        let cases = [
            (501, "Infill is not supported by this model", true),
            (
                400,
                r#"{"object":"error","message":"suffix is only supported for models with FIM completion rendering","type":"BadRequestError","param":null,"code":400}"#,
                true,
            ),
            (
                400,
                r#"{"error":{"message":"suffix is not supported"}}"#,
                true,
            ),
            (
                400,
                "This model's maximum context length is 2048 tokens; the suffix was cut",
                false,
            ),
            (400, "max_tokens must be at least 1", false),
            (404, "suffix is not supported", false),
            (503, "Loading model", false),
        ];
        for (status, body, refuses) in cases {
            let error = backends::BackendError::Status {
                url: "u".into(),
                status,
                body: body.into(),
            };
            assert_eq!(refuses_fim(&error).is_some(), refuses, "{status} {body}");
        }
    }
}
