//! `[agent]` in the configuration: the rules for terminal commands, `get_errors`' checkers, the
//! sandbox's mode and network, and the secret list's changes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `[agent]`: rules for terminal commands, judged on every sub-command; deny wins.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentConfig {
    /// Command prefixes that run without asking, besides the read-only defaults.
    pub allow: Vec<String>,
    /// Command prefixes that never run, even with `--yes`.
    pub deny: Vec<String>,
    /// `get_errors`' checker per language id, `{file}` standing for the file (over the
    /// defaults: py_compile, cargo check, tsc, go vet, node --check where installed).
    pub checkers: BTreeMap<String, String>,
    /// How commands are confined: `workspace-write` (the default), `read-only` or `off`.
    pub sandbox: Option<String>,
    /// Whether sandboxed commands reach the network.
    pub network: bool,
    /// More secrets: `~/` or absolute paths are credentials hidden from commands and tools,
    /// other entries workspace patterns (gitignore syntax) the tools never read.
    pub secrets: Vec<String>,
    /// Entries of the default secret list to drop, spelled as in the list.
    pub not_secrets: Vec<String>,
}
