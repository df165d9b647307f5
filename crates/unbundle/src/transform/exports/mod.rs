//! Two transforms that depend on what other modules do with a module's exports, so they run
//! in two passes: the first pass gathers each module's [`Facts`], [`plan`] decides from all of
//! them, and the second rewrites the modules the plan touches.
//!
//! - `calls`: `(0, x.f)(...)` → `x.f(...)`. The `0,` calls `f` without a receiver; dropping it
//!   makes `x` the receiver, which cannot matter when `x` is bound once to `require(ID)` and
//!   module ID's export `f` is, whenever it is read, a function that does not use `this` (an
//!   arrow, or a function whose body has no `this` outside inner functions), or not set yet.
//!   That holds for a webpack getter (`require.d`), which nothing can replace, and for a plain
//!   `exports.f = ...` only when no module of the bundle does anything with module ID's
//!   exports but read a named export or call it.
//! - `plain_exports`: webpack's `require.d(exports, {f: () => f, ...})` at the top of a module
//!   becomes `exports.f = f;` for each `f` that is a function declaration of the module never
//!   assigned (hoisted, so the getter and the property give the same function at every
//!   moment), keeping the others in `require.d` calls in the original order (so the
//!   properties keep their order). It applies only when nothing in the bundle does anything
//!   with the module's exports but read or call named exports (a getter ignores a write that
//!   a plain property takes) and the module itself uses its `exports` only by name.

mod bindings;
mod collects;
mod facts;
mod forwards;
mod helpers;
mod interop;
mod lazy;
mod nested;
mod own;
mod replaced;
mod rewrite;
mod star_loop;
mod swc;
mod tsc;

pub(crate) use bindings::function_declarations;
pub(crate) use facts::facts;
pub(crate) use helpers::rewrite as rewrite_helpers;
pub(crate) use interop::module_body;
pub(crate) use nested::{escaping as nested_escaping, rewrite_calls as rewrite_nested_calls};
pub(crate) use own::{OwnUses, escapes as own_escapes, rewrite as rewrite_own_calls};
pub(crate) use rewrite::{plain_exports, rewrite_calls};

use rustc_hash::{FxHashMap, FxHashSet};

/// The name under which calls of an interop helper's `default` are planned: `(0, y.default)()`
/// with `y = __importDefault(require(ID))` (or `__importStar`), whose `default` is module ID's
/// `default` or its exports object itself (never a property name, so never a real export's).
pub(crate) const WRAPPED_DEFAULT: &str = "default through an interop helper";

