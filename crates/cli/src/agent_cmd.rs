//! `pilotfish agent TASK`: the agent loop (`agent::run`) on a terminal. The model's tool calls
//! are run in the workspace (`host::tools`) and their results sent back, until it answers
//! without calling a tool or the round limit is reached. `--undo` restores what the last run
//! changed.

use std::{
    io::{BufRead, IsTerminal, Write},
    path::PathBuf,
};

use agent::{
    conversation::ToolCall,
    run::{Approvals, Decision, Event, Loop, Observer, Stop},
};
use anyhow::{Context, Result, bail};
use host::{
    mcp_tools::McpTools,
    session_store::{Saved, Store},
    tools::Workspace,
};
use serde_json::json;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[arg(required_unless_present_any = ["undo", "sessions", "resume"])]
    task: Option<String>,
    /// Continue a saved conversation (from `pilotfish acp` or an earlier run): the one with
    /// this id, or without one the workspace's latest. The model is sent its earlier turns.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    resume: Option<String>,
    /// List the workspace's saved conversations (id, last used, title) and exit.
    #[arg(long)]
    sessions: bool,
    /// Do not save this conversation (they are saved by default under the state folder's
    /// `agent-sessions/`).
    #[arg(long)]
    no_save: bool,
    /// The workspace (default: the git root of the current folder, else the current folder).
    #[arg(long, value_name = "DIR")]
    folder: Option<PathBuf>,
    /// Run a custom agent (`*.agent.md`): its body is the system prompt, its `tools` the tools.
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// The most tool-call rounds.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    max_rounds: u32,
    /// Approve every terminal command, MCP tool call and workspace MCP server for this run
    /// (otherwise asked on a terminal, declined elsewhere).
    #[arg(long)]
    yes: bool,
    /// Revert the file changes of the last agent run in this workspace.
    #[arg(long)]
    undo: bool,
    /// `text` or `json` (one event per line).
    #[arg(long, default_value = "text")]
    format: String,
    /// A file whose text replaces pilotfish's system prompt (`{tools}` is replaced by the
    /// tools' names).
    #[arg(long, value_name = "FILE")]
    system_prompt: Option<PathBuf>,
    /// The tools offered: `original` (Copilot's agent mode as first published: lines from 0,
    /// `edit_file`) or `copilot` (Copilot's current names: lines from 1,
    /// `insert_edit_into_file`, `multi_replace_string_in_file`, `semantic_search`).
    #[arg(long, default_value = "original", value_name = "PROFILE")]
    tools: String,
    /// The prompt's limit in tokens; a tool result takes at most half of it (the answer's is
    /// --max-answer-tokens); `--max-tokens` is the same option under its older name.
    #[arg(
        long = "max-prompt-tokens",
        visible_alias = "max-tokens",
        value_name = "N",
        default_value_t = 64_000
    )]
    max_tokens: usize,
    /// Start no MCP server, not even those of the workspace's `.vscode/mcp.json` (which start
    /// only once approved: asked on a terminal, remembered when answered "always", started for
    /// this run by --yes).
    #[arg(long)]
    no_mcp: bool,
    #[command(flatten)]
    sandbox: host::confinement::SandboxArgs,
    #[command(flatten)]
    model: host::chat_model::ChatModelArgs,
}

/// Prints the run's events as the contract says: words and one line per call, or JSON lines.
/// When standard output is closed (the run piped into `head`, which quit), the run stops as if
/// cancelled: no one is watching it any more.
struct Printer {
    json: bool,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The ids of the calls that failed and the files edited, for the saved conversation.
    failed: Vec<String>,
    touched: Vec<String>,
}

impl Printer {
    fn emit(&self, value: serde_json::Value, text: impl FnOnce() -> String) {
        if self.json {
            self.write(&format!("{value}\n"));
        } else {
            self.write(&format!("{}\n", text()));
        }
    }

