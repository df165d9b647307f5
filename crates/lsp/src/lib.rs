//! `pilotfish lsp`: a language server over stdio that serves ghost text from the pipeline, in
//! the standard protocol (LSP 3.18 `textDocument/inlineCompletion`) and in the protocol
//! Copilot's own editor plugins speak (`getCompletions`, `getCompletionsCycling`,
//! `getPanelCompletions`, `notifyAccepted`, `checkStatus`, ...), so those plugins can be
//! pointed at a local model.
//!
//! The only crate that knows LSP's shapes. Messages are handled in arrival order on one task,
//! so edits are applied before the completion request that follows them; completions run on
//! their own tasks, a newer request for a document supersedes the older one, and nothing the
//! pipeline does blocks the message loop.

pub mod documents;
pub mod edits;
pub mod position;
mod server;
pub mod transport;

pub use server::{
    Configure, Configured, ModelServer, NextEditConfig, ServerConfig, WorkspaceReader, no_files,
    no_model_server, serve,
};
