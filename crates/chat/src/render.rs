//! The chat prompt as Copilot assembles it (seed 000): the system message (the base prompt, or
//! the invoked agent's body), the instructions section, the index lists of what can be loaded
//! on demand, earlier turns, and the user's message with its attachments, all under the
//! model's token limit. Every part says where it came from.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokenizer::Tokenizer;

use crate::discover::{Customizations, Kind, folder_of, relative};

/// pilotfish's own base system message (Copilot's is its product text, not reproduced).
pub const BASE_SYSTEM: &str = "You are an AI programming assistant working in the user's code editor. Follow the user's requirements carefully. Keep answers short and focused on the code in the user's workspace. When you show code, use Markdown code blocks with the language named.";

const INTRODUCTION: &str =
    "When generating code, please follow these user provided coding instructions.";
const MULTI_ROOT: &str =
    " This is a multi-root workspace. Apply each set of instructions to the folder it belongs to.";
const CONFLICT: &str = " You can ignore an instruction if it contradicts a system message.";

/// An attached file, or a selection in it (1-based inclusive lines).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Attachment {
    pub path: PathBuf,
    pub text: String,
    #[serde(default)]
    pub selection: Option<(usize, usize)>,
}

/// A tool call of an earlier round and what it returned.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default)]
    pub arguments: serde_json::Value,
    pub result: String,
}

/// An earlier turn: the user's message, the tool-call rounds, the answer.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Turn {
    pub user: String,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default)]
    pub assistant: String,
}

/// What to build a prompt for.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub message: String,
    /// `@name`: the agent whose body becomes the system message.
    pub agent: Option<String>,
    pub attachments: Vec<Attachment>,
    pub history: Vec<Turn>,
    /// The language of the active file (language-scoped setting instructions follow it).
    pub language: Option<String>,
    /// Workspace labels (technologies detected).
    pub labels: Vec<String>,
    /// The model's prompt limit, in tokens.
    pub max_tokens: usize,
    /// Earlier turns may take at most this many tokens (Copilot: 32,768).
    pub history_tokens: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A labelled piece of a message.
#[derive(Debug, Clone, Serialize)]
pub struct Part {
    pub source: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Message {
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub content: String,
    pub parts: Vec<Part>,
    pub tokens: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChatPrompt {
    pub messages: Vec<Message>,
    /// All messages as a chat model counts them, reply priming included.
    pub tokens: usize,
    pub max_tokens: usize,
    /// What was left out or shortened to fit, and other things worth knowing.
    pub notes: Vec<String>,
    /// When the instructions require a task like this one to go to a subagent: the prompt that
    /// agent would get.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation: Option<Box<Delegation>>,
}

/// A hand-over to a subagent, as pilotfish reads the instructions (Copilot's model makes the
/// decision; this shows the prompt it leads to).
#[derive(Debug, Clone, Serialize)]
pub struct Delegation {
    pub agent: String,
    /// The instruction file that demands it and the trigger the message matched.
    pub reason: String,
    pub prompt: ChatPrompt,
}

/// Why no prompt can be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("no agent is named {0:?}; `pilotfish customizations` lists the agents found")]
    UnknownAgent(String),
    #[error(
        "the system message, instructions and your message take {needed} tokens, more than the model's {limit}: raise the limit or shorten the instructions"
    )]
    TooLarge { needed: usize, limit: usize },
}

/// Tokens of one message as chat models count them: 3 for the message's framing, its content,
/// and 1 more for a name.
pub fn message_tokens(tokenizer: &Tokenizer, content: &str, name: Option<&str>) -> usize {
    3 + tokenizer.count(content) + name.map_or(0, |n| 1 + tokenizer.count(n))
}

/// Tokens that prime the reply, counted once per prompt.
pub const REPLY_PRIMING: usize = 3;

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

fn shown_path(path: &Path, folders: &[PathBuf]) -> String {
    match folder_of(folders, path) {
        Some(f) => relative(path, Some(f)).unwrap_or_default(),
        None => path.display().to_string(),
    }
}

fn folder_name(folder: &Path) -> String {
    folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| folder.display().to_string())
}

