//! `pilotfish complete`: the prompt for a cursor, sent to a model server, and the answer.

use std::{ops::ControlFlow, path::PathBuf, time::Instant};

use anyhow::{Context, Result, bail};
use backends::{ExtraChunk, Request};

use crate::prompt_cmd;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The cursor as PATH:LINE:COLUMN (from 1), reading files from disk.
    #[arg(conflicts_with = "request")]
    location: Option<String>,
    /// Another open file, most recently used first; repeat for more.
    #[arg(long = "open", value_name = "FILE", requires = "location")]
    open: Vec<PathBuf>,
    /// A request in the contract's JSON (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    request: Option<PathBuf>,
    #[command(flatten)]
    overrides: crate::config::Overrides,
    /// Tokens to generate at most (default: the configuration's, 64).
    #[arg(long)]
    max_tokens: Option<u32>,
    /// Also print the prompt, the request sent and the timings.
    #[arg(long)]
    explain: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let (config, _) = crate::config::load(&args.overrides)?;
    let backend = config.backend()?;
    let kind = backend.kind;
    let mut request = match (&args.location, &args.request) {
        (Some(location), None) => prompt_cmd::request_from_disk(location, &args.open)?,
        (None, Some(path)) => prompt_cmd::read_request(path)?,
        _ => bail!("give a location (PATH:LINE:COLUMN) or --request FILE.json"),
    };
    if let Some(t) = &config.fim_template {
        request.options.fim_template = Some(t.clone());
    }
    let started = Instant::now();
    let prompt = prompt_cmd::assemble_excluding(&mut request)?;
    let assembled = started.elapsed();
    if let Some(reason) = &prompt.copilot_skip_reason {
        eprintln!("note: Copilot would not ask here ({reason}); asking anyway");
    }
    let language = prompt::detected_language(
        &request.document.path,
        request.document.language_id.as_deref(),
    );
    let backend_request = Request {
        prompt: prompt.fim_prompt.clone().unwrap_or_default(),
        prefix: prompt.prefix.clone(),
        suffix: prompt.suffix.clone(),
        extra: prompt
            .context
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
            .map(|(i, c)| ExtraChunk {
                filename: format!("context-{}", i + 1),
                text: c.clone(),
            })
            .collect(),
        max_tokens: args.max_tokens.unwrap_or(config.max_tokens),
        // Copilot's parameters: stops by language, temperature by candidates (one here).
        stop: engine::params::stops_for_language(&language)
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        temperature: engine::params::temperature_for_samples(1) as f32,
        top_p: engine::params::TOP_P as f32,
        ..Request::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let sent = Instant::now();
    let mut first_token = None;
    let text = runtime.block_on(backend.stream(&backend_request, |_| {
        first_token.get_or_insert_with(|| sent.elapsed());
        ControlFlow::Continue(())
    }))?;
    let total = sent.elapsed();
    if args.explain {
        print!("{}", prompt::render_text(&prompt));
        println!("─── request to {} ({:?}) ───", backend.endpoint, kind);
        println!(
            "max_tokens {}, {} extra context chunk(s)",
            backend_request.max_tokens,
            backend_request.extra.len()
        );
        println!(
            "─── timings: prompt assembly {:.1} ms, first token {}, total {:.1} ms ───",
            assembled.as_secs_f64() * 1e3,
            first_token.map_or("none".to_owned(), |t| format!(
                "{:.1} ms",
                t.as_secs_f64() * 1e3
            )),
            total.as_secs_f64() * 1e3
        );
    }
    // Servers apply stops themselves; a stream cut short by cancellation may not have.
    let (text, _) =
        engine::params::cut_at_stop(&text, &engine::params::stops_for_language(&language));
    let (text, cut) = post_process(&request, &language, &text);
    if args.explain {
        println!(
            "{}",
            cut.as_deref().unwrap_or("post-processing: nothing cut")
        );
        println!("─── completion ───");
    }
    if text.trim().is_empty() {
        eprintln!(
            "pilotfish: nothing to show: {}",
            cut.as_deref()
                .unwrap_or("the model answered with nothing but white space")
        );
    }
    println!("{text}");
    Ok(())
}

/// Copilot's post-processing of an answer in its document: repetitive answers and answers that
/// only repeat the next line are dropped, block-closing lines the document already has are
/// snipped. Returns the text and what was done, if anything.
fn post_process(
    request: &prompt::request::RequestJson,
    language: &str,
    text: &str,
) -> (String, Option<String>) {
    use engine::postprocess::{
        block_close_token, is_repetitive, matches_next_line, maybe_snip_completion,
    };
    // Copilot judges repetition on the model's own tokens; the o200k pieces stand in for them.
    let pieces = tokenizer::Tokenizer::exact(tokenizer::Encoding::O200kBase)
        .token_strings(text)
        .unwrap_or_default();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    if is_repetitive(&pieces) {
        return (
            String::new(),
            Some("post-processing: dropped, the answer repeats a pattern".to_owned()),
        );
    }
    let doc = request.document.text.replace("\r\n", "\n");
    let lines: Vec<&str> = doc.split('\n').collect();
    let line = request.position.line;
    let multiline = text.trim_end().contains('\n');
    if matches_next_line(&lines, line, text, !multiline) {
        return (
            String::new(),
            Some("post-processing: dropped, the answer only repeats the next line".to_owned()),
        );
    }
    let snipped = maybe_snip_completion(&lines, line, text, block_close_token(language));
    if snipped != text {
        let note = format!(
            "post-processing: snipped {} closing line(s) the document already has",
            text.lines().count() - snipped.lines().count()
        );
        return (snipped, Some(note));
    }
    (text.to_owned(), None)
}
