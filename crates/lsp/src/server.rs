//! The message loop: lifecycle, documents, configuration, and completion requests in both the
//! standard and Copilot's protocol.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use ghost::Pipeline;
use prompt::request::{DocumentJson, Position, RequestJson, Snapshot};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    sync::{mpsc, oneshot},
};

use crate::{
    documents::{Documents, uri_to_path},
    position::{Encoding, to_offset, to_position},
    transport::{Decoder, Frame, encode},
};

mod completion;
mod inspect;
mod items;
mod next_edit;
mod notifications;
mod status;
mod sync;
mod warming;

pub use next_edit::NextEditConfig;

use status::{StatusState, update_status};
use sync::lock;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const SERVER_NOT_INITIALIZED: i64 = -32002;
const REQUEST_CANCELLED: i64 = -32800;

/// The suggestions an invoked inline completion answers with at most (as cycling asks).
const INVOKED_CANDIDATES: u32 = 3;

/// Other open documents offered to the prompt as neighbours (Copilot's cap is 20 files).
const NEIGHBOURS: usize = 20;

/// Builds the backend, pipeline settings and next-edit model from settings JSON
/// (`initializationOptions`, `workspace/didChangeConfiguration`, `workspace/configuration`):
/// given `null`, the configuration the server started with.
pub type Configure = Arc<dyn Fn(&Value) -> Result<Configured, String> + Send + Sync>;

/// What [`Configure`] makes of the settings.
pub struct Configured {
    pub backend: backends::Backend,
    pub settings: ghost::Settings,
    /// Where next edits go under these settings; `None` keeps the one in force (at start,
    /// [`ServerConfig::next_edit`]).
    pub next_edit: Option<NextEditConfig>,
    /// The settings that could not be used, each named with why; the others are in force.
    pub refused: Vec<String>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured")
            .field("next_edit", &self.next_edit.is_some())
            .field("refused", &self.refused)
            .finish_non_exhaustive()
    }
}

impl From<(backends::Backend, ghost::Settings)> for Configured {
    /// Completions only: next edits keep going where they went.
    fn from((backend, settings): (backends::Backend, ghost::Settings)) -> Configured {
        Configured {
            backend,
            settings,
            next_edit: None,
            refused: Vec::new(),
        }
    }
}

/// What the server starts with.
pub struct ServerConfig {
    pub configure: Configure,
    /// Whether a file's content must never leave the machine (`.copilotignore`).
    pub excluded: Arc<dyn Fn(&str) -> bool + Send + Sync>,
    /// The files of a workspace folder on disk (by its absolute path), for the imports of a
    /// document that are not open; `None` where nothing may or can be read.
    pub files: WorkspaceReader,
    pub version: String,
    /// Where next edit suggestions are asked for; `None` answers `copilotInlineEdit` with no
    /// edits.
    pub next_edit: Option<NextEditConfig>,
    /// The address of the model server pilotfish started for a GGUF file (the managed one), if
    /// one runs, answered to `pilotfish/modelServer` so that an editor's chat can use the same
    /// server instead of loading the model again.
    pub model_server: ModelServer,
}

/// See [`ServerConfig::model_server`].
pub type ModelServer = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// A [`ModelServer`] for a server that never starts one.
pub fn no_model_server() -> ModelServer {
    Arc::new(|| None)
}

/// See [`ServerConfig::files`].
pub type WorkspaceReader =
    Arc<dyn Fn(&str) -> Option<Arc<dyn syntax::WorkspaceFiles + Send + Sync>> + Send + Sync>;

/// A [`WorkspaceReader`] that reads nothing.
pub fn no_files() -> WorkspaceReader {
    Arc::new(|_| None)
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// LSP 3.18 `textDocument/inlineCompletion`.
    Inline,
    /// Copilot's `getCompletions` / `getCompletionsCycling`.
    Copilot,
    /// Copilot's `getPanelCompletions`: answered with a count, then notifications.
    Panel,
}