    fn write(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            self.cancel.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

impl Observer for Printer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Text(piece) if !self.json => self.write(piece),
            Event::Text(_) => {}
            Event::Answer(answer) if self.json => {
                if !answer.content.is_empty() {
                    self.emit(json!({"type": "assistant", "text": answer.content}), String::new);
                }
            }
            Event::Answer(answer) => {
                if !answer.content.is_empty() && !answer.content.ends_with('\n') {
                    self.write("\n");
                }
            }
            Event::ToolStart(call) => self.emit(
                json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}),
                || format!("→ {}({})", call.name, short(&call.arguments, 120)),
            ),
            // The terminal shows a call once, when the model makes it; the contract's JSON lines
            // have no running event.
            Event::ToolRunning(_) => {}
            Event::ToolEnd(call, outcome) => {
                if !outcome.ok {
                    self.failed.push(call.id.clone());
                }
                for d in &outcome.diffs {
                    if !self.touched.contains(&d.path) {
                        self.touched.push(d.path.clone());
                    }
                }
                self.emit(
                json!({"type": "tool_result", "id": call.id, "name": call.name, "ok": outcome.ok, "content": outcome.content}),
                || {
                    format!(
                        "  {} {}",
                        if outcome.ok { "ok" } else { "refused:" },
                        short(&outcome.content, 160)
                    )
                },
                )
            }
            Event::Note(note) => eprintln!("pilotfish: note: {note}"),
        }
    }
}

/// Approval on the terminal: `--yes` approves all; otherwise the user is asked when standard
/// input is a terminal, and nothing is approved when it is not.
struct Terminal {
    yes: bool,
}

impl Approvals for Terminal {
    fn ask(&mut self, _call: &ToolCall, question: &str) -> Decision {
        if self.yes {
            return Decision::Allow;
        }
        if !std::io::stdin().is_terminal() {
            return Decision::Reject;
        }
        eprint!("pilotfish: {question}? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if matches!(answer.trim(), "y" | "Y" | "yes") {
            Decision::Allow
        } else {
            Decision::Reject
        }
    }

    /// `y` once, `a` always (remembered for the workspace), anything else no. `--yes` allows
    /// once and remembers nothing.
    fn ask_or_remember(&mut self, _call: &ToolCall, question: &str) -> (Decision, bool) {
        if self.yes {
            return (Decision::Allow, false);
        }
        if !std::io::stdin().is_terminal() {
            return (Decision::Reject, false);
        }
        eprint!("pilotfish: {question}? [y/a/N] (a: always, in this workspace) ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        match answer.trim() {
            "y" | "Y" | "yes" => (Decision::Allow, false),
            "a" | "A" | "always" => (Decision::Allow, true),
            _ => (Decision::Reject, false),
        }
    }
}

/// The workspace's MCP servers the user approves: remembered answers for the exact
/// definition, else asked on the terminal with the whole command shown; `--yes` starts them for
/// this run; without a terminal none starts, and standard error says which and how to allow
/// them.
fn approved_servers(root: &std::path::Path, yes: bool) -> Vec<host::mcp_tools::ServerSpec> {
    use host::mcp_approvals::{Answer, Skip};
    let (pending, problems) = host::mcp_tools::workspace_servers(root, &[]);
    for problem in problems {
        eprintln!("pilotfish: note: {problem}");
    }
    if pending.is_empty() {
        return pending;
    }
    let mut store = host::mcp_approvals::Store::open();
    let settled = host::mcp_approvals::settle(root, pending, &mut store, &mut |spec, line| {
        if yes {
            return Some(Answer::AllowOnce);
        }
        if !std::io::stdin().is_terminal() {
            return None;
        }
        eprint!(
            "pilotfish: the workspace's .vscode/mcp.json asks to start the MCP server `{}`:\n    {line}\n  in {}\nStart it? [y] this time, [a] always (this definition), [n] not now, [v] never [y/a/N/v] ",
            spec.name,
            root.display()
        );
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        Some(match answer.trim() {
            "y" | "Y" | "yes" => Answer::AllowOnce,
            "a" | "A" | "always" => Answer::AllowAlways,
            "v" | "V" | "never" => Answer::RejectAlways,
            _ => Answer::RejectOnce,
        })
    });
    for problem in &settled.problems {
        eprintln!("pilotfish: note: {problem}");
    }
    let file = host::mcp_approvals::approvals_path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "the state folder's mcp-approvals.json".into());
    for skipped in &settled.skipped {
        let how = match skipped.why {
            Skip::Unasked => "there is no terminal to ask on; run on a terminal to be asked (and answer `a` to remember it), or pass --yes to start it for this run".to_owned(),
            Skip::Rejected => "you declined it".to_owned(),
            Skip::RememberedRejection => format!("you said never to this definition; remove its entry from {file} to be asked again"),
        };
        eprintln!(
            "pilotfish: the workspace's MCP server `{}` (`{}`) was not started: {how}",
            skipped.name, skipped.command_line
        );
    }
    settled.start
}

