//! `pilotfish agent TASK`: seed 004's loop. The model's tool calls are run in the workspace
//! and their results sent back, until it answers without calling a tool or the round limit is
//! reached. `--undo` restores what the last run changed.

use std::{io::Write, path::PathBuf};

use agent::tools::Spec;
use anyhow::{Context, Result, bail};
use backends::chat::{ChatMessage, ToolSpec};
use chat::Files;
use serde_json::json;

use crate::agent_tools::{Approval, Workspace, undo};

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
    /// Approve every terminal command (otherwise asked on a terminal, declined elsewhere).
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
    /// The tools offered: `seed004` (the contract's, lines from 0, `edit_file`) or `copilot`
    /// (Copilot's current names: lines from 1, `insert_edit_into_file`,
    /// `multi_replace_string_in_file`, `semantic_search`).
    #[arg(long, default_value = "seed004", value_name = "PROFILE")]
    tools: String,
    /// The prompt's limit in tokens; a tool result takes at most half of it.
    #[arg(long, default_value_t = 64_000)]
    max_tokens: usize,
    #[command(flatten)]
    model: crate::chat_send::ChatModelArgs,
}

/// Prints the run's events as the contract says: words and one line per call, or JSON lines.
struct Events {
    json: bool,
}

impl Events {
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
        for line in undo(&root)? {
            println!("{line}");
        }
        return Ok(());
    }
    let task = args.task.clone().unwrap_or_default();
    let loaded = args.model.load()?;
    let backend = args.model.backend_from(&loaded)?;
    let approval = if args.yes {
        Approval::All
    } else {
        Approval::Ask
    };
    let Some(profile) = agent::tools::Profile::parse(&args.tools) else {
        bail!("--tools {} is not seed004 or copilot", args.tools);
    };
    let mut ws = Workspace::open(&root, approval, &loaded.agent)?;
    ws.profile = profile;

    // The customizations render as for a chat; the system message becomes the agent's.
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let chat_ws = chat::Workspace {
        folders: vec![ws.root.clone()],
        user_settings: home
            .as_ref()
            .map(|h| h.join(".config/Code/User/settings.json")),
        home,
        workspace_file: None,
    };
    let found = chat::discover(&crate::chat_cmd::CustomizationFiles, &chat_ws);
    let custom = match &args.agent {
        Some(name) => Some(
            found
                .agents
                .iter()
                .find(|a| a.name == *name)
                .with_context(|| format!("there is no agent named {name} in this workspace"))?
                .clone(),
        ),
        None => None,
    };
    let offered: Vec<Spec> = agent::tools::specs_for(profile)
        .into_iter()
        .filter(|s| {
            custom
                .as_ref()
                .is_none_or(|a| a.tools.is_empty() || a.tools.iter().any(|t| t == s.name))
        })
        .collect();
    let names: Vec<&str> = offered.iter().map(|s| s.name).collect();
    let template = match &args.system_prompt {
        Some(p) => crate::chat_cmd::CustomizationFiles
            .read_text(p)
            .map_err(|e| anyhow::anyhow!("{} {e}", p.display()))?,
        None => agent::system_prompt::DEFAULT.to_owned(),
    };
    let tokenizer =
        tokenizer::Tokenizer::by_name("o200k_base", None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let request = chat::ChatRequest {
        message: task.clone(),
        agent: args.agent.clone(),
        attachments: Vec::new(),
        history: Vec::new(),
        language: None,
        labels: Vec::new(),
        max_tokens: args.max_tokens,
        history_tokens: args.max_tokens / 2,
    };
    let prompt = chat::render(&found, &request, &tokenizer)?;
    let mut messages = crate::chat_send::wire_messages(&prompt);
    if custom.is_none()
        && let Some(system) = messages.iter_mut().find(|m| m.role == "system")
    {
        // pilotfish's agent prompt takes the place of the chat base message; the instructions
        // the dry run shows after it stay.
        let base = prompt.messages[0]
            .parts
            .first()
            .map(|p| p.text.clone())
            .unwrap_or_default();
        let rest = system
            .content
            .strip_prefix(&base)
            .unwrap_or(&system.content)
            .to_owned();
        system.content = format!("{}{rest}", agent::system_prompt::render(&template, &names));
    }
    if let Some(facts) = crate::agent_tools::preferences()
        && let Some(system) = messages.iter_mut().find(|m| m.role == "system")
    {
        system.content.push_str(&format!(
            "\n\n<userPreferences>\nWhat the user asked you to remember in earlier runs:\n{facts}</userPreferences>"
        ));
    }
    let tools = tool_specs(&offered);
    let events = Events {
        json: args.format == "json",
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let mut run = Run {
        runtime: &runtime,
        backend: &backend,
        ws: &mut ws,
        events: &events,
        agents: &found.agents,
        // A tool result takes at most half the budget (about three characters a token).
        result_chars: args.max_tokens / 2 * 3,
        max_tokens: args.max_tokens,
        tokenizer: &tokenizer,
    };
    let (rounds, reason) = run.rounds(&mut messages, &tools, args.max_rounds, true)?;
    events.emit(
        json!({"type": "done", "rounds": rounds, "reason": reason}),
        || format!("─── done in {rounds} round(s): {reason} ───"),
    );
    Ok(())
}

fn tool_specs(offered: &[Spec]) -> Vec<ToolSpec> {
    offered
        .iter()
        .map(|s| ToolSpec {
            name: s.name.to_owned(),
            description: s.description.to_owned(),
            parameters: s.parameters.clone(),
        })
        .collect()
}

/// One agent run's parts, shared by the main loop and its subagents.
struct Run<'a> {
    runtime: &'a tokio::runtime::Runtime,
    backend: &'a backends::chat::ChatBackend,
    ws: &'a mut Workspace,
    events: &'a Events,
    agents: &'a [chat::discover::Agent],
    result_chars: usize,
    /// The prompt's budget in tokens; older rounds are dropped to stay under it.
    max_tokens: usize,
    tokenizer: &'a tokenizer::Tokenizer,
}

