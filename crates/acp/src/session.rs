//! One ACP session: a workspace with its tools and MCP servers, the conversation so far, the
//! mode (agent, or chat without tools), and the turn that runs a prompt through the agent loop.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use agent::{
    conversation::Message,
    run::{Loop, Stop},
    tools::Profile,
};
use host::{mcp_tools::McpTools, tools::Workspace};
use serde_json::{Value, json};

use crate::{
    client::{ClientFiles, Permissions, Remembered},
    options::Options,
    rpc::{Connection, RpcError},
    updates::Updates,
};

/// How long a prompt waits for the session's cancelled turn to finish (a cancelled turn stops
/// within milliseconds; this bounds a turn stuck in a tool that ignores the cancel).
const CANCELLED_TURN_LIMIT: Duration = Duration::from_secs(30);

/// What the client said it can do, in `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClientCaps {
    pub(crate) read: bool,
    pub(crate) write: bool,
    /// `terminal`: commands run in the editor's terminals.
    pub(crate) terminal: bool,
}

/// A session as the server keeps it: the parts a cancel reaches without waiting for the turn.
pub(crate) struct Handle {
    pub(crate) id: String,
    /// The workspace (read without waiting for a running turn).
    pub(crate) root: PathBuf,
    pub(crate) cancel: Arc<AtomicBool>,
    pub(crate) running: AtomicBool,
    /// Set by `session/close`: the session's watcher stops.
    pub(crate) closed: AtomicBool,
    /// The model and tool set the next prompt uses (config options).
    pub(crate) choices: Mutex<Choices>,
    /// The models the server offers (and the configured one), for the model option.
    pub(crate) models: Vec<String>,
    /// The mode the next prompt runs in.
    pub(crate) mode: Mutex<Mode>,
    /// The workspace's custom agents (`*.agent.md`) when the session opened: (name,
    /// description), each offered as a mode.
    pub(crate) agents: Vec<(String, Option<String>)>,
    /// The last request the agent sent to the model, for `_pilotfish/lastRequest`.
    pub(crate) last: Mutex<Option<crate::inspect::LastRequest>>,
    pub(crate) session: Mutex<Session>,
}

/// The parts a turn works on.
pub(crate) struct Session {
    ws: Workspace,
    messages: Vec<Message>,
    /// The conversation as it is saved after each turn.
    pub(crate) saved: host::session_store::Saved,
    /// The mode whose system message the conversation carries: while it stays, the saved
    /// messages are sent again exactly as they were (a server's prefix cache still holds them).
    sent_mode: Option<String>,
    remembered: Arc<Mutex<Remembered>>,
    /// The workspace's MCP servers not yet settled with the user.
    pending: Vec<mcp::ServerSpec>,
}

/// What a prompt runs as: pilotfish's agent, a chat without tools, or a custom agent of the
/// workspace (its body the system prompt, its `tools` the tools).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    Agent,
    Chat,
    Custom(String),
}

/// The mode id of a custom agent: its name after this prefix.
const CUSTOM_PREFIX: &str = "agent:";

impl Mode {
    pub(crate) fn id(&self) -> String {
        match self {
            Mode::Agent => "agent".into(),
            Mode::Chat => "chat".into(),
            Mode::Custom(name) => format!("{CUSTOM_PREFIX}{name}"),
        }
    }

    /// The mode `id` names among those `handle` offers.
    pub(crate) fn parse(id: &str, handle: &Handle) -> Option<Mode> {
        match id {
            "agent" => Some(Mode::Agent),
            "chat" => Some(Mode::Chat),
            _ => {
                let name = id.strip_prefix(CUSTOM_PREFIX)?;
                handle
                    .agents
                    .iter()
                    .any(|(n, _)| n == name)
                    .then(|| Mode::Custom(name.to_owned()))
            }
        }
    }
}

/// The modes a session offers: agent, chat, and each of the workspace's custom agents.
pub(crate) fn modes(handle: &Handle) -> Value {
    let current = handle.mode.lock().unwrap_or_else(|e| e.into_inner()).id();
    let mut available = vec![
        json!({"id": "agent", "name": "Agent",
         "description": "Reads, searches, edits and runs commands in the workspace through tools"}),
        json!({"id": "chat", "name": "Chat", "description": "Answers in words; no tool is offered"}),
    ];
    for (name, description) in &handle.agents {
        let mut mode = json!({"id": Mode::Custom(name.clone()).id(), "name": name});
        if let Some(d) = description {
            mode["description"] = json!(d);
        }
        available.push(mode);
    }
    json!({"currentModeId": current, "availableModes": available})
}