/// Builds the prompt: the system message's sections in the order the module's summary gives
/// ([`system_head`], [`instructions_section`], the index lists), the user's message
/// ([`user_parts`]), then the fitting: earlier turns that fit ([`fit_history`]), and the
/// attachments folded when the whole is still too large ([`fold_attachments`]).
pub fn render(
    found: &Customizations,
    request: &ChatRequest,
    tokenizer: &Tokenizer,
) -> Result<ChatPrompt, RenderError> {
    let folders = &found.folders;
    let files: Vec<PathBuf> = request.attachments.iter().map(|a| a.path.clone()).collect();
    let mut notes = Vec::new();

    let mut system_parts = vec![system_head(found, request, &mut notes)?];
    system_parts.extend(instructions_section(found, request, &files, &mut notes));
    system_parts.extend(on_demand_index(found, &files));
    system_parts.extend(skills_index(found));
    system_parts.extend(agents_index(found, request));

    let system = message(Role::System, None, system_parts, tokenizer);
    let user = message(Role::User, None, user_parts(request, folders), tokenizer);
    let fixed = system.tokens + REPLY_PRIMING;
    let history = fit_history(request, fixed + user.tokens, tokenizer, &mut notes);
    let history_total: usize = history.iter().flatten().map(|m| m.tokens).sum();
    let (user, total) = fold_attachments(
        request,
        folders,
        user,
        fixed + history_total,
        tokenizer,
        &mut notes,
    );
    if total > request.max_tokens {
        return Err(RenderError::TooLarge {
            needed: total,
            limit: request.max_tokens,
        });
    }
    let mut messages = vec![system];
    messages.extend(history.into_iter().flatten());
    messages.push(user);
    let delegation = if request.agent.is_none() {
        delegation(found, request, &files, tokenizer)?
    } else {
        None
    };
    Ok(ChatPrompt {
        messages,
        tokens: total,
        max_tokens: request.max_tokens,
        notes,
        delegation,
    })
}

/// The system message's first part: the base prompt, or the invoked agent's body.
fn system_head(
    found: &Customizations,
    request: &ChatRequest,
    notes: &mut Vec<String>,
) -> Result<Part, RenderError> {
    let Some(name) = &request.agent else {
        return Ok(Part {
            source: "pilotfish base system message".to_owned(),
            text: BASE_SYSTEM.to_owned(),
        });
    };
    let agent = found
        .agents
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| RenderError::UnknownAgent(name.clone()))?;
    if !agent.tools.is_empty() {
        notes.push(format!(
            "agent {} limits the tools to: {}",
            agent.name,
            agent.tools.join(", ")
        ));
    }
    Ok(Part {
        source: format!("agent {} ({})", agent.name, agent.path.display()),
        text: agent.body.trim().to_owned(),
    })
}

/// The instructions section: the applicable instruction files, then the setting instructions,
/// between the lead and the closing tag; nothing when there are none.
fn instructions_section(
    found: &Customizations,
    request: &ChatRequest,
    files: &[PathBuf],
    notes: &mut Vec<String>,
) -> Vec<Part> {
    let mut chunks = instruction_files(found, files, notes);
    chunks.extend(setting_instructions(found, request, notes));
    if chunks.is_empty() {
        return chunks;
    }
    let mut lead = INTRODUCTION.to_owned();
    if found.folders.len() > 1 {
        lead.push_str(MULTI_ROOT);
    }
    lead.push_str(CONFLICT);
    let mut parts = vec![Part {
        source: "instructions section".to_owned(),
        text: format!("{lead}\n<instructions>"),
    }];
    parts.extend(chunks);
    parts.push(Part {
        source: "instructions section".to_owned(),
        text: "</instructions>".to_owned(),
    });
    parts
}

/// Each applicable instruction file as an attachment, saying why it applies; empty files and
/// files repeating another word for word are left out.
fn instruction_files(
    found: &Customizations,
    files: &[PathBuf],
    notes: &mut Vec<String>,
) -> Vec<Part> {
    let folders = &found.folders;
    let mut chunks: Vec<Part> = Vec::new();
    let mut seen_content: Vec<String> = Vec::new();
    for i in found.applicable(files) {
        let content = i.body.trim().to_owned();
        if content.is_empty() {
            notes.push(format!("{} is empty and was left out", i.path.display()));
            continue;
        }
        if seen_content.contains(&content) {
            notes.push(format!(
                "{} repeats another instruction file word for word and was left out",
                i.path.display()
            ));
            continue;
        }
        seen_content.push(content.clone());
        let mut attrs = format!(
            "filePath=\"{}\"",
            escape_attr(&shown_path(&i.path, folders))
        );
        if folders.len() > 1
            && let Some(f) = &i.folder
        {
            attrs.push_str(&format!(
                " workspaceFolder=\"{}\"",
                escape_attr(&folder_name(f))
            ));
        }
        let why = match i.kind {
            Kind::CopilotInstructions => "always applies".to_owned(),
            Kind::InstructionsFile => {
                format!("applyTo {} covers an attached file", i.apply_to.join(", "))
            }
            Kind::AgentsMd => "the nearest AGENTS.md".to_owned(),
            Kind::ClaudeMd => "CLAUDE.md at the folder root".to_owned(),
        };
        chunks.push(Part {
            source: format!("{} ({why})", i.path.display()),
            text: format!("<attachment {attrs}>\n{content}\n</attachment>"),
        });
    }
    chunks
}