#[derive(Debug)]
enum Stop {
    Superseded,
    Cancelled,
}

/// The document and cursor a request names, and whether it names a version already passed.
struct Located {
    uri: String,
    offset: usize,
    stale: bool,
    /// The version the request names, if any.
    version: Option<i64>,
}

struct Pending {
    id: Value,
    stop: oneshot::Sender<Stop>,
}

/// Latencies of completion requests (arrival to answer), the newest 10,000.
#[derive(Debug, Default)]
struct Latencies {
    all: std::collections::VecDeque<Duration>,
}

impl Latencies {
    fn push(&mut self, d: Duration) {
        if self.all.len() == 10_000 {
            self.all.pop_front();
        }
        self.all.push_back(d);
    }

    fn summary(&self) -> Value {
        let mut v: Vec<Duration> = self.all.iter().copied().collect();
        v.sort();
        let pick = |q: f64| {
            v.get(((v.len() as f64 - 1.0) * q).round() as usize)
                .map_or(0.0, |d| d.as_secs_f64() * 1e3)
        };
        json!({"count": v.len(), "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": pick(1.0)})
    }
}

struct Server {
    out: mpsc::UnboundedSender<Value>,
    config: ServerConfig,
    pipeline: Arc<Pipeline>,
    initialized: bool,
    shutdown: bool,
    encoding: Encoding,
    docs: Documents,
    folders: Vec<String>,
    /// The completion under way for each document.
    pending: HashMap<String, Pending>,
    /// The warming of the model server's cache under way (one at a time: it is stopped as soon
    /// as anything is typed or asked).
    warming: Option<oneshot::Sender<()>>,
    /// The warming at the cursor after a lowered completion (stopped with the other).
    cursor_warming: warming::CursorWarming,
    next_outgoing: i64,
    /// Outgoing `workspace/configuration` requests awaiting an answer.
    config_requests: Vec<Value>,
    pull_configuration: bool,
    /// Suggestions shown by uuid (Copilot's protocol), for accept and reject.
    next_uuid: u64,
    status: Arc<Mutex<StatusState>>,
    latencies: Arc<Mutex<Latencies>>,
    /// The last completion's prompt and request, for `pilotfish/inspect`.
    last: Arc<inspect::LastRequest>,
    user: String,
    /// Next edits shown, by uuid, until accepted or rejected.
    shown_edits: Arc<Mutex<HashMap<String, Value>>>,
    /// What the editor said it did with the next edits it was given.
    next_edit_decisions: next_edit::Decisions,
    /// The last suggestions shown for each document, which a cycling request starts with.
    shown: Arc<Mutex<HashMap<String, completion::Shown>>>,
    /// Whether the log has been told that Copilot's next-edit texts are missing.
    told_texts: bool,
}

