//! `pilotfish next-edit`: next edit suggestions from the request contract
//! (`docs/next-edit.md`): the suggestion as JSON, what would be sent (`--dry-run`), or one
//! answer per line of requests (`--batch`).

use std::{
    io::{BufRead, Read, Write},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Context, Result};
use ghost::next_edit::{Model, dry_run, suggest};
use nes::request::Request;
use serde_json::{Value, json};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The request (JSON, as `docs/next-edit.md` says); `-` for standard input.
    #[arg(long, value_name = "FILE", required_unless_present = "batch")]
    request: Option<PathBuf>,
    /// Print what would be sent, and send nothing.
    #[arg(long)]
    dry_run: bool,
    /// Read requests as JSON lines on standard input and answer each on a line, in order.
    #[arg(long)]
    batch: bool,
    /// `copilot` (Copilot's own prompt, sent to a chat model) or `sweep` (the format open
    /// next-edit models are trained on, sent to llama-server's completion endpoint); wins over
    /// the request's `options.strategy`.
    #[arg(long, value_name = "NAME")]
    strategy: Option<String>,
    /// Read the model's answer from FILE instead of asking a model, and print the suggestion
    /// that answer gives (to see how an answer is read).
    #[arg(long, value_name = "FILE", conflicts_with = "dry_run")]
    answer: Option<PathBuf>,
    #[command(flatten)]
    model: host::chat_model::ChatModelArgs,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    // The model is set up only when something is sent, so a dry run needs no server settings.
    let mut models: Option<(Model, Model)> = None;
    // Copilot's texts are read once, when a request first needs them; what to do without them
    // is said once, to the first request of the `copilot` strategy (the only one that sends
    // them).
    let mut texts: Option<host::copilot_texts::Loaded> = None;
    let mut told = false;
    let mut answer = |text: &str| -> Result<Value> {
        let mut request: Request = serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("the request is not valid: {e}"))?;
        if let Some(s) = &args.strategy {
            request.options.strategy = s.clone();
        }
        let loaded = texts.get_or_insert_with(|| copilot_texts(&args.model));
        if let Some(notice) = &loaded.notice
            && request.options.strategy != "sweep"
            && !std::mem::replace(&mut told, true)
        {
            eprintln!("pilotfish: next edit: {notice}");
        }
        let wording = &loaded.wording;
        if args.dry_run {
            // The model a real run would ask: the flag, else `[next_edit]`'s, else `[chat]`'s.
            let name = match &args.model.model {
                Some(m) => Some(m.clone()),
                None => args
                    .model
                    .load()
                    .ok()
                    .and_then(|l| l.next_edit.apply_to(&l).chat.model),
            };
            return Ok(dry_run(&request, name.as_deref(), wording)?);
        }
        if let Some(path) = &args.answer {
            let given = std::fs::read_to_string(path)
                .with_context(|| format!("could not read the answer from {}", path.display()))?;
            let next = ghost::next_edit::read_answer(&request, &given, wording)?;
            return Ok(json!({"edits": next.suggestion().into_iter().collect::<Vec<_>>()}));
        }
        if models.is_none() {
            models = Some(self::models(&args.model)?);
        }
        let (chat, completion) = models.as_ref().expect("set above");
        let model = if request.options.strategy == "sweep" {
            completion
        } else {
            chat
        };
        let next = runtime.block_on(suggest(&request, model, wording))?;
        if let ghost::next_edit::NextEdit::CutShort { .. } = next {
            eprintln!("pilotfish: {}", ghost::next_edit::CUT_SHORT);
        }
        Ok(json!({"edits": next.suggestion().into_iter().collect::<Vec<_>>()}))
    };
    if args.batch {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        for (n, line) in stdin.lock().split(b'\n').enumerate() {
            let line = line.context("could not read standard input")?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value = match std::str::from_utf8(&line) {
                Ok(text) => answer(text)
                    .unwrap_or_else(|e| json!({"error": format!("line {}: {e:#}", n + 1)})),
                Err(_) => json!({"error": format!("line {}: not UTF-8", n + 1)}),
            };
            writeln!(out, "{value}")?;
            out.flush()?;
        }
        return Ok(());
    }
    let path = args
        .request
        .clone()
        .expect("clap requires it without --batch");
    let text = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("could not read standard input")?;
        String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("the request is not UTF-8"))?
    } else {
        let bytes =
            std::fs::read(&path).with_context(|| format!("could not read {}", path.display()))?;
        String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{} is not UTF-8", path.display()))?
    };
    let value = answer(&text)?;
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}

/// Copilot's texts for the `copilot` strategy, from where the user fetched them (the variable,
/// `[next_edit] copilot_texts`, the cache folder); when they are not there, pilotfish's own
/// wording and what to run for Copilot's exact request. A configuration that does not load is
/// no reason to fail here: it is reported where the model is set up.
fn copilot_texts(args: &host::chat_model::ChatModelArgs) -> host::copilot_texts::Loaded {
    let configured = args.load().ok().and_then(|l| l.next_edit.copilot_texts);
    host::copilot_texts::load(configured.as_deref())
}

/// The chat model (from `[chat]` and the flags) and a completion endpoint at the same server
/// (llama.cpp's `/completion`, for a model trained on a raw format).
fn models(args: &host::chat_model::ChatModelArgs) -> Result<(Model, Model)> {
    let loaded = args.load()?;
    // `[next_edit]`'s server and model stand in for `[chat]`'s; the flags win over both.
    let chat = args.backend_from(&loaded.next_edit.apply_to(&loaded))?;
    let mut completion = backends::Backend::new(
        backends::Kind::LlamaCppCompletion,
        &chat.endpoint,
        Duration::from_secs(3),
        chat.total_timeout,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    // The same server as the chat model's: the same key and identity.
    completion.api_key.clone_from(&chat.api_key);
    completion.identity.clone_from(&chat.identity);
    let max_tokens = chat
        .max_tokens
        .unwrap_or(ghost::next_edit::MAX_ANSWER_TOKENS);
    Ok((Model::Chat(chat), Model::Completion(completion, max_tokens)))
}