/// What the first pass learns of one module.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Exports that are, whenever read, one function that does not use `this` (or unset).
    pub(crate) receiver_free: Vec<String>,
    /// Exports defined by webpack getters (`require.d`).
    pub(crate) getters: Vec<String>,
    /// The module uses its own `exports` other than by name (passes it on, replaces it,
    /// indexes it): nothing is known of its exports.
    pub(crate) opaque: bool,
    /// Modules whose exports this module uses other than by reading or calling a named export.
    pub(crate) escapes: Vec<String>,
    /// `(0, x.f)(...)` calls into other modules: (module id, export name).
    pub(crate) calls: Vec<(String, String)>,
    /// The module has a `require.d` getter of a function declaration at its top level.
    pub(crate) defines: bool,
    /// The module marks itself an ES module at its top level (`require.r(exports)`).
    pub(crate) marks: bool,
    /// Modules whose ES module mark this module reads (`require.n(x)`, `x.__esModule`).
    pub(crate) marks_read: Vec<String>,
    /// The module reads its own mark (`exports.__esModule`).
    pub(crate) reads_own_mark: bool,
    /// Exports whose getters return another module's export: (name, module id, its name).
    pub(crate) reexports: Vec<(String, String, String)>,
    /// Every name the module defines on its exports.
    pub(crate) exported: Vec<String>,
    /// The modules whose exports tsc's `__exportStar` copies onto this module's, in order
    /// (`None`: not a module of the bundle).
    pub(crate) stars: Vec<Option<String>>,
    /// The module replaces its exports with one function that does not use `this`, and
    /// nothing in it can give that function (or the exports object it replaces) a property
    /// (see `replaced.rs`).
    pub(crate) replaced_by_receiver_free: bool,
    /// The module replaces its exports as for `replaced_by_receiver_free`, but with what a
    /// call of this module's exports returns (ramda's `module.exports = curry2(...)`, through
    /// a variable): see `replaced::by_call_of`.
    pub(crate) replaced_by_call_of: Option<replaced::CallOf>,
    /// The module replaces its exports with a function whose every call returns a function
    /// that ignores its receiver (or nothing callable), or passes it on only to the function
    /// the call was given: see `replaced::factory`.
    pub(crate) factory: Option<replaced::Factory>,
    /// Modules whose exports this module reads as an interop helper's `default` other than to
    /// call it (`g(y.default)`, `y.default.f = 1`): what the module's exports are is handed on.
    pub(crate) defaults_handed: Vec<String>,
    /// The modules whose exports this module hands on as its own (`module.exports =
    /// require_x()`, see `forwards.rs`), when that is all it does with its exports.
    pub(crate) forwards: Vec<String>,
    /// The (name, module id) pairs of a module that only collects other modules' exports as
    /// its named exports (`module.exports.pick = require_pick()`, see `collects.rs`).
    pub(crate) collects: Vec<(String, String)>,
    /// The (module id, name) pairs of other modules' named exports this module reads other
    /// than as a callee (`g(x.f)`, `const {f} = x`).
    pub(crate) named_handed: Vec<(String, String)>,
}

/// What the second pass may do.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// (module id, export name) whose `(0, x.f)(...)` calls can drop the `0`.
    pub(crate) calls: FxHashSet<(String, String)>,
    /// Modules whose `require.d` getters of function declarations become plain exports.
    pub(crate) plain_exports: FxHashSet<String>,
    /// Modules whose `require.r(exports)` nothing can observe: it goes.
    pub(crate) unmarked: FxHashSet<String>,
}

impl Plan {
    /// Whether module `id`, with `facts`, has anything to rewrite in the second pass.
    pub(crate) fn touches(&self, id: &str, facts: &Facts) -> bool {
        self.plain_exports.contains(id)
            || self.unmarked.contains(id)
            || facts.calls.iter().any(|c| self.calls.contains(c))
    }
}

