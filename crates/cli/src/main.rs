//! `pilotfish`: the command line. It parses arguments, reads files and prints; every decision
//! about prompts is made in the library crates.

mod chat_cmd;
mod complete;
mod config;
mod exclusion;
mod lsp_cmd;
mod prompt_cmd;
mod snippets;
mod tokens;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// pilotfish: a local-first engine for code completion prompts. It shows exactly what would
/// be sent to a model, and why.
#[derive(Debug, Parser)]
#[command(name = "pilotfish", version, about, long_about = None)]
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
    Config(config::Command),
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
    /// Serve completions to an editor: a language server on standard input and output.
    Lsp(lsp_cmd::Args),
    /// Show the neighbour-file snippets Copilot would pick for a cursor position, with scores.
    Snippets(snippets::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tokens(args) => tokens::run(args),
        Command::Snippets(args) => snippets::run(args),
        Command::Prompt(args) => prompt_cmd::run(args),
        Command::Complete(args) => complete::run(args),
        Command::Config(command) => config::run(command),
        Command::Lsp(args) => lsp_cmd::run(args),
        Command::Customizations(args) => chat_cmd::customizations(args),
        Command::Chat(args) => chat_cmd::run_chat(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pilotfish: {err:#}");
            ExitCode::FAILURE
        }
    }
}