/// The setting instructions: each one line, those for another language than the active one
/// left out.
fn setting_instructions(
    found: &Customizations,
    request: &ChatRequest,
    notes: &mut Vec<String>,
) -> Vec<Part> {
    let mut chunks = Vec::new();
    for s in &found.settings {
        let line = match &s.language {
            Some(l) if request.language.as_deref() == Some(l.as_str()) => {
                format!("For {l} code: {}", s.text)
            }
            Some(l) => {
                notes.push(format!(
                    "a setting instruction for {l} code was left out (the active language is {})",
                    request.language.as_deref().unwrap_or("unknown")
                ));
                continue;
            }
            None => s.text.clone(),
        };
        chunks.push(Part {
            source: s.source.clone(),
            text: line,
        });
    }
    chunks
}

/// The index of instruction files that can be loaded on demand.
fn on_demand_index(found: &Customizations, files: &[PathBuf]) -> Option<Part> {
    let on_demand = found.on_demand(files);
    if on_demand.is_empty() {
        return None;
    }
    let mut text = String::from(
        "These instruction files apply to particular files or tasks. When your work touches what one describes, read it first with the read_file tool and follow it.\n<instructions>\n",
    );
    for i in on_demand {
        text.push_str(&format!(
            "<instruction>\n<description>{}</description>\n<file>{}</file>\n</instruction>\n",
            i.description.as_deref().unwrap_or_default(),
            shown_path(&i.path, &found.folders)
        ));
    }
    text.push_str("</instructions>");
    Some(Part {
        source: "on-demand instruction files".to_owned(),
        text,
    })
}

/// The index of skills.
fn skills_index(found: &Customizations) -> Option<Part> {
    if found.skills.is_empty() {
        return None;
    }
    let mut text = String::from(
        "Skills are folders of instructions for particular tasks. When a task matches a skill's description, read its SKILL.md with the read_file tool before you start.\n<skills>\n",
    );
    for s in &found.skills {
        text.push_str(&format!(
            "<skill>\n<name>{}</name>\n<description>{}</description>\n<file>{}</file>\n</skill>\n",
            s.name,
            s.description.as_deref().unwrap_or_default(),
            shown_path(&s.path, &found.folders)
        ));
    }
    text.push_str("</skills>");
    Some(Part {
        source: "skills".to_owned(),
        text,
    })
}

/// The index of agents a task can be handed to (not the one invoked).
fn agents_index(found: &Customizations, request: &ChatRequest) -> Option<Part> {
    let delegable: Vec<_> = found
        .agents
        .iter()
        .filter(|a| a.infer && request.agent.as_deref() != Some(a.name.as_str()))
        .collect();
    if delegable.is_empty() {
        return None;
    }
    let mut text = String::from(
        "These agents can take over a task: when a task matches an agent's description, or the instructions require it, hand it over with the runSubagent tool, giving the agent's name and the task.\n<agents>\n",
    );
    for a in delegable {
        text.push_str(&format!(
            "<agent>\n<name>{}</name>\n<description>{}</description>\n</agent>\n",
            a.name,
            a.description.as_deref().unwrap_or_default()
        ));
    }
    text.push_str("</agents>");
    Some(Part {
        source: "agents".to_owned(),
        text,
    })
}

/// The current message: workspace labels, attachments, the text.
fn user_parts(request: &ChatRequest, folders: &[PathBuf]) -> Vec<Part> {
    let mut user_parts = Vec::new();
    if !request.labels.is_empty() {
        user_parts.push(Part {
            source: "workspace labels".to_owned(),
            text: format!(
                "I am working in a workspace that uses: {}.",
                request.labels.join(", ")
            ),
        });
    }
    for a in &request.attachments {
        user_parts.push(attachment_part(a, folders, None));
    }
    user_parts.push(Part {
        source: "your message".to_owned(),
        text: request.message.clone(),
    });
    user_parts
}