/// Serves one client on `input` and `output` until `exit` or the end of input. Returns whether
/// the client shut down properly first (the process's exit code follows it).
pub async fn serve<R, W>(mut input: R, mut output: W, config: ServerConfig) -> bool
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, mut outgoing) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            if output.write_all(&encode(&message)).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let mut config = config;
    let (backend, settings) = match (config.configure)(&Value::Null) {
        Ok(c) => {
            if c.next_edit.is_some() {
                config.next_edit = c.next_edit;
            }
            (c.backend, c.settings)
        }
        Err(e) => {
            // The start-up configuration was checked before serving; keep the defaults.
            eprintln!("pilotfish lsp: {e}");
            let backend = backends::Backend::new(
                backends::Kind::LlamaCppInfill,
                "http://127.0.0.1:8080",
                Duration::from_secs(3),
                Duration::from_secs(30),
            )
            .expect("an HTTP client with default settings");
            (backend, ghost::Settings::default())
        }
    };
    let mut server = Server {
        out,
        pipeline: Arc::new(Pipeline::new(backend, settings)),
        config,
        initialized: false,
        shutdown: false,
        encoding: Encoding::Utf16,
        docs: Documents::default(),
        folders: Vec::new(),
        pending: HashMap::new(),
        warming: None,
        cursor_warming: warming::CursorWarming::default(),
        next_outgoing: 0,
        config_requests: Vec::new(),
        pull_configuration: false,
        next_uuid: 0,
        told_texts: false,
        status: Arc::new(Mutex::new(StatusState::default())),
        latencies: Arc::new(Mutex::new(Latencies::default())),
        last: Arc::default(),
        user: std::env::var("USER").unwrap_or_else(|_| "local".to_owned()),
        shown_edits: Arc::default(),
        next_edit_decisions: next_edit::Decisions::default(),
        shown: Arc::default(),
    };
    let mut decoder = Decoder::default();
    let mut buf = vec![0u8; 64 << 10];
    let mut clean_exit = false;
    'read: loop {
        let n = match input.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for frame in decoder.push(&buf[..n]) {
            match frame {
                Frame::Malformed(why) => {
                    server.send_error(Value::Null, PARSE_ERROR, &why);
                }
                Frame::Message(message) => {
                    if let Some(exit) = server.handle(message) {
                        clean_exit = exit;
                        break 'read;
                    }
                }
            }
        }
    }
    for (_, p) in server.pending.drain() {
        let _ = p.stop.send(Stop::Cancelled);
    }
    // What the session learned of the server is written before the process ends.
    if let Some(memory) = server.pipeline.backend().memory.clone() {
        let _ = tokio::task::spawn_blocking(move || memory.flush()).await;
    }
    drop(server);
    let _ = writer.await;
    clean_exit
}

impl Server {
    fn send(&self, message: Value) {
        let _ = self.out.send(message);
    }

