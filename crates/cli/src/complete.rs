//! `pilotfish complete`: the prompt for a cursor, sent to a model server through the
//! ghost-text pipeline, and the suggestions that come back.

use std::{path::PathBuf, time::Duration};

use anyhow::{Context, Result, bail};

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
    overrides: host::config::Overrides,
    /// Tokens to generate at most (default: the configuration's, 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_tokens: Option<u32>,
    /// The prompt's budget in tokens (default: the configuration's, else Copilot's 7,692;
    /// lowered to what the server's context holds either way).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(64..))]
    max_prompt_tokens: Option<u32>,
    /// Suggestions to ask for, as an editor does for cycling (each its own request).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10))]
    candidates: u32,
    /// copilot (several lines at the start of an empty block), never or always (default: the
    /// configuration's).
    #[arg(long, value_name = "MODE")]
    multiline: Option<String>,
    /// The context strategy: outline (pilotfish's default: the definitions the code at the
    /// cursor needs), copilot or copilot-legacy (default: the configuration's).
    #[arg(long, value_name = "NAME")]
    strategy: Option<String>,
    /// `text` (the suggestion) or `json` (suggestions, source and trace).
    #[arg(long, default_value = "text")]
    format: String,
    /// Also print the prompt, the request sent, the timings and what post-processing did.
    #[arg(long)]
    explain: bool,
    /// Also print a few lines on the prompt sent (its size and parts, the request's shape and
    /// the timings) before the completion: `--explain` without the prompt's text.
    #[arg(long, conflicts_with = "explain")]
    summary: bool,
    /// Also write the prompt, the request and the timings as a self-contained HTML page to FILE
    /// (whether or not the request succeeds).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// `complete`: the settings and the request, checked before any model loads; the pipeline's
/// answer; then the answer printed (or, for a failed request, what was sent).
pub(crate) fn run(args: Args) -> Result<()> {
    if !matches!(args.format.as_str(), "text" | "json") {
        bail!("--format {} is not text or json", args.format);
    }
    let (mut config, settings) = settings(&args)?;
    let mut request = match (&args.location, &args.request) {
        (Some(location), None) => prompt_cmd::request_from_disk(location, &args.open)?,
        (None, Some(path)) => prompt_cmd::read_request(path)?,
        _ => bail!("give a location (PATH:LINE:COLUMN) or --request FILE.json"),
    };
    if let Some(t) = &config.backend.fim_template {
        request.options.fim_template = Some(t.clone());
    }
    let (files, dropped) = prompt_cmd::workspace_excluding(&mut request)?;

    // Every setting and the request are checked before a model loads; the server it starts
    // lives until this function returns. With no server named and none listening where one
    // is looked for, the default model cached by the tools scripts is used, or the error says
    // how to get a server.
    if let crate::default_model::Choice::CachedModel(why) =
        crate::default_model::settle(&mut config.backend)?
    {
        eprintln!("{why}");
    }
    let _managed = crate::managed::start_for(&mut config.backend)?;
    // A configured first-token limit holds whatever the server said of itself, and its
    // message says whether the server is loading, busy or hung. Without one, the pipeline
    // sizes a limit per request from the server's measured speed and the prompt tokens it
    // has not cached (`first_token_target_ms`), so an honest cold request is not cut.
    let backend = config.backend.backend()?;
    let pipeline = ghost::Pipeline::new(backend, settings);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let finished = answer(
        &args,
        &runtime,
        &pipeline,
        &request,
        files.as_ref(),
        &dropped,
    );
    // What the request learned of the server is written before the process ends (the
    // memory writes behind the request, never on its path).
    if let Some(memory) = &pipeline.backend().memory {
        memory.flush();
    }
    finished
}

