//! `pilotfish acp`: serves the Agent Client Protocol on standard input and output
//! (`crates/acp`), with the chat model and `[agent]` rules of the configuration.

use anyhow::{Result, bail};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The most tool-call rounds of one prompt.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    max_rounds: u32,
    /// The tools offered: `original` (Copilot's agent mode as first published) or `copilot`
    /// (its current names), as for `pilotfish agent`.
    #[arg(long, default_value = "original", value_name = "PROFILE")]
    tools: String,
    /// The prompt's limit in tokens; a tool result takes at most half of it (the answer's is
    /// --max-answer-tokens); `--max-tokens` is the same option under its older name.
    #[arg(
        long = "max-prompt-tokens",
        visible_alias = "max-tokens",
        value_name = "N",
        default_value_t = 64_000
    )]
    max_tokens: usize,
    /// Save no conversation (they are saved by default under the state folder's
    /// `agent-sessions/`, for `session/load` and `pilotfish agent --resume`).
    #[arg(long)]
    no_save: bool,
    #[command(flatten)]
    sandbox: host::confinement::SandboxArgs,
    #[command(flatten)]
    model: host::chat_model::ChatModelArgs,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let loaded = args.model.load()?;
    let mut backend = args.model.backend_from(&loaded)?;
    host::chat_model::limit_answer(&mut backend, host::chat_model::AGENT_ANSWER_TOKENS);
    let Some(profile) = agent::tools::Profile::parse(&args.tools) else {
        bail!(
            "--tools {} is unknown: use {}",
            args.tools,
            agent::tools::Profile::NAMES
        );
    };
    let mut agent = loaded.agent.clone();
    args.sandbox.apply(&mut agent);
    // Next edits ask what the language server would: `[next_edit]`, else `[chat]` with these
    // flags laid over it, else the completions' server.
    let mut chat = loaded.clone();
    let flags = &args.model;
    if let Some(v) = &flags.backend {
        chat.chat.kind.clone_from(v);
    }
    for (flag, setting) in [
        (&flags.endpoint, &mut chat.chat.endpoint),
        (&flags.model, &mut chat.chat.model),
        (&flags.api_key_env, &mut chat.chat.api_key_env),
    ] {
        if flag.is_some() {
            setting.clone_from(flag);
        }
    }
    let next_edits =
        host::next_edits::configure(&chat, None, &loaded.backend).map_err(|e| format!("{e:#}"));
    let options = acp::Options {
        next_edits,
        backend,
        agent,
        profile,
        max_tokens: args.max_tokens,
        max_rounds: args.max_rounds,
        store: host::session_store::Store::open(loaded.sessions)
            .map_err(|e| eprintln!("pilotfish acp: conversations are not kept: {e}"))
            .ok(),
        save: !args.no_save,
    };
    acp::serve(
        std::io::stdin().lock(),
        Box::new(std::io::stdout()),
        options,
    )?;
    Ok(())
}
