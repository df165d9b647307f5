//! Budgets in seconds: the prompt sized so that what the server has not cached reads within
//! the first-token target at the server's measured speed, and a first-token limit sized from
//! the same figures.
//!
//! A budget in tokens alone fails on a slow machine: 3,000 tokens read cold at 115 a second is
//! half a minute. What the server holds from the last prompt costs nothing, so the budget
//! that keeps the prompt's start (the last one used) is tried before a smaller one, and a
//! server fast enough for the whole budget keeps it. Before anything was measured (first
//! contact with a server that reports its timings) the prompt is held to a cold size that a
//! slow laptop reads within a few seconds, and a note says so.

use std::time::Duration;

use prompt::request::RequestJson;

use crate::{Pipeline, PipelineError, Shape, Trace, fit::model_text};

/// The model's tokens a first request may make the server read before its speed is known:
/// under 2 s at 115 tokens a second (the slowest laptop reported), about 5 s on a 2-core
/// machine loaded to 40, a few milliseconds on a desktop. This is paid once per server and
/// model: the speed is remembered.
pub(crate) const COLD_MODEL_TOKENS: f64 = 200.0;

/// The smallest budget a measured speed sizes a prompt to, in the prompt's tokens: below it a
/// prompt holds too little of the file to be worth a suggestion, and a slow server's first
/// token comes later than the target instead.
const FLOOR_TOKENS: usize = 256;

/// The least budget a first-token limit of the backend's own lowers the floor to.
const LEAST_TOKENS: usize = 64;

/// The first-token limit before the server's speed is known: a server that describes itself
/// and never answers costs a command less than ten seconds, and a cold prompt of
/// [`COLD_MODEL_TOKENS`] reads within it down to about 30 tokens a second.
pub(crate) const UNKNOWN_SPEED_LIMIT: Duration = Duration::from_secs(7);

/// The longest first-token limit sized here: a command against a server that describes itself
/// and never answers ends within ten seconds whatever was learned of the server, and the
/// budget is sized so that honest reading fits in half of it.
pub(crate) const LONGEST_LIMIT: Duration = Duration::from_secs(8);

/// The least first-token limit sized from a measured speed: the time an answer takes beyond
/// reading (sampling, the connection) is not in the figures.
const LEAST_LIMIT: Duration = Duration::from_secs(3);

/// The prompt and what sized it, for one request.
pub(crate) struct Sizing<'a> {
    pub(crate) request: &'a RequestJson,
    pub(crate) files: Option<&'a (dyn syntax::WorkspaceFiles + Sync)>,
    pub(crate) shape: &'a Shape,
    /// The document's prompt session before this request's first assembly, restored before
    /// assembling again so that a trial does not move the stable layout's anchor.
    pub(crate) session: Option<prompt::Session>,
    /// The budget the server's context allows, in the prompt's tokens.
    pub(crate) full: usize,
    pub(crate) target: Duration,
    /// The backend's own first-token limit, when it has one.
    pub(crate) limit: Option<Duration>,
    /// Whether the server's speed was measured just now, on first contact: the prompt is then
    /// never smaller than the last budget a known server had.
    pub(crate) first_contact: bool,
}

/// First-token targets a command's one request may read to send the whole prompt (it has no
/// next keystroke for the budget to grow back in), within half the longest limit.
const IN_REQUEST_TARGETS: f64 = 5.0;

/// The share of the way back to the whole budget a lowered one grows per keystroke, tried in
/// turn: the first whose new part reads within the target is taken.
const GROWTH: [f64; 2] = [0.5, 0.25];

/// Whether the server says how long reading a prompt took (llama.cpp, Ollama): only then is
/// its speed measured, and a budget in seconds possible.
pub(crate) fn reports_timings(kind: backends::Kind) -> bool {
    use backends::Kind::*;
    matches!(
        kind,
        LlamaCppInfill | LlamaCppCompletion | Ollama | OllamaRaw
    )
}