/// The pipeline's answer for `request`, printed; a failed request's error says why the
/// server was silent where it was.
fn answer(
    args: &Args,
    runtime: &tokio::runtime::Runtime,
    pipeline: &ghost::Pipeline,
    request: &prompt::request::RequestJson,
    files: Option<&crate::workspace::DiskFiles>,
    dropped: &[String],
) -> Result<()> {
    let endpoint = pipeline.backend().endpoint.clone();
    let kind = pipeline.backend().kind;
    let outcome = runtime.block_on(pipeline.complete(
        request,
        files.map(|f| f as &(dyn syntax::WorkspaceFiles + Sync)),
        ghost::Ask {
            candidates: args.candidates,
            ..ghost::Ask::default()
        },
    ));
    let outcome = match outcome {
        Ok(o) => o,
        Err(ghost::PipelineError::Backend { error, trace }) => {
            // A failed request is when the prompt and the request are most needed.
            if args.explain {
                explain(&trace, &endpoint, kind);
            }
            if let Some(path) = &args.html {
                let failed = vec![("error".to_owned(), error.to_string())];
                html_page(path, args, &trace, pipeline.backend(), failed)?;
            }
            print_notes(&trace.notes);
            // A server that sent nothing in time is asked why, so that the message names the
            // cause: still loading, busy or hung.
            let why = match error.as_ref() {
                backends::BackendError::FirstTokenTimeout { .. } => Some(
                    runtime
                        .block_on(pipeline.backend().why_silent(WHY_SILENT_LIMIT))
                        .explain(),
                ),
                _ => None,
            };
            return Err(anyhow::Error::new(BackendFailure(error, why)));
        }
        Err(e) => return Err(e.into()),
    };
    let trace = &outcome.trace;
    print_notes(&trace.notes);
    if let Some(path) = &args.html {
        html_page(
            path,
            args,
            trace,
            pipeline.backend(),
            ghost::inspect::answers(&outcome),
        )?;
    }
    if let Some(reason) = trace
        .prompt
        .as_ref()
        .and_then(|p| p.copilot_skip_reason.as_ref())
    {
        eprintln!("note: Copilot would not ask here ({reason}); asking anyway");
    }
    for path in dropped {
        eprintln!("note: {path} is excluded by .copilotignore and was left out");
    }
    print_outcome(args, &outcome, &endpoint, kind)
}

/// The configuration with the command line's overrides, and the pipeline's settings for one
/// question from a terminal.
fn settings(args: &Args) -> Result<(host::config::Loaded, ghost::Settings)> {
    let (mut config, _) = host::config::load(&args.overrides)?;
    if let Some(m) = &args.multiline {
        config.completion.multiline = m.clone();
    }
    if let Some(n) = args.max_prompt_tokens {
        config.completion.max_prompt_tokens = Some(n);
    }
    if let Some(s) = &args.strategy {
        config.completion.strategy = s.clone();
    }
    config.backend.backend()?;
    let mut settings = config
        .completion
        .settings(args.max_tokens.unwrap_or(config.backend.max_tokens))?;
    settings.fim = config.backend.fim_mode()?;
    settings.recent_edits_heading =
        host::copilot_texts::load(config.next_edit.copilot_texts.as_deref()).recent_edits_heading;
    // One question from a terminal: no keystrokes to wait for, and the user asked for it.
    settings.debounce = None;
    settings.skip_like_copilot = false;
    // One request per process: a lowered budget has no next keystroke here to grow back in.
    settings.grow_in_request = true;
    Ok((config, settings))
}