/// Earlier turns, newest first, while they fit their own limit and the whole (`others`: the
/// tokens of everything but the history).
fn fit_history(
    request: &ChatRequest,
    others: usize,
    tokenizer: &Tokenizer,
    notes: &mut Vec<String>,
) -> Vec<Vec<Message>> {
    let mut history: Vec<Vec<Message>> = request
        .history
        .iter()
        .map(|t| turn_messages(t, tokenizer))
        .collect();
    let mut dropped_turns = 0;
    loop {
        let history_total: usize = history.iter().flatten().map(|m| m.tokens).sum();
        let total = others + history_total;
        if history.is_empty()
            || (history_total <= request.history_tokens && total <= request.max_tokens)
        {
            break;
        }
        history.remove(0);
        dropped_turns += 1;
    }
    if dropped_turns > 0 {
        notes.push(format!(
            "the {dropped_turns} oldest earlier turn(s) were left out to fit the token limits"
        ));
    }
    history
}

/// Still too large: folds the least relevant regions of the attachments (`others`: the tokens
/// of everything but the user's message). Returns the user's message and the prompt's total.
fn fold_attachments(
    request: &ChatRequest,
    folders: &[PathBuf],
    mut user: Message,
    others: usize,
    tokenizer: &Tokenizer,
    notes: &mut Vec<String>,
) -> (Message, usize) {
    let mut total = others + user.tokens;
    if total <= request.max_tokens || request.attachments.is_empty() {
        return (user, total);
    }
    let room = request
        .max_tokens
        .saturating_sub(total - attachments_tokens(&user, tokenizer));
    let mut share = room / request.attachments.len();
    let labels = (!request.labels.is_empty()).then(|| user.parts[0].clone());
    let text = user.parts.last().cloned();
    // The share is an estimate (fold markers and joins cost tokens too): shrink it by the
    // excess until the whole fits, or nothing is left to fold.
    for _ in 0..8 {
        let mut parts: Vec<Part> = labels.iter().cloned().collect();
        for a in &request.attachments {
            parts.push(attachment_part(
                a,
                folders,
                Some((share, &request.message, tokenizer)),
            ));
        }
        parts.extend(text.iter().cloned());
        user = message(Role::User, None, parts, tokenizer);
        total = others + user.tokens;
        if total <= request.max_tokens || share == 0 {
            break;
        }
        share = share
            .saturating_sub((total - request.max_tokens).div_ceil(request.attachments.len()) + 4);
    }
    notes.push("attached code was summarized: its least relevant lines are folded into `/* Lines X-Y omitted */` markers".to_owned());
    (user, total)
}

/// Words that make a delegation instruction binding.
const BINDING: &[&str] = &["mandatory", "must", "always delegate", "必须"];

/// Whether an applicable instruction demands that tasks like `request.message` go to an agent:
/// the instruction names the agent and is binding, and the message contains one of the
/// triggers the agent's description lists (after `Triggers`, `trigger words` or `触发词`).
fn delegation(
    found: &Customizations,
    request: &ChatRequest,
    files: &[PathBuf],
    tokenizer: &Tokenizer,
) -> Result<Option<Box<Delegation>>, RenderError> {
    let message = request.message.to_lowercase();
    let applied = found.applicable(files);
    for agent in found.agents.iter().filter(|a| a.infer) {
        let name = agent.name.to_lowercase();
        let Some(demand) = applied.iter().find(|i| {
            let body = i.body.to_lowercase();
            body.contains(&name) && BINDING.iter().any(|b| body.contains(b))
        }) else {
            continue;
        };
        let Some(trigger) = triggers(agent.description.as_deref().unwrap_or_default())
            .into_iter()
            .find(|t| message.contains(&t.to_lowercase()))
        else {
            continue;
        };
        let sub = ChatRequest {
            agent: Some(agent.name.clone()),
            history: Vec::new(),
            ..request.clone()
        };
        let prompt = render(found, &sub, tokenizer)?;
        return Ok(Some(Box::new(Delegation {
            agent: agent.name.clone(),
            reason: format!(
                "{} requires delegating to {}, and the message contains its trigger {trigger:?}",
                demand.path.display(),
                agent.name
            ),
            prompt,
        })));
    }
    Ok(None)
}

/// The trigger phrases an agent's description lists after `Triggers`, `trigger words` or
/// `触发词`, separated by commas, semicolons or `、`.
fn triggers(description: &str) -> Vec<String> {
    let lower = description.to_lowercase();
    let start = ["trigger words", "triggers", "trigger", "触发词"]
        .iter()
        .find_map(|k| lower.find(k).map(|i| i + k.len()));
    let Some(start) = start else {
        return Vec::new();
    };
    lower[start..]
        .trim_start_matches([':', '：', '-', ' '])
        .split([',', ';', '、', '，', '；', '.', '。'])
        .map(|t| t.trim().trim_matches(['"', '\'', '“', '”']).to_owned())
        .filter(|t| t.chars().count() >= 2)
        .collect()
}