pub(crate) fn run(args: Args) -> Result<()> {
    if !matches!(args.format.as_str(), "text" | "json") {
        bail!("--format {} is not text or json", args.format);
    }
    let loaded = args.model.load()?;
    let store = Store::open(loaded.sessions)?;
    let (resumed, task) = resumed(&args, &store)?;
    let root = match (&args.folder, &resumed) {
        (Some(f), _) => f.clone(),
        (None, Some(saved)) => PathBuf::from(&saved.cwd),
        (None, None) => crate::workspace::Workspace::discover()?
            .root()
            .to_path_buf(),
    };
    if args.undo {
        for line in host::journal::undo(&root)? {
            writeln!(std::io::stdout(), "{line}")?;
        }
        return Ok(());
    }
    if args.sessions {
        return list_sessions(&store, &root);
    }
    let mut backend = args.model.backend_from(&loaded)?;
    host::chat_model::limit_answer(&mut backend, host::chat_model::AGENT_ANSWER_TOKENS);
    let mut ws = open_workspace(&args, &root, &loaded.agent)?;
    let template = match &args.system_prompt {
        Some(p) => Some(
            std::fs::read_to_string(p)
                .with_context(|| format!("could not read {}", p.display()))?,
        ),
        None => None,
    };
    let tokenizer =
        tokenizer::Tokenizer::by_name("o200k_base", None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let catalogue = ws.catalogue();
    let setup = host::setup::prepare(
        &host::setup::Request {
            root: &ws.root,
            task: &task,
            agent: args.agent.as_deref(),
            template: template.as_deref(),
            catalogue: &catalogue,
            max_tokens: args.max_tokens,
            chat: false,
        },
        &tokenizer,
    )?;
    let (mut saved, mut messages) = conversation(resumed, setup.messages, &ws, &task)?;
    let cancel = ws.cancel_flag();
    let mut model = host::chat_model::ChatModel::new(backend, cancel.clone())?;
    let mut printer = Printer {
        json: args.format == "json",
        cancel: cancel.clone(),
        failed: Vec::new(),
        touched: Vec::new(),
    };
    let count = |text: &str| tokenizer.count(text);
    let stop = Loop {
        model: &mut model,
        tools: &mut ws,
        approvals: &mut Terminal { yes: args.yes },
        observer: &mut printer,
        cancel: &cancel,
        subagents: &setup.subagents,
        catalogue: &catalogue,
        // A tool result takes at most half the budget (about three characters a token).
        result_chars: args.max_tokens / 2 * 3,
        max_tokens: args.max_tokens,
        count: &count,
    }
    .run(&mut messages, &setup.offered, args.max_rounds);
    if !args.no_save {
        saved.messages = messages;
        saved.failed_calls.extend(printer.failed.iter().cloned());
        for t in &printer.touched {
            if !saved.touched.contains(t) {
                saved.touched.push(t.clone());
            }
        }
        if let Err(e) = store.save(&mut saved) {
            eprintln!("pilotfish: note: the conversation could not be saved: {e}");
        }
    }
    let stop = stop.map_err(|e| {
        anyhow::anyhow!("{e} (edits made so far stay; `pilotfish agent --undo` reverts them)")
    })?;
    let (rounds, reason) = why_it_ended(stop)?;
    printer.emit(
        json!({"type": "done", "rounds": rounds, "reason": reason}),
        || format!("─── done in {rounds} round(s): {reason} ───"),
    );
    Ok(())
}

/// The conversation `--resume` names (an id, or the workspace's latest), and the task. A
/// `--resume` that took the task for an id (`--resume "fix it"`) gives the word back as the task.
fn resumed(args: &Args, store: &Store) -> Result<(Option<Saved>, String)> {
    let mut task = args.task.clone().unwrap_or_default();
    let Some(id) = &args.resume else {
        return Ok((None, task));
    };
    let mut id = id.clone();
    if args.task.is_none() && !id.is_empty() && store.load(&id).ok().flatten().is_none() {
        task = std::mem::take(&mut id);
    }
    if task.is_empty() && !args.sessions && !args.undo {
        bail!("--resume needs a task: what to do next in the conversation");
    }
    if id.is_empty() {
        let root = match &args.folder {
            Some(f) => f.clone(),
            None => crate::workspace::Workspace::discover()?
                .root()
                .to_path_buf(),
        };
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let latest = store
            .list(Some(root.as_path()))?
            .into_iter()
            .next()
            .with_context(|| format!("there is no saved conversation for {}", root.display()))?;
        id = latest.id;
    }
    let saved = store.load(&id)?.with_context(|| {
        format!("there is no saved conversation {id}; `pilotfish agent --sessions` lists them")
    })?;
    Ok((Some(saved), task))
}

/// The messages to send: a resumed conversation's, exactly as they were sent, and the new task
/// (a prompt file's text for `/NAME`); a new conversation's setup otherwise.
fn conversation(
    resumed: Option<Saved>,
    setup: Vec<agent::conversation::Message>,
    ws: &Workspace,
    task: &str,
) -> Result<(Saved, Vec<agent::conversation::Message>)> {
    let Some(mut saved) = resumed else {
        let id = format!(
            "pilotfish-{}-{}-1",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            std::process::id()
        );
        let mut saved = Saved::new(&id, &ws.root);
        let at = setup.iter().rposition(|m| m.role == "user").unwrap_or(0);
        saved.prompted(at, task);
        return Ok((saved, setup));
    };
    if saved.cwd != ws.root.to_string_lossy() {
        bail!(
            "the conversation {} belongs to {}, not {}",
            saved.id,
            saved.cwd,
            ws.root.display()
        );
    }
    let text =
        host::customizations::expand_prompt_file(std::slice::from_ref(&ws.root), task, None)?;
    let mut messages = saved.messages.clone();
    messages.push(agent::conversation::Message::new("user", &text));
    saved.prompted(messages.len() - 1, task);
    Ok((saved, messages))
}

/// `--sessions`: the workspace's saved conversations, the latest first.
fn list_sessions(store: &Store, root: &std::path::Path) -> Result<()> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let all = store.list(Some(root.as_path()))?;
    if all.is_empty() {
        eprintln!(
            "pilotfish: no saved conversation for {} (in {})",
            root.display(),
            store.dir().display()
        );
    }
    let mut out = std::io::stdout().lock();
    for s in all {
        writeln!(out, "{}\t{}\t{}", s.id, s.updated_iso(), s.title)?;
    }
    Ok(())
}

