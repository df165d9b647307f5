//! `pilotfish lsp`: the language server on standard input and output, configured like
//! `pilotfish complete` and reconfigurable by the editor.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context, Result};
use serde_json::Value;

use host::config::{BackendConfig, CompletionConfig, Loaded};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    overrides: host::config::Overrides,
    /// Accepted and ignored: standard input and output are the only transport, and editors
    /// pass this flag by habit.
    #[arg(long)]
    stdio: bool,
}

/// The settings an editor sends (`initializationOptions`, `workspace/didChangeConfiguration`
/// under `pilotfish`, `workspace/configuration`): `backend`, `completion` and `chat` tables
/// with the configuration file's keys, laid over the configuration the server started with.
/// `chat` names the model next edits ask (as `[chat]` does; `[next_edit]`'s own server and
/// model still win); without a chat server anywhere, next edits ask the completions' server,
/// the managed one included, so a model file is loaded once.
///
/// With `gguf` in force, the managed server in `managed` is kept if it serves the same model
/// with the same context, else stopped and replaced (everything else checked first, so that
/// settings refused leave the running server alone); without, it is stopped.
fn configure(
    base: &Loaded,
    settings: &Value,
    managed: &Mutex<Option<crate::managed::Managed>>,
) -> Result<lsp::Configured> {
    let editor_chat = settings.get("chat");
    let mut backend = serde_json::to_value(&base.backend)?;
    let mut completion = serde_json::to_value(&base.completion)?;
    let mut origins = base.origins.clone();
    for (key, target) in [("backend", &mut backend), ("completion", &mut completion)] {
        if let Some(over) = settings.get(key).and_then(Value::as_object) {
            for (k, v) in over {
                target[k] = v.clone();
                origins.insert(format!("{key}.{k}"), host::config::EDITOR.to_owned());
            }
        }
    }
    let mut backend: BackendConfig =
        serde_json::from_value(backend).context("the `backend` settings are not valid")?;
    let completion: CompletionConfig =
        serde_json::from_value(completion).context("the `completion` settings are not valid")?;
    host::config::settle_server(&mut backend, &mut origins)?;
    let mut settings = completion.settings(backend.max_tokens)?;
    settings.fim = backend.fim_mode()?;
    settings.recent_edits_heading =
        host::copilot_texts::load(base.next_edit.copilot_texts.as_deref()).recent_edits_heading;
    backend.backend()?;
    // Checked before a model loads; made again below, where the managed server's address is
    // known.
    next_edit_model(base, editor_chat, &backend)?;
    let plan = match &backend.gguf {
        Some(gguf) => Some(crate::managed::plan(gguf, backend.context_size)?),
        None => None,
    };
    // A new model loads here, holding the message loop for the seconds that takes: requests
    // wait for the server rather than fail while it loads.
    let mut running = managed.lock().unwrap_or_else(|e| e.into_inner());
    if running.as_ref().map(|m| &m.plan) != plan.as_ref() {
        // The old server goes first: two models may not fit in memory together.
        *running = None;
        if let Some(plan) = plan {
            *running = Some(plan.start()?);
        }
    }
    if let Some(m) = running.as_ref() {
        backend.endpoint = Some(m.url.clone());
    }
    let next_edit = next_edit_model(base, editor_chat, &backend)?;
    let mut built = backend.backend()?;
    // A suggestion that comes later than this is no longer wanted, and a hung server must not
    // hold every keystroke for the whole time limit.
    built.first_token_timeout = Some(Duration::from_secs_f64(
        backend
            .first_token_timeout_seconds
            .unwrap_or(EDITOR_FIRST_TOKEN_SECONDS),
    ));
    Ok(lsp::Configured {
        backend: built,
        settings,
        next_edit: Some(next_edit),
    })
}

/// The language server's time-to-first-token limit unless configured.
const EDITOR_FIRST_TOKEN_SECONDS: f64 = 4.0;

/// Whether a file is excluded by a `.copilotignore` in one of its folders, the rules of each
/// folder read once.
fn excluder() -> impl Fn(&str) -> bool + Send + Sync {
    host::exclusion::excluder()
}

