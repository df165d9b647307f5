//! What a run gives back: every case with each strategy's prompt, answer, scores and timings
//! (`CaseResult`, the JSON report's cases), and the summary computed from those cases alone
//! (`summarize`), which the table (`table.rs`) and the page show.

mod table;

use serde::Serialize;

pub use table::{difference, estimate, table};

use crate::{
    Case, Scores,
    stats::{Estimate, bootstrap, paired},
};

/// The prompt as it was sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Sent {
    /// The context blocks sent apart from the prefix (llama.cpp's `input_extra`).
    pub context: Vec<String>,
    pub prefix: String,
    /// Empty for a prefix-only request.
    pub suffix: String,
}

/// How long a request took, and what the server said it read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_token_ms: Option<f64>,
    pub total_ms: f64,
    /// Prompt tokens the server read, and in how long, when it said (a stream stopped early
    /// at the end of its block may not have).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_prompt_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_prompt_ms: Option<f64>,
    /// Prompt tokens the server said it had cached (0 for a cold read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cached_tokens: Option<u64>,
}

/// One strategy's request for one case.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub strategy: String,
    /// The prompt's budget in tokens (the same for every strategy).
    pub budget: usize,
    /// Whether the model saw the code after the cursor.
    pub fim: bool,
    pub prompt: Sent,
    /// Tokens of prefix, context and suffix as assembly counted them.
    pub prompt_tokens: usize,
    /// The suggestion after post-processing (empty when the model gave nothing).
    pub answer: String,
    pub scores: Scores,
    pub timings: Timings,
    /// Why the request failed, when it did (its scores are then those of an empty answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the answer is empty, when it is and the request did not fail (post-processing cut
    /// it all, or the model wrote only white space).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<String>,
    /// The whole prompt with every element considered, for the page.
    #[serde(skip)]
    pub assembled: Option<prompt::Prompt>,
}

/// A case and what each strategy made of it.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    #[serde(flatten)]
    pub case: Case,
    /// One per strategy, in the order asked.
    pub runs: Vec<Run>,
}

/// One strategy's figures over a set of cases.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrategyFigures {
    pub strategy: String,
    pub exact: Option<Estimate>,
    /// Over the cases that need an identifier.
    pub identifier: Option<Estimate>,
    pub similarity: Option<Estimate>,
    /// Medians over the requests that sent a first token: the time to it, and to the whole
    /// answer.
    pub first_token_ms: Option<f64>,
    pub total_ms: Option<f64>,
    pub errors: usize,
}

/// `b - a` for each score, over the same cases.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub a: String,
    pub b: String,
    pub exact: Option<Estimate>,
    pub identifier: Option<Estimate>,
    pub similarity: Option<Estimate>,
}

/// The figures of a group of cases (the honest ones, or those that could copy from their file).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub cases: usize,
    pub strategies: Vec<StrategyFigures>,
    pub differences: Vec<Difference>,
}

/// The whole run's figures, from its cases alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub honest: Group,
    pub copy_from: Group,
}

/// The summary of `results` (each with the same strategies in the same order).
pub fn summarize(results: &[CaseResult]) -> Summary {
    let (honest, copy): (Vec<&CaseResult>, Vec<&CaseResult>) =
        results.iter().partition(|r| r.case.honest());
    Summary {
        honest: group(&honest),
        copy_from: group(&copy),
    }
}

fn group(results: &[&CaseResult]) -> Group {
    let names: Vec<String> = results
        .first()
        .map(|r| r.runs.iter().map(|x| x.strategy.clone()).collect())
        .unwrap_or_default();
    let column = |s: usize, f: &dyn Fn(&Run) -> Option<f64>| -> Vec<f64> {
        results.iter().filter_map(|r| f(&r.runs[s])).collect()
    };
    let strategies = names
        .iter()
        .enumerate()
        .map(|(s, name)| StrategyFigures {
            strategy: name.clone(),
            exact: bootstrap(&column(s, &|r| Some(r.scores.exact))),
            identifier: bootstrap(&column(s, &|r| r.scores.identifier)),
            similarity: bootstrap(&column(s, &|r| Some(r.scores.similarity))),
            first_token_ms: median(column(s, &|r| r.timings.first_token_ms)),
            // Over the same requests as the first token's, so that it is never the shorter.
            total_ms: median(column(s, &|r| {
                r.timings.first_token_ms.map(|_| r.timings.total_ms)
            })),
            errors: results.iter().filter(|r| r.runs[s].error.is_some()).count(),
        })
        .collect();
    let mut differences = Vec::new();
    for a in 0..names.len() {
        for b in a + 1..names.len() {
            differences.push(Difference {
                a: names[a].clone(),
                b: names[b].clone(),
                exact: paired(
                    &column(a, &|r| Some(r.scores.exact)),
                    &column(b, &|r| Some(r.scores.exact)),
                ),
                identifier: paired(
                    &column(a, &|r| r.scores.identifier),
                    &column(b, &|r| r.scores.identifier),
                ),
                similarity: paired(
                    &column(a, &|r| Some(r.scores.similarity)),
                    &column(b, &|r| Some(r.scores.similarity)),
                ),
            });
        }
    }
    Group {
        cases: results.len(),
        strategies,
        differences,
    }
}

/// The median of `values`, `None` for none.
fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}
