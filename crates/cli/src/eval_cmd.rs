//! `pilotfish eval [FOLDER]`: what each context strategy is worth with the user's own model on
//! the user's own code. Cases are picked from the repository's tracked files (`eval::pick`),
//! sent through the completion pipeline once per strategy (`host::eval`), scored and
//! summarized with 95% intervals; the table goes to standard output, progress to standard
//! error, and `--json` / `--html` keep every case.

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::{Context, Result, bail};

/// Copilot's budget, lowered to what the server's context holds, when nothing sets one.
const DEFAULT_BUDGET: usize = 7692;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A folder inside the git repository to pick cases in (default: the current folder).
    folder: Option<PathBuf>,
    #[command(flatten)]
    overrides: host::config::Overrides,
    /// Cursor positions to pick (a fixed seed: the same repository gives the same cases).
    #[arg(long, default_value_t = 50)]
    cases: usize,
    /// The strategies to compare, comma-separated: none (the current file alone), copilot,
    /// outline.
    #[arg(long, default_value = "none,copilot,outline")]
    strategies: String,
    /// Cases sent at a time (for a server with several slots, llama-server's `-np`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    jobs: u32,
    /// The prompt's budget in tokens, the same for every strategy (default: the
    /// configuration's, else Copilot's 7,692; lowered to what the server's context holds).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(64..))]
    max_prompt_tokens: Option<u32>,
    /// Tokens an answer may have (default: the configuration's, 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_tokens: Option<u32>,
    /// Also write every case (file, line, column, kind, expected, and per strategy the prompt
    /// as sent, its tokens, the answer, scores and timings) and the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also write a page showing each case with every strategy's prompt side by side to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// `eval`: the input checked and the cases picked before any model is asked; then the uncounted
/// request that learns whether the model fills in the middle, the cases, and the report.
pub(crate) fn run(args: Args) -> Result<()> {
    let strategies = eval::parse_strategies(&args.strategies)?;
    if args.cases == 0 {
        bail!("{}", eval::InputError::NoCases);
    }
    let folder = args.folder.clone().unwrap_or_else(|| PathBuf::from("."));
    let (root, repo) = host::eval::read_repository(&folder)?;
    let cases = eval::pick(
        &repo,
        eval::Options {
            cases: args.cases,
            ..eval::Options::default()
        },
    )?;
    if cases.is_empty() {
        bail!(
            "found no line in {root} that makes an honest case (code lines of at most {} characters whose rest occurs in no other file): try a larger repository",
            eval::cases::MAX_LINE_CHARS
        );
    }
    let (mut config, _) = host::config::load(&args.overrides)?;
    let max_tokens = args.max_tokens.unwrap_or(config.backend.max_tokens);
    let mut settings = config.completion.settings(max_tokens)?;
    settings.fim = config.backend.fim_mode()?;
    settings.recent_edits_heading =
        host::copilot_texts::load(config.next_edit.copilot_texts.as_deref()).recent_edits_heading;
    let budget = args
        .max_prompt_tokens
        .map(|n| n as usize)
        .or(settings.max_prompt_tokens)
        .unwrap_or(DEFAULT_BUDGET);
    config.backend.backend()?;
    let unwritable = [
        write_check(args.json.as_deref()),
        write_check(args.html.as_deref()),
    ];
    if let Some(line) = unwritable.into_iter().flatten().next() {
        bail!("{line}");
    }
    say_cases(&cases, &root, strategies.len());

    if let crate::default_model::Choice::CachedModel(why) =
        crate::default_model::settle(&mut config.backend)?
    {
        eprintln!("{why}");
    }
    let _managed = crate::managed::start_for(&mut config.backend)?;
    let setup = host::eval::Setup {
        backend: config.backend.backend()?,
        settings,
        budget,
        strategies,
        jobs: args.jobs as usize,
        root: root.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let learned = runtime
        .block_on(host::eval::learn_fim(&setup, &repo, &cases[0]))
        .map_err(|e| anyhow::anyhow!("the model could not be asked: {e}"))?;
    let started = Instant::now();
    let progress = |done: usize, total: usize| {
        let spent = started.elapsed().as_secs_f64();
        let left = spent / done as f64 * (total - done) as f64;
        eprintln!(
            "eval: {done} of {total} cases done, {} left",
            if done == total {
                "nothing".to_owned()
            } else {
                format!("about {}", duration(left))
            }
        );
    };
    let results = runtime.block_on(host::eval::run(&setup, &learned, &repo, &cases, &progress));
    if let Some(memory) = &setup.backend.memory {
        memory.flush();
    }
    report(&args, &setup, &learned, &results, started)
}

/// The table on standard output and the files asked for.
fn report(
    args: &Args,
    setup: &host::eval::Setup,
    learned: &host::eval::Learned,
    results: &[eval::CaseResult],
    started: Instant,
) -> Result<()> {
    let summary = eval::summarize(results);
    let model = setup
        .backend
        .model
        .clone()
        .or_else(|| learned.model.clone())
        .unwrap_or_else(|| "the model".to_owned());
    let title = format!(
        "{} case(s) from {}, {model} at {}",
        results.len(),
        setup.root,
        setup.backend.endpoint
    );
    println!(
        "pilotfish eval: {title}; {}; budget {} tokens; {} request(s) in {}",
        learned.shape,
        setup.budget,
        results.len() * setup.strategies.len(),
        duration(started.elapsed().as_secs_f64())
    );
    print!("{}", eval::report::table(&summary));
    if let Some(path) = &args.json {
        let value = serde_json::json!({
            "repository": setup.root,
            "endpoint": setup.backend.endpoint,
            "model": model,
            "shape": learned.shape,
            "fim": learned.fim,
            "budget": setup.budget,
            "strategies": setup.strategies,
            "summary": summary,
            "cases": results,
        });
        std::fs::write(path, serde_json::to_string_pretty(&value)? + "\n")
            .with_context(|| format!("could not write {}", path.display()))?;
        eprintln!("pilotfish: wrote every case to {}", path.display());
    }
    if let Some(path) = &args.html {
        let page = eval::page::render(&title, &summary, results);
        std::fs::write(path, page)
            .with_context(|| format!("could not write {}", path.display()))?;
        eprintln!("pilotfish: wrote the cases' page to {}", path.display());
    }
    Ok(())
}

/// What was picked, on standard error, before the model is asked.
fn say_cases(cases: &[eval::Case], root: &str, strategies: usize) {
    let count = |k: eval::Kind| cases.iter().filter(|c| c.kind == k).count();
    let apart = cases.iter().filter(|c| !c.honest()).count();
    eprintln!(
        "eval: {} case(s) in {root}: {} cross-file, {} same-file, {} whole line(s); {apart} could copy their text from their own file and are counted apart; {strategies} strategies each",
        cases.len(),
        count(eval::Kind::CrossFile),
        count(eval::Kind::SameFile),
        count(eval::Kind::WholeLine),
    );
}

/// Why a report file could not be written, checked before the model is asked.
fn write_check(path: Option<&Path>) -> Option<String> {
    let path = path?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!parent.is_dir()).then(|| {
        format!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            parent.display()
        )
    })
}

/// Seconds as `42 s` or `3 min 20 s`.
fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {} s", s / 60, s % 60)
    }
}
