//! An agent run's first messages and tools, the same for every front end: the workspace's
//! customizations rendered as for a chat, pilotfish's agent prompt in place of the chat's base
//! message (or a custom agent's body), the user's remembered preferences, and the tools offered
//! (a custom agent's `tools`, or all of them).

use std::path::PathBuf;

use agent::{
    conversation::{Message, ToolSpec},
    run::Subagent,
};
use anyhow::{Context, Result};

/// What a run starts from.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The system message and the task.
    pub messages: Vec<Message>,
    /// The tools offered to the main agent.
    pub offered: Vec<ToolSpec>,
    /// The workspace's custom agents, for `runSubagent`.
    pub subagents: Vec<Subagent>,
}

/// What to set up.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub root: &'a std::path::Path,
    pub task: &'a str,
    /// A custom agent (`*.agent.md`) to run instead of pilotfish's own prompt.
    pub agent: Option<&'a str>,
    /// A system prompt that replaces pilotfish's (`{tools}` becomes the tools' names).
    pub template: Option<&'a str>,
    /// Every tool there is (built-in and MCP).
    pub catalogue: &'a [ToolSpec],
    pub max_tokens: usize,
    /// A chat without tools: the chat's own system message, no tool offered.
    pub chat: bool,
}

/// The workspace's customizations, found on disk from `root` and the user's home.
pub fn customizations(root: &std::path::Path) -> chat::Customizations {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let ws = chat::Workspace {
        folders: vec![root.to_path_buf()],
        user_settings: home
            .as_ref()
            .map(|h| h.join(".config/Code/User/settings.json")),
        home,
        workspace_file: None,
    };
    chat::discover(&crate::customizations::DiskFiles, &ws)
}

/// The first messages and tools of a run.
pub fn prepare(request: &Request<'_>, tokenizer: &tokenizer::Tokenizer) -> Result<Setup> {
    let found = customizations(request.root);
    let custom = match request.agent {
        Some(name) => Some(
            found
                .agents
                .iter()
                .find(|a| a.name == name)
                .with_context(|| format!("there is no agent named {name} in this workspace"))?
                .clone(),
        ),
        None => None,
    };
    let offered: Vec<ToolSpec> = request
        .catalogue
        .iter()
        .filter(|_| !request.chat)
        .filter(|s| {
            custom
                .as_ref()
                .is_none_or(|a| a.tools.is_empty() || a.tools.contains(&s.name))
        })
        .cloned()
        .collect();
    let names: Vec<&str> = offered.iter().map(|s| s.name.as_str()).collect();
    let template = request.template.unwrap_or(agent::system_prompt::DEFAULT);
    let chat_request = chat::ChatRequest {
        message: request.task.to_owned(),
        agent: request.agent.map(str::to_owned),
        attachments: Vec::new(),
        history: Vec::new(),
        language: None,
        labels: Vec::new(),
        max_tokens: request.max_tokens,
        history_tokens: request.max_tokens / 2,
    };
    let prompt = chat::render(&found, &chat_request, tokenizer)?;
    let mut messages = crate::chat_model::agent_messages(&prompt);
    if custom.is_none()
        && !request.chat
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
        system.content = format!("{}{rest}", agent::system_prompt::render(template, &names));
    }
    if let Some(facts) = crate::preferences::preferences()
        && let Some(system) = messages.iter_mut().find(|m| m.role == "system")
    {
        system.content.push_str(&format!(
            "\n\n<userPreferences>\nWhat the user asked you to remember in earlier runs:\n{facts}</userPreferences>"
        ));
    }
    let subagents = found
        .agents
        .iter()
        .map(|a| Subagent {
            name: a.name.clone(),
            body: a.body.clone(),
            tools: a.tools.clone(),
        })
        .collect();
    Ok(Setup {
        messages,
        offered,
        subagents,
    })
}
