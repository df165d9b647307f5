//! `pilotfish snippets`: which neighbour-file snippets Copilot would pick for a cursor, and why.

use std::path::PathBuf;

use anyhow::{Result, bail};
use retrieval::{NeighbourFile, OpenDocument, ReferenceDocument, SimilarFilesOptions, Verdict};
use serde::Serialize;

use crate::workspace::{Location, Workspace};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The cursor: PATH:LINE:COLUMN, line and column counted from 1 (column in characters).
    location: String,
    /// Another open file, most recently used first; repeat for more.
    #[arg(long = "open", value_name = "FILE")]
    open: Vec<PathBuf>,
    /// Copilot's option set: default, conservative, cpp, none (default: by language).
    #[arg(long)]
    options: Option<String>,
    /// text (for people) or json.
    #[arg(long, default_value = "text")]
    format: Format,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, Serialize)]
struct Report {
    path: String,
    language_id: String,
    options: String,
    reference_lines: usize,
    neighbours: Vec<Neighbour>,
    /// Best last, as they would stand in a prompt.
    snippets: Vec<Snippet>,
}

#[derive(Debug, Serialize)]
struct Neighbour {
    path: String,
    language_id: String,
    chars: usize,
    verdict: &'static str,
}

#[derive(Debug, Serialize)]
struct Snippet {
    path: String,
    score: f64,
    start_line: usize,
    end_line: usize,
    text: String,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let workspace = Workspace::discover()?;
    let location = Location::parse(&args.location)?;
    let current = workspace.read_text(&location.path)?;
    let cursor = location.byte_offset(&current.text)?;
    let language_id = current.language_id.clone();

    let (options, options_name) = option_set(args.options.as_deref(), &language_id)?;

    let mut open_files = Vec::new();
    for path in &args.open {
        open_files.push(workspace.read_text(path)?);
    }
    let open_docs: Vec<OpenDocument<'_>> = open_files
        .iter()
        .map(|f| OpenDocument {
            path: &f.relative,
            language_id: &f.language_id,
            text: &f.text,
        })
        .collect();
    let verdicts = retrieval::judge_neighbours(
        &current.relative,
        &language_id,
        &open_docs,
        retrieval::MAX_NEIGHBOUR_FILES,
    );
    let chosen = retrieval::select_neighbours(
        &current.relative,
        &language_id,
        &open_docs,
        retrieval::MAX_NEIGHBOUR_FILES,
    );
    let files: Vec<NeighbourFile<'_>> = chosen
        .iter()
        .map(|d| NeighbourFile {
            relative_path: d.path,
            source: d.text,
        })
        .collect();
    let doc = ReferenceDocument {
        source: &current.text,
        cursor,
        language_id: &language_id,
    };
    let snippets = retrieval::similar_snippets(&doc, &files, &options);
    let reference = retrieval::reference_context(&current.text, cursor, options.snippet_length);

    let report = Report {
        path: current.relative.clone(),
        language_id: language_id.clone(),
        options: options_name,
        reference_lines: if reference.is_empty() {
            0
        } else {
            reference.split('\n').count()
        },
        neighbours: neighbour_rows(&open_docs, &verdicts, &options),
        snippets: snippets
            .into_iter()
            .map(|s| Snippet {
                path: s.relative_path,
                score: s.score,
                start_line: s.start_line + 1,
                end_line: s.end_line,
                text: s.text,
            })
            .collect(),
    };
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Text => print_text(&report),
    }
    Ok(())
}

/// Copilot's option set by name, or the language's when none is named, and its name.
fn option_set(name: Option<&str>, language_id: &str) -> Result<(SimilarFilesOptions, String)> {
    Ok(match name {
        Some(name) => match SimilarFilesOptions::by_name(name) {
            Some(o) => (o, name.to_owned()),
            None => bail!("unknown option set `{name}`: use default, conservative, cpp or none"),
        },
        None if language_id == "cpp" => (SimilarFilesOptions::CPP, "cpp".to_owned()),
        None => (SimilarFilesOptions::DEFAULT, "default".to_owned()),
    })
}

/// Each open file with what Copilot made of it as a neighbour.
fn neighbour_rows(
    open_docs: &[OpenDocument<'_>],
    verdicts: &[Verdict],
    options: &SimilarFilesOptions,
) -> Vec<Neighbour> {
    open_docs
        .iter()
        .zip(verdicts)
        .map(|(d, v)| {
            let chars = tokenizer::utf16::utf16_len(d.text);
            let verdict = match v {
                Verdict::Chosen if chars == 0 => "chosen, but empty",
                Verdict::Chosen if chars >= options.max_char_per_file => {
                    "chosen, but too large to search for snippets"
                }
                Verdict::Chosen => "chosen",
                Verdict::CurrentFile => "the current file",
                Verdict::OtherLanguage => "another language",
                Verdict::OverTotalSize => "over the total size of neighbours",
                Verdict::NotReached => "after the file-count cap",
            };
            Neighbour {
                path: d.path.to_owned(),
                language_id: d.language_id.to_owned(),
                chars,
                verdict,
            }
        })
        .collect()
}

fn print_text(r: &Report) {
    println!(
        "{} ({}), cursor context: {} lines, options: {}",
        r.path, r.language_id, r.reference_lines, r.options
    );
    println!();
    if r.neighbours.is_empty() {
        println!("No other open files: pass them with --open, most recently used first.");
    }
    for n in &r.neighbours {
        println!(
            "  {:<40} {:<12} {:>7} chars  {}",
            n.path, n.language_id, n.chars, n.verdict
        );
    }
    println!();
    if r.snippets.is_empty() {
        println!("No snippet scored above the threshold.");
    }
    for (i, s) in r.snippets.iter().enumerate() {
        let rank = r.snippets.len() - i;
        println!(
            "── snippet #{rank} (score {:.4}) {} lines {}-{} ──",
            s.score, s.path, s.start_line, s.end_line
        );
        println!("{}", s.text);
    }
}
