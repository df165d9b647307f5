//! `pilotfish customizations` and `pilotfish chat --dry-run`: the customization files a
//! workspace has, which apply to a file, what is wrong with them, and the exact chat messages
//! they produce. The file-system side of the `chat` crate lives here.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};
use chat::{
    Customizations, Workspace,
    files::Files,
    render::{Attachment, ChatRequest, Turn},
};

#[derive(Debug, clap::Args)]
pub(crate) struct WorkspaceArgs {
    /// A workspace folder; repeat for a multi-root workspace (default: the git root, else the
    /// current folder).
    #[arg(long = "folder", value_name = "DIR")]
    folders: Vec<PathBuf>,
    /// A `.code-workspace` file whose `settings` are the workspace scope.
    #[arg(long, value_name = "FILE")]
    workspace_file: Option<PathBuf>,
    /// The user's settings file (default: VS Code's, `~/.config/Code/User/settings.json`).
    #[arg(long, value_name = "FILE")]
    user_settings: Option<PathBuf>,
    /// `text` or `json`.
    #[arg(long, default_value = "text")]
    format: String,
}

impl WorkspaceArgs {
    fn workspace(&self) -> Result<Workspace> {
        if !matches!(self.format.as_str(), "text" | "json") {
            bail!("--format {} is not text or json", self.format);
        }
        let folders = if self.folders.is_empty() {
            vec![
                crate::workspace::Workspace::discover()?
                    .root()
                    .to_path_buf(),
            ]
        } else {
            self.folders
                .iter()
                .map(|f| {
                    std::fs::canonicalize(f).with_context(|| {
                        format!("workspace folder {} cannot be opened", f.display())
                    })
                })
                .collect::<Result<_>>()?
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let user_settings = self.user_settings.clone().or_else(|| {
            home.as_ref()
                .map(|h| h.join(".config/Code/User/settings.json"))
        });
        Ok(Workspace {
            folders,
            home,
            workspace_file: self.workspace_file.clone(),
            user_settings,
        })
    }
}

/// A path as people read it: relative to its workspace folder, else `~/...`, else whole.
fn shown(path: &Path, ws: &Workspace) -> String {
    if let Some(f) = chat::discover::folder_of(&ws.folders, path) {
        let rel = path.strip_prefix(f).unwrap_or(path).display().to_string();
        if ws.folders.len() > 1 {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            return format!("{name}/{rel}");
        }
        return rel;
    }
    if let Some(h) = &ws.home
        && let Ok(rel) = path.strip_prefix(h)
    {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

#[derive(Debug, clap::Args)]
pub(crate) struct CustomizationsArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// Show which instructions apply to this file; repeat for more.
    #[arg(long = "file", value_name = "PATH")]
    files: Vec<PathBuf>,
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(p).with_context(|| format!("{} cannot be opened", p.display()))
}

pub(crate) fn customizations(args: CustomizationsArgs) -> Result<()> {
    let ws = args.workspace.workspace()?;
    let found = chat::discover(&host::customizations::DiskFiles, &ws);
    let files: Vec<PathBuf> = args
        .files
        .iter()
        .map(|f| absolute(f))
        .collect::<Result<_>>()?;
    if args.workspace.format == "json" {
        let mut v = serde_json::to_value(&found)?;
        if !files.is_empty() {
            v["applicable"] = found
                .applicable(&files)
                .iter()
                .map(|i| serde_json::json!(i.path))
                .collect();
        }
        v["review_guidelines"] = serde_json::to_value(chat::review::guidelines(&found, 1))?;
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print_customizations(&found, &ws, &files);
    Ok(())
}

fn print_customizations(found: &Customizations, ws: &Workspace, files: &[PathBuf]) {
    let folders: Vec<String> = ws.folders.iter().map(|f| f.display().to_string()).collect();
    println!("workspace: {}", folders.join(", "));
    println!("─── instructions ({}) ───", found.instructions.len());
    for i in &found.instructions {
        let mut line = format!("{:<22} {}", format!("{:?}", i.kind), shown(&i.path, ws));
        if !i.apply_to.is_empty() {
            line.push_str(&format!("  applyTo: {}", i.apply_to.join(", ")));
        }
        if let Some(d) = &i.description {
            line.push_str(&format!("  — {d}"));
        }
        println!("{line}");
    }
    println!("─── settings instructions ({}) ───", found.settings.len());
    for s in &found.settings {
        let lang = s
            .language
            .as_deref()
            .map(|l| format!(" [{l}]"))
            .unwrap_or_default();
        let text: String = s
            .text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(70)
            .collect();
        println!("{text}{lang}  ({})", s.source);
    }
    println!("─── agents ({}) ───", found.agents.len());
    for a in &found.agents {
        println!(
            "@{:<20} {}{}{}",
            a.name,
            shown(&a.path, ws),
            a.description
                .as_deref()
                .map(|d| format!("  — {d}"))
                .unwrap_or_default(),
            if a.infer {
                ""
            } else {
                "  (not offered for delegation: infer: false)"
            }
        );
    }
    println!("─── skills ({}) ───", found.skills.len());
    for s in &found.skills {
        println!(
            "{:<21} {}{}",
            s.name,
            shown(&s.path, ws),
            s.description
                .as_deref()
                .map(|d| format!("  — {d}"))
                .unwrap_or_default()
        );
    }
    for f in files {
        println!("─── applies to {} ───", shown(f, ws));
        let applied = found.applicable(std::slice::from_ref(f));
        for i in &applied {
            println!("{}", shown(&i.path, ws));
        }
        for i in found
            .instructions
            .iter()
            .filter(|i| i.kind == chat::discover::Kind::InstructionsFile)
            .filter(|i| !applied.iter().any(|a| a.path == i.path))
        {
            let why = if i.apply_to.is_empty() {
                "no applyTo: only loaded on demand, by its description".to_owned()
            } else {
                format!("applyTo {} does not cover it", i.apply_to.join(", "))
            };
            println!("not {}: {why}", shown(&i.path, ws));
        }
    }
    println!("─── problems ({}) ───", found.problems.len());
    for p in &found.problems {
        println!("{}: {}", shown(&p.path, ws), p.message);
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    /// The message.
    message: String,
    /// Print the messages that would be sent, and send nothing.
    #[arg(long)]
    dry_run: bool,
    /// Run a prompt file, `.github/prompts/NAME.prompt.md` (a message starting with `/NAME`
    /// does the same); the message is added after its text.
    #[arg(long, value_name = "NAME")]
    prompt: Option<String>,
    /// Continue the conversation of this name: its earlier turns are sent as history and the
    /// new turn is kept (under the user's state folder).
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
    #[command(flatten)]
    model: host::chat_model::ChatModelArgs,
    /// Invoke an agent: its body becomes the system message.
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Attach a file, or lines of it as PATH:FROM-TO; repeat for more. The first is the active
    /// file (its language picks language-scoped instructions).
    #[arg(long = "file", value_name = "PATH[:FROM-TO]")]
    files: Vec<String>,
    /// Earlier turns: a JSON list of {"user", "assistant", "tool_calls": [{"name", "arguments", "result"}]}.
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// The prompt's limit in tokens (the answer's is --max-answer-tokens); `--max-tokens` is
    /// the same option under its older name.
    #[arg(
        long = "max-prompt-tokens",
        visible_alias = "max-tokens",
        value_name = "N",
        default_value_t = 64_000
    )]
    max_tokens: usize,
    /// The limit for earlier turns (Copilot's: 32768).
    #[arg(long, default_value_t = 32_768)]
    history_tokens: usize,
    /// o200k_base or cl100k_base.
    #[arg(long, default_value = "o200k_base")]
    tokenizer: String,
    #[command(flatten)]
    workspace: WorkspaceArgs,
}

fn attachment(spec: &str) -> Result<Attachment> {
    let (path, selection) = match spec.rsplit_once(':') {
        Some((p, range)) if range.contains('-') && Path::new(p).exists() => {
            let (a, b) = range.split_once('-').unwrap_or_default();
            let (a, b): (usize, usize) = (
                a.parse()
                    .with_context(|| format!("{spec}: {a:?} is not a line number"))?,
                b.parse()
                    .with_context(|| format!("{spec}: {b:?} is not a line number"))?,
            );
            if a == 0 || b < a {
                bail!("{spec}: lines count from 1 and FROM must not be after TO");
            }
            (p, Some((a, b)))
        }
        _ => (spec, None),
    };
    let path = absolute(Path::new(path))?;
    let text = host::customizations::DiskFiles
        .read_text(&path)
        .map_err(|e| anyhow::anyhow!("{} {e}", path.display()))?;
    if let Some((from, to)) = selection {
        let lines = text.lines().count();
        if to > lines {
            bail!(
                "{spec}: {} has {lines} line(s), so lines {from}-{to} are not all in it",
                path.display()
            );
        }
    }
    Ok(Attachment {
        path,
        text,
        selection,
    })
}

pub(crate) fn run_chat(args: ChatArgs) -> Result<()> {
    // Refuse a broken model configuration before any work, and only when something is sent.
    let backend = if args.dry_run {
        None
    } else {
        let mut backend = args.model.backend()?;
        host::chat_model::limit_answer(&mut backend, host::chat_model::CHAT_ANSWER_TOKENS);
        Some(backend)
    };
    let mut session = args
        .session
        .as_deref()
        .map(host::sessions::Session::open)
        .transpose()?;
    let ws = args.workspace.workspace()?;
    let found = chat::discover(&host::customizations::DiskFiles, &ws);
    let message = host::customizations::expand_prompt_file(
        &ws.folders,
        &args.message,
        args.prompt.as_deref(),
    )?;
    // `#file:PATH` in the message attaches the file, as Copilot's chat does; relative paths
    // are from the first workspace folder.
    let mut files = args.files.clone();
    for reference in file_references(&message) {
        let path = Path::new(&reference);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            ws.folders[0].join(path)
        };
        files.push(path.display().to_string());
    }
    let attachments: Vec<Attachment> =
        files.iter().map(|f| attachment(f)).collect::<Result<_>>()?;
    let mut history: Vec<Turn> = match &args.history {
        Some(p) => serde_json::from_str(
            &std::fs::read_to_string(p)
                .with_context(|| format!("could not read {}", p.display()))?,
        )
        .with_context(|| format!("{} is not a list of turns", p.display()))?,
        None => Vec::new(),
    };
    if let Some(s) = &session {
        history.extend(s.turns.iter().cloned());
    }
    let language = attachments
        .first()
        .map(|a| languages::detect_language_from_path(&a.path.to_string_lossy(), "").into_owned());
    let mut root_files = Vec::new();
    for folder in &ws.folders {
        for name in chat::labels::INDICATORS {
            if let Ok(text) = host::customizations::DiskFiles.read_text(&folder.join(name)) {
                root_files.push(((*name).to_owned(), text));
            }
        }
    }
    let tokenizer =
        tokenizer::Tokenizer::by_name(&args.tokenizer, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let request = ChatRequest {
        message: message.clone(),
        agent: args.agent.clone(),
        attachments,
        history,
        language,
        labels: chat::labels::labels(&root_files),
        max_tokens: args.max_tokens,
        history_tokens: args.history_tokens,
    };
    let prompt = chat::render(&found, &request, &tokenizer)?;
    if let Some(backend) = &backend {
        for n in &prompt.notes {
            eprintln!("note: {n}");
        }
        let answer = send(backend, &prompt)?;
        if let Some(s) = &mut session {
            s.append(Turn {
                user: message.clone(),
                tool_calls: Vec::new(),
                assistant: answer,
            })?;
        }
        return Ok(());
    }
    if args.workspace.format == "json" {
        let mut v = serde_json::to_value(&prompt)?;
        v["problems"] = serde_json::to_value(&found.problems)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print_prompt(&prompt);
    if let Some(d) = &prompt.delegation {
        println!("═══ delegated to subagent {}: {} ═══", d.agent, d.reason);
        print_prompt(&d.prompt);
    }
    for p in &found.problems {
        println!("problem: {}: {}", shown(&p.path, &ws), p.message);
    }
    Ok(())
}

fn print_prompt(prompt: &chat::ChatPrompt) {
    for m in &prompt.messages {
        println!(
            "═══ {:?}{} ({} tokens) ═══",
            m.role,
            m.name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default(),
            m.tokens
        );
        for p in &m.parts {
            println!("─── from {} ───", p.source);
            println!("{}", p.text);
        }
    }
    println!(
        "═══ {} of {} tokens ({} messages) ═══",
        prompt.tokens,
        prompt.max_tokens,
        prompt.messages.len()
    );
    for n in &prompt.notes {
        println!("note: {n}");
    }
}

/// The paths named by `#file:PATH` in a message.
fn file_references(message: &str) -> Vec<String> {
    message
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("#file:"))
        .map(|p| p.trim_end_matches([',', '.', ';', ')']).to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Sends the prompt and streams the answer to standard output; returns the answer.
fn send(backend: &backends::chat::ChatBackend, prompt: &chat::ChatPrompt) -> Result<String> {
    let messages = host::chat_model::wire_messages(prompt);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let mut stdout = std::io::stdout().lock();
    let mut write_error = None;
    let answer = runtime.block_on(backend.chat(&messages, &[], |piece| {
        if write_error.is_none()
            && let Err(e) = stdout
                .write_all(piece.as_bytes())
                .and_then(|_| stdout.flush())
        {
            write_error = Some(e);
        }
    }))?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if !answer.content.ends_with('\n') {
        writeln!(stdout)?;
    }
    if answer.finish_reason.as_deref() == Some("length") {
        eprintln!(
            "note: the answer was cut at the model's length limit (--max-answer-tokens, or max_answer_tokens in [chat])"
        );
    }
    Ok(answer.content)
}
