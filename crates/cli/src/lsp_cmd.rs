//! `pilotfish lsp`: the language server on standard input and output, configured like
//! `pilotfish complete` and reconfigurable by the editor.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use anyhow::{Context, Result};
use serde_json::Value;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    overrides: host::config::Overrides,
    /// Accepted and ignored: standard input and output are the only transport, and editors
    /// pass this flag by habit.
    #[arg(long)]
    stdio: bool,
}

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
    crate::editor_settings::configure(&loaded, &Value::Null, &managed)?;
    let excluded: Arc<dyn Fn(&str) -> bool + Send + Sync> = Arc::new(excluder());
    let slot = managed.clone();
    let managed_now = managed.clone();
    let config = lsp::ServerConfig {
        configure: Arc::new(move |v| {
            crate::editor_settings::configure(&loaded, v, &slot).map_err(|e| format!("{e:#}"))
        }),
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
