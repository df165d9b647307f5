//! Fitting blocks into a token budget as Copilot does: the suffix first (with the prefix's
//! unused share passed to it), then whole context blocks dropped by weight, lowest first, then
//! lines dropped from the far end of what remains, then dropped blocks put back where they fit.

use tokenizer::Tokenizer;

/// Where a block goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockType {
    /// Context: rendered before the prefix, or sent apart from it. `index` groups the blocks
    /// into the context list Copilot sends (0: stable context, 1: recent edits).
    Context { index: usize },
    /// The document before the cursor.
    Prefix,
}

/// One piece of prompt text with its weight: the unit that elision keeps or drops.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub block_type: BlockType,
    pub value: String,
    /// 0..=1; blocks of weight 1 are never dropped whole.
    pub weight: f64,
    /// Blocks of one chunk (a snippet and its headline) are dropped together and never put
    /// back one by one.
    pub chunk: Option<usize>,
}

/// A block after elision.
#[derive(Debug, Clone, PartialEq)]
pub struct ElidedBlock {
    pub block: Block,
    /// Tokens of the whole block (the sum over its lines, as Copilot counts).
    pub tokens: usize,
    pub elided_value: String,
    pub elided_tokens: usize,
}

/// The suffix after elision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElidedSuffix {
    pub value: String,
    pub tokens: usize,
    pub elided_value: String,
    pub elided_tokens: usize,
}

/// Elision cannot proceed: Copilot throws in these cases, and produces no prompt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElisionError {
    #[error(
        "the prompt budget leaves no tokens for the prefix: raise max_prompt_tokens or lower suffix_percent"
    )]
    NoPrefixBudget,
    #[error("the prefix cannot fit within {0} tokens")]
    CannotFit(usize),
}

/// Tokens reserved for encoding the suffix when there is one.
const TOKENS_RESERVED_FOR_SUFFIX_ENCODING: u32 = 5;

/// The split of `max_prompt_tokens` between prefix and suffix: when there is a suffix, 5 tokens
/// are set aside and `suffix_percent` of the rest (rounded up) goes to the suffix. Budgets
/// under 5 tokens give negative limits, as in Copilot; elision refuses a prefix limit below 1.
pub fn prompt_limits(suffix: &str, max_prompt_tokens: usize, suffix_percent: u32) -> (i64, i64) {
    let max = max_prompt_tokens as i64;
    if suffix.is_empty() || suffix_percent == 0 {
        return (max, 0);
    }
    let available = max - TOKENS_RESERVED_FOR_SUFFIX_ENCODING as i64;
    let suffix_limit = (available as f64 * (f64::from(suffix_percent) / 100.0)).ceil() as i64;
    (available - suffix_limit, suffix_limit)
}

/// A line of a block with the tokens it counts for.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    block: usize,
    tokens: usize,
}

/// Splits text into lines as Copilot does for elision: each piece is a line with all the
/// newlines that follow it; text after the last newline is a piece of its own.
pub fn elision_lines(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = value.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            while i < bytes.len() && bytes[i] == b'\n' {
                i += 1;
            }
            out.push(&value[start..i]);
            start = i;
        } else {
            i += 1;
        }
    }
    if start < value.len() {
        out.push(&value[start..]);
    }
    out
}

/// Fits `blocks` (in prompt order) and `suffix` into the limits from [`prompt_limits`].
///
/// The stages follow Copilot's `WishlistElision.elide` (its completions library's
/// `prompt/components/elision`): prepare the prefix blocks (count every line), elide the suffix
/// (which takes what the prefix cannot use), then elide the prefix (drop light blocks, trim
/// lines from the far end, put dropped blocks back where they fit).
pub fn elide(
    blocks: Vec<Block>,
    prefix_limit: i64,
    suffix: &str,
    suffix_limit: i64,
    tokenizer: &Tokenizer,
) -> Result<(ElidedSuffix, Vec<ElidedBlock>), ElisionError> {
    if prefix_limit <= 0 {
        return Err(ElisionError::NoPrefixBudget);
    }
    let prefix_limit = prefix_limit as usize;
    // A negative suffix share counts as none, as it does in Copilot.
    let suffix_limit = suffix_limit.max(0) as usize;
    let prepared = prepare_blocks(&blocks, tokenizer);
    let (elided_suffix, prefix_limit) = elide_suffix(
        suffix,
        suffix_limit,
        prefix_limit,
        prepared.max_prefix_tokens,
        tokenizer,
    );
    let elided = elide_prefix(blocks, &prepared, prefix_limit, tokenizer)?;
    Ok((elided_suffix, elided))
}