/// Starts a session in `cwd` with the MCP servers given and the workspace's own.
pub(crate) fn open(
    id: String,
    params: &Value,
    conn: &Arc<Connection>,
    caps: ClientCaps,
    options: &Options,
    models: Vec<String>,
) -> Result<Handle, RpcError> {
    let Some(cwd) = params["cwd"].as_str() else {
        return Err(RpcError::invalid_params(
            "the session needs `cwd`, the workspace folder",
        ));
    };
    if !Path::new(cwd).is_absolute() {
        return Err(RpcError::invalid_params(format!(
            "cwd {cwd} is not an absolute path"
        )));
    }
    let servers = mcp_servers(&params["mcpServers"])?;
    let mut ws = Workspace::open(Path::new(cwd), &options.agent)
        .map_err(|e| RpcError::invalid_params(format!("{e:#}")))?;
    ws.profile = options.profile;
    let files = ClientFiles {
        conn: conn.clone(),
        session: id.clone(),
        read: caps.read,
        write: caps.write,
        cancel: ws.cancel_flag(),
    };
    ws = ws.with_files(Box::new(files));
    if caps.terminal {
        let terminals =
            crate::terminal::ClientTerminals::new(conn.clone(), id.clone(), ws.root.clone());
        ws = ws.with_runner(Box::new(terminals));
    }
    // The editor's servers are the user's own configuration: they start now. The workspace's
    // wait for the user's approval at the first prompt.
    let mcp = McpTools::start(&ws.root, &servers);
    ws = ws.with_mcp(mcp);
    let (pending, problems) = host::mcp_tools::workspace_servers(&ws.root, &servers);
    for problem in ws.mcp_problems().iter().chain(&problems) {
        eprintln!("pilotfish acp: {problem}");
    }
    let saved = host::session_store::Saved::new(&id, &ws.root);
    Ok(Handle {
        id,
        root: ws.root.clone(),
        cancel: ws.cancel_flag(),
        running: AtomicBool::new(false),
        closed: AtomicBool::new(false),
        choices: Mutex::new(Choices {
            model: options.backend.model.clone(),
            tools: options.profile,
        }),
        models,
        mode: Mutex::new(Mode::Agent),
        agents: host::setup::customizations(&ws.root)
            .agents
            .iter()
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect(),
        last: Mutex::new(None),
        session: Mutex::new(Session {
            ws,
            messages: Vec::new(),
            saved,
            sent_mode: None,
            remembered: Arc::default(),
            pending,
        }),
    })
}

/// `mcpServers` of `session/new`: stdio servers and streamable HTTP ones (`type: "http"`, as
/// `initialize` announced); SSE servers are refused.
fn mcp_servers(list: &Value) -> Result<Vec<mcp::ServerSpec>, RpcError> {
    let pairs = |v: &Value| -> Vec<(String, String)> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| {
                Some((
                    v["name"].as_str()?.to_owned(),
                    v["value"].as_str()?.to_owned(),
                ))
            })
            .collect()
    };
    let mut out = Vec::new();
    for s in list.as_array().into_iter().flatten() {
        let name = s["name"].as_str().unwrap_or_default().to_owned();
        match s["type"].as_str() {
            None | Some("stdio") => {}
            Some("http") => {
                let Some(url) = s["url"].as_str() else {
                    return Err(RpcError::invalid_params(format!(
                        "the MCP server {name} is an http server with no `url`"
                    )));
                };
                out.push(mcp::ServerSpec {
                    name,
                    url: Some(url.to_owned()),
                    headers: pairs(&s["headers"]),
                    ..mcp::ServerSpec::default()
                });
                continue;
            }
            Some(kind) => {
                return Err(RpcError::invalid_params(format!(
                    "the MCP server {name} is a {kind} server; pilotfish takes stdio and http servers"
                )));
            }
        }
        let Some(command) = s["command"].as_str() else {
            return Err(RpcError::invalid_params(format!(
                "the MCP server {name} has no `command`"
            )));
        };
        let args = s["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect();
        out.push(mcp::ServerSpec {
            name,
            command: command.to_owned(),
            args,
            env: pairs(&s["env"]),
            ..mcp::ServerSpec::default()
        });
    }
    Ok(out)
}

