//! Whether to ask the model at all: seed 001's contextual filter, a small logistic model that
//! scores how likely a suggestion at this spot is to be accepted, from the context and from the
//! user's earlier accept/reject decisions, and suppresses requests below a threshold.
//!
//! Copilot's trained weights are not published with its MIT library, so pilotfish learns its
//! own online, per session: every shown suggestion that is accepted or rejected is one step of
//! stochastic gradient descent. It starts neutral (every score 0.5, above the 0.35 threshold),
//! so a fresh session never suppresses anything; it is off unless configured.

/// The threshold below which Copilot's filter suppressed a request (seed 001: 35%).
pub const DEFAULT_THRESHOLD: f64 = 0.35;

/// What the filter looks at for one request.
#[derive(Debug, Clone, Copy)]
pub struct FilterInput<'a> {
    /// The document's text before the cursor (only its last line matters).
    pub prefix: &'a str,
    /// The document's text after the cursor (only its first line matters).
    pub suffix: &'a str,
    /// Seconds since the user last accepted or rejected a suggestion.
    pub seconds_since_last_decision: f64,
}

/// Classes of the character before the cursor: the strongest single signal of whether a
/// suggestion is wanted (after `.` or `(` yes, in the middle of a word rarely).
const CHAR_CLASSES: usize = 12;

fn char_class(c: Option<char>) -> usize {
    match c {
        None | Some('\n') => 0,
        Some(c) if c.is_alphanumeric() || c == '_' => 1,
        Some('.') => 2,
        Some('(') => 3,
        Some('[' | '{') => 4,
        Some(')' | ']' | '}') => 5,
        Some(',') => 6,
        Some(';') => 7,
        Some(':') => 8,
        Some('=') => 9,
        Some(c) if c.is_whitespace() => 10,
        Some(_) => 11,
    }
}

/// bias, previous label, the character class, the cursor at the end of its line, the line so
/// far blank, the line's length, the time since the last decision.
const FEATURES: usize = 2 + CHAR_CLASSES + 4;

fn features(input: &FilterInput<'_>, previous_accepted: bool) -> [f64; FEATURES] {
    let line = input.prefix.rsplit('\n').next().unwrap_or_default();
    let rest = input.suffix.split('\n').next().unwrap_or_default();
    let mut f = [0.0; FEATURES];
    f[0] = 1.0;
    f[1] = f64::from(u8::from(previous_accepted));
    f[2 + char_class(input.prefix.chars().next_back())] = 1.0;
    let base = 2 + CHAR_CLASSES;
    f[base] = f64::from(u8::from(rest.trim().is_empty()));
    f[base + 1] = f64::from(u8::from(line.trim().is_empty()));
    f[base + 2] = (1.0 + line.chars().count() as f64).ln() / 5.0;
    f[base + 3] = (1.0 + input.seconds_since_last_decision.max(0.0)).ln() / 5.0;
    f
}

/// The filter's state: its weights and the user's last decision.
#[derive(Debug, Clone)]
pub struct ContextualFilter {
    weights: [f64; FEATURES],
    previous_accepted: bool,
    learning_rate: f64,
    pub threshold: f64,
}

impl Default for ContextualFilter {
    fn default() -> ContextualFilter {
        ContextualFilter::new(DEFAULT_THRESHOLD)
    }
}

impl ContextualFilter {
    pub fn new(threshold: f64) -> ContextualFilter {
        ContextualFilter {
            weights: [0.0; FEATURES],
            previous_accepted: false,
            learning_rate: 0.2,
            threshold,
        }
    }

    /// The probability, as the model sees it, that a suggestion here is accepted.
    pub fn score(&self, input: &FilterInput<'_>) -> f64 {
        let f = features(input, self.previous_accepted);
        let z: f64 = f.iter().zip(&self.weights).map(|(x, w)| x * w).sum();
        1.0 / (1.0 + (-z).exp())
    }

    /// Whether a request with this score should be made.
    pub fn allows(&self, score: f64) -> bool {
        score >= self.threshold
    }

    /// Learns from the user's decision on a suggestion shown for `input`.
    pub fn record(&mut self, input: &FilterInput<'_>, accepted: bool) {
        let f = features(input, self.previous_accepted);
        let predicted = self.score(input);
        let error = f64::from(u8::from(accepted)) - predicted;
        for (w, x) in self.weights.iter_mut().zip(f) {
            *w += self.learning_rate * error * x;
        }
        self.previous_accepted = accepted;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(prefix: &str) -> FilterInput<'_> {
        FilterInput {
            prefix,
            suffix: "\n",
            seconds_since_last_decision: 2.0,
        }
    }

    #[test]
    fn starts_neutral_and_never_suppresses() {
        let f = ContextualFilter::default();
        assert_eq!(f.score(&at("foo.")), 0.5);
        assert!(f.allows(f.score(&at("fo"))));
    }

    /// A simulated user who accepts after `.` and `(` and rejects in the middle of a word:
    /// after some decisions the filter scores the two apart and suppresses the second.
    #[test]
    fn learns_what_the_user_accepts() {
        let mut f = ContextualFilter::default();
        for i in 0..400 {
            if i % 2 == 0 {
                f.record(&at("    x = foo."), true);
            } else {
                f.record(&at("    x = fo"), false);
            }
        }
        let good = f.score(&at("    y = bar("));
        let bad = f.score(&at("    y = ba"));
        assert!(good > 0.6, "{good}");
        assert!(bad < DEFAULT_THRESHOLD, "{bad}");
        assert!(f.allows(good) && !f.allows(bad));
    }
}
