//! When code of an esbuild bundle surely runs after a wrapped ES module's initializer has
//! started (so that its file has defined its getters and its functions): which module owns a
//! piece of code, which initializers each module's code calls, which modules are on a cycle,
//! and where the top level first starts each module.
//!
//! Calling `init_a()` starts `a` if it has not started. If `a` is running already (someone up
//! the stack is initializing it), the call returns at once, so what `a`'s initializer would
//! have started need not have started yet; that can only happen when `a` is on a cycle. So a
//! call of `init_a` surely starts `a`, and, when `a` is on no cycle, whatever `a`'s
//! initializer calls in turn (esbuild calls a module's imports' initializers first).

use oxc_semantic::SymbolId;
use oxc_span::Span;
use rustc_hash::{FxHashMap, FxHashSet};

use super::uses::{Kind, Use};

/// Where a piece of code is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// In module `m`'s initializer.
    Body(usize),
    /// In what esbuild hoisted out of module `m` (its functions may run whenever).
    Hoisted(usize),
    /// In CommonJS module `c`.
    Commonjs(usize),
}

impl Owner {
    /// The ES module owning the code, if one does.
    pub(crate) fn esm(self) -> Option<usize> {
        match self {
            Owner::Body(m) | Owner::Hoisted(m) => Some(m),
            Owner::Commonjs(_) => None,
        }
    }
}

/// The order facts of one bundle.
pub(crate) struct Order {
    /// Spans of code and their owners, sorted by start.
    owners: Vec<(Span, Owner)>,
    /// The number of ES modules: nodes `0..n` are ES modules, `n..` CommonJS modules.
    n: usize,
    cyclic: Vec<bool>,
    /// For each ES module, the ES modules calling its initializer surely starts (itself too).
    starts: Vec<FxHashSet<usize>>,
    /// For each node, the ES modules whose initializers its own code calls.
    calls: Vec<Vec<usize>>,
    /// For each ES module, where the top level first surely starts it.
    top_start: Vec<Option<u32>>,
    /// The top level's function declarations (hoisted: they may run before where they are),
    /// sorted, and for each, the earliest position at which it may run.
    functions: Vec<(Span, SymbolId)>,
    earliest: Vec<u32>,
}

impl Order {
    /// `inits[m]` and `requires[c]`: the variables holding each ES module's initializer and
    /// each CommonJS module's require function; `owners`: every span of code a module owns.
    pub(crate) fn new(
        mut owners: Vec<(Span, Owner)>,
        inits: &[SymbolId],
        requires: &[Option<SymbolId>],
        uses: &[Use],
        functions: Vec<(Span, SymbolId)>,
    ) -> Order {
        owners.sort_by_key(|(s, _)| s.start);
        let n = inits.len();
        let init_of: FxHashMap<SymbolId, usize> =
            inits.iter().enumerate().map(|(m, s)| (*s, m)).collect();
        let require_of: FxHashMap<SymbolId, usize> = requires
            .iter()
            .enumerate()
            .filter_map(|(c, s)| s.map(|s| (s, n + c)))
            .collect();
        let mut order = Order {
            owners,
            n,
            cyclic: Vec::new(),
            starts: Vec::new(),
            calls: vec![Vec::new(); n + requires.len()],
            top_start: vec![None; n],
            functions,
            earliest: Vec::new(),
        };
        order.functions.sort_by_key(|(s, _)| s.start);
        let mut edges = vec![Vec::new(); n + requires.len()];
        let mut top_call: Vec<Option<u32>> = vec![None; n];
        for u in uses.iter().filter(|u| u.kind == Kind::Callee) {
            let esm = init_of.get(&u.symbol).copied();
            let Some(target) = esm.or_else(|| require_of.get(&u.symbol).copied()) else {
                continue;
            };
            match order.owner_of(u.at) {
                Some(owner) => {
                    let node = order.node(owner);
                    edges[node].push(target);
                    // What a hoisted function calls runs whenever it is called.
                    if let (Some(m), false) = (esm, matches!(owner, Owner::Hoisted(_))) {
                        order.calls[node].push(m);
                    }
                }
                None => {
                    if let Some(m) = esm {
                        top_call[m].get_or_insert(u.at);
                    }
                }
            }
        }
        order.cyclic = super::uses::on_cycle(&edges);
        order.starts = starts(n, &order.calls, &order.cyclic);
        for (x, at) in top_call.iter().enumerate() {
            let Some(at) = *at else { continue };
            // A call from the top level may still be made while `x` is running (from a
            // function its initializer calls), when `x` is on a cycle.
            let started: Vec<usize> = if order.cyclic[x] {
                vec![x]
            } else {
                order.starts[x].iter().copied().collect()
            };
            for m in started {
                let slot = &mut order.top_start[m];
                *slot = Some(slot.map_or(at, |s| s.min(at)));
            }
        }
        order.earliest = order.earliest_calls(uses);
        order
    }

    /// The top-level function declaration holding position `at`, if one does.
    fn function_at(&self, at: u32) -> Option<usize> {
        holding(&self.functions, at)
    }

