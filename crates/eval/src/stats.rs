//! 95% intervals by the bootstrap over cases (2,000 resamples, a fixed seed), for one
//! strategy's mean and for the paired difference between two strategies on the same cases.

use serde::Serialize;

use crate::rng::Rng;

/// Resamples per interval.
pub const RESAMPLES: usize = 2000;
/// The seed of the resampling, fixed so that a report is the same on every run.
const SEED: u64 = 46;

/// A mean and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// The values it is over.
    pub n: usize,
}

impl Estimate {
    /// Whether the interval leaves zero out (for a difference: the strategies told apart).
    pub fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// The mean of `values`, 0 for none.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The mean of `values` with the 2.5th and 97.5th percentiles of the means of
/// [`RESAMPLES`] resamples (with replacement, as many as there are values). `None` for no values.
pub fn bootstrap(values: &[f64]) -> Option<Estimate> {
    if values.is_empty() {
        return None;
    }
    let n = values.len();
    let mut rng = Rng::new(SEED);
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    let m = mean(values);
    Some(Estimate {
        mean: m,
        low: at(0.025).min(m),
        high: at(0.975).max(m),
        n,
    })
}

/// The paired difference `b - a` over the same cases (`a` and `b` in case order), with its
/// interval: the cases are resampled, so what the cases share cancels out.
pub fn paired(a: &[f64], b: &[f64]) -> Option<Estimate> {
    let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    bootstrap(&differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_has_a_point_interval_and_an_empty_list_none() {
        let e = bootstrap(&[0.5; 10]).unwrap();
        assert_eq!((e.mean, e.low, e.high, e.n), (0.5, 0.5, 0.5, 10));
        assert!(bootstrap(&[]).is_none());
        assert!(!paired(&[1.0, 0.0], &[1.0, 0.0]).unwrap().excludes_zero());
    }
}
