//! `pilotfish prompt`: the prompt that would be sent for an editor state, and why it is so.

use std::{
    io::{BufRead, Read, Write},
    path::PathBuf,
};

use anyhow::{Context, Result, bail};
use prompt::request::{ContextRendering, DocumentJson, Options, Position, RequestJson};

use crate::workspace::{DiskFiles, Location, Workspace};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The cursor as PATH:LINE:COLUMN (from 1; column in characters), reading files from disk.
    #[arg(conflicts_with_all = ["request", "batch"])]
    location: Option<String>,
    /// Another open file, most recently used first (with a location); repeat for more.
    #[arg(long = "open", value_name = "FILE", requires = "location")]
    open: Vec<PathBuf>,
    /// A request in the contract's JSON (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    request: Option<PathBuf>,
    /// Read one JSON request per line on standard input, write one JSON answer per line.
    #[arg(long, conflicts_with = "request")]
    batch: bool,
    /// text (for people) or json (the contract's response).
    #[arg(long, default_value = "text")]
    format: Format,
    /// Also write the prompt as a self-contained HTML page to FILE (every part as sent with its
    /// tokens, every element considered and why), for a browser, with no server.
    #[arg(long, value_name = "FILE", conflicts_with = "batch")]
    html: Option<PathBuf>,
    /// Override the request's tokenizer: cl100k_base, o200k_base, approximate.
    #[arg(long)]
    tokenizer: Option<String>,
    /// Override the request's token budget for prefix, context and suffix.
    #[arg(long)]
    max_prompt_tokens: Option<usize>,
    /// Override the suffix's share of the budget, in percent.
    #[arg(long)]
    suffix_percent: Option<u32>,
    /// split (context apart, as Copilot sends it) or inline (context commented into the prefix).
    #[arg(long)]
    context: Option<Rendering>,
    /// Include the declarations of what the document imports from workspace files (read from
    /// disk under the workspace root); --imports=false turns it off for copilot-legacy.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    imports: Option<bool>,
    /// outline (the default: definitions the code at the cursor needs, ranked one by one),
    /// copilot (Copilot's current prompt) or copilot-legacy (its older priority wishlist).
    #[arg(long)]
    strategy: Option<String>,
    /// Also show the prompt as one fill-in-the-middle string: qwen2.5-coder, qwen2.5-coder-repo,
    /// deepseek-coder, codellama, starcoder, starcoder2-repo, codestral, codegemma, granite, or
    /// a custom template with {prefix} and {suffix}.
    #[arg(long, value_name = "TEMPLATE")]
    fim_template: Option<String>,
    /// For outline: stable (the default: consecutive keystrokes' prompts share their start, for
    /// a model server's cache) or plain (every part built afresh).
    #[arg(long)]
    layout: Option<LayoutArg>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LayoutArg {
    Stable,
    Plain,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Rendering {
    Split,
    Inline,
}

pub(crate) fn run(args: Args) -> Result<()> {
    if args.batch {
        return batch(&args);
    }
    let mut request = match (&args.location, &args.request) {
        (Some(location), None) => request_from_disk(location, &args.open)?,
        (None, Some(path)) => read_request(path)?,
        _ => bail!("give a location (PATH:LINE:COLUMN), --request FILE.json, or --batch"),
    };
    apply_overrides(&args, &mut request.options);
    let prompt = assemble_excluding(&mut request)?;
    if let Some(path) = &args.html {
        let title = match &args.location {
            Some(l) => l.clone(),
            None => request.document.path.clone(),
        };
        write_html(
            path,
            &prompt,
            &prompt::html::PageFacts {
                title,
                budget: Some(request.options.max_prompt_tokens),
                sections: Vec::new(),
            },
        )?;
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&prompt)?)?,
        Format::Text => write!(out, "{}", prompt::render_text(&prompt))?,
    }
    Ok(())
}

/// Writes the prompt's HTML page to `path`, and says where on standard error.
pub(crate) fn write_html(
    path: &std::path::Path,
    prompt: &prompt::Prompt,
    facts: &prompt::html::PageFacts,
) -> Result<()> {
    write_page(path, &prompt::html::render_html(prompt, facts))
}

