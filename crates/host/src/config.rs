//! The configuration file: which model server to use and how, with defaults that work for a
//! llama.cpp server on this machine. `pilotfish config check` shows and tries it.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::{Context, Result, bail};
use backends::{Backend, Fim, Kind};
use serde::{Deserialize, Serialize};

/// The whole file. Every field is optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub backend: BackendConfig,
    #[serde(default)]
    pub completion: CompletionConfig,
    #[serde(default)]
    pub chat: ChatConfig,
    #[serde(default)]
    pub agent: crate::tools::AgentConfig,
    #[serde(default)]
    pub next_edit: NextEditConfig,
    #[serde(default)]
    pub sessions: crate::session_store::Limits,
}

/// `[chat]`: the chat model.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChatConfig {
    /// `openai-chat` (`/v1/chat/completions`) or `ollama-chat` (`/api/chat`).
    pub kind: String,
    /// Base URL, with or without `/v1`, or the full endpoint URL; default: where the kind's
    /// server listens.
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// The name of an environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// A file that holds the API key (outside the workspace).
    pub api_key_file: Option<PathBuf>,
    /// A command whose standard output is the API key.
    pub api_key_command: Option<String>,
    /// The key itself (refused in a configuration file inside the workspace).
    pub api_key: Option<crate::api_key::Secret>,
    pub connect_timeout_seconds: f64,
    pub timeout_seconds: f64,
    /// Ollama's `num_ctx` (its default, 2,048, cuts long prompts silently).
    pub context_size: Option<u32>,
    pub temperature: Option<f32>,
    /// Tokens the answer may have (`max_answer_tokens` is the same setting under a name that
    /// says so); when unset, `chat` asks for at most 1,024 and `agent` and `acp` 4,096.
    #[serde(alias = "max_answer_tokens")]
    pub max_tokens: Option<u32>,
}

impl Default for ChatConfig {
    fn default() -> ChatConfig {
        ChatConfig {
            kind: "openai-chat".into(),
            endpoint: None,
            model: None,
            api_key_env: None,
            api_key_file: None,
            api_key_command: None,
            api_key: None,
            connect_timeout_seconds: 3.0,
            timeout_seconds: 300.0,
            context_size: None,
            temperature: None,
            max_tokens: None,
        }
    }
}

/// `[next_edit]`: next edit suggestions. They go to the `[chat]` model's server unless
/// `endpoint` names another (a next-edit model often runs beside the chat model).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct NextEditConfig {
    /// `copilot` (Copilot's prompt, to the chat endpoint) or `sweep` (the format open
    /// next-edit models are trained on, to llama-server's completion endpoint).
    pub strategy: String,
    /// The server's base URL, instead of `[chat] endpoint`.
    pub endpoint: Option<String>,
    /// The model's name, instead of `[chat] model`.
    pub model: Option<String>,
    /// Copilot's texts for the `copilot` strategy, where `tools/copilot-texts.sh` is not to
    /// look for them (default: `copilot-texts.json` in pilotfish's cache folder).
    pub copilot_texts: Option<PathBuf>,
}

impl Default for NextEditConfig {
    fn default() -> NextEditConfig {
        NextEditConfig {
            strategy: "copilot".into(),
            endpoint: None,
            model: None,
            copilot_texts: None,
        }
    }
}

impl NextEditConfig {
    /// The configuration with `[next_edit]`'s server and model in place of `[chat]`'s.
    pub fn apply_to(&self, loaded: &Loaded) -> Loaded {
        let mut loaded = loaded.clone();
        if let Some(e) = &self.endpoint {
            loaded.chat.endpoint = Some(e.clone());
        }
        if let Some(m) = &self.model {
            loaded.chat.model = Some(m.clone());
        }
        loaded
    }
}