fn message(role: Role, name: Option<String>, parts: Vec<Part>, tokenizer: &Tokenizer) -> Message {
    let content = parts
        .iter()
        .map(|p| p.text.as_str())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let tokens = message_tokens(tokenizer, &content, name.as_deref());
    Message {
        role,
        name,
        content,
        parts,
        tokens,
    }
}

fn attachments_tokens(user: &Message, tokenizer: &Tokenizer) -> usize {
    user.parts
        .iter()
        .filter(|p| p.source.starts_with("attached"))
        .map(|p| tokenizer.count(&p.text) + 1)
        .sum()
}

fn turn_messages(turn: &Turn, tokenizer: &Tokenizer) -> Vec<Message> {
    let part = |source: &str, text: &str| Part {
        source: source.to_owned(),
        text: text.to_owned(),
    };
    let mut out = vec![message(
        Role::User,
        None,
        vec![part("earlier turn", &turn.user)],
        tokenizer,
    )];
    for call in &turn.tool_calls {
        out.push(message(
            Role::Assistant,
            None,
            vec![part(
                "earlier tool call",
                &format!("{}({})", call.name, call.arguments),
            )],
            tokenizer,
        ));
        out.push(message(
            Role::Tool,
            Some(call.name.clone()),
            vec![part("earlier tool result", &call.result)],
            tokenizer,
        ));
    }
    if !turn.assistant.is_empty() {
        out.push(message(
            Role::Assistant,
            None,
            vec![part("earlier answer", &turn.assistant)],
            tokenizer,
        ));
    }
    out
}

/// An attachment as a part; with a budget, its least relevant lines folded.
fn attachment_part(
    a: &Attachment,
    folders: &[PathBuf],
    budget: Option<(usize, &str, &Tokenizer)>,
) -> Part {
    let path = shown_path(&a.path, folders);
    let lines: Vec<&str> = a.text.lines().collect();
    let (from, to) = a
        .selection
        .map(|(s, e)| (s.max(1), e.max(s).min(lines.len().max(1))))
        .unwrap_or((1, lines.len()));
    let body = match budget {
        None => lines
            .get(from - 1..to.min(lines.len()))
            .unwrap_or_default()
            .join("\n"),
        Some((tokens, message, tokenizer)) => summarize(
            &lines[(from - 1).min(lines.len())..to.min(lines.len())],
            from,
            tokens,
            message,
            tokenizer,
        ),
    };
    let kind = if a.selection.is_some() {
        format!(" lines=\"{from}-{to}\"")
    } else {
        String::new()
    };
    Part {
        source: format!("attached {}", a.path.display()),
        text: format!(
            "<attachment filePath=\"{}\"{kind}>\n{body}\n</attachment>",
            escape_attr(&path)
        ),
    }
}

/// Keeps the lines most relevant to `message` (sharing its words, then nearest the top) within
/// `tokens`, and folds each run of left-out lines into one `/* Lines X-Y omitted */` line.
/// `first` is the 1-based number of `lines[0]`.
pub fn summarize(
    lines: &[&str],
    first: usize,
    tokens: usize,
    message: &str,
    tokenizer: &Tokenizer,
) -> String {
    let words: Vec<String> = message
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
        .collect();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    let score = |i: usize| {
        let l = lines[i].to_lowercase();
        words.iter().filter(|w| l.contains(w.as_str())).count()
    };
    // Most relevant first; among equals, lines with less indentation (declarations) and then
    // earlier lines.
    order.sort_by_key(|&i| {
        let indent = lines[i].len() - lines[i].trim_start().len();
        (std::cmp::Reverse(score(i)), indent, i)
    });
    // Each run of left-out lines becomes one marker of about a dozen tokens; keeping a line can
    // split a run in two or remove one.
    const MARKER: usize = 12;
    let n = lines.len();
    let mut keep = vec![false; n];
    let mut used = 0;
    let mut runs = usize::from(n > 0);
    for i in order {
        let cost = tokenizer.count(lines[i]) + 1;
        let left = i > 0 && !keep[i - 1];
        let right = i + 1 < n && !keep[i + 1];
        let new_runs = match (left, right) {
            (true, true) => runs + 1,
            (false, false) => runs - 1,
            _ => runs,
        };
        if used + cost + MARKER * new_runs > tokens {
            continue;
        }
        keep[i] = true;
        used += cost;
        runs = new_runs;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if keep[i] {
            out.push(lines[i].to_owned());
            i += 1;
        } else {
            let start = i;
            while i < lines.len() && !keep[i] {
                i += 1;
            }
            out.push(format!(
                "/* Lines {}-{} omitted */",
                first + start,
                first + i - 1
            ));
        }
    }
    out.join("\n")
}