/// A workspace folder's files as the language server's prompts read them (the imports of a
/// document that are not open): the folder's own rules and every `.copilotignore` above a file
/// both keep it out.
struct FolderFiles {
    disk: crate::workspace::DiskFiles,
    excluded: Arc<dyn Fn(&str) -> bool + Send + Sync>,
}

impl syntax::WorkspaceFiles for FolderFiles {
    fn read(&self, path: &str) -> Option<String> {
        if (self.excluded)(&self.disk.root.join(path).to_string_lossy()) {
            return None;
        }
        self.disk.read(path)
    }

    fn list(&self, dir: &str) -> Vec<String> {
        self.disk.list(dir)
    }
}

/// Readers of workspace folders, one per folder, made on first use.
fn folder_files(excluded: Arc<dyn Fn(&str) -> bool + Send + Sync>) -> lsp::WorkspaceReader {
    type Reader = Arc<dyn syntax::WorkspaceFiles + Send + Sync>;
    let cache: Mutex<HashMap<String, Option<Reader>>> = Mutex::new(HashMap::new());
    Arc::new(move |root: &str| {
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(root.to_owned())
            .or_insert_with(|| {
                // A folder whose ignore file is broken is not read at all: better no imports
                // than an excluded file in a prompt.
                let disk = crate::workspace::DiskFiles::new(root).ok()?;
                Some(Arc::new(FolderFiles {
                    disk,
                    excluded: excluded.clone(),
                }) as Reader)
            })
            .clone()
    })
}

pub(crate) fn run(args: Args) -> Result<()> {
    let _ = args.stdio;
    let (loaded, _) = host::config::load(&args.overrides)?;
    // No server named and none listening: one line in the editor's log (the server's standard
    // error) on how to get one. The language server still starts: the editor's settings may
    // name a server, or the user may start one.
    // A setting that cannot be read is refused with its fix by `configure` below.
    if let Ok(Some(line)) = crate::default_model::log_line(&loaded.backend) {
        eprintln!("pilotfish: {line}");
    }
    // One managed model server (`gguf`) for the whole session, started now and replaced when
    // the editor's settings name another model. Starting it here, on the main thread, also
    // matters on Linux: the server is told to end with the thread that started it, and the
    // message loop below, which calls `configure` again, runs on this thread too.
    let managed = Arc::new(Mutex::new(None));
    // Refuse a broken configuration now, with the fix, rather than at the first keystroke.
    configure(&loaded, &Value::Null, &managed)?;
    let excluded: Arc<dyn Fn(&str) -> bool + Send + Sync> = Arc::new(excluder());
    let slot = managed.clone();
    let managed_now = managed.clone();
    let config = lsp::ServerConfig {
        configure: Arc::new(move |v| configure(&loaded, v, &slot).map_err(|e| format!("{e:#}"))),
        excluded: excluded.clone(),
        files: folder_files(excluded),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        // The first `configure`, when serving starts, says where next edits go.
        next_edit: None,
        // The managed server's address as it is now (settings can replace the server).
        model_server: Arc::new(move || {
            let running = managed_now.lock().unwrap_or_else(|e| e.into_inner());
            running.as_ref().map(|m| m.url.clone())
        }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let clean = runtime.block_on(lsp::serve(tokio::io::stdin(), tokio::io::stdout(), config));
    // The protocol: exit code 0 after `shutdown`, 1 otherwise.
    runtime.shutdown_background();
    // `exit` runs no destructors: the model server is stopped here.
    drop(managed.lock().unwrap_or_else(|e| e.into_inner()).take());
    std::process::exit(if clean { 0 } else { 1 });
}

/// Where next edits are asked for (`host::next_edits`, the configuration the ACP agent's
/// next edits share).
fn next_edit_model(
    base: &Loaded,
    editor_chat: Option<&Value>,
    completions: &BackendConfig,
) -> Result<lsp::NextEditConfig> {
    let n = host::next_edits::configure(base, editor_chat, completions)?;
    Ok(lsp::NextEditConfig {
        model: n.model,
        strategy: n.strategy,
        wording: n.wording,
        notice: n.notice,
    })
}
