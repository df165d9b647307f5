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
use host::{mcp_tools::McpTools, tools::Workspace};
use serde_json::json;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[arg(required_unless_present = "undo")]
    task: Option<String>,
    /// The workspace (default: the git root of the current folder, else the current folder).
    #[arg(long, value_name = "DIR")]
    folder: Option<PathBuf>,
    /// Run a custom agent (`*.agent.md`): its body is the system prompt, its `tools` the tools.
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// The most tool-call rounds.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    max_rounds: u32,
    /// Approve every terminal command and MCP tool call (otherwise asked on a terminal,
    /// declined elsewhere).
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
    /// The prompt's limit in tokens; a tool result takes at most half of it.
    #[arg(long, default_value_t = 64_000)]
    max_tokens: usize,
    /// Start no MCP server, not even those of the workspace's `.vscode/mcp.json`.
    #[arg(long)]
    no_mcp: bool,
    #[command(flatten)]
    model: host::chat_model::ChatModelArgs,
}

/// Prints the run's events as the contract says: words and one line per call, or JSON lines.
struct Printer {
    json: bool,
}

impl Printer {
    fn emit(&self, value: serde_json::Value, text: impl FnOnce() -> String) {
        let mut out = std::io::stdout().lock();
        let _ = if self.json {
            writeln!(out, "{value}")
        } else {
            writeln!(out, "{}", text())
        };
        let _ = out.flush();
    }
}

impl Observer for Printer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Text(piece) if !self.json => {
                print!("{piece}");
                let _ = std::io::stdout().flush();
            }
            Event::Text(_) => {}
            Event::Answer(answer) if self.json => {
                if !answer.content.is_empty() {
                    self.emit(json!({"type": "assistant", "text": answer.content}), String::new);
                }
            }
            Event::Answer(answer) => {
                if !answer.content.is_empty() && !answer.content.ends_with('\n') {
                    println!();
                }
            }
            Event::ToolStart(call) => self.emit(
                json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}),
                || format!("→ {}({})", call.name, short(&call.arguments, 120)),
            ),
            Event::ToolEnd(call, outcome) => self.emit(
                json!({"type": "tool_result", "id": call.id, "name": call.name, "ok": outcome.ok, "content": outcome.content}),
                || {
                    format!(
                        "  {} {}",
                        if outcome.ok { "ok" } else { "refused:" },
                        short(&outcome.content, 160)
                    )
                },
            ),
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
}

pub(crate) fn run(args: Args) -> Result<()> {
    if !matches!(args.format.as_str(), "text" | "json") {
        bail!("--format {} is not text or json", args.format);
    }
    let root = match &args.folder {
        Some(f) => f.clone(),
        None => crate::workspace::Workspace::discover()?
            .root()
            .to_path_buf(),
    };
    if args.undo {
        for line in host::journal::undo(&root)? {
            println!("{line}");
        }
        return Ok(());
    }
    let task = args.task.clone().unwrap_or_default();
    let loaded = args.model.load()?;
    let backend = args.model.backend_from(&loaded)?;
    let Some(profile) = agent::tools::Profile::parse(&args.tools) else {
        bail!(
            "--tools {} is unknown: use {}",
            args.tools,
            agent::tools::Profile::NAMES
        );
    };
    let mut ws = Workspace::open(&root, &loaded.agent)?;
    ws.profile = profile;
    if !args.no_mcp {
        let mcp = McpTools::start(&ws.root, &[]);
        ws = ws.with_mcp(mcp);
        for problem in ws.mcp_problems() {
            eprintln!("pilotfish: note: {problem}");
        }
    }
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
    let cancel = ws.cancel_flag();
    let mut model = host::chat_model::ChatModel::new(backend, cancel.clone())?;
    let mut printer = Printer {
        json: args.format == "json",
    };
    let count = |text: &str| tokenizer.count(text);
    let mut messages = setup.messages;
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
    .run(&mut messages, &setup.offered, args.max_rounds)
    .map_err(|e| {
        anyhow::anyhow!("{e} (edits made so far stay; `pilotfish agent --undo` reverts them)")
    })?;
    let (rounds, reason) = match stop {
        Stop::Answered { rounds, cut: false } => {
            (rounds, "the model answered without calling a tool")
        }
        // Why the run ends, for the user: small models often answer in words at once.
        Stop::Answered { rounds, cut: true } => (
            rounds,
            "the model answered without calling a tool, and its answer was cut at the length limit (max_tokens in [chat])",
        ),
        Stop::RoundLimit { rounds } => bail!(
            "the round limit ({rounds}) was hit before the model finished; raise --max-rounds, or `pilotfish agent --undo` to revert"
        ),
        Stop::Cancelled { rounds } => (rounds, "cancelled"),
    };
    printer.emit(
        json!({"type": "done", "rounds": rounds, "reason": reason}),
        || format!("─── done in {rounds} round(s): {reason} ───"),
    );
    Ok(())
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