/// Every block's lines with their tokens, counted once.
struct Prepared {
    lines_of: Vec<Vec<Line>>,
    block_tokens: Vec<usize>,
    /// The tokens of all blocks together.
    max_prefix_tokens: usize,
}

/// Counts every line of every block (Copilot's `preparePrefixBlocks`).
fn prepare_blocks(blocks: &[Block], tokenizer: &Tokenizer) -> Prepared {
    let mut lines_of: Vec<Vec<Line>> = Vec::with_capacity(blocks.len());
    let mut block_tokens = Vec::with_capacity(blocks.len());
    let mut max_prefix_tokens = 0usize;
    for (i, block) in blocks.iter().enumerate() {
        let lines: Vec<Line> = elision_lines(&block.value)
            .into_iter()
            .map(|l| Line {
                text: l.to_owned(),
                block: i,
                tokens: tokenizer.count(l),
            })
            .collect();
        let tokens: usize = lines.iter().map(|l| l.tokens).sum();
        max_prefix_tokens += tokens;
        block_tokens.push(tokens);
        lines_of.push(lines);
    }
    Prepared {
        lines_of,
        block_tokens,
        max_prefix_tokens,
    }
}

/// The suffix takes its share, plus whatever the prefix cannot use (Copilot's `elideSuffix`).
/// Returns the elided suffix and the prefix's limit adjusted by what the suffix left unused.
fn elide_suffix(
    suffix: &str,
    suffix_limit: usize,
    prefix_limit: usize,
    max_prefix_tokens: usize,
    tokenizer: &Tokenizer,
) -> (ElidedSuffix, usize) {
    if suffix.is_empty() || suffix_limit == 0 {
        return (
            ElidedSuffix {
                value: suffix.to_owned(),
                tokens: 0,
                elided_value: String::new(),
                elided_tokens: 0,
            },
            prefix_limit + suffix_limit,
        );
    }
    let (mut prefix_limit, mut suffix_limit) = (prefix_limit, suffix_limit);
    if max_prefix_tokens < prefix_limit {
        suffix_limit += prefix_limit - max_prefix_tokens;
        prefix_limit = max_prefix_tokens;
    }
    let taken = tokenizer.take_first_tokens(suffix, suffix_limit);
    let adjusted = prefix_limit + suffix_limit.saturating_sub(taken.tokens);
    (
        ElidedSuffix {
            value: suffix.to_owned(),
            tokens: tokenizer.count(suffix),
            elided_value: taken.text,
            elided_tokens: taken.tokens,
        },
        adjusted,
    )
}

/// Fits the blocks into `prefix_limit` (Copilot's `elidePrefix`): light blocks dropped, the
/// lines of the rest trimmed from the far end, then every block rebuilt.
fn elide_prefix(
    blocks: Vec<Block>,
    prepared: &Prepared,
    prefix_limit: usize,
    tokenizer: &Tokenizer,
) -> Result<Vec<ElidedBlock>, ElisionError> {
    let removed = remove_light_blocks(
        &blocks,
        &prepared.block_tokens,
        prepared.max_prefix_tokens,
        prefix_limit,
    );
    let kept_lines: Vec<&Line> = prepared
        .lines_of
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed[*i])
        .flat_map(|(_, lines)| lines.iter())
        .collect();
    if kept_lines.is_empty() {
        return Ok(Vec::new());
    }
    let (fitting, used) = trim_lines_to_fit(&kept_lines, prefix_limit, tokenizer)?;
    Ok(rebuild_blocks(
        blocks,
        &prepared.block_tokens,
        &removed,
        &fitting,
        (used, prefix_limit),
        tokenizer,
    ))
}

/// Which blocks are dropped whole, lowest weight first (stable among equal weights), until the
/// rest fits: a chunk goes all together, and blocks of weight 1 stay (Copilot's
/// `removeLowWeightPrefixBlocks`).
fn remove_light_blocks(
    blocks: &[Block],
    block_tokens: &[usize],
    max_prefix_tokens: usize,
    prefix_limit: usize,
) -> Vec<bool> {
    let mut removed = vec![false; blocks.len()];
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by(|&a, &b| blocks[a].weight.total_cmp(&blocks[b].weight));
    let mut total = max_prefix_tokens;
    for &i in &order {
        if total <= prefix_limit {
            break;
        }
        if blocks[i].weight == 1.0 {
            continue;
        }
        match blocks[i].chunk {
            Some(_) if removed[i] => continue,
            Some(chunk) => {
                for &j in &order {
                    if !removed[j] && blocks[j].chunk == Some(chunk) {
                        removed[j] = true;
                        total -= block_tokens[j];
                    }
                }
            }
            None => {
                removed[i] = true;
                total -= block_tokens[i];
            }
        }
    }
    removed
}

