//! `pilotfish`: the command line. It parses arguments, reads files and prints; every decision
//! about prompts is made in the library crates.

mod acp_cmd;
mod agent_cmd;
mod chat_cmd;
mod complete;
mod config_cmd;
mod default_model;
mod editor_settings;
mod eval_cmd;
mod gguf;
mod lsp_cmd;
mod managed;
mod next_edit_cmd;
mod prompt_cmd;
mod snippets;
mod tokens;
mod unbundle_cmd;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// pilotfish: a local-first engine for code completion and chat. It builds the prompt Copilot
/// would build, shows exactly what would be sent to a model and why, and sends it to your own
/// model server.
#[derive(Debug, Parser)]
#[command(name = "pilotfish", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the tokens of standard input (or list them with --ids).
    Tokens(tokens::Args),
    /// The configuration: `pilotfish config check` shows it and tries the server.
    #[command(subcommand)]
    Config(config_cmd::Command),
    /// Ask a model server for a completion at a cursor position and print it.
    Complete(complete::Args),
    /// Show the prompt that would be sent for a cursor position, and what went into it.
    Prompt(prompt_cmd::Args),
    /// The customization files (instructions, agents, skills) found, which apply to a file,
    /// and what is wrong with them.
    Customizations(chat_cmd::CustomizationsArgs),
    /// The chat messages that would be sent for a message (`--dry-run`), each part labelled
    /// with where it came from.
    Chat(chat_cmd::ChatArgs),
    /// Run an agent on a task in the workspace: the model reads, searches, edits and runs
    /// commands through tools until it is done (`--undo` reverts the last run's edits).
    Agent(agent_cmd::Args),
    /// Serve the agent to an editor: an Agent Client Protocol agent on standard input and
    /// output (Zed, JetBrains, Neovim, Emacs).
    Acp(acp_cmd::Args),
    /// Suggest the edit the user will make next, from the edits they just made (a request as
    /// JSON; `--dry-run` shows what would be sent).
    NextEdit(next_edit_cmd::Args),
    /// Serve completions to an editor: a language server on standard input and output.
    Lsp(lsp_cmd::Args),
    /// Measure what each context strategy is worth with your model on your repository: cases
    /// from its tracked files, each strategy's prompt sent, scores with 95% intervals.
    Eval(eval_cmd::Args),
    /// Show the neighbour-file snippets Copilot would pick for a cursor position, with scores.
    Snippets(snippets::Args),
    /// Split a webpack or esbuild bundle into one readable file per module; the output still
    /// runs (`node OUT/ENTRY`).
    Unbundle(unbundle_cmd::Args),
}

fn main() -> ExitCode {
    // Inside the sandbox, bubblewrap starts pilotfish itself as the helper that applies the
    // seccomp filter and then runs the command: nothing else of pilotfish runs there.
    let mut raw = std::env::args_os();
    if raw.nth(1).is_some_and(|a| a == sandbox::HELPER_ARG) {
        sandbox::exec_main(raw.collect());
    }
    let cli = Cli::parse_from(language_server_shorthand(std::env::args_os().collect()));
    // A command whose output goes into `head` or a pager that quits early must stop quietly,
    // as other command-line tools do, not panic on the closed pipe. The language server, the
    // ACP agent and the terminal agent keep Rust's default (the signal ignored) and act on the
    // write error instead: they write to child processes too (MCP servers, the shell), and one
    // that exits must not end pilotfish.
    if !matches!(
        cli.command,
        Command::Lsp(_) | Command::Acp(_) | Command::Agent(_)
    ) {
        stop_quietly_on_closed_pipe();
    }
    let result = match cli.command {
        Command::Tokens(args) => tokens::run(args),
        Command::Snippets(args) => snippets::run(args),
        Command::Prompt(args) => prompt_cmd::run(args),
        Command::Complete(args) => complete::run(args),
        Command::Config(command) => config_cmd::run(command),
        Command::Lsp(args) => lsp_cmd::run(args),
        Command::Customizations(args) => chat_cmd::customizations(args),
        Command::Chat(args) => chat_cmd::run_chat(args),
        Command::Agent(args) => agent_cmd::run(args),
        Command::Acp(args) => acp_cmd::run(args),
        Command::NextEdit(args) => next_edit_cmd::run(args),
        Command::Unbundle(args) => unbundle_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pilotfish: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// `pilotfish --stdio` is `pilotfish lsp --stdio`: Copilot's editor plugins start "the Copilot
/// server" as one executable with `--stdio` after it, so the binary's own path is enough to set
/// them up.
fn language_server_shorthand(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if args.get(1).is_some_and(|a| a == "--stdio") {
        args.insert(1, "lsp".into());
    }
    args
}

#[cfg(unix)]
fn stop_quietly_on_closed_pipe() {
    // SAFETY: restores the default disposition of SIGPIPE (end the process) before any other
    // thread exists; sockets are unaffected, since Rust sends on them with MSG_NOSIGNAL.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn stop_quietly_on_closed_pipe() {}

/// Whether an error is a write to a reader that went away, which is no failure of ours.
fn is_closed_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