/// Writes a prompt's page to `path`, and says where on standard error.
pub(crate) fn write_page(path: &std::path::Path, page: &str) -> Result<()> {
    std::fs::write(path, page)
        .with_context(|| format!("could not write the HTML page to {}", path.display()))?;
    eprintln!("pilotfish: wrote the prompt's page to {}", path.display());
    Ok(())
}

fn apply_overrides(args: &Args, options: &mut Options) {
    if let Some(t) = &args.tokenizer {
        options.tokenizer = t.clone();
    }
    if let Some(m) = args.max_prompt_tokens {
        options.max_prompt_tokens = m;
    }
    if let Some(s) = args.suffix_percent {
        options.suffix_percent = s;
    }
    if let Some(i) = args.imports {
        options.imports = Some(i);
    }
    if let Some(s) = &args.strategy {
        options.strategy = s.clone();
    }
    if let Some(t) = &args.fim_template {
        options.fim_template = Some(t.clone());
    }
    if let Some(l) = args.layout {
        options.layout = match l {
            LayoutArg::Stable => prompt::request::Layout::Stable,
            LayoutArg::Plain => prompt::request::Layout::Plain,
        };
    }
    if let Some(c) = args.context {
        options.context = match c {
            Rendering::Split => ContextRendering::Split,
            Rendering::Inline => ContextRendering::Inline,
        };
    }
}

/// The request's workspace on disk (for imports) and the files its `.copilotignore` took out
/// of the request (an excluded document is an error: nothing about it may be sent).
pub(crate) fn workspace_excluding(
    request: &mut RequestJson,
) -> Result<(Option<DiskFiles>, Vec<String>)> {
    let files = request
        .workspace_root
        .as_deref()
        .map(DiskFiles::new)
        .transpose()?;
    let mut dropped = Vec::new();
    if let Some(f) = &files
        && let Some(rules) = &f.exclusions
    {
        dropped = host::exclusion::apply(rules, &f.root, request)?;
    }
    Ok((files, dropped))
}

/// Assembles the prompt with the workspace's files on disk (for imports), after taking out
/// whatever its `.copilotignore` excludes.
pub(crate) fn assemble_excluding(request: &mut RequestJson) -> Result<prompt::Prompt> {
    let (files, dropped) = workspace_excluding(request)?;
    // Copilot's recent-edits heading where `tools/copilot-texts.sh` put it (or
    // $PILOTFISH_COPILOT_TEXTS), for the `copilot` strategy.
    if request.options.recent_edits_heading.is_none() {
        request.options.recent_edits_heading = host::copilot_texts::load(None).recent_edits_heading;
    }
    let mut prompt = prompt::assemble_with_files(
        request,
        &mut prompt::Session::default(),
        files.as_ref().map(|f| f as &dyn syntax::WorkspaceFiles),
    )?;
    for path in dropped {
        prompt.notes.push(format!(
            "{path} is excluded by .copilotignore and was left out"
        ));
    }
    Ok(prompt)
}

pub(crate) fn read_request(path: &PathBuf) -> Result<RequestJson> {
    let text = if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("could not read the request from standard input")?;
        s
    } else {
        std::fs::read_to_string(path)
            .with_context(|| format!("could not read {}", path.display()))?
    };
    parse_request(&text).with_context(|| format!("{} is not a valid request", path.display()))
}

fn parse_request(text: &str) -> Result<RequestJson> {
    serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!("{e} (the request's fields are described in docs/completion-request.md)")
    })
}

