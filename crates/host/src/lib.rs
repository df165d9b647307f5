//! The agent's host side: everything between the pure agent loop and the outside world that
//! more than one front end needs. The command line, the ACP agent and the language server share
//! it: the configuration (`config`) and the model server's API key (`api_key`), the chat model and its wire format (`chat_model`), the
//! workspace's tools with confinement, file access through the disk or an editor, the terminal
//! (`shell`, or an editor's through `runner`) and MCP servers (`tools`, `files`, `mcp_tools`), the user's approvals of a
//! workspace's MCP servers (`mcp_approvals`), the undo journal (`journal`), the
//! customization files on disk (`customizations`), content exclusion (`exclusion`) and what
//! outlives a run (`state`, `preferences`, `sessions`). Commands run
//! through the sandbox (`confinement`); the user's secrets are kept from the model
//! (`secrets`). The agent's first messages are built in
//! `setup`. Copilot's own next-edit texts are read where the user fetched them
//! (`copilot_texts`); where next edits are asked is `next_edits`, shared by the language server
//! and the ACP agent. `eval` runs `pilotfish eval`'s cases through the ghost-text pipeline.

pub mod agent_config;
pub mod api_key;
pub mod chat_model;
pub mod config;
pub mod confinement;
pub mod copilot_texts;
pub mod customizations;
pub mod eval;
pub mod exclusion;
pub mod files;
pub mod journal;
pub mod mcp_approvals;
pub mod mcp_tools;
pub mod next_edits;
pub mod preferences;
pub mod runner;
pub mod secrets;
pub mod session_store;
pub mod sessions;
pub mod setup;
pub mod shell;
pub mod state;
pub mod tools;
