//! The kinds of model server pilotfish speaks to: each one's wire format, endpoint path,
//! fill-in-the-middle and prefix-only forms, and how its answers stream.

/// The wire formats pilotfish speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// llama.cpp's `POST /infill`: prefix, suffix and extra files, FIM done by the server.
    LlamaCppInfill,
    /// llama.cpp's `POST /completion`: one prompt string (FIM through a template).
    LlamaCppCompletion,
    /// `POST /v1/completions` of OpenAI-compatible servers (vLLM, llama.cpp, DeepSeek, ...):
    /// `prompt` and `suffix`.
    OpenAiCompletions,
    /// `POST /v1/chat/completions`: a chat model asked, in words, for the missing code.
    OpenAiChat,
    /// Ollama's `POST /api/generate` with `suffix` (the model's own FIM template).
    Ollama,
    /// Ollama's `POST /api/generate` in raw mode: one prompt string, FIM template applied here.
    OllamaRaw,
    /// Mistral's `POST /v1/fim/completions` (Codestral): `prompt` and `suffix`.
    Codestral,
}

/// How a kind of backend does fill-in-the-middle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fim {
    /// The server takes prefix and suffix apart and applies the model's FIM format itself.
    Native,
    /// The client must render a FIM template into one prompt string.
    Template,
    /// No fill-in-the-middle: a chat model is asked in words.
    Chat,
}

impl Kind {
    /// The kind for a name as written in configuration or on the command line.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "llama-infill" | "llama.cpp" | "llamacpp" => Kind::LlamaCppInfill,
            "llama-completion" => Kind::LlamaCppCompletion,
            "openai-completions" | "openai" => Kind::OpenAiCompletions,
            "openai-chat" | "chat" => Kind::OpenAiChat,
            "ollama" => Kind::Ollama,
            "ollama-raw" => Kind::OllamaRaw,
            "codestral" | "mistral" => Kind::Codestral,
            _ => return None,
        })
    }

    pub fn fim(self) -> Fim {
        match self {
            Kind::LlamaCppInfill | Kind::OpenAiCompletions | Kind::Ollama | Kind::Codestral => {
                Fim::Native
            }
            Kind::LlamaCppCompletion | Kind::OllamaRaw => Fim::Template,
            Kind::OpenAiChat => Fim::Chat,
        }
    }

    /// The kind that sends this server one prompt to continue, for a model without
    /// fill-in-the-middle (prefix-only): llama.cpp's `/completion`, Ollama's raw
    /// `/api/generate`, `/v1/completions` without `suffix`. `None` for a chat model, which is
    /// asked in words either way.
    pub fn prefix_only(self) -> Option<Kind> {
        match self {
            Kind::LlamaCppInfill | Kind::LlamaCppCompletion => Some(Kind::LlamaCppCompletion),
            Kind::Ollama | Kind::OllamaRaw => Some(Kind::OllamaRaw),
            Kind::OpenAiCompletions | Kind::Codestral => Some(self),
            Kind::OpenAiChat => None,
        }
    }

    /// Whether the endpoint takes context apart from the prefix (llama.cpp's `input_extra`).
    /// Everywhere else the context has to be written into the prefix, or it is lost.
    pub fn takes_separate_context(self) -> bool {
        self == Kind::LlamaCppInfill
    }

    /// Where this kind of server listens when nobody changed it: llama.cpp's and most
    /// OpenAI-compatible local servers' port 8080, Ollama's 11434, Mistral's hosted Codestral.
    pub fn default_endpoint(self) -> &'static str {
        match self {
            Kind::Ollama | Kind::OllamaRaw => "http://127.0.0.1:11434",
            Kind::Codestral => "https://codestral.mistral.ai",
            _ => "http://127.0.0.1:8080",
        }
    }

    /// The name this kind is configured by.
    pub fn name(self) -> &'static str {
        match self {
            Kind::LlamaCppInfill => "llama-infill",
            Kind::LlamaCppCompletion => "llama-completion",
            Kind::OpenAiCompletions => "openai-completions",
            Kind::OpenAiChat => "openai-chat",
            Kind::Ollama => "ollama",
            Kind::OllamaRaw => "ollama-raw",
            Kind::Codestral => "codestral",
        }
    }

    pub(crate) fn path(self) -> &'static str {
        match self {
            Kind::LlamaCppInfill => "/infill",
            Kind::LlamaCppCompletion => "/completion",
            Kind::OpenAiCompletions => "/v1/completions",
            Kind::OpenAiChat => "/v1/chat/completions",
            Kind::Ollama | Kind::OllamaRaw => "/api/generate",
            Kind::Codestral => "/v1/fim/completions",
        }
    }

    /// Whether streamed answers come as server-sent events (else one JSON object per line).
    pub(crate) fn streams_sse(self) -> bool {
        !matches!(self, Kind::Ollama | Kind::OllamaRaw)
    }
}