/// Builds a request from files on disk: paths absolute under the workspace root.
pub(crate) fn request_from_disk(location: &str, open: &[PathBuf]) -> Result<RequestJson> {
    let workspace = Workspace::discover()?;
    let location = Location::parse(location)?;
    let current = workspace.read_text(&location.path)?;
    let cursor = location.byte_offset(&current.text)?;
    let before = &current.text[..cursor];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let position = Position {
        line: before.matches('\n').count(),
        character: before[line_start..].encode_utf16().count(),
    };
    let root = workspace.root().to_string_lossy().into_owned();
    let absolute = |relative: &str| format!("{}/{relative}", root.trim_end_matches('/'));
    let mut open_documents = Vec::new();
    for path in open {
        let file = workspace.read_text(path)?;
        open_documents.push(DocumentJson {
            path: absolute(&file.relative),
            language_id: Some(file.language_id),
            text: file.text,
        });
    }
    Ok(RequestJson {
        workspace_root: Some(root.clone()),
        document: DocumentJson {
            path: absolute(&current.relative),
            language_id: Some(current.language_id),
            text: current.text,
        },
        position,
        open_documents,
        recent_edits: vec![],
        diagnostics: vec![],
        traits: vec![],
        code_snippets: vec![],
        tooltip_signature: None,
        options: Options::default(),
    })
}

/// One answer per input line, in order; a bad line answers `{"error": ...}` and the batch goes on.
///
/// Three threads in a pipeline, so that a replayed typing session uses both cores of a small
/// machine: one reads and parses request lines, this one assembles (the tokenizer's and
/// retrieval's memories are per thread, so assembly stays on one), one writes the answers.
fn batch(args: &Args) -> Result<()> {
    use std::sync::mpsc::sync_channel;
    // A few requests in flight each way: enough to overlap, little memory.
    let (requests, parsed) = sync_channel::<Result<Parsed>>(2);
    let (answers, to_write) = sync_channel::<Answer>(2);
    std::thread::scope(|scope| {
        scope.spawn(move || read_requests(&requests));
        let writer = scope.spawn(move || write_answers(to_write));
        for item in parsed {
            let answer = match item {
                Err(e) => Answer::Failed(e),
                Ok(Parsed::Error(message)) => Answer::Error(message),
                Ok(Parsed::Request(n, mut request)) => {
                    apply_overrides(args, &mut request.options);
                    match assemble_excluding(&mut request) {
                        Ok(p) => Answer::Prompt(Box::new(p)),
                        Err(e) => Answer::Error(format!("line {n}: {e:#}")),
                    }
                }
            };
            // The writer stops early only on an error, which it returns below.
            if answers.send(answer).is_err() {
                break;
            }
        }
        drop(answers);
        writer.join().expect("the batch writer does not panic")
    })
}

/// A request line as the reader passes it on: a request with its line number, or what to
/// answer instead.
enum Parsed {
    Request(usize, Box<RequestJson>),
    Error(String),
}

enum Answer {
    Prompt(Box<prompt::Prompt>),
    Error(String),
    /// Reading standard input failed: the batch ends with this error.
    Failed(anyhow::Error),
}

/// Reads request lines until the input ends or nobody listens; blank lines are skipped.
fn read_requests(requests: &std::sync::mpsc::SyncSender<Result<Parsed>>) {
    let mut stdin = std::io::stdin().lock();
    // One buffer for every line: requests run to hundreds of kilobytes each.
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                let _ = requests.send(Err(
                    anyhow::Error::new(e).context("could not read standard input")
                ));
                return;
            }
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let item = match std::str::from_utf8(&line) {
            Err(e) => Parsed::Error(format!(
                "line {n}: not UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            )),
            Ok(text) => match parse_request(text) {
                Err(e) => Parsed::Error(format!("line {n}: {e:#}")),
                Ok(request) => Parsed::Request(n, Box::new(request)),
            },
        };
        if requests.send(Ok(item)).is_err() {
            return;
        }
    }
}

/// Writes one line per answer, in order; stops at the first failure.
fn write_answers(answers: std::sync::mpsc::Receiver<Answer>) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for answer in answers {
        match answer {
            // Written straight out: a prompt is tens of kilobytes.
            Answer::Prompt(p) => serde_json::to_writer(&mut out, &p)?,
            Answer::Error(error) => {
                serde_json::to_writer(&mut out, &serde_json::json!({ "error": error }))?
            }
            Answer::Failed(e) => {
                out.flush()?;
                return Err(e);
            }
        }
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