/// The first-token limit for a request that makes the server read `uncached` model tokens:
/// twice the reading time at the measured speed and some seconds more, so that an honest cold
/// request is not cut; before the speed is known, [`UNKNOWN_SPEED_LIMIT`] or what 100 tokens
/// a second would need; never over [`LONGEST_LIMIT`] (the budget keeps the reading within
/// half of it).
pub(crate) fn first_token_limit(speed: Option<f64>, uncached: usize) -> Duration {
    let seconds = match speed {
        Some(s) if s > 0.0 => (2.0 + 2.0 * uncached as f64 / s).max(LEAST_LIMIT.as_secs_f64()),
        _ => (2.0 + uncached as f64 / 100.0).max(UNKNOWN_SPEED_LIMIT.as_secs_f64()),
    };
    Duration::from_secs_f64(seconds).min(LONGEST_LIMIT)
}

/// The budget, in the prompt's tokens, of a prompt read cold within `target` at `speed` model
/// tokens a second, at `ratio` model tokens per prompt token, never under a floor that still
/// holds a useful prompt; before the speed is known, [`COLD_MODEL_TOKENS`]; never over `full`.
pub fn cold_budget(speed: Option<f64>, target: Duration, ratio: f64, full: usize) -> usize {
    let ratio = ratio.max(0.1);
    match speed {
        Some(s) => ((s * target.as_secs_f64() / ratio) as usize).max(FLOOR_TOKENS),
        None => (COLD_MODEL_TOKENS / ratio) as usize,
    }
    .min(full)
}

/// How a first contact's measured speed sizes the prompt: at least the last budget a known
/// server had (never a worse prompt on a fast server than on a known one).
pub(crate) fn at_least_last(cold: usize, last: Option<usize>, full: usize) -> usize {
    cold.max(last.unwrap_or(0)).min(full)
}

/// What the budgets tried for one request are made of, in the prompt's tokens (allowances in
/// the model's).
#[derive(Debug, Clone, Copy)]
struct Budgets {
    full: usize,
    /// The size read cold within the target (or the floor).
    cold: usize,
    /// Whether `cold` reads within the target (else it is only the floor).
    by_target: bool,
    /// The budget of the last prompt sent, below `full`: the server holds its start.
    last: Option<usize>,
    /// A command's one request: what its longer allowance reads cold.
    in_request: Option<usize>,
    /// The model tokens one target reads, and a command's one request.
    allowance: f64,
    whole_allowance: f64,
}

impl Budgets {
    /// The budgets to try in turn: each with whether it is taken whatever it costs, and the
    /// model tokens it may make the server read.
    ///
    /// A command's in-request budget comes first only when it is larger than the last one: a
    /// smaller budget moves the prompt's start, so the server would read the whole prompt
    /// again (the speed measured under load moves the in-request size from one keystroke to
    /// the next). The last budget, whose start the server holds, is then tried with the
    /// command's longer allowance.
    fn in_turn(self) -> [(Option<usize>, bool, f64); 7] {
        let Budgets {
            full,
            cold,
            by_target,
            last,
            ..
        } = self;
        // A lowered budget grows back toward the whole one, by as much as reads within the
        // target: the server holds the last prompt, so only what is new is read.
        let grown = |share: f64| {
            last.filter(|b| *b >= cold)
                .map(|b| b + ((full - b) as f64 * share) as usize)
                .filter(|g| last.is_some_and(|b| *g > b))
        };
        let in_request = self
            .in_request
            .filter(|b| *b > cold && last.is_none_or(|l| *b > l));
        [
            (in_request, false, self.whole_allowance),
            (grown(GROWTH[0]), false, self.allowance),
            (grown(GROWTH[1]), false, self.allowance),
            (last.filter(|b| *b > cold), false, self.whole_allowance),
            (Some(cold).filter(|_| by_target), true, self.allowance),
            (last.filter(|b| *b < cold), false, self.allowance),
            (Some(cold), true, self.allowance),
        ]
    }
}

