//! The summary as a table for a terminal: each strategy's means with their 95% intervals and
//! median times, then each paired difference with its interval, marked where it leaves zero out.

use std::fmt::Write;

use super::{Group, Summary};
use crate::stats::Estimate;

/// Every group that has cases: the honest ones, then those that could copy from their file.
pub fn table(summary: &Summary) -> String {
    let mut out = String::new();
    if summary.honest.cases > 0 {
        group(&mut out, "honest cases", &summary.honest);
    }
    if summary.copy_from.cases > 0 {
        if !out.is_empty() {
            out.push('\n');
        }
        group(
            &mut out,
            "cases whose expected text is elsewhere in their file (counted apart)",
            &summary.copy_from,
        );
    }
    out
}

/// `0.123 [0.045, 0.210]`, or `-` for no values.
pub fn estimate(e: Option<&Estimate>) -> String {
    e.map_or("-".to_owned(), |e| {
        format!("{:.3} [{:.3}, {:.3}]", e.mean, e.low, e.high)
    })
}

/// A difference: `+0.050 [-0.020, 0.110]`, with ` *` when the interval leaves zero out.
pub fn difference(e: Option<&Estimate>) -> String {
    e.map_or("-".to_owned(), |e| {
        let mark = if e.excludes_zero() { " *" } else { "" };
        format!("{:+.3} [{:+.3}, {:+.3}]{mark}", e.mean, e.low, e.high)
    })
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".to_owned(), |t| format!("{t:.0} ms"))
}

fn group(out: &mut String, title: &str, g: &Group) {
    let _ = writeln!(out, "{title}: {}", g.cases);
    let _ = writeln!(
        out,
        "{:<10} {:<24} {:<24} {:<24} {:>12} {:>10}",
        "strategy", "exact match", "identifier", "edit similarity", "first token", "answer"
    );
    for s in &g.strategies {
        let errors = if s.errors > 0 {
            format!("  ({} failed)", s.errors)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{:<10} {:<24} {:<24} {:<24} {:>12} {:>10}{errors}",
            s.strategy,
            estimate(s.exact.as_ref()),
            estimate(s.identifier.as_ref()),
            estimate(s.similarity.as_ref()),
            ms(s.first_token_ms),
            ms(s.total_ms),
        );
    }
    if let Some(n) = g.strategies.first().and_then(|s| s.identifier).map(|e| e.n) {
        let _ = writeln!(out, "identifier: over the {n} case(s) that need one");
    }
    let _ = writeln!(
        out,
        "first token, answer: medians over the same requests, those that sent text; each timed as a first keystroke, the server's prompt cache not used"
    );
    if g.differences.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "{:<20} {:<28} {:<28} {:<28}",
        "paired difference", "exact match", "identifier", "edit similarity"
    );
    for d in &g.differences {
        let _ = writeln!(
            out,
            "{:<20} {:<28} {:<28} {:<28}",
            format!("{} - {}", d.b, d.a),
            difference(d.exact.as_ref()),
            difference(d.identifier.as_ref()),
            difference(d.similarity.as_ref()),
        );
    }
    let _ = writeln!(
        out,
        "[low, high]: 95% bootstrap interval over the cases; *: the difference's interval leaves zero out"
    );
}