/// `[completion]`: how the ghost-text pipeline behaves around the model.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompletionConfig {
    /// The context strategy: `outline` (pilotfish's default), `copilot` or `copilot-legacy`.
    pub strategy: String,
    /// `copilot` (several lines at the start of an empty block), `never` or `always`.
    pub multiline: String,
    /// `fixed` (Copilot's) or `predictive` (seed 001's, from the contextual filter's score).
    pub debounce: String,
    /// The fixed wait, in milliseconds.
    pub debounce_ms: f64,
    /// Suppress requests the contextual filter expects to be rejected.
    pub contextual_filter: bool,
    pub filter_threshold: f64,
    pub cache: bool,
    /// Attempts after the first when the server was unreachable or busy.
    pub retries: u32,
    /// The prompt's budget (prefix, context and suffix). Default: Copilot's 7,692, or less
    /// when the server's context cannot hold that and the answer.
    pub max_prompt_tokens: Option<u32>,
    /// The language server sends a document's prompt ahead when it is opened, so that a
    /// llama.cpp server has read it before the first keystroke.
    pub warm: bool,
    /// The time to the first token a completion should keep within, in milliseconds: the
    /// prompt's budget is sized so that what the server has not cached reads within it at
    /// the server's measured speed (it grows back as the cache warms; a fast server keeps the
    /// whole budget). 0 turns this off: budgets in tokens only.
    pub first_token_target_ms: f64,
}

/// The first-token target for ghost text: a suggestion much later than a second is typed past.
pub const DEFAULT_FIRST_TOKEN_TARGET_MS: f64 = 1000.0;

impl Default for CompletionConfig {
    fn default() -> Self {
        let d = ghost::Settings::default();
        CompletionConfig {
            strategy: prompt::request::Options::default().strategy,
            multiline: "copilot".into(),
            debounce: "fixed".into(),
            debounce_ms: engine::debounce::DEFAULT_DEBOUNCE_MS,
            contextual_filter: d.contextual_filter,
            filter_threshold: d.filter_threshold,
            cache: d.cache,
            retries: d.retries,
            max_prompt_tokens: None,
            warm: d.warm,
            first_token_target_ms: DEFAULT_FIRST_TOKEN_TARGET_MS,
        }
    }
}

impl CompletionConfig {
    /// The pipeline's settings, with `max_tokens` from the backend section.
    pub fn settings(&self, max_tokens: u32) -> Result<ghost::Settings> {
        let multiline = match self.multiline.as_str() {
            "copilot" => ghost::Multiline::Copilot,
            "never" => ghost::Multiline::Never,
            "always" => ghost::Multiline::Always,
            other => bail!("multiline `{other}` is not one of copilot, never, always"),
        };
        if !(self.debounce_ms.is_finite() && self.debounce_ms >= 0.0) {
            bail!("debounce_ms must be a number of milliseconds, 0 or more");
        }
        let debounce = match self.debounce.as_str() {
            "fixed" => engine::debounce::Debounce::Fixed(self.debounce_ms),
            "predictive" => engine::debounce::Debounce::Predictive {
                fixed: self.debounce_ms,
            },
            other => bail!("debounce `{other}` is not one of fixed, predictive"),
        };
        if max_tokens == 0 {
            bail!("max_tokens must be 1 or more: a completion of no tokens is never shown");
        }
        if !prompt::STRATEGIES.contains(&self.strategy.as_str()) {
            bail!(
                "strategy `{}` is not one of {}",
                self.strategy,
                prompt::STRATEGIES.join(", ")
            );
        }
        if !(0.0..=1.0).contains(&self.filter_threshold) {
            bail!("filter_threshold must be between 0 and 1");
        }
        if !(self.first_token_target_ms.is_finite() && self.first_token_target_ms >= 0.0) {
            bail!("first_token_target_ms must be a number of milliseconds, 0 (off) or more");
        }
        if let Some(n) = self.max_prompt_tokens
            && n < 64
        {
            bail!(
                "max_prompt_tokens must be 64 or more: a prompt of {n} tokens holds almost nothing"
            );
        }
        Ok(ghost::Settings {
            max_tokens,
            debounce: Some(debounce),
            contextual_filter: self.contextual_filter,
            filter_threshold: self.filter_threshold,
            multiline,
            cache: self.cache,
            retries: self.retries,
            skip_like_copilot: true,
            max_prompt_tokens: self.max_prompt_tokens.map(|n| n as usize),
            strategy: Some(self.strategy.clone()),
            // The backend's setting; callers set it from `[backend]`.
            fim: ghost::FimMode::Auto,
            warm: self.warm,
            first_token_target: (self.first_token_target_ms > 0.0)
                .then(|| Duration::from_secs_f64(self.first_token_target_ms / 1e3)),
            // An editor has keystrokes to grow a budget back in; `complete` sets it.
            grow_in_request: false,
            // Read where the user fetched it (`copilot_texts`); callers set it.
            recent_edits_heading: None,
        })
    }
}