/// Decides from every module's facts what the second pass may do.
pub(crate) fn plan<'f>(
    modules: impl Iterator<Item = (&'f str, &'f Facts)> + Clone,
    calls: bool,
    plain_exports: bool,
    helpers: bool,
) -> Plan {
    let escaped: FxHashSet<&str> = modules
        .clone()
        .flat_map(|(_, f)| f.escapes.iter().map(String::as_str))
        .collect();
    let read: FxHashSet<&str> = modules
        .clone()
        .flat_map(|(_, f)| f.marks_read.iter().map(String::as_str))
        .collect();
    let handed: FxHashSet<&str> = modules
        .clone()
        .flat_map(|(_, f)| f.defaults_handed.iter().map(String::as_str))
        .collect();
    let escaped = forwarded_escapes(modules.clone(), escaped, &handed);
    let factories = factories(modules.clone());
    let mut plan = Plan::default();
    for (id, facts) in modules.clone() {
        // A wrapper's `default` is then, whenever a call reads it, that function or the
        // exports object before the replacement (not callable: a call throws either way).
        if calls && replaced(facts, &factories) && !escaped.contains(id) && !handed.contains(id) {
            plan.calls
                .insert((id.to_owned(), WRAPPED_DEFAULT.to_owned()));
        }
        if facts.opaque {
            continue;
        }
        // A wrapper's `default` handed on or written to (`y.default.f = g`) may be the
        // exports object itself (node's mode, or a module not marked `__esModule`).
        let fixed = !escaped.contains(id) && !handed.contains(id);
        if calls {
            for name in &facts.receiver_free {
                if fixed || facts.getters.contains(name) {
                    plan.calls.insert((id.to_owned(), name.clone()));
                }
            }
        }
        if plain_exports && fixed && facts.defines {
            plan.plain_exports.insert(id.to_owned());
        }
        // Its mark (`__esModule`, and `Symbol.toStringTag` "Module") is seen only by code
        // that reads it by name or holds the exports object itself.
        if helpers && fixed && facts.marks && !facts.reads_own_mark && !read.contains(id) {
            plan.unmarked.insert(id.to_owned());
        }
    }
    if calls {
        plan.calls
            .extend(collected(modules.clone(), &escaped, &handed, &factories));
    }
    // A getter returning another module's export is as receiver-free as that export, and so
    // is a name copied by star re-exports, through chains of them.
    if calls {
        let by_id: FxHashMap<&str, &Facts> = modules.clone().collect();
        loop {
            let mut more = Vec::new();
            for (id, facts) in modules.clone() {
                // Its exports are replaced by theirs: it is opaque, but known.
                if !escaped.contains(id) && !handed.contains(id) {
                    more.extend(forwarded(id, &facts.forwards, &plan));
                }
                if facts.opaque {
                    continue;
                }
                for (name, from, theirs) in &facts.reexports {
                    let key = (id.to_owned(), name.clone());
                    if !plan.calls.contains(&key)
                        && plan.calls.contains(&(from.clone(), theirs.clone()))
                    {
                        more.push(key);
                    }
                }
                if !escaped.contains(id) {
                    more.extend(starred(id, facts, &by_id, &escaped, &plan));
                }
            }
            more.retain(|key| !plan.calls.contains(key));
            if more.is_empty() {
                break;
            }
            plan.calls.extend(more);
        }
        // A wrapper's `default` is the module's own `default` whenever the module is not
        // replaced, and modules with a `default` the plan allows are never replaced.
        let defaults: Vec<(String, String)> = plan
            .calls
            .iter()
            .filter(|(_, name)| name == "default")
            .map(|(id, _)| (id.clone(), WRAPPED_DEFAULT.to_owned()))
            .collect();
        plan.calls.extend(defaults);
    }
    plan
}

/// The modules that replace their exports with a function every call of which returns a
/// function that ignores its receiver, or passes it on only to the function it was given
/// (`replaced::factory`).
fn factories<'f>(
    modules: impl Iterator<Item = (&'f str, &'f Facts)>,
) -> FxHashMap<&'f str, replaced::Factory> {
    modules
        .filter_map(|(id, f)| Some((id, f.factory?)))
        .collect()
}

/// Whether the module replaces its exports with a function that ignores its receiver: one
/// written out, or what a call of one of `factories` returns (of one that passes its
/// receiver on, given a function that ignores it).
fn replaced(facts: &Facts, factories: &FxHashMap<&str, replaced::Factory>) -> bool {
    facts.replaced_by_receiver_free
        || facts.replaced_by_call_of.as_ref().is_some_and(|call| {
            match factories.get(call.factory.as_str()) {
                Some(replaced::Factory::Fresh) => true,
                Some(replaced::Factory::Forwarding) => call.argument_free,
                None => false,
            }
        })
}

/// `escaped` with the modules whose exports a module that hands them on as its own lets
/// escape (what is done with its exports is done with theirs), and those an index collects
/// (`collects.rs`) whose name some module reads other than as a callee or whose index's
/// exports escape, through chains of them.
fn forwarded_escapes<'f>(
    modules: impl Iterator<Item = (&'f str, &'f Facts)> + Clone,
    mut escaped: FxHashSet<&'f str>,
    handed: &FxHashSet<&str>,
) -> FxHashSet<&'f str> {
    let named_handed: FxHashSet<(&str, &str)> = modules
        .clone()
        .flat_map(|(_, f)| f.named_handed.iter().map(|(m, n)| (m.as_str(), n.as_str())))
        .collect();
    for (id, facts) in modules.clone() {
        escaped.extend(
            facts
                .collects
                .iter()
                .filter(|(name, _)| named_handed.contains(&(id, name.as_str())))
                .map(|(_, target)| target.as_str()),
        );
    }
    loop {
        let more: Vec<&str> = modules
            .clone()
            .filter(|(id, _)| escaped.contains(id) || handed.contains(id))
            .flat_map(|(_, f)| {
                let collected = f.collects.iter().map(|(_, target)| target);
                f.forwards.iter().chain(collected).map(String::as_str)
            })
            .filter(|t| !escaped.contains(t))
            .collect();
        if more.is_empty() {
            return escaped;
        }
        escaped.extend(more);
    }
}