/// The text of a prompt's content blocks: words as they are, embedded files as attachments,
/// links to files named.
fn prompt_text(blocks: &Value) -> Result<String, RpcError> {
    let Some(blocks) = blocks.as_array() else {
        return Err(RpcError::invalid_params(
            "session/prompt needs `prompt`, a list of content blocks",
        ));
    };
    let mut text = String::new();
    for b in blocks {
        match b["type"].as_str() {
            Some("text") => text.push_str(b["text"].as_str().unwrap_or_default()),
            Some("resource") => {
                let r = &b["resource"];
                if let Some(body) = r["text"].as_str() {
                    text.push_str(&format!(
                        "\n\n<attachment uri=\"{}\">\n{body}\n</attachment>\n",
                        r["uri"].as_str().unwrap_or_default()
                    ));
                }
            }
            Some("resource_link") => text.push_str(&format!(
                "\n[{}]({})",
                b["name"].as_str().unwrap_or_default(),
                b["uri"].as_str().unwrap_or_default()
            )),
            // Images and sound were not offered in `initialize`.
            _ => {}
        }
    }
    if text.trim().is_empty() {
        return Err(RpcError::invalid_params("the prompt has no text"));
    }
    Ok(text)
}

/// Runs one prompt to its end; answers `{stopReason}`.
pub(crate) fn prompt(
    handle: &Handle,
    params: &Value,
    conn: &Arc<Connection>,
    options: &Options,
) -> Result<Value, RpcError> {
    let text = prompt_text(&params["prompt"])?;
    claim(handle)?;
    handle.cancel.store(false, Ordering::SeqCst);
    let result = turn(handle, &text, conn, options);
    handle.running.store(false, Ordering::SeqCst);
    result
}