/// The configuration in force: the file's, then the environment's and the flags' overrides.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub backend: BackendConfig,
    pub completion: CompletionConfig,
    pub chat: ChatConfig,
    pub agent: crate::tools::AgentConfig,
    pub next_edit: NextEditConfig,
    /// `[sessions]`: how long saved agent conversations are kept.
    pub sessions: crate::session_store::Limits,
    /// Where each setting that is not a default came from (`section.key` → a flag, a variable
    /// or the file), for `config check` and for error messages that blame the right place.
    pub origins: BTreeMap<String, String>,
}

impl Loaded {
    /// Where `section.key` came from: a flag, a variable, the file, or the default.
    pub fn origin(&self, key: &str) -> &str {
        self.origins.get(key).map_or("default", String::as_str)
    }
}

/// `[backend]`: the model server.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackendConfig {
    /// llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or
    /// codestral.
    pub kind: String,
    /// The server's base URL, with or without `/v1`; default: where the kind's server listens
    /// unless told otherwise.
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// For backends that take one prompt string.
    pub fim_template: Option<String>,
    /// `auto` (fill-in-the-middle where the server says the model has it, else prefix-only),
    /// `on` or `off`.
    pub fim: String,
    /// The name of an environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// A file that holds the API key (outside the workspace: a key there is refused).
    pub api_key_file: Option<PathBuf>,
    /// A command whose standard output is the API key (`pass show mistral`).
    pub api_key_command: Option<String>,
    /// The key itself; prefer `api_key_file` or `api_key_env` to keep it out of the file.
    /// Refused in a configuration file inside the workspace. See `crate::api_key` for the
    /// order in which these are read.
    pub api_key: Option<crate::api_key::Secret>,
    /// The header every request names its session in, for a router's session affinity:
    /// `X-Session-Id` by default; empty: none.
    pub session_header: Option<String>,
    /// The `user` field of OpenAI-compatible requests; default: a digest of the account and
    /// the machine.
    pub user: Option<String>,
    pub connect_timeout_seconds: f64,
    pub timeout_seconds: f64,
    /// The longest wait for the first text of an answer. Default: 4 seconds in the language
    /// server (a suggestion that late is useless), none beyond `timeout_seconds` on the
    /// command line.
    pub first_token_timeout_seconds: Option<f64>,
    pub max_tokens: u32,
    /// The model's context size in its own tokens, where the server does not say it (or to
    /// ask Ollama for more than its default of 2,048).
    pub context_size: Option<u32>,
    /// A GGUF model file: pilotfish starts llama-server for it on a free loopback port, and
    /// `endpoint` becomes that server's (`crate::managed`).
    pub gguf: Option<PathBuf>,
    /// Where `fim_template` came from, to blame the right place when it does not fit.
    #[serde(skip)]
    pub fim_template_origin: Option<String>,
}

impl Default for BackendConfig {
    fn default() -> Self {
        BackendConfig {
            kind: "llama-infill".into(),
            endpoint: None,
            model: None,
            fim_template: None,
            fim: "auto".into(),
            api_key_env: None,
            api_key_file: None,
            api_key_command: None,
            api_key: None,
            session_header: None,
            user: None,
            connect_timeout_seconds: 3.0,
            timeout_seconds: 30.0,
            first_token_timeout_seconds: None,
            max_tokens: 64,
            context_size: None,
            gguf: None,
            fim_template_origin: None,
        }
    }
}