impl Pipeline {
    /// The prompt within what the server reads in `sizing.target`: `prompt` (built with the
    /// full budget) when the server holds enough of it or reads fast enough; else the prompt
    /// of the last budget used, whose start the server holds; else one of the cold size.
    pub(crate) fn size_to_speed(
        &self,
        sizing: Sizing<'_>,
        prompt: prompt::Prompt,
        trace: &mut Trace,
    ) -> Result<prompt::Prompt, PipelineError> {
        let kind = sizing.shape.kind;
        let speed = self.fit.speed().map(|s| s.prompt_per_second);
        let allowance = speed.map_or(COLD_MODEL_TOKENS, |s| s * sizing.target.as_secs_f64());
        // A command's one request may read longer for the whole prompt, but never so long that
        // its own sized first-token limit could cut it.
        let whole_allowance = match speed {
            Some(s) if self.settings.grow_in_request => {
                let seconds = (sizing.target.as_secs_f64() * IN_REQUEST_TARGETS)
                    .min(LONGEST_LIMIT.as_secs_f64() / 2.0);
                (s * seconds).max(allowance)
            }
            _ => allowance,
        };
        let fits = |p: &prompt::Prompt, allowed: f64| {
            let u = self.fit.uncached(&model_text(p, kind));
            (u.tokens as f64 <= allowed, u)
        };
        let (ok, uncached) = fits(&prompt, whole_allowance);
        if ok {
            trace.speed = Some(self.speed_line(speed, uncached, sizing.full, sizing.target));
            return Ok(prompt);
        }
        let mut cold = cold_budget(speed, sizing.target, self.fit.ratio(), sizing.full);
        // The first-token limit (the language server's 4 s, else the longest sized here) also
        // bounds the floor: half of it for reading, the rest for a warming piece under way,
        // the sampling, and a speed that varies with the machine's load.
        if let (Some(limit), Some(s)) = (sizing.limit, speed) {
            let within = (s * limit.as_secs_f64() / 2.0 / self.fit.ratio()) as usize;
            cold = cold.min(within.max(LEAST_TOKENS));
        }
        let last = self.fit.last_budget().filter(|b| *b < sizing.full);
        // A first contact never sends less than the cold size sent before anything was
        // measured (most of which the measuring request already read), nor less than the last
        // budget a known server had.
        if sizing.first_contact {
            let unmeasured = cold_budget(None, sizing.target, self.fit.ratio(), sizing.full);
            cold = at_least_last(cold.max(unmeasured), last, sizing.full);
        }
        // The target's own size is read within it; the floor is not, so a smaller prompt whose
        // start the server holds (a first contact's) is kept rather than read afresh.
        let by_target = speed
            .is_some_and(|s| s * sizing.target.as_secs_f64() / self.fit.ratio() >= cold as f64);
        // A command's one request that cannot read the whole prompt still reads as much of it
        // as its longer allowance holds, rather than the size of one target.
        let in_request = (whole_allowance > allowance)
            .then(|| ((whole_allowance / self.fit.ratio()) as usize).min(sizing.full));
        let candidates = Budgets {
            full: sizing.full,
            cold,
            by_target,
            last,
            in_request,
            allowance,
            whole_allowance,
        }
        .in_turn();
        let path = &sizing.request.document.path;
        for (budget, must, allowed) in candidates {
            let Some(budget) = budget else { continue };
            if let Some(session) = &sizing.session {
                self.state().sessions.insert(path.clone(), session.clone());
            } else {
                self.state().sessions.remove(path);
            }
            let p = self.assemble(sizing.request, sizing.files, path, budget, sizing.shape)?;
            let (ok, uncached) = fits(&p, allowed);
            if ok || must {
                trace.max_prompt_tokens = Some(budget);
                trace.full_prompt_tokens = Some(sizing.full);
                // Said in `--explain` and the JSON trace, not as a note on every keystroke.
                trace.speed = Some(format!(
                    "{}; {}",
                    lowered(speed, sizing.full, budget, sizing.target),
                    self.speed_line(speed, uncached, budget, sizing.target)
                ));
                return Ok(p);
            }
        }
        Ok(prompt)
    }

