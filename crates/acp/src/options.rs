//! What every session of `pilotfish acp` is run with: the model, the workspace's rules and the
//! limits, chosen by the command line and the configuration.

/// What every session is run with.
#[derive(Debug, Clone)]
pub struct Options {
    pub backend: backends::chat::ChatBackend,
    pub agent: host::tools::AgentConfig,
    pub profile: agent::tools::Profile,
    /// The prompt's limit in tokens; a tool result takes at most half of it.
    pub max_tokens: usize,
    pub max_rounds: u32,
    /// Where conversations are saved and found (none when there is no state folder).
    pub store: Option<host::session_store::Store>,
    /// Whether conversations are saved (`--no-save`: no).
    pub save: bool,
    /// Where next edits over ACP are asked (`host::next_edits`, the language server's
    /// configuration), or why they cannot be.
    pub next_edits: Result<host::next_edits::NextEdits, String>,
}