/// The suggestions as JSON or text; with `--explain`, what was sent and what post-processing
/// did; when nothing is left to show, why.
fn print_outcome(
    args: &Args,
    outcome: &ghost::Outcome,
    endpoint: &str,
    kind: backends::Kind,
) -> Result<()> {
    let trace = &outcome.trace;
    if args.format == "json" {
        let mut value = serde_json::to_value(outcome)?;
        if args.explain
            && let Some(p) = &trace.prompt
        {
            value["prompt"] = serde_json::to_value(p)?;
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    if args.explain {
        explain(trace, endpoint, kind);
        for cut in &trace.cuts {
            println!("post-processing: {cut}");
        }
        for s in &outcome.suggestions {
            for note in &s.notes {
                println!("post-processing: {note}");
            }
        }
        if trace.cuts.is_empty() && outcome.suggestions.iter().all(|s| s.notes.is_empty()) {
            println!("post-processing: nothing cut");
        }
    }
    if args.summary {
        summary(trace, endpoint, kind);
    }
    if outcome.suggestions.is_empty() {
        let why = outcome
            .skipped
            .clone()
            .or_else(|| trace.cuts.first().cloned())
            .unwrap_or_else(|| "the model answered with nothing but white space".to_owned());
        eprintln!("pilotfish: nothing to show: {why}");
    }
    for (i, s) in outcome.suggestions.iter().enumerate() {
        if args.explain || args.summary || outcome.suggestions.len() > 1 {
            println!("─── completion {} ───", i + 1);
        }
        println!("{}", s.text);
    }
    Ok(())
}

/// The prompt, the request sent, the multi-line decision and the timings.
fn explain(trace: &ghost::Trace, endpoint: &str, kind: backends::Kind) {
    if let Some(p) = &trace.prompt {
        print!("{}", prompt::render_text(p));
    }
    let kind = trace.shape.as_ref().map_or(kind, |s| s.kind);
    println!("─── request to {endpoint} ({}) ───", kind.name());
    if let Some(shape) = &trace.shape {
        println!("{}", shape.describe());
    }
    if let Some(n) = trace.max_prompt_tokens {
        println!("prompt budget {n} tokens");
    }
    if let Some(first) = &trace.first_contact {
        println!("{first}");
    }
    if let Some(speed) = &trace.speed {
        println!("speed: {speed}");
    }
    if let Some(limit) = trace.first_token_limit_ms {
        println!("first-token limit {:.1} s", limit / 1e3);
    }
    if let Some(t) = &trace.timings {
        println!(
            "the server read {} prompt token(s) in {:.0} ms{}",
            t.prompt_n,
            t.prompt_ms,
            t.cache_n
                .map(|c| format!(" and had {c} cached"))
                .unwrap_or_default()
        );
    }
    if let Some(r) = &trace.backend_request {
        println!(
            "max_tokens {}, temperature {}, {} extra context chunk(s), stops {:?}",
            r.max_tokens,
            r.temperature,
            r.extra.len(),
            r.stop
        );
    }
    println!(
        "{}: {}",
        if trace.multiline {
            "multi-line"
        } else {
            "one line"
        },
        trace.multiline_reason
    );
    println!(
        "─── timings: prompt assembly {}, first token {}, total {:.1} ms, {} request(s) ───",
        ms(trace.assembly_ms),
        ms(trace.first_token_ms),
        trace.total_ms,
        trace.attempts
    );
}

/// What was sent, in a few lines: the prompt's size against its budget, the parts it holds
/// (and those left out for room), the request's shape and the timings.
fn summary(trace: &ghost::Trace, endpoint: &str, kind: backends::Kind) {
    let kind = trace.shape.as_ref().map_or(kind, |s| s.kind);
    println!("─── prompt sent to {endpoint} ({}) ───", kind.name());
    if let Some(p) = &trace.prompt {
        let budget = trace
            .max_prompt_tokens
            .map_or(String::new(), |n| format!(" of a {n}-token budget"));
        // The context is every part but the code around the cursor, counted as listed below
        // (inline or in blocks of their own, whichever the request's shape sends).
        let context = p.elements.iter().filter(|e| {
            !matches!(
                e.kind,
                prompt::ElementKind::BeforeCursor | prompt::ElementKind::AfterCursor
            )
        });
        let (sent, found) = context.fold((0, 0), |(s, f), e| (s + usize::from(e.included), f + 1));
        println!(
            "{} tokens{budget}: {sent} of {found} context part(s), prefix {} line(s), suffix {} line(s)",
            p.prompt_tokens + p.suffix_tokens,
            p.prefix.lines().count(),
            p.suffix.lines().count(),
        );
        let mut parts: std::collections::BTreeMap<(&str, String), usize> = Default::default();
        for e in &p.elements {
            let what = e.path.as_deref().map_or_else(
                || format!("{:?}", e.kind),
                |path| format!("{:?} {path}", e.kind),
            );
            *parts.entry((e.status(), what)).or_default() += 1;
        }
        for ((status, what), n) in parts {
            let times = if n > 1 {
                format!(" ×{n}")
            } else {
                String::new()
            };
            println!("  {status:<8} {what}{times}");
        }
    }
    // How much was sent, and why not more.
    if let Some(first) = &trace.first_contact {
        println!("{first}");
    }
    if let (Some(full), Some(budget)) = (trace.full_prompt_tokens, trace.max_prompt_tokens) {
        println!(
            "budget lowered from {full} to {budget} tokens to keep the first token near its target (it grows back as the server's cache holds more of the prompt)"
        );
    }
    if let Some(shape) = &trace.shape {
        println!("{}", shape.describe());
    }
    println!(
        "first token {}, total {:.1} ms, {} request(s)",
        ms(trace.first_token_ms),
        trace.total_ms,
        trace.attempts
    );
}

/// The request's page: the prompt, then the request sent, the timings and the answers.
fn html_page(
    path: &std::path::Path,
    args: &Args,
    trace: &ghost::Trace,
    backend: &backends::Backend,
    answers: Vec<(String, String)>,
) -> Result<()> {
    let title = args.location.as_deref().unwrap_or("the request");
    let Some(page) = ghost::inspect::page(trace, backend, title, answers) else {
        bail!(
            "no prompt was built, so there is no page to write to {}",
            path.display()
        );
    };
    crate::prompt_cmd::write_page(path, &page)
}

/// How the prompt was fitted to the model, and warnings about the server, on standard error.
fn print_notes(notes: &[String]) {
    for note in notes {
        if note.starts_with("warning: ") {
            eprintln!("pilotfish: {note}");
        } else {
            eprintln!("note: {note}");
        }
    }
}

/// How long each question about a silent server's health may take.
const WHY_SILENT_LIMIT: Duration = Duration::from_millis(700);

/// A backend failure as the command's error, with why the server was silent when it was.
#[derive(Debug)]
struct BackendFailure(std::sync::Arc<backends::BackendError>, Option<String>);

impl std::fmt::Display for BackendFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)?;
        match &self.1 {
            Some(why) => write!(f, ". {why}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for BackendFailure {}

fn ms(v: Option<f64>) -> String {
    v.map_or("none".to_owned(), |t| format!("{t:.1} ms"))
}
