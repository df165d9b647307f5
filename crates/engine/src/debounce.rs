//! How long to wait after a keystroke before asking the model: Copilot's fixed debounce, and
//! the predictive one of its earlier versions (seed 001), which waits less when the contextual
//! filter expects the suggestion to be accepted.

/// Copilot's fixed debounce when nothing else is set, in milliseconds.
pub const DEFAULT_DEBOUNCE_MS: f64 = 75.0;

/// How the wait is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Debounce {
    /// Always this many milliseconds (0 or less: the default, 75).
    Fixed(f64),
    /// From the contextual filter's score: `25 + 250 / (1 + (score / 0.3475)^7)` milliseconds,
    /// so from about 275 ms for unlikely suggestions down to 25 ms for likely ones. Without a
    /// score, the fixed wait.
    Predictive { fixed: f64 },
}

/// The wait before a request, in milliseconds (seed 001's `getDebounceLimit`).
pub fn debounce_limit_ms(debounce: Debounce, contextual_filter_score: Option<f64>) -> f64 {
    let ms = match (debounce, contextual_filter_score) {
        (Debounce::Predictive { .. }, Some(score)) if score != 0.0 && score.is_finite() => {
            25.0 + 250.0 / (1.0 + (score / 0.3475).powi(7))
        }
        (Debounce::Predictive { fixed }, _) | (Debounce::Fixed(fixed), _) => fixed,
    };
    if ms > 0.0 { ms } else { DEFAULT_DEBOUNCE_MS }
}

/// What is left of the wait `elapsed_ms` after the keystroke (Copilot's current
/// `getRemainingDebounceMs`): never negative, nothing when no wait is set.
pub fn remaining_debounce_ms(debounce_ms: Option<f64>, elapsed_ms: f64) -> f64 {
    match debounce_ms {
        None => 0.0,
        Some(d) => (d - elapsed_ms).max(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn seed_formula() {
        let predictive = Debounce::Predictive { fixed: 0.0 };
        assert_eq!(
            debounce_limit_ms(predictive, Some(0.3475)),
            150.0,
            "half way at the pivot score"
        );
        assert!((debounce_limit_ms(predictive, Some(1.0)) - 25.158).abs() < 0.01);
        assert_eq!(debounce_limit_ms(predictive, None), 75.0);
        assert_eq!(debounce_limit_ms(Debounce::Fixed(120.0), Some(0.9)), 120.0);
        assert_eq!(debounce_limit_ms(Debounce::Fixed(0.0), None), 75.0);
        assert_eq!(remaining_debounce_ms(Some(75.0), 30.0), 45.0);
        assert_eq!(remaining_debounce_ms(Some(75.0), 90.0), 0.0);
        assert_eq!(remaining_debounce_ms(None, 10.0), 0.0);
    }

    proptest! {
        /// The predictive wait stays within 25–275 ms and never grows with the score.
        #[test]
        fn predictive_is_bounded_and_falls(a in 0.0001f64..1.0, b in 0.0001f64..1.0) {
            let p = Debounce::Predictive { fixed: 75.0 };
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            let (at_lo, at_hi) = (debounce_limit_ms(p, Some(lo)), debounce_limit_ms(p, Some(hi)));
            prop_assert!((25.0..=275.0).contains(&at_lo) && (25.0..=275.0).contains(&at_hi));
            prop_assert!(at_hi <= at_lo);
        }
    }
}
