//! `pilotfish tokens`: count or list the tokens of standard input.

use std::io::{Read, Write};

use anyhow::{Context, Result, bail};
use tokenizer::Tokenizer;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// cl100k_base, o200k_base, or approximate (an estimate from characters per token).
    #[arg(long, default_value = "o200k_base")]
    tokenizer: String,
    /// The language of the text, for the approximate tokenizer's characters per token.
    #[arg(long)]
    language: Option<String>,
    /// List the token ids, one per line, instead of counting them.
    #[arg(long)]
    ids: bool,
    /// With --ids, show each token's text beside its id.
    #[arg(long, requires = "ids")]
    text: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let tokenizer = Tokenizer::by_name(&args.tokenizer, args.language.as_deref())?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("could not read standard input")?;
    let text = match String::from_utf8(input) {
        Ok(text) => text,
        Err(err) => bail!(
            "standard input is not UTF-8 text (invalid byte at offset {}): tokens are counted on text only",
            err.utf8_error().valid_up_to()
        ),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.ids {
        let Some(ids) = tokenizer.token_ids(&text) else {
            bail!(
                "the approximate tokenizer has no token ids: use --tokenizer cl100k_base or o200k_base"
            );
        };
        let pieces = if args.text {
            tokenizer.token_strings(&text)
        } else {
            None
        };
        for (i, id) in ids.iter().enumerate() {
            match &pieces {
                Some(p) => writeln!(out, "{id}\t{:?}", p[i])?,
                None => writeln!(out, "{id}")?,
            }
        }
    } else {
        writeln!(out, "{}", tokenizer.count(&text))?;
    }
    out.flush()?;
    Ok(())
}