/// Makes this prompt the session's running one. A prompt that arrives while a cancelled turn is
/// still finishing (the user cancelled and typed again at once) waits for that turn's end; one
/// that arrives while a turn runs uncancelled is refused.
fn claim(handle: &Handle) -> Result<(), RpcError> {
    let deadline = Instant::now() + CANCELLED_TURN_LIMIT;
    while handle.running.swap(true, Ordering::SeqCst) {
        if !handle.cancel.load(Ordering::SeqCst) {
            return Err(RpcError::invalid_params(
                "a prompt is already running in this session; cancel it or wait for its end",
            ));
        }
        if Instant::now() >= deadline {
            return Err(RpcError::internal(
                "the cancelled prompt of this session has not finished yet; send the prompt again in a moment",
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

fn turn(
    handle: &Handle,
    text: &str,
    conn: &Arc<Connection>,
    options: &Options,
) -> Result<Value, RpcError> {
    let mut guard = handle.session.lock().unwrap_or_else(|e| e.into_inner());
    let session = &mut *guard;
    let root: PathBuf = session.ws.root.clone();
    let chosen = handle
        .mode
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let typed = text;
    // `/NAME` runs a custom agent for this prompt; a prompt file of that name is a slash command.
    let (mode, text) = agent_command(handle, text).unwrap_or((chosen, text));
    let task = host::customizations::expand_prompt_file(std::slice::from_ref(&root), text, None)
        .map_err(|e| RpcError::invalid_params(format!("{e:#}")))?;
    let chat = mode == Mode::Chat;
    if !chat {
        settle_servers(handle, session, conn);
    }
    let choices = handle
        .choices
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    session.ws.profile = choices.tools;
    let tokenizer = tokenizer::Tokenizer::by_name("o200k_base", None)
        .map_err(|e| RpcError::internal(e.to_string()))?;
    let catalogue = session.ws.catalogue();
    let setup = host::setup::prepare(
        &host::setup::Request {
            root: &root,
            task: &task,
            agent: match &mode {
                Mode::Custom(name) => Some(name.as_str()),
                _ => None,
            },
            template: None,
            catalogue: &catalogue,
            max_tokens: options.max_tokens,
            chat,
        },
        &tokenizer,
    )
    .map_err(|e| RpcError::internal(format!("{e:#}")))?;
    let start = continue_with(session, setup.messages.clone(), &mode, &task);
    session.saved.prompted(start, typed);
    let mut backend = options.backend.clone();
    backend.model = choices.model.clone();
    let mut model = host::chat_model::ChatModel::new(backend, handle.cancel.clone())
        .map_err(|e| RpcError::internal(format!("{e:#}")))?;
    let facts = facts(&mode, &root, options, choices.model.as_deref());
    let mut updates = Updates::new(conn.clone(), handle.id.clone(), root.clone());
    let mut approvals = Permissions {
        conn: conn.clone(),
        session: handle.id.clone(),
        root,
        remembered: session.remembered.clone(),
        cancel: handle.cancel.clone(),
    };
    let count = |t: &str| tokenizer.count(t);
    let mut model = crate::inspect::Recording {
        inner: &mut model,
        last: &handle.last,
        facts,
    };
    let stop = Loop {
        model: &mut model,
        tools: &mut session.ws,
        approvals: &mut approvals,
        observer: &mut updates,
        cancel: &handle.cancel,
        subagents: &setup.subagents,
        catalogue: &catalogue,
        result_chars: options.max_tokens / 2 * 3,
        max_tokens: options.max_tokens,
        count: &count,
    }
    .run(&mut session.messages, &setup.offered, options.max_rounds);
    save(handle, session, &updates, options);
    let reason = match stop.map_err(|e| RpcError::internal(e.to_string()))? {
        Stop::Answered { .. } => "end_turn",
        Stop::RoundLimit { .. } => "max_turn_requests",
        Stop::Cancelled { .. } => "cancelled",
    };
    Ok(json!({ "stopReason": reason }))
}

/// Puts the new prompt into the conversation and returns the index of its message. The first
/// prompt takes the setup's messages; later ones go on from the conversation, whose system
/// message changes only when the mode did (otherwise every earlier message is sent again
/// exactly as before).
fn continue_with(session: &mut Session, setup: Vec<Message>, mode: &Mode, task: &str) -> usize {
    let id = mode.id();
    if session.messages.is_empty() {
        session.messages = setup;
    } else {
        if session.sent_mode.as_deref() != Some(id.as_str())
            && let (Some(first), Some(system)) = (
                session.messages.first_mut(),
                setup.iter().find(|m| m.role == "system"),
            )
            && first.role == "system"
        {
            *first = system.clone();
        }
        session.messages.push(Message::new("user", task));
    }
    session.sent_mode = Some(id);
    session
        .messages
        .iter()
        .rposition(|m| m.role == "user")
        .unwrap_or(0)
}

/// Saves the conversation after a turn (unless `--no-save`), with what the turn's calls did.
fn save(handle: &Handle, session: &mut Session, updates: &Updates, options: &Options) {
    let saved = &mut session.saved;
    saved.messages = session.messages.clone();
    saved.failed_calls.extend(updates.failed.iter().cloned());
    for path in &updates.touched {
        if !saved.touched.contains(path) {
            saved.touched.push(path.clone());
        }
    }
    saved.choices = remembered(handle, session.sent_mode.as_deref());
    if options.save
        && let Some(store) = &options.store
        && let Err(e) = store.save(saved)
    {
        eprintln!("pilotfish acp: the conversation could not be saved: {e}");
    }
}

/// Takes up a saved conversation: its messages, prompts and choices, as they were.
pub(crate) fn restore(handle: &Handle, saved: host::session_store::Saved) {
    let mut session = handle.session.lock().unwrap_or_else(|e| e.into_inner());
    session.messages = saved.messages.clone();
    session.sent_mode = saved.choices.get("mode").cloned();
    restore_choices(handle, &saved.choices);
    session.saved = saved;
}

/// What the inspector says shaped a turn's requests: its mode, the model, the customization
/// files of the workspace (and the user's) that were found.
fn facts(
    mode: &Mode,
    root: &Path,
    options: &Options,
    model: Option<&str>,
) -> crate::inspect::Facts {
    let found = host::setup::customizations(root);
    let customizations = found
        .instructions
        .iter()
        .map(|i| i.path.display().to_string())
        .chain(
            found
                .agents
                .iter()
                .map(|a| format!("agent {}: {}", a.name, a.path.display())),
        )
        .chain(
            found
                .skills
                .iter()
                .map(|k| format!("skill {}: {}", k.name, k.path.display())),
        )
        .collect();
    crate::inspect::Facts {
        mode: mode.id(),
        endpoint: options.backend.endpoint.clone(),
        model: model.map(str::to_owned),
        customizations,
    }
}

/// At the session's first prompt in agent mode, the workspace's MCP servers are settled: those
/// approved earlier for their exact definition start, the others are asked about through the
/// editor; a server the user rejects does not start and the turn goes on without its tools.
fn settle_servers(handle: &Handle, session: &mut Session, conn: &Arc<Connection>) {
    let pending = std::mem::take(&mut session.pending);
    if pending.is_empty() {
        return;
    }
    let root = session.ws.root.clone();
    let mut store = host::mcp_approvals::Store::open();
    let settled =
        host::mcp_approvals::settle(&root, pending.clone(), &mut store, &mut |spec, line| {
            crate::client::ask_to_start(conn, &handle.id, spec, line, &handle.cancel)
        });
    // A question that got no answer (the turn was cancelled) is asked again at the next prompt.
    session.pending = pending
        .into_iter()
        .filter(|p| {
            settled
                .skipped
                .iter()
                .any(|s| s.name == p.name && s.why == host::mcp_approvals::Skip::Unasked)
        })
        .collect();
    for skipped in &settled.skipped {
        eprintln!(
            "pilotfish acp: the workspace's MCP server `{}` (`{}`) was not started ({:?})",
            skipped.name, skipped.command_line, skipped.why
        );
    }
    let problems = session.ws.start_mcp(&settled.start);
    for problem in settled.problems.iter().chain(&problems) {
        eprintln!("pilotfish acp: {problem}");
    }
}

/// What the next prompt runs with, beside the mode.
#[derive(Debug, Clone)]
pub(crate) struct Choices {
    /// The model named in requests; none lets the server choose.
    pub(crate) model: Option<String>,
    pub(crate) tools: Profile,
}

/// The choices to save with the conversation; `mode` is the one its messages were made in.
fn remembered(handle: &Handle, sent_mode: Option<&str>) -> BTreeMap<String, String> {
    let choices = handle
        .choices
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut out = BTreeMap::new();
    if let Some(m) = sent_mode {
        out.insert("mode".to_owned(), m.to_owned());
    }
    if let Some(m) = choices.model {
        out.insert("model".to_owned(), m);
    }
    out.insert("tools".to_owned(), profile_name(choices.tools).to_owned());
    out
}

/// Takes up the choices a saved conversation was made with (those still offered).
fn restore_choices(handle: &Handle, saved: &BTreeMap<String, String>) {
    if let Some(mode) = saved.get("mode").and_then(|m| Mode::parse(m, handle)) {
        *handle.mode.lock().unwrap_or_else(|e| e.into_inner()) = mode;
    }
    let mut choices = handle.choices.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = saved.get("model") {
        choices.model = Some(m.clone());
    }
    if let Some(p) = saved.get("tools").and_then(|t| Profile::parse(t)) {
        choices.tools = p;
    }
}

/// `/NAME rest` where NAME is a custom agent (and no prompt file has that name): the agent's
/// mode and `rest`, for this prompt only.
pub(crate) fn agent_command<'a>(handle: &Handle, text: &'a str) -> Option<(Mode, &'a str)> {
    let rest = text.strip_prefix('/')?;
    let name = rest.split_whitespace().next()?;
    let prompt_file = handle
        .root
        .join(".github/prompts")
        .join(format!("{name}.prompt.md"));
    if prompt_file.exists() {
        return None;
    }
    let mode = Mode::parse(&Mode::Custom(name.to_owned()).id(), handle)?;
    Some((mode, rest[name.len()..].trim_start()))
}

/// A tool profile's name as options and saved sessions give it.
pub(crate) fn profile_name(p: Profile) -> &'static str {
    match p {
        Profile::Original => "original",
        Profile::Copilot => "copilot",
    }
}