impl Run<'_> {
    /// Rounds until the model answers without a tool call; returns how many it took. The
    /// model's final words are the last assistant message.
    fn rounds(
        &mut self,
        messages: &mut Vec<ChatMessage>,
        tools: &[ToolSpec],
        max_rounds: u32,
        main: bool,
    ) -> Result<(u32, &'static str)> {
        // Token counts of the messages so far, so a round counts only what it added.
        let mut counts: Vec<usize> = Vec::new();
        for round in 1..=max_rounds {
            self.fit(messages, &mut counts);
            let json = self.events.json;
            let answer = self
                .runtime
                .block_on(self.backend.chat(messages, tools, |piece| {
                    if !json {
                        print!("{piece}");
                        let _ = std::io::stdout().flush();
                    }
                }))
                .map_err(|e| anyhow::anyhow!("the model server failed in round {round}: {e} (edits made so far stay; `pilotfish agent --undo` reverts them)"))?;
            if json && !answer.content.is_empty() {
                self.events.emit(
                    json!({"type": "assistant", "text": answer.content}),
                    String::new,
                );
            } else if !answer.content.is_empty() && !answer.content.ends_with('\n') {
                println!();
            }
            messages.push(ChatMessage {
                role: "assistant".into(),
                content: answer.content.clone(),
                tool_calls: answer.tool_calls.clone(),
                tool_call_id: None,
            });
            if answer.tool_calls.is_empty() {
                // Why the run ends, for the user: small models often answer in words at once.
                let reason = if answer.finish_reason.as_deref() == Some("length") {
                    "the model answered without calling a tool, and its answer was cut at the length limit (max_tokens in [chat])"
                } else {
                    "the model answered without calling a tool"
                };
                return Ok((round, reason));
            }
            for call in &answer.tool_calls {
                self.events.emit(
                    json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}),
                    || format!("→ {}({})", call.name, short(&call.arguments, 120)),
                );
                let outcome = if call.name == "runSubagent" {
                    self.subagent(&call.arguments, main)
                } else {
                    self.ws.run(&call.name, &call.arguments)
                };
                let content = agent::budget::cut_middle(&outcome.content, self.result_chars);
                self.events.emit(
                    json!({"type": "tool_result", "id": call.id, "name": call.name, "ok": outcome.ok, "content": content}),
                    || format!("  {} {}", if outcome.ok { "ok" } else { "refused:" }, short(&content, 160)),
                );
                messages.push(ChatMessage {
                    role: "tool".into(),
                    content,
                    tool_calls: Vec::new(),
                    tool_call_id: Some(call.id.clone()),
                });
            }
        }
        bail!(
            "the round limit ({max_rounds}) was hit before the model finished; raise --max-rounds, or `pilotfish agent --undo` to revert"
        )
    }

    /// Drops the oldest whole rounds when the conversation outgrows the budget, and says so
    /// (to the model, in a note where they were, and to the user on standard error).
    fn fit(&self, messages: &mut Vec<ChatMessage>, counts: &mut Vec<usize>) {
        let count = |m: &ChatMessage| {
            // A chat model's per-message overhead, as the chat prompt counts it.
            3 + self.tokenizer.count(&m.content)
                + m.tool_calls
                    .iter()
                    .map(|c| self.tokenizer.count(&c.arguments) + 3)
                    .sum::<usize>()
        };
        counts.truncate(messages.len());
        while counts.len() < messages.len() {
            counts.push(count(&messages[counts.len()]));
        }
        let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
        let rounds = agent::history::rounds_to_drop(&roles, counts, self.max_tokens);
        if rounds == 0 {
            return;
        }
        let range = agent::history::dropped_range(&roles, rounds);
        let start = range.start;
        let calls: Vec<String> = messages[range.clone()]
            .iter()
            .flat_map(|m| m.tool_calls.iter().map(|c| c.name.clone()))
            .collect();
        messages.drain(range.clone());
        counts.drain(range);
        let note = format!(
            "{rounds} earlier tool round(s) ({}) were dropped to keep the conversation within {} tokens; call the tools again for anything you still need from them",
            calls.join(", "),
            self.max_tokens
        );
        eprintln!("pilotfish: note: {note}");
        let note = ChatMessage::new("user", &format!("[pilotfish] {note}"));
        counts.insert(start, count(&note));
        messages.insert(start, note);
    }

    /// `runSubagent`: the custom agent's body as the system prompt, its `tools` as its tools
    /// (never another subagent), the prompt as the task; its final answer is the result.
    fn subagent(&mut self, arguments: &str, main: bool) -> crate::agent_tools::Outcome {
        use crate::agent_tools::Outcome;
        let failed = |content: String| Outcome { ok: false, content };
        let a = match agent::tools::parse("runSubagent", arguments) {
            Ok(agent::tools::Call::RunSubagent(a)) => a,
            Ok(_) => return failed("runSubagent's arguments were not understood".into()),
            Err(e) => return failed(e),
        };
        if !main {
            return failed("a subagent cannot start another subagent".into());
        }
        let Some(found) = self.agents.iter().find(|x| x.name == a.agent_name) else {
            let names: Vec<&str> = self.agents.iter().map(|x| x.name.as_str()).collect();
            return failed(format!(
                "there is no agent named {}; the workspace's agents are: {}",
                a.agent_name,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        let offered: Vec<Spec> = agent::tools::specs_for(self.ws.profile)
            .into_iter()
            .filter(|s| s.name != "runSubagent")
            .filter(|s| found.tools.is_empty() || found.tools.iter().any(|t| t == s.name))
            .collect();
        let mut messages = vec![
            ChatMessage::new("system", &found.body),
            ChatMessage::new("user", &a.prompt),
        ];
        match self.rounds(&mut messages, &tool_specs(&offered), SUBAGENT_ROUNDS, false) {
            Ok(_) => Outcome {
                ok: true,
                content: messages
                    .last()
                    .map(|m| m.content.clone())
                    .unwrap_or_default(),
            },
            Err(e) => failed(format!("the subagent {} did not finish: {e:#}", found.name)),
        }
    }
}

/// The most rounds a subagent may take.
const SUBAGENT_ROUNDS: u32 = 15;

/// The first line of a text, cut to `max` characters.
fn short(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_owned()
    }
}
