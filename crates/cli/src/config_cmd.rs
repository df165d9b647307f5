//! `pilotfish config check`: shows the configuration in force, where each setting came from,
//! and tries the server it names.

use anyhow::Result;
use backends::Kind;
use host::config::{Overrides, PROBE_LIMIT, load};

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Show the configuration in force, where each setting came from, and try the server.
    Check(Overrides),
}

/// `config check`: the settings and where each came from, the managed server, then what the
/// server says of itself and the warnings that follow from it.
pub(crate) fn run(command: Command) -> Result<()> {
    let Command::Check(overrides) = command;
    let (loaded, path) = load(&overrides)?;
    match &path {
        Some(p) => println!("configuration: {}", p.display()),
        None => println!("configuration: none found, using the defaults"),
    }
    print_settings(&loaded)?;
    let mut b = loaded.backend.clone();
    let managed = crate::managed::start_for(&mut b)?;
    if let Some(m) = &managed {
        print_managed(m);
    }
    let b = &b;
    let (backend, key) = b.backend_and_key()?;
    print_who_asks(key.as_ref(), &backend);
    let kind = backend.kind;
    if kind == Kind::Codestral && backend.api_key.is_none() {
        // Without its key, Codestral would only refuse: there is nothing to ask yet.
        println!("server: not asked");
        println!(
            "warning: Codestral needs an API key: set api_key_env = \"MISTRAL_API_KEY\" (or api_key_command) in [backend]"
        );
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut info = runtime
        .block_on(backend.server_info(PROBE_LIMIT))
        .map_err(|e| match e {
            backends::BackendError::Unauthorized { .. } => anyhow::anyhow!("{e}"),
            e => anyhow::anyhow!("the server did not answer: {e}"),
        })?;
    let learned = learned(&runtime, &backend, &mut info);
    print_server(&info);
    print_speed(&loaded, &info, learned.as_ref())?;
    let shape = ghost::shape::choose(
        b.fim_mode()?,
        kind,
        b.fim_template.as_deref(),
        Some(&info),
        None,
    );
    println!("completions");
    println!("  request                      {}", shape.describe());
    if !info.models.is_empty() {
        println!("  models                       {}", info.models.join(", "));
    }
    for w in &warnings(b, kind, &info, &shape) {
        println!("warning: {w}");
    }
    Ok(())
}

/// The `[backend]` and `[completion]` settings in force, each with where it came from;
/// settings left unset are shown with what they mean.
fn print_settings(loaded: &host::config::Loaded) -> Result<()> {
    let b = &loaded.backend;
    let completion = toml::Table::try_from(&loaded.completion)?;
    let mut backend_table = toml::Table::try_from(b)?;
    if b.gguf.is_none() {
        backend_table.insert("endpoint".into(), toml::Value::String(b.endpoint()?));
    }
    for (section, table, keys) in [
        ("backend", &backend_table, BACKEND_KEYS),
        ("completion", &completion, COMPLETION_KEYS),
    ] {
        println!("[{section}]");
        for key in keys {
            let origin = loaded.origin(&format!("{section}.{key}"));
            let value = match table.get(*key) {
                Some(_) if *key == "api_key" => "(hidden)".to_owned(),
                Some(v) => show_value(v),
                None => unset(key).to_owned(),
            };
            println!("  {key:<28} {value:<40} {origin}");
        }
    }
    Ok(())
}

/// Who the server is told asks: the API key's source (never the key), the session header and
/// the `user` field.
fn print_who_asks(key: Option<&host::api_key::ApiKey>, backend: &backends::Backend) {
    println!("who asks");
    let key = match key {
        Some(k) => format!("(hidden), from {}", k.source),
        None => format!(
            "(none: no api_key_* setting, and ${} is not set)",
            host::api_key::KEY_VAR
        ),
    };
    println!("  api key                      {key}");
    let id = &backend.identity;
    if id.header.is_empty() {
        println!("  session header               (none: session_header = \"\")");
    } else {
        println!(
            "  session header               {}: {}",
            id.header, id.session
        );
    }
    if !id.user.is_empty() {
        println!(
            "  user field                   {} (OpenAI-compatible requests)",
            id.user
        );
    }
}

/// What a setting left unset means.
fn unset(key: &str) -> &'static str {
    match key {
        "model" => "(the server's)",
        "fim_template" => "(none: the server does FIM)",
        "fim" => "auto",
        "api_key_env" | "api_key_file" | "api_key_command" | "api_key" => "(none)",
        "session_header" => "X-Session-Id",
        "user" => "(a digest of account and machine)",
        "first_token_timeout_seconds" => {
            "(command line: sized from the server's speed; language server: 4)"
        }
        "context_size" => "(the server's, else none)",
        "endpoint" => "(the managed llama-server's, below)",
        "gguf" => "(none: a server already running)",
        "max_prompt_tokens" => "(7692, or what the server's context leaves)",
        _ => "(unset)",
    }
}

