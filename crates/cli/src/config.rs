//! The configuration file: which model server to use and how, with defaults that work for a
//! llama.cpp server on this machine. `pilotfish config check` shows and tries it.

use std::{path::PathBuf, time::Duration};

use anyhow::{Context, Result, bail};
use backends::{Backend, Fim, Kind};
use serde::{Deserialize, Serialize};

/// The whole file. Every field is optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Config {
    #[serde(default)]
    pub(crate) backend: BackendConfig,
    #[serde(default)]
    pub(crate) completion: CompletionConfig,
}

/// `[completion]`: how the ghost-text pipeline behaves around the model.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct CompletionConfig {
    /// `copilot` (several lines at the start of an empty block), `never` or `always`.
    pub(crate) multiline: String,
    /// `fixed` (Copilot's) or `predictive` (seed 001's, from the contextual filter's score).
    pub(crate) debounce: String,
    /// The fixed wait, in milliseconds.
    pub(crate) debounce_ms: f64,
    /// Suppress requests the contextual filter expects to be rejected.
    pub(crate) contextual_filter: bool,
    pub(crate) filter_threshold: f64,
    pub(crate) cache: bool,
    /// Attempts after the first when the server was unreachable or busy.
    pub(crate) retries: u32,
}

impl Default for CompletionConfig {
    fn default() -> Self {
        let d = ghost::Settings::default();
        CompletionConfig {
            multiline: "copilot".into(),
            debounce: "fixed".into(),
            debounce_ms: engine::debounce::DEFAULT_DEBOUNCE_MS,
            contextual_filter: d.contextual_filter,
            filter_threshold: d.filter_threshold,
            cache: d.cache,
            retries: d.retries,
        }
    }
}

impl CompletionConfig {
    /// The pipeline's settings, with `max_tokens` from the backend section.
    pub(crate) fn settings(&self, max_tokens: u32) -> Result<ghost::Settings> {
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
        if !(0.0..=1.0).contains(&self.filter_threshold) {
            bail!("filter_threshold must be between 0 and 1");
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
        })
    }
}

/// The configuration in force: the file's, then the environment's and the flags' overrides.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub(crate) backend: BackendConfig,
    pub(crate) completion: CompletionConfig,
}

/// `[backend]`: the model server.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct BackendConfig {
    /// llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or
    /// codestral.
    pub(crate) kind: String,
    pub(crate) endpoint: String,
    pub(crate) model: Option<String>,
    /// For backends that take one prompt string.
    pub(crate) fim_template: Option<String>,
    /// The name of an environment variable that holds the API key.
    pub(crate) api_key_env: Option<String>,
    /// A command whose standard output is the API key (`pass show mistral`).
    pub(crate) api_key_command: Option<String>,
    /// The key itself; prefer `api_key_env` or `api_key_command` to keep it out of the file.
    pub(crate) api_key: Option<String>,
    pub(crate) connect_timeout_seconds: f64,
    pub(crate) timeout_seconds: f64,
    pub(crate) max_tokens: u32,
}

impl Default for BackendConfig {
    fn default() -> Self {
        BackendConfig {
            kind: "llama-infill".into(),
            endpoint: "http://127.0.0.1:8080".into(),
            model: None,
            fim_template: None,
            api_key_env: None,
            api_key_command: None,
            api_key: None,
            connect_timeout_seconds: 3.0,
            timeout_seconds: 30.0,
            max_tokens: 64,
        }
    }
}

/// Command-line settings that win over the file for one run.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct Overrides {
    /// The configuration file (default: $PILOTFISH_CONFIG, else
    /// $XDG_CONFIG_HOME/pilotfish/config.toml, else ~/.config/pilotfish/config.toml).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or
    /// codestral.
    #[arg(long)]
    pub(crate) backend: Option<String>,
    /// The server's base URL.
    #[arg(long)]
    pub(crate) endpoint: Option<String>,
    /// The model name, for servers that serve several.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The FIM template, for backends that take one prompt string (llama-completion).
    #[arg(long, value_name = "TEMPLATE")]
    pub(crate) fim_template: Option<String>,
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
pub(crate) fn load(overrides: &Overrides) -> Result<(Loaded, Option<PathBuf>)> {
    let (path, explicit) = config_path(overrides.config.as_ref());
    let file = match &path {
        Some(p) if p.exists() => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("could not read {}", p.display()))?;
            toml::from_str::<Config>(&text).map_err(|e| {
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
            })?
        }
        Some(p) if explicit => bail!("the configuration file {} does not exist", p.display()),
        _ => Config::default(),
    };
    let completion = file.completion;
    let mut config = file.backend;
    let used = path.filter(|p| p.exists());
    for (var, field) in [
        ("PILOTFISH_BACKEND", &mut config.kind),
        ("PILOTFISH_ENDPOINT", &mut config.endpoint),
    ] {
        if let Ok(v) = std::env::var(var) {
            *field = v;
        }
    }
    if let Ok(v) = std::env::var("PILOTFISH_MODEL") {
        config.model = Some(v);
    }
    if let Some(v) = &overrides.backend {
        config.kind = v.clone();
    }
    if let Some(v) = &overrides.endpoint {
        config.endpoint = v.clone();
    }
    if let Some(v) = &overrides.model {
        config.model = Some(v.clone());
    }
    if let Some(v) = &overrides.fim_template {
        config.fim_template = Some(v.clone());
    }
    // Bad values are reported now, not at the first completion.
    completion.settings(config.max_tokens)?;
    Ok((
        Loaded {
            backend: config,
            completion,
        },
        used,
    ))
}