/// Command-line settings that win over the file for one run.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Overrides {
    /// The configuration file (default: $PILOTFISH_CONFIG, else
    /// $XDG_CONFIG_HOME/pilotfish/config.toml, else ~/.config/pilotfish/config.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or
    /// codestral.
    #[arg(long)]
    pub backend: Option<String>,
    /// The server's base URL.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The model name, for servers that serve several.
    #[arg(long)]
    pub model: Option<String>,
    /// The FIM template, for backends that take one prompt string (llama-completion).
    #[arg(long, value_name = "TEMPLATE")]
    pub fim_template: Option<String>,
    /// auto (fill-in-the-middle where the model has it, else the code before the cursor
    /// continued), on or off.
    #[arg(long, value_name = "MODE")]
    pub fim: Option<String>,
    /// A GGUF model file: pilotfish starts llama-server for it and stops it at the end
    /// (instead of --endpoint).
    #[arg(long, value_name = "FILE")]
    pub gguf: Option<PathBuf>,
}

/// Where the configuration is read from, and whether that was asked for explicitly.
fn config_path(explicit: Option<&PathBuf>) -> (Option<PathBuf>, bool) {
    if let Some(p) = explicit {
        return (Some(p.clone()), true);
    }
    if let Some(p) = std::env::var_os("PILOTFISH_CONFIG") {
        return (Some(PathBuf::from(p)), true);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    (base.map(|b| b.join("pilotfish").join("config.toml")), false)
}

/// The configuration in force: the file (if any), then environment variables
/// (PILOTFISH_BACKEND, PILOTFISH_ENDPOINT, PILOTFISH_MODEL), then the command line.
pub fn load(overrides: &Overrides) -> Result<(Loaded, Option<PathBuf>)> {
    let (path, explicit) = config_path(overrides.config.as_ref());
    let mut origins = BTreeMap::new();
    let file = match &path {
        Some(p) if p.exists() => read_file(p, &mut origins)?,
        Some(p) if explicit => bail!("the configuration file {} does not exist", p.display()),
        _ => Config::default(),
    };
    let completion = file.completion;
    let chat = file.chat;
    let agent = file.agent;
    let next_edit = file.next_edit;
    let sessions = file.sessions;
    if !matches!(next_edit.strategy.as_str(), "copilot" | "sweep") {
        bail!(
            "strategy `{}` in [next_edit] is not copilot or sweep",
            next_edit.strategy
        );
    }
    let mut config = file.backend;
    if let Some(p) = &path
        && config.fim_template.is_some()
    {
        config.fim_template_origin = Some(format!("fim_template in {}", p.display()));
    }
    // A model path in the file means the same wherever pilotfish runs: relative to the file.
    if let (Some(p), Some(gguf)) = (&path, &config.gguf)
        && gguf.is_relative()
        && !gguf.starts_with("~")
    {
        config.gguf = Some(p.parent().unwrap_or(Path::new(".")).join(gguf));
    }
    let mut chat = chat;
    if let Some(p) = &path {
        let inline = config.api_key.is_some();
        crate::api_key::settle_file(p, &mut config.api_key_file, inline)?;
        let inline = chat.api_key.is_some();
        crate::api_key::settle_file(p, &mut chat.api_key_file, inline)?;
    }
    let used = path.filter(|p| p.exists());
    override_backend(&mut config, overrides, &mut origins);
    settle_server(&mut config, &mut origins)?;
    // Bad values are reported now, not at the first completion.
    completion.settings(config.max_tokens)?;
    Ok((
        Loaded {
            backend: config,
            completion,
            chat,
            agent,
            next_edit,
            sessions,
            origins,
        },
        used,
    ))
}

/// Reads and checks the configuration file at `p`, noting in `origins` every key it sets.
fn read_file(p: &Path, origins: &mut BTreeMap<String, String>) -> Result<Config> {
    let text =
        std::fs::read_to_string(p).with_context(|| format!("could not read {}", p.display()))?;
    let config = toml::from_str::<Config>(&text).map_err(|e| {
        // One line: the message and where, without the source excerpt.
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
        let message = e
            .message()
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .unwrap_or("unreadable")
            .to_owned();
        anyhow::anyhow!(
            "{} is not a valid configuration: {message}{at}",
            p.display()
        )
    })?;
    // The keys the file sets, for `config check` to say where each value came from.
    if let Ok(table) = toml::from_str::<toml::Table>(&text) {
        for (section, keys) in &table {
            for key in keys.as_table().into_iter().flat_map(|t| t.keys()) {
                origins.insert(format!("{section}.{key}"), p.display().to_string());
            }
        }
    }
    Ok(config)
}

/// The environment's and then the command line's settings over the file's `[backend]`, each
/// noted in `origins`.
fn override_backend(
    config: &mut BackendConfig,
    overrides: &Overrides,
    origins: &mut BTreeMap<String, String>,
) {
    let mut set = |key: &str, origin: &str| {
        origins.insert(format!("backend.{key}"), origin.to_owned());
    };
    if let Ok(v) = std::env::var("PILOTFISH_BACKEND") {
        config.kind = v;
        set("kind", "$PILOTFISH_BACKEND");
    }
    if let Ok(v) = std::env::var("PILOTFISH_ENDPOINT") {
        config.endpoint = Some(v);
        set("endpoint", "$PILOTFISH_ENDPOINT");
    }
    if let Ok(v) = std::env::var("PILOTFISH_MODEL") {
        config.model = Some(v);
        set("model", "$PILOTFISH_MODEL");
    }
    if let Some(v) = &overrides.backend {
        config.kind = v.clone();
        set("kind", "--backend");
    }
    if let Some(v) = &overrides.endpoint {
        config.endpoint = Some(v.clone());
        set("endpoint", "--endpoint");
    }
    if let Some(v) = &overrides.model {
        config.model = Some(v.clone());
        set("model", "--model");
    }
    if let Some(v) = &overrides.fim {
        config.fim = v.clone();
        set("fim", "--fim");
    }
    if let Some(v) = &overrides.fim_template {
        config.fim_template = Some(v.clone());
        config.fim_template_origin = Some("--fim-template".to_owned());
        set("fim_template", "--fim-template");
    }
    if let Some(v) = &overrides.gguf {
        config.gguf = Some(v.clone());
        set("gguf", "--gguf");
    }
}

/// Where the editor's settings come in, for [`settle_server`].
pub const EDITOR: &str = "the editor's settings";

/// Where pilotfish looks for a server when none is configured: `$PILOTFISH_DEFAULT_ENDPOINT`
/// when set, else `kinds_default` (where the backend's kind listens by default). Unlike
/// `PILOTFISH_ENDPOINT` it configures no server: with nothing listening there, pilotfish acts
/// as with no server at all (a test points it at a port nothing answers on).
pub fn default_endpoint(kinds_default: &str) -> String {
    match std::env::var(DEFAULT_ENDPOINT_VAR) {
        Ok(v) if !v.trim().is_empty() => v.trim().to_owned(),
        _ => kinds_default.to_owned(),
    }
}

/// See [`default_endpoint`].
pub const DEFAULT_ENDPOINT_VAR: &str = "PILOTFISH_DEFAULT_ENDPOINT";

/// How specific a setting's origin is: a later layer (the file, the environment, the command
/// line, the editor) overrides an earlier one.
fn layer(origin: &str) -> u8 {
    match origin {
        "default" => 0,
        EDITOR => 4,
        o if o.starts_with("--") => 3,
        o if o.starts_with('$') => 2,
        _ => 1,
    }
}

/// `gguf` (a server pilotfish starts) and `endpoint` (a server already running) name two
/// different servers. Set in the same place, they are refused; set in different places, the
/// more specific one wins, as for any other setting, so that `--gguf` works for one run with
/// an endpoint in the file. A managed server speaks llama.cpp: a kind that does not, set
/// less specifically than the model, gives way to llama-infill; set as specifically, it is
/// refused.
pub fn settle_server(
    config: &mut BackendConfig,
    origins: &mut BTreeMap<String, String>,
) -> Result<()> {
    let origin = |origins: &BTreeMap<String, String>, key: &str| {
        origins
            .get(&format!("backend.{key}"))
            .cloned()
            .unwrap_or_else(|| "default".to_owned())
    };
    if config.gguf.is_none() {
        return Ok(());
    }
    let gguf = origin(origins, "gguf");
    if config.endpoint.is_some() {
        let endpoint = origin(origins, "endpoint");
        match layer(&endpoint).cmp(&layer(&gguf)) {
            std::cmp::Ordering::Equal => bail!(
                "gguf (from {gguf}) starts a llama-server of pilotfish's own, and endpoint (from {endpoint}) names another server: give one of them"
            ),
            std::cmp::Ordering::Greater => {
                config.gguf = None;
                origins.remove("backend.gguf");
                return Ok(());
            }
            std::cmp::Ordering::Less => {
                config.endpoint = None;
                origins.remove("backend.endpoint");
            }
        }
    }
    let speaks_llama = matches!(
        Kind::parse(&config.kind),
        Some(
            Kind::LlamaCppInfill
                | Kind::LlamaCppCompletion
                | Kind::OpenAiCompletions
                | Kind::OpenAiChat
        )
    );
    let kind = origin(origins, "kind");
    if !speaks_llama && Kind::parse(&config.kind).is_some() {
        if layer(&kind) >= layer(&gguf) {
            bail!(
                "the {} backend (from {kind}) cannot talk to the llama-server that gguf (from {gguf}) starts: use llama-infill (the default), llama-completion, openai-completions or openai-chat",
                config.kind
            );
        }
        config.kind = Kind::LlamaCppInfill.name().to_owned();
        origins.insert("backend.kind".into(), format!("{gguf} (a llama-server)"));
    }
    Ok(())
}

const KINDS: &str = "llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or codestral";

impl BackendConfig {
    /// The kind of server, or an error naming the ones there are.
    pub fn kind(&self) -> Result<Kind> {
        Kind::parse(&self.kind)
            .ok_or_else(|| anyhow::anyhow!("unknown backend `{}`: use {KINDS}", self.kind))
    }

    /// Fill-in-the-middle, prefix-only, or as the server says.
    pub fn fim_mode(&self) -> Result<ghost::FimMode> {
        ghost::FimMode::parse(&self.fim).ok_or_else(|| {
            anyhow::anyhow!(
                "fim `{}` is not one of auto, on, off (auto: fill-in-the-middle where the server says the model has it)",
                self.fim
            )
        })
    }

    /// The base URL in force: the one set, else where this kind of server listens (or
    /// `$PILOTFISH_DEFAULT_ENDPOINT`, see [`default_endpoint`]).
    pub fn endpoint(&self) -> Result<String> {
        Ok(match &self.endpoint {
            Some(e) => e.clone(),
            None => default_endpoint(self.kind()?.default_endpoint()),
        })
    }

    /// The backend this configuration describes, after checking that its parts fit together.
    pub fn backend(&self) -> Result<Backend> {
        Ok(self.backend_and_key()?.0)
    }

    /// [`Self::backend`], and where its API key came from (for `config check`, which must not
    /// run an `api_key_command` twice).
    pub fn backend_and_key(&self) -> Result<(Backend, Option<crate::api_key::ApiKey>)> {
        let kind = self.kind()?;
        let endpoint = self.endpoint()?;
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            bail!("endpoint `{endpoint}` is not an http:// or https:// URL");
        }
        let fim = self.fim_mode()?;
        self.check_template(kind, fim)?;
        if matches!(kind, Kind::Ollama | Kind::OllamaRaw) && self.model.is_none() {
            bail!(
                "the {} backend needs a model name: give --model (or `model` in [backend]), one of those `ollama list` shows, such as qwen2.5-coder:1.5b-base",
                kind.name()
            );
        }
        if let Some(t) = &self.fim_template {
            t.parse::<prompt::fim::FimTemplate>()?;
        }
        for (what, v) in [
            (
                "connect_timeout_seconds",
                Some(self.connect_timeout_seconds),
            ),
            ("timeout_seconds", Some(self.timeout_seconds)),
            (
                "first_token_timeout_seconds",
                self.first_token_timeout_seconds,
            ),
        ] {
            if let Some(v) = v
                && !(v > 0.0 && v.is_finite())
            {
                bail!("{what} must be a positive number of seconds, not {v}");
            }
        }
        if self.context_size.is_some_and(|n| n <= self.max_tokens) {
            bail!(
                "context_size must be larger than max_tokens ({}): the prompt needs room too",
                self.max_tokens
            );
        }
        let mut backend = Backend::new(
            kind,
            &endpoint,
            Duration::from_secs_f64(self.connect_timeout_seconds),
            Duration::from_secs_f64(self.timeout_seconds),
        )?;
        backend.model = self.model.clone();
        let key = self.key()?;
        backend.api_key = key.as_ref().map(|k| k.secret.clone());
        backend.identity = self.identity()?;
        backend.first_token_timeout = self
            .first_token_timeout_seconds
            .map(Duration::from_secs_f64);
        backend.context_size = self.context_size;
        // What is learned of the server (its model's fill-in-the-middle, its speed) is kept
        // in the user's cache folder, so that a command run per keystroke learns it once.
        backend.memory = backends::memory::Memory::in_cache_folder();
        Ok((backend, key))
    }

    /// A FIM template where the backend takes none, or none where it needs one, gives empty or
    /// nonsense completions with no visible reason (the first complaint about peer tools):
    /// refuse it with the fix for this backend, naming where the template came from.
    fn check_template(&self, kind: Kind, fim: ghost::FimMode) -> Result<()> {
        let name = kind.name();
        let Some(t) = &self.fim_template else {
            // Prefix-only needs no template: the prompt is the code before the cursor.
            if kind.fim() == Fim::Template && fim != ghost::FimMode::Off {
                bail!(
                    "the {name} backend takes one prompt string, so it needs the model's FIM template: give --fim-template (or `fim_template` in [backend]) naming the model's format, such as qwen2.5-coder, deepseek-coder, codellama or starcoder"
                );
            }
            return Ok(());
        };
        let from = self
            .fim_template_origin
            .as_deref()
            .unwrap_or("fim_template");
        let fix = match kind {
            Kind::LlamaCppInfill => {
                "remove it (llama.cpp's /infill applies the model's own format), or use --backend llama-completion to apply this one"
            }
            Kind::Ollama => {
                "remove it (Ollama applies the model's own template to prompt and suffix), or use --backend ollama-raw to apply this one"
            }
            Kind::OpenAiCompletions => {
                "remove it (the server applies the model's own format to prompt and suffix); for llama.cpp use --backend llama-completion, for Ollama --backend ollama-raw"
            }
            Kind::Codestral => "remove it (Codestral applies its own format)",
            Kind::OpenAiChat => {
                "remove it: a chat model is asked in words and has no FIM format; for a FIM model use a completion backend (llama-infill, llama-completion, ollama-raw)"
            }
            Kind::LlamaCppCompletion | Kind::OllamaRaw => return Ok(()),
        };
        bail!(
            "the {name} backend takes no FIM template, and {t} (from {from}) would be sent as text: {fix}"
        )
    }

    /// The settings of this section that give a key.
    pub fn key_settings(&self) -> crate::api_key::KeySettings<'_> {
        crate::api_key::KeySettings {
            env: self.api_key_env.as_deref(),
            file: self.api_key_file.as_deref(),
            command: self.api_key_command.as_deref(),
            inline: self.api_key.as_ref(),
        }
    }

    /// The API key and where it came from (see [`crate::api_key`] for the order).
    pub fn key(&self) -> Result<Option<crate::api_key::ApiKey>> {
        crate::api_key::resolve(self.key_settings(), &crate::api_key::current_workspace())
    }

    /// Who asks: this process's identity with the configured header name and `user` field.
    pub fn identity(&self) -> Result<backends::Identity> {
        let mut identity = backends::Identity::here();
        if let Some(header) = &self.session_header {
            let header = header.trim();
            if !header.is_empty() && !backends::identity::is_header_name(header) {
                bail!(
                    "session_header `{header}` is not an HTTP header name: use letters, digits and dashes, such as X-Session-Id (or \"\" for none)"
                );
            }
            identity.header = header.to_owned();
        }
        if let Some(user) = &self.user {
            identity.user = user.trim().to_owned();
        }
        Ok(identity)
    }
}

/// How long `config check` and the first request of a session wait for a server to describe
/// itself: a server that takes longer is reported, not waited for.
pub const PROBE_LIMIT: Duration = Duration::from_secs(3);