    /// For each top-level function, the earliest position at which it may run: where it is
    /// named outside any function, or the earliest of the functions naming it (a function may
    /// call another), or the start when a module's code names it (that may run at any time).
    /// A function never named never runs (`u32::MAX`).
    fn earliest_calls(&self, uses: &[Use]) -> Vec<u32> {
        let index: FxHashMap<SymbolId, usize> = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, (_, s))| (*s, i))
            .collect();
        let k = self.functions.len();
        let mut earliest = vec![u32::MAX; k];
        // g -> f: function g names function f.
        let mut named_by: Vec<Vec<usize>> = vec![Vec::new(); k];
        for u in uses {
            let Some(&f) = index.get(&u.symbol) else {
                continue;
            };
            match self.function_at(u.at) {
                Some(g) if g != f => named_by[g].push(f),
                Some(_) => {}
                None if self.owner_of(u.at).is_some() => earliest[f] = 0,
                None => earliest[f] = earliest[f].min(u.at),
            }
        }
        // Spread the smallest values first: a function reached is then final.
        let mut sources: Vec<usize> = (0..k).filter(|&f| earliest[f] < u32::MAX).collect();
        sources.sort_by_key(|&f| earliest[f]);
        let mut done = vec![false; k];
        for source in sources {
            if done[source] {
                continue;
            }
            done[source] = true;
            let value = earliest[source];
            let mut stack = vec![source];
            while let Some(g) = stack.pop() {
                for &f in &named_by[g] {
                    if !done[f] {
                        done[f] = true;
                        earliest[f] = earliest[f].min(value);
                        stack.push(f);
                    }
                }
            }
        }
        earliest
    }

    fn node(&self, owner: Owner) -> usize {
        match owner {
            Owner::Body(m) | Owner::Hoisted(m) => m,
            Owner::Commonjs(c) => self.n + c,
        }
    }

    /// The owner of the code at `at`, if a module owns it.
    pub(crate) fn owner_of(&self, at: u32) -> Option<Owner> {
        holding(&self.owners, at).map(|i| self.owners[i].1)
    }

    /// Whether code at `at` surely runs after module `m`'s initializer started.
    pub(crate) fn after_start(&self, at: u32, m: usize) -> bool {
        match self.owner_of(at) {
            Some(owner) => {
                let node = self.node(owner);
                // A hoisted function of a module on a cycle may run while its module is still
                // calling its imports' initializers.
                if matches!(owner, Owner::Hoisted(_)) && self.cyclic[node] {
                    return false;
                }
                self.calls[node]
                    .iter()
                    .any(|&x| x == m || (!self.cyclic[x] && self.starts[x].contains(&m)))
            }
            None => {
                let Some(start) = self.top_start[m] else {
                    return false;
                };
                // In a function declared at the top level, the code runs when the function is
                // called, which may be wherever it, or a function calling it, is named.
                let called_early = self
                    .function_at(at)
                    .is_some_and(|f| self.earliest[f] <= start);
                start < at && !called_early
            }
        }
    }
}

/// The index of the span holding position `at`, among spans sorted by start that do not
/// overlap.
fn holding<T>(spans: &[(Span, T)], at: u32) -> Option<usize> {
    let i = spans.partition_point(|(s, _)| s.start <= at);
    i.checked_sub(1).filter(|&i| at < spans[i].0.end)
}

/// For each ES module, the ES modules calling its initializer surely starts: itself, and, for
/// each initializer its code calls, that module and (when it is on no cycle) what it starts.
fn starts(n: usize, calls: &[Vec<usize>], cyclic: &[bool]) -> Vec<FxHashSet<usize>> {
    let mut out: Vec<Option<FxHashSet<usize>>> = vec![None; n];
    for root in 0..n {
        // Iterative post-order: modules on no cycle form no loop among themselves.
        let mut stack = vec![(root, false)];
        while let Some((m, ready)) = stack.pop() {
            if out[m].is_some() {
                continue;
            }
            let next: Vec<usize> = calls[m]
                .iter()
                .copied()
                .filter(|&x| x != m && !cyclic[x] && out[x].is_none())
                .collect();
            if !ready && !next.is_empty() && !cyclic[m] {
                stack.push((m, true));
                stack.extend(next.into_iter().map(|x| (x, false)));
                continue;
            }
            let mut set = FxHashSet::default();
            set.insert(m);
            for &x in &calls[m] {
                set.insert(x);
                if !cyclic[x]
                    && x != m
                    && let Some(theirs) = &out[x]
                {
                    set.extend(theirs.iter().copied());
                }
            }
            out[m] = Some(set);
        }
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::starts;

    #[test]
    fn what_an_initializer_starts_goes_through_modules_on_no_cycle() {
        // 0 calls 1, 1 calls 2; 3 and 4 call each other (a cycle), 3 calls 2 too.
        let calls = vec![vec![1], vec![2], vec![], vec![4, 2], vec![3]];
        let cyclic = [false, false, false, true, true];
        let starts = starts(5, &calls, &cyclic);
        let sorted = |m: usize| {
            let mut v: Vec<usize> = starts[m].iter().copied().collect();
            v.sort();
            v
        };
        assert_eq!(sorted(0), [0, 1, 2]);
        assert_eq!(sorted(1), [1, 2]);
        // Through 4 (on a cycle) nothing further is sure.
        assert_eq!(sorted(3), [2, 3, 4]);
        assert_eq!(sorted(4), [3, 4]);
    }
}