/// The workspace the agent works in: its tool set, and the MCP servers of its
/// `.vscode/mcp.json` that the user has approved (or none with `--no-mcp`).
fn open_workspace(
    args: &Args,
    root: &std::path::Path,
    config: &host::tools::AgentConfig,
) -> Result<Workspace> {
    let Some(profile) = agent::tools::Profile::parse(&args.tools) else {
        bail!(
            "--tools {} is unknown: use {}",
            args.tools,
            agent::tools::Profile::NAMES
        );
    };
    let mut config = config.clone();
    args.sandbox.apply(&mut config);
    let mut ws = Workspace::open(root, &config)?;
    ws.profile = profile;
    if !args.no_mcp {
        let approved = approved_servers(&ws.root, args.yes);
        let mcp = McpTools::start(&ws.root, &approved);
        ws = ws.with_mcp(mcp);
        for problem in ws.mcp_problems() {
            eprintln!("pilotfish: note: {problem}");
        }
    }
    Ok(ws)
}

/// The rounds a run took and why it ended, told to the user; a run that hit the round limit is
/// an error, since the model did not finish.
fn why_it_ended(stop: Stop) -> Result<(u32, &'static str)> {
    Ok(match stop {
        Stop::Answered { rounds, cut: false } => {
            (rounds, "the model answered without calling a tool")
        }
        // Why the run ends, for the user: small models often answer in words at once.
        Stop::Answered { rounds, cut: true } => (
            rounds,
            "the model answered without calling a tool, and its answer was cut at the length limit (--max-answer-tokens, or max_answer_tokens in [chat])",
        ),
        Stop::RoundLimit { rounds } => bail!(
            "the round limit ({rounds}) was hit before the model finished; raise --max-rounds, or `pilotfish agent --undo` to revert"
        ),
        Stop::Cancelled { rounds } => (rounds, "cancelled"),
    })
}

/// The first line of a text, cut to `max` characters.
fn short(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_owned()
    }
}