    /// One line for `--explain`: the measured speed, what the server holds of this prompt,
    /// and the budget it led to.
    fn speed_line(
        &self,
        speed: Option<f64>,
        uncached: crate::fit::Uncached,
        budget: usize,
        target: Duration,
    ) -> String {
        let measured = match (speed, self.fit.speed()) {
            (Some(s), Some(m)) => format!(
                "the server reads {s:.0} prompt tokens/s (measured over {} answer(s))",
                m.samples
            ),
            _ => "the server's speed is not measured yet".to_owned(),
        };
        let reading = speed.map_or(String::new(), |s| {
            format!(" (~{:.0} ms)", uncached.tokens as f64 / s * 1e3)
        });
        format!(
            "{measured}; it holds ~{} of this prompt's model tokens and reads ~{}{reading}; target {} ms; budget {budget} tokens",
            uncached.cached,
            uncached.tokens,
            target.as_millis()
        )
    }
}

/// The note for a budget lowered to the server's speed.
fn lowered(speed: Option<f64>, full: usize, budget: usize, target: Duration) -> String {
    match speed {
        Some(s) => format!(
            "prompt budget lowered from {full} to {budget} tokens to keep the first token near {} ms: the server reads {s:.0} prompt tokens a second (it grows back as the server's cache holds more of the prompt)",
            target.as_millis()
        ),
        None => format!(
            "prompt budget lowered from {full} to {budget} tokens for a first request: the server's speed is not measured yet (this answer measures it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_follows_the_reading_time_and_holds_before_the_speed_is_known() {
        assert_eq!(first_token_limit(None, 400), UNKNOWN_SPEED_LIMIT);
        // 300 tokens at 115 a second: 2.6 s of honest reading is not cut.
        let slow = first_token_limit(Some(115.0), 300);
        assert!(slow > Duration::from_secs(7), "{slow:?}");
        assert_eq!(first_token_limit(Some(20.0), 3000), LONGEST_LIMIT);
        assert_eq!(first_token_limit(Some(5000.0), 100), LEAST_LIMIT);
        assert_eq!(at_least_last(300, Some(900), 6000), 900);
        assert_eq!(at_least_last(300, None, 200), 200);
    }

    /// A command whose in-request size fell below the last budget (the speed measured under
    /// load moved) keeps the last budget's prompt, whose start the server holds, rather than
    /// lay the prompt out afresh at a smaller budget.
    #[test]
    fn a_smaller_in_request_budget_is_not_tried_before_the_last_one() {
        let budgets = Budgets {
            full: 1000,
            cold: 256,
            by_target: true,
            last: Some(315),
            in_request: Some(303),
            allowance: 120.0,
            whole_allowance: 400.0,
        };
        let first = |b: Budgets| b.in_turn().into_iter().find_map(|(budget, ..)| budget);
        assert_eq!(first(budgets), Some(grown_by_half(315, 1000)));
        let tried: Vec<usize> = budgets.in_turn().iter().filter_map(|c| c.0).collect();
        assert!(!tried.contains(&303), "{tried:?}");
        // The last budget is tried with the command's longer allowance, before the cold size.
        let last = budgets.in_turn().into_iter().find(|c| c.0 == Some(315));
        assert_eq!(last.map(|c| c.2), Some(400.0));
        // A larger in-request budget still comes first; so does one with nothing sent before.
        let larger = Budgets {
            in_request: Some(600),
            ..budgets
        };
        assert_eq!(first(larger), Some(600));
        let fresh = Budgets {
            last: None,
            ..budgets
        };
        assert_eq!(first(fresh), Some(303));
    }

    fn grown_by_half(last: usize, full: usize) -> usize {
        last + ((full - last) as f64 * GROWTH[0]) as usize
    }
}