/// The names of the indexes (`collects.rs`) whose exports do not escape that need no
/// receiver: every module the index sets under the name replaces its exports with a function
/// that ignores its receiver, and its exports do not escape (nor does the index's name, read
/// only as a callee, hand them on: see `forwarded_escapes`).
fn collected<'f>(
    modules: impl Iterator<Item = (&'f str, &'f Facts)> + Clone,
    escaped: &FxHashSet<&str>,
    handed: &FxHashSet<&str>,
    factories: &FxHashMap<&str, replaced::Factory>,
) -> Vec<(String, String)> {
    let by_id: FxHashMap<&str, &Facts> = modules.clone().collect();
    let free = |target: &str| {
        !escaped.contains(target)
            && !handed.contains(target)
            && by_id.get(target).is_some_and(|f| replaced(f, factories))
    };
    let mut out = Vec::new();
    for (id, facts) in modules.filter(|(id, _)| !escaped.contains(id) && !handed.contains(id)) {
        for (name, _) in &facts.collects {
            let mut targets = facts.collects.iter().filter(|(n, _)| n == name);
            let key = (id.to_owned(), name.clone());
            if targets.all(|(_, target)| free(target)) && !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}

/// The names of module `id`, which hands on the exports of the modules `targets` (its own
/// not escaped), that need no receiver: those every target's need none (`default` left out:
/// through a wrapper it may be the exports object itself).
fn forwarded(id: &str, targets: &[String], plan: &Plan) -> Vec<(String, String)> {
    let Some(first) = targets.first() else {
        return Vec::new();
    };
    plan.calls
        .iter()
        .filter(|(from, name)| from == first && name != "default" && !name.contains(' '))
        .filter(|(_, name)| {
            targets
                .iter()
                .all(|t| plan.calls.contains(&(t.clone(), name.clone())))
        })
        .map(|(_, name)| (id.to_owned(), name.clone()))
        .collect()
}

/// The names module `id` (its exports fixed) gets from its star re-exports that need no
/// receiver: a name it does not define itself is, whenever read, the first source's that had
/// it when the star ran, or missing (a call throws either way). So it needs none when every
/// source either has it needing none or surely never has it (a fixed module that does not
/// define it and copies nothing itself).
fn starred(
    id: &str,
    facts: &Facts,
    by_id: &FxHashMap<&str, &Facts>,
    escaped: &FxHashSet<&str>,
    plan: &Plan,
) -> Vec<(String, String)> {
    let Some(sources) = facts
        .stars
        .iter()
        .map(|s| {
            let s = s.as_deref()?;
            by_id.get(s).filter(|f| !f.opaque).map(|f| (s, *f))
        })
        .collect::<Option<Vec<_>>>()
    else {
        return Vec::new();
    };
    let has = |source: &str, name: &str| plan.calls.contains(&(source.to_owned(), name.to_owned()));
    let mut out = Vec::new();
    for (source, _) in &sources {
        for (from, name) in plan.calls.iter() {
            if from != source || facts.exported.contains(name) {
                continue;
            }
            let every = sources.iter().all(|(s, f)| {
                has(s, name)
                    || (!f.exported.contains(name) && f.stars.is_empty() && !escaped.contains(s))
            });
            let key = (id.to_owned(), name.clone());
            if every && !plan.calls.contains(&key) && !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}