/// The lines kept from the cursor side back while they fit, and their tokens; when not even
/// the last line fits, its last tokens (Copilot's `trimPrefixLinesToFit`).
fn trim_lines_to_fit(
    kept_lines: &[&Line],
    prefix_limit: usize,
    tokenizer: &Tokenizer,
) -> Result<(Vec<Line>, usize), ElisionError> {
    let mut fitting: Vec<Line> = Vec::new();
    let mut used = 0usize;
    for line in kept_lines.iter().rev() {
        if used + line.tokens <= prefix_limit {
            fitting.push((*line).clone());
            used += line.tokens;
        } else {
            break;
        }
    }
    fitting.reverse();
    if fitting.is_empty() {
        let last = kept_lines[kept_lines.len() - 1];
        if last.text.is_empty() {
            return Err(ElisionError::CannotFit(prefix_limit));
        }
        let taken = tokenizer.take_last_tokens(&last.text, prefix_limit);
        used = taken.tokens;
        fitting.push(Line {
            text: taken.text,
            block: last.block,
            tokens: taken.tokens,
        });
    }
    Ok((fitting, used))
}

/// Every block rebuilt from its fitting lines; dropped ones come back whole, in order, where
/// they still fit (`(used, prefix_limit)`: the tokens the fitting lines take, and the limit).
fn rebuild_blocks(
    blocks: Vec<Block>,
    block_tokens: &[usize],
    removed: &[bool],
    fitting: &[Line],
    (used, prefix_limit): (usize, usize),
    tokenizer: &Tokenizer,
) -> Vec<ElidedBlock> {
    let mut current = used;
    blocks
        .into_iter()
        .enumerate()
        .map(|(i, block)| {
            let tokens = block_tokens[i];
            if removed[i] {
                if current + tokens <= prefix_limit && block.chunk.is_none() {
                    current += tokens;
                    let value = block.value.clone();
                    return ElidedBlock {
                        block,
                        tokens,
                        elided_value: value,
                        elided_tokens: tokens,
                    };
                }
                return ElidedBlock {
                    block,
                    tokens,
                    elided_value: String::new(),
                    elided_tokens: 0,
                };
            }
            let elided_value: String = fitting
                .iter()
                .filter(|l| l.block == i && !l.text.is_empty())
                .map(|l| l.text.as_str())
                .collect();
            let elided_tokens = if elided_value == block.value {
                tokens
            } else if elided_value.is_empty() {
                0
            } else {
                tokenizer.count(&elided_value)
            };
            ElidedBlock {
                block,
                tokens,
                elided_value,
                elided_tokens,
            }
        })
        .collect()
}

/// Keeps the total within `max_tokens` where Copilot's elision would not.
///
/// Copilot counts a block it had to cut by tokenizing the kept text again, and text cut inside
/// a character decodes with U+FFFD, which can take more tokens than were kept: Copilot then
/// sends a token or two over its budget. pilotfish cuts such a block further, from the far end,
/// until the total fits. Returns by how many tokens Copilot's count was over (0 almost always).
pub fn enforce_budget(
    elided: &mut [ElidedBlock],
    suffix_tokens: usize,
    max_tokens: usize,
    tokenizer: &Tokenizer,
) -> usize {
    let total =
        |e: &[ElidedBlock]| e.iter().map(|b| b.elided_tokens).sum::<usize>() + suffix_tokens;
    let before = total(elided);
    while total(elided) > max_tokens {
        let excess = total(elided) - max_tokens;
        // The cut blocks, nearest the far end first.
        let Some(block) = elided
            .iter_mut()
            .find(|b| b.elided_tokens > 0 && b.elided_value != b.block.value)
        else {
            // Nothing was cut, so every count is exact and the elision kept within the budget.
            break;
        };
        let keep = block.elided_tokens.saturating_sub(excess);
        let taken = tokenizer.take_last_tokens(&block.elided_value, keep);
        block.elided_tokens = if taken.text.is_empty() {
            0
        } else {
            tokenizer.count(&taken.text)
        };
        block.elided_value = taken.text;
    }
    before.saturating_sub(max_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_newlines() {
        assert_eq!(elision_lines("a\nb\n\n\nc"), ["a\n", "b\n\n\n", "c"]);
        assert_eq!(elision_lines("\n\nx"), ["\n\n", "x"]);
        assert_eq!(elision_lines(""), Vec::<&str>::new());
    }

    #[test]
    fn limits() {
        assert_eq!(prompt_limits("x", 3, 100), (0, -2));
        assert_eq!(prompt_limits("", 100, 15), (100, 0));
        assert_eq!(prompt_limits("x", 100, 0), (100, 0));
        assert_eq!(prompt_limits("x", 7692, 15), (6533, 1154));
    }
}