    fn send_error(&self, id: Value, code: i64, message: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}));
    }

    fn respond(&self, id: Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Handles one message; `Some(clean)` when the client asked to exit.
    fn handle(&mut self, message: Value) -> Option<bool> {
        let Some(object) = message.as_object() else {
            self.send_error(
                Value::Null,
                INVALID_REQUEST,
                "a message must be a JSON object",
            );
            return None;
        };
        let id = object.get("id").cloned();
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            (Some(method), Some(id)) => self.request(&method, id, params),
            (Some(method), None) => return self.notification(&method, params),
            (None, Some(id)) => self.client_response(id, object.get("result").cloned()),
            (None, None) => {
                self.send_error(
                    Value::Null,
                    INVALID_REQUEST,
                    "a message needs a method or an id",
                );
            }
        }
        None
    }

    fn request(&mut self, method: &str, id: Value, params: Value) {
        if method == "initialize" {
            return self.initialize(id, &params);
        }
        if !self.initialized {
            return self.send_error(
                id,
                SERVER_NOT_INITIALIZED,
                "the server has not been initialized: send `initialize` first",
            );
        }
        if self.shutdown {
            return self.send_error(id, INVALID_REQUEST, "the server is shutting down");
        }
        match method {
            "shutdown" => {
                self.shutdown = true;
                self.respond(id, Value::Null);
            }
            "textDocument/inlineCompletion" => {
                // LSP's `InlineCompletionTriggerKind.Invoked`: the user asked, and may cycle.
                let invoked = params["context"]["triggerKind"] == 1;
                let candidates = if invoked { INVOKED_CANDIDATES } else { 1 };
                self.complete(id, &params, Flavor::Inline, candidates)
            }
            "getCompletions" => self.complete(id, &params, Flavor::Copilot, 1),
            "getCompletionsCycling" => self.complete(id, &params, Flavor::Copilot, 3),
            "getPanelCompletions" => self.complete(id, &params, Flavor::Panel, 3),
            "notifyShown" => self.respond(id, json!("OK")),
            "notifyAccepted" => {
                self.pipeline.record_decision(true);
                self.respond(id, json!("OK"));
            }
            "notifyRejected" => {
                self.pipeline.record_decision(false);
                self.respond(id, json!("OK"));
            }
            "checkStatus" | "signInConfirm" => {
                self.respond(id, json!({"status": "OK", "user": self.user}));
            }
            "signInInitiate" => {
                self.respond(id, json!({"status": "AlreadySignedIn", "user": self.user}));
            }
            "signOut" => self.respond(
                id,
                json!({"status": "OK", "user": self.user,
                       "message": "pilotfish runs locally: there is no account to sign out of"}),
            ),
            "setEditorInfo" => self.respond(id, json!("OK")),
            "getVersion" => self.respond(
                id,
                json!({"version": self.config.version, "buildType": "release", "runtimeVersion": "pilotfish"}),
            ),
            "workspace/executeCommand" => {
                if params["command"] == "github.copilot.didAcceptCompletionItem" {
                    let next_edit = params["arguments"][0]
                        .as_str()
                        .and_then(|u| lock(&self.shown_edits).remove(u));
                    if next_edit.is_some() {
                        self.next_edit_decisions.accepted += 1;
                    } else {
                        self.pipeline.record_decision(true);
                    }
                }
                self.respond(id, Value::Null);
            }
            "textDocument/copilotInlineEdit" => self.next_edit(id, &params),
            "pilotfish/inspect" => self.inspect(id, &params),
            "pilotfish/modelServer" => {
                let endpoint = (self.config.model_server)();
                self.respond(id, json!({ "endpoint": endpoint }));
            }
            "pilotfish/stats" => {
                let stats = serde_json::to_value(self.pipeline.stats()).unwrap_or_default();
                let latency = lock(&self.latencies).summary();
                self.respond(
                    id,
                    json!({"pipeline": stats, "latency": latency, "documents": self.docs.len(),
                           "next_edits": self.next_edit_decisions.to_json()}),
                );
            }
            _ => self.send_error(
                id,
                METHOD_NOT_FOUND,
                &format!("pilotfish does not know the method `{method}`"),
            ),
        }
    }

    fn log(&self, kind: u8, message: &str) {
        self.notify(
            "window/logMessage",
            json!({"type": kind, "message": format!("pilotfish: {message}")}),
        );
    }

    fn initialize(&mut self, id: Value, params: &Value) {
        if self.initialized {
            return self.send_error(id, INVALID_REQUEST, "`initialize` was already received");
        }
        // Position encoding: the first the client offers that pilotfish knows, else UTF-16.
        self.encoding = params["capabilities"]["general"]["positionEncodings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find_map(Encoding::parse)
            .unwrap_or(Encoding::Utf16);
        for f in params["workspaceFolders"].as_array().into_iter().flatten() {
            if let Some(uri) = f["uri"].as_str() {
                self.folders.push(uri_to_path(uri));
            }
        }
        if self.folders.is_empty()
            && let Some(uri) = params["rootUri"].as_str()
        {
            self.folders.push(uri_to_path(uri));
        }
        self.ask_as_the_editors_workspace();
        self.pull_configuration = params["capabilities"]["workspace"]["configuration"]
            .as_bool()
            .unwrap_or(false);
        let options = &params["initializationOptions"];
        if options.is_object() {
            self.reconfigure(options);
        }
        self.initialized = true;
        self.respond(
            id,
            json!({
                "capabilities": {
                    "positionEncoding": self.encoding.name(),
                    "textDocumentSync": {"openClose": true, "change": 2},
                    "inlineCompletionProvider": {},
                    "workspace": {"workspaceFolders": {"supported": true, "changeNotifications": true}},
                    "executeCommandProvider": {"commands": ["github.copilot.didAcceptCompletionItem"]},
                },
                "serverInfo": {"name": "pilotfish", "version": self.config.version},
            }),
        );
    }

    /// The editor's workspace: its first folder (`workspaceFolders`, else `rootUri`).
    fn workspace(&self) -> Option<std::path::PathBuf> {
        self.folders.first().map(std::path::PathBuf::from)
    }

    /// Who asks names the workspace the editor opened, not the folder the language server was
    /// started in (the session header a router hashes on). Done once, at `initialize`, before
    /// any request; settings received later keep it (see [`Server::reconfigure`]).
    fn ask_as_the_editors_workspace(&mut self) {
        let Some(workspace) = self.workspace() else {
            return;
        };
        let mut backend = self.pipeline.backend().clone();
        backend.identity = backend.identity.in_workspace(&workspace);
        let settings = self.pipeline.settings().clone();
        self.pipeline = Arc::new(Pipeline::new(backend, settings));
        self.next_edits_in_workspace();
    }

    /// The next-edit model's requests name the editor's workspace too.
    fn next_edits_in_workspace(&mut self) {
        let (Some(workspace), Some(next)) = (self.workspace(), self.config.next_edit.as_mut())
        else {
            return;
        };
        let identity = match &mut next.model {
            ghost::next_edit::Model::Chat(chat) => &mut chat.identity,
            ghost::next_edit::Model::Completion(backend, _) => &mut backend.identity,
        };
        *identity = identity.in_workspace(&workspace);
    }

    /// Settings may come wrapped in a `pilotfish` section or bare.
    fn reconfigure(&mut self, settings: &Value) {
        let section = settings.get("pilotfish").unwrap_or(settings);
        match (self.config.configure)(section) {
            Ok(c) => {
                let mut backend = c.backend;
                if let Some(workspace) = self.workspace() {
                    backend.identity = backend.identity.in_workspace(&workspace);
                }
                self.pipeline = Arc::new(Pipeline::new(backend, c.settings));
                if c.next_edit.is_some() {
                    self.config.next_edit = c.next_edit;
                    self.next_edits_in_workspace();
                }
                for why in &c.refused {
                    self.log(1, why);
                }
                if !c.refused.is_empty() {
                    let rest = "the rest of the settings apply";
                    self.set_status(Some(format!("{} ({rest})", c.refused.join("; "))));
                }
            }
            Err(e) => {
                self.log(1, &format!("the new settings were not applied: {e}"));
                self.set_status(Some(format!("settings not applied: {e}")));
            }
        }
    }

    fn request_configuration(&mut self) {
        self.next_outgoing += 1;
        let id = json!(format!("pilotfish-config-{}", self.next_outgoing));
        self.config_requests.push(id.clone());
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "workspace/configuration",
                         "params": {"items": [{"section": "pilotfish"}]}}),
        );
    }

    fn client_response(&mut self, id: Value, result: Option<Value>) {
        if let Some(i) = self.config_requests.iter().position(|r| *r == id) {
            self.config_requests.remove(i);
            if let Some(first) = result.as_ref().and_then(|r| r.get(0))
                && first.is_object()
            {
                self.reconfigure(&first.clone());
            }
        }
    }

    fn set_status(&self, error: Option<String>) {
        update_status(&self.out, &self.status, |s| s.error = error);
    }

    /// The workspace folder holding `path`, the longest if nested.
    fn folder_of(&self, path: &str) -> Option<String> {
        self.folders
            .iter()
            .filter(|f| path.starts_with(f.trim_end_matches('/')))
            .max_by_key(|f| f.len())
            .cloned()
    }

    /// Warms the model server's cache for a document just opened, in the background: the
    /// prompt a completion at its top would start with, and the document after it.
    fn warm(&mut self, uri: &str) {
        self.stop_warming();
        let Some(document) = self.docs.get(uri) else {
            return;
        };
        if !self.pipeline.settings().warm {
            let path = document.path.clone();
            return self.log(
                4,
                &format!("did not warm the model's cache for {path}: completion.warm is off"),
            );
        }
        if (self.config.excluded)(&document.path) {
            return;
        }
        let path = document.path.clone();
        let request = self.request_json(uri, 0);
        let files = request
            .workspace_root
            .as_deref()
            .and_then(|root| (self.config.files)(root));
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        self.warming = Some(stop_tx);
        let pipeline = self.pipeline.clone();
        let out = self.out.clone();
        tokio::spawn(async move {
            let log = |message: String| {
                let _ = out.send(json!({"jsonrpc": "2.0", "method": "window/logMessage",
                    "params": {"type": 4, "message": format!("pilotfish: {message}")}}));
            };
            // Stopped by typing, or skipped for a server without a prompt cache to warm: both
            // are the normal course and not worth a line in the editor's log.
            tokio::select! {
                biased;
                _ = stop_rx => {}
                warmed = pipeline.warm(&request, files.as_deref().map(|f| f as _)) => match warmed {
                    Ok(w) if w.sent => log(format!(
                        "warmed the model's cache for {path}: {} characters read ahead in {:.0} ms",
                        w.characters, w.ms
                    )),
                    Ok(_) => {}
                    Err(e) => log(format!("could not warm the model's cache for {path}: {e}")),
                },
            }
        });
    }

    /// Stops the warming under way, if any (dropping its request closes the connection).
    fn stop_warming(&mut self) {
        self.cursor_warming.stop();
        if let Some(stop) = self.warming.take() {
            let _ = stop.send(());
        }
    }

    /// The document and cursor a request names: Copilot's plugins send `doc` (with the
    /// position and version inside), LSP clients `textDocument` and `position`; `character`
    /// counts `encoding`'s units.
    fn locate(&self, params: &Value, encoding: Encoding) -> Result<Located, String> {
        let doc = if params["doc"].is_object() {
            &params["doc"]
        } else {
            &params["textDocument"]
        };
        let position = if params["position"].is_object() {
            &params["position"]
        } else {
            &doc["position"]
        };
        let Some(uri) = doc["uri"].as_str().map(str::to_owned) else {
            return Err("the request names no document (`uri`)".to_owned());
        };
        let Some(document) = self.docs.get(&uri) else {
            return Err(format!(
                "{uri} is not open: send textDocument/didOpen first"
            ));
        };
        let version = doc["version"].as_i64();
        let stale = version.is_some_and(|v| document.moved_past(v));
        let (Some(line), Some(character)) =
            (position["line"].as_u64(), position["character"].as_u64())
        else {
            return Err("the request has no `position`".to_owned());
        };
        let offset = to_offset(&document.text, line as usize, character as usize, encoding)
            .map_err(|e| e.to_string())?;
        Ok(Located {
            uri,
            offset,
            stale,
            version,
        })
    }

    /// The editor state for the pipeline: the document, the other open documents by recency,
    /// their recent contents, all minus excluded files.
    fn request_json(&self, uri: &str, offset: usize) -> RequestJson {
        let document = self.docs.get(uri).expect("checked by the caller");
        let (line, character) = to_position(&document.text, offset, Encoding::Utf16);
        let excluded = &self.config.excluded;
        let open_documents = self
            .docs
            .others(uri, NEIGHBOURS)
            .into_iter()
            .filter(|d| !excluded(&d.path))
            .map(|d| DocumentJson {
                path: d.path.clone(),
                language_id: Some(d.language_id.clone()).filter(|l| !l.is_empty()),
                text: d.text.clone(),
            })
            .collect();
        let mut recent_edits = Vec::new();
        for d in self.docs.recently_edited() {
            if excluded(&d.path) || d.snapshots.is_empty() {
                continue;
            }
            for s in d.snapshots.iter().chain([&d.text]) {
                recent_edits.push(Snapshot {
                    path: d.path.clone(),
                    text: s.clone(),
                });
            }
        }
        RequestJson {
            workspace_root: self.folder_of(&document.path),
            document: DocumentJson {
                path: document.path.clone(),
                language_id: Some(document.language_id.clone()).filter(|l| !l.is_empty()),
                text: document.text.clone(),
            },
            position: Position { line, character },
            open_documents,
            recent_edits,
            diagnostics: Vec::new(),
            traits: Vec::new(),
            code_snippets: Vec::new(),
            tooltip_signature: None,
            options: Default::default(),
        }
    }
}