/// The llama-server pilotfish started for a model file: what it runs and where.
fn print_managed(m: &crate::managed::Managed) {
    let plan = &m.plan;
    println!("managed server");
    println!("  binary                       {}", plan.binary.display());
    println!("  model                        {}", plan.model.display());
    println!(
        "  trained context              {}",
        plan.trained
            .map_or("(not in the file)".to_owned(), |n| format!("{n} tokens"))
    );
    println!("  context                      {} tokens", plan.context);
    println!("  address                      {}", m.url);
    println!("  log                          {}", m.log.display());
    println!("  stops                        when pilotfish exits");
}

/// What the server said of itself: its name, model, context, and what it can do.
fn print_server(info: &backends::server::ServerInfo) {
    println!("server");
    println!("  asked                        {}", info.probed);
    println!("  answered as                  {}", info.server);
    println!(
        "  model                        {}",
        info.model.as_deref().unwrap_or("(not said)")
    );
    println!(
        "  context size                 {}",
        info.context_size
            .map_or("(not said)".to_owned(), |n| format!("{n} tokens"))
    );
    if let Some(fim) = info.fim {
        println!(
            "  fill-in-the-middle           {}{}",
            if fim { "yes" } else { "no" },
            info.fim_evidence
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
    }
    if let Some(chat) = info.chat_template {
        let tools = match info.chat_tools {
            Some(true) => ", with a place for tools",
            Some(false) => ", without a place for tools (agent mode's tools do not reach it)",
            None => "",
        };
        println!(
            "  chat template                {}",
            if chat {
                format!("yes (an instruction-tuned model){tools}")
            } else {
                "none of its own (the server's default)".to_owned()
            }
        );
    }
}

/// What is remembered of the server (`backends::memory`), with its model's
/// fill-in-the-middle filled in: remembered, else asked once and remembered (a llama.cpp
/// server's empty `/infill`, which a completion would otherwise have to learn from a refusal).
fn learned(
    runtime: &tokio::runtime::Runtime,
    backend: &backends::Backend,
    info: &mut backends::server::ServerInfo,
) -> Option<backends::memory::Learned> {
    let memory = backend.memory.as_ref();
    let mut learned = memory.and_then(|m| m.recall(&backend.endpoint, &info.fingerprint));
    if info.fim.is_some() {
        return learned;
    }
    if let Some(l) = &learned
        && let Some(fim) = l.fim
    {
        info.fim = Some(fim);
        info.fim_evidence = l.fim_evidence.as_ref().map(|e| format!("remembered: {e}"));
        return learned;
    }
    (info.fim, info.fim_evidence) = runtime.block_on(backend.probe_fim(info, PROBE_LIMIT));
    if let (Some(memory), Some(fim)) = (memory, info.fim) {
        memory.update(&backend.endpoint, &info.fingerprint, |l| {
            l.fim = Some(fim);
            l.fim_evidence.clone_from(&info.fim_evidence);
        });
        learned = memory.recall(&backend.endpoint, &info.fingerprint);
        // The command ends soon: what it learned is written now, not behind.
        memory.flush();
    }
    learned
}

/// The server's measured speed and the budget it leads to for a prompt read cold within the
/// first-token target.
fn print_speed(
    loaded: &host::config::Loaded,
    info: &backends::server::ServerInfo,
    learned: Option<&backends::memory::Learned>,
) -> Result<()> {
    let speed = learned.and_then(|l| l.speed);
    match speed {
        Some(s) => println!(
            "  measured speed               {:.0} prompt tokens/s{} (over {} answer(s))",
            s.prompt_per_second,
            s.predicted_per_second
                .map(|p| format!(", {p:.0} answer tokens/s"))
                .unwrap_or_default(),
            s.samples
        ),
        None => {
            println!("  measured speed               (not yet: the first completion measures it)")
        }
    }
    let settings = loaded.completion.settings(loaded.backend.max_tokens)?;
    let Some(target) = settings.first_token_target else {
        println!("  budget                       in tokens only (first_token_target_ms = 0)");
        return Ok(());
    };
    let asked = settings
        .max_prompt_tokens
        .unwrap_or(prompt::request::Options::default().max_prompt_tokens);
    // What the context holds after the answer, at the assumed 1.3 model tokens a prompt token.
    let full = info.context_size.map_or(asked, |ctx| {
        let room = ctx.saturating_sub(loaded.backend.max_tokens + 16);
        asked.min((f64::from(room) / 1.3) as usize)
    });
    let cold = ghost::cold_budget(speed.map(|s| s.prompt_per_second), target, 1.3, full);
    let target_ms = target.as_millis();
    if cold >= full {
        println!(
            "  budget                       {full} tokens: read cold within the {target_ms} ms target"
        );
    } else {
        println!(
            "  budget                       {cold} tokens read cold within the {target_ms} ms target{}; up to {full} as the server's cache holds the prompt",
            if speed.is_none() {
                " (a first request, before the speed is measured)"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// What will not work as configured with this server.
fn warnings(
    b: &host::config::BackendConfig,
    kind: Kind,
    info: &backends::server::ServerInfo,
    shape: &ghost::Shape,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if info.is_llama_cpp() && kind == Kind::OpenAiCompletions {
        warnings.push(
            ghost::LLAMA_SUFFIX_IGNORED
                .trim_start_matches("warning: ")
                .to_owned(),
        );
    }
    if info.fim == Some(false) && shape.fim && kind != Kind::OpenAiChat {
        warnings.push(format!(
            "the model {} has no fill-in-the-middle, and fim = on asks for it: the server will refuse or ignore the code after the cursor; use fim = auto, or a FIM code model",
            info.model.as_deref().unwrap_or("")
        ));
    }
    if let Some(ctx) = info.context_size
        && ctx <= b.max_tokens
    {
        warnings.push(format!(
            "the server's context ({ctx} tokens) cannot hold max_tokens ({}) and a prompt",
            b.max_tokens
        ));
    }
    warnings
}

/// A setting's value as it would be written in the file.
fn show_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

const BACKEND_KEYS: &[&str] = &[
    "kind",
    "endpoint",
    "gguf",
    "model",
    "fim_template",
    "fim",
    "api_key_env",
    "api_key_file",
    "api_key_command",
    "api_key",
    "session_header",
    "user",
    "connect_timeout_seconds",
    "timeout_seconds",
    "first_token_timeout_seconds",
    "max_tokens",
    "context_size",
];

const COMPLETION_KEYS: &[&str] = &[
    "strategy",
    "max_prompt_tokens",
    "multiline",
    "debounce",
    "debounce_ms",
    "contextual_filter",
    "filter_threshold",
    "cache",
    "retries",
    "warm",
    "first_token_target_ms",
];