impl BackendConfig {
    /// The backend this configuration describes, after checking that its parts fit together.
    pub(crate) fn backend(&self) -> Result<Backend> {
        let Some(kind) = Kind::parse(&self.kind) else {
            bail!(
                "unknown backend `{}`: use llama-infill, llama-completion, openai-completions, openai-chat, ollama, ollama-raw or codestral",
                self.kind
            );
        };
        if !(self.endpoint.starts_with("http://") || self.endpoint.starts_with("https://")) {
            bail!(
                "endpoint `{}` is not an http:// or https:// URL",
                self.endpoint
            );
        }
        // A mismatch between endpoint and template is the first complaint about peer tools
        // (empty completions for no visible reason): refuse it with the fix instead.
        match (kind.fim(), &self.fim_template) {
            (Fim::Template, None) => bail!(
                "the {} backend takes one prompt string: give --fim-template (for example qwen2.5-coder, deepseek-coder, codellama, starcoder) matching the model",
                self.kind
            ),
            (Fim::Native | Fim::Chat, Some(t)) => bail!(
                "the {} backend applies the model's own FIM format; --fim-template {t} would be sent as text: drop it, or use --backend llama-completion",
                self.kind
            ),
            _ => {}
        }
        if let Some(t) = &self.fim_template {
            t.parse::<prompt::fim::FimTemplate>()?;
        }
        for (what, v) in [
            ("connect_timeout_seconds", self.connect_timeout_seconds),
            ("timeout_seconds", self.timeout_seconds),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                bail!("{what} must be a positive number of seconds, not {v}");
            }
        }
        let mut backend = Backend::new(
            kind,
            &self.endpoint,
            Duration::from_secs_f64(self.connect_timeout_seconds),
            Duration::from_secs_f64(self.timeout_seconds),
        )?;
        backend.model = self.model.clone();
        backend.api_key = self.api_key()?;
        Ok(backend)
    }

    fn api_key(&self) -> Result<Option<String>> {
        if let Some(var) = &self.api_key_env {
            return match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => Ok(Some(v.trim().to_owned())),
                _ => bail!("api_key_env names {var}, which is not set in the environment"),
            };
        }
        if let Some(command) = &self.api_key_command {
            let out = std::process::Command::new("sh")
                .args(["-c", command])
                .stderr(std::process::Stdio::inherit())
                .output()
                .with_context(|| format!("could not run api_key_command `{command}`"))?;
            if !out.status.success() {
                bail!("api_key_command `{command}` failed ({})", out.status);
            }
            let key = String::from_utf8(out.stdout)
                .context("api_key_command printed something that is not text")?;
            return Ok(Some(key.trim().to_owned()));
        }
        Ok(self.api_key.clone())
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Show the configuration in force and try the server.
    Check(Overrides),
}

pub(crate) fn run(command: Command) -> Result<()> {
    let Command::Check(overrides) = command;
    let (loaded, path) = load(&overrides)?;
    let config = loaded.backend;
    match &path {
        Some(p) => println!("configuration: {}", p.display()),
        None => println!("configuration: none found, using the defaults"),
    }
    println!("backend:       {}", config.kind);
    println!("endpoint:      {}", config.endpoint);
    println!(
        "model:         {}",
        config.model.as_deref().unwrap_or("(the server's)")
    );
    println!(
        "fim template:  {}",
        config
            .fim_template
            .as_deref()
            .unwrap_or("(none: the server does FIM)")
    );
    let backend = config.backend()?;
    println!(
        "api key:       {}",
        if backend.api_key.is_some() {
            "set"
        } else {
            "none"
        }
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let answer = runtime.block_on(backend.probe())?;
    println!("server:        answers ({answer})");
    Ok(())
}
