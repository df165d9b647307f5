//! esbuild's wrapped ES modules made into module files. esbuild wraps an ES module in its
//! `__esm` helper when it must run lazily (it is required, loaded with `import()`, or imported
//! by another wrapped module) and hoists the module's functions and variables out of the
//! wrapper to the bundle's top level, where importers use them by name; the wrapper only
//! assigns them. To give such a module a file of its own, its hoisted declarations move into
//! the file with its initializer's body, and every use of them elsewhere becomes a property
//! read on the module's namespace object (`area(2)` becomes `shapes_exports.area(2)`, or
//! `(0, shapes_exports.whoAmI)()` when the function uses its receiver), which the file
//! defines getters on when it starts, before any of its code runs. A module with no namespace
//! object gets one of its own (`var words_exports = {};`).
//!
//! The move keeps the bundle's behaviour when nothing reads a moved name before the module's
//! file has started, that is, before its initializer first ran. So a module moves only when:
//!
//! - nothing outside it assigns its names (ES imports cannot), and each use of them outside
//!   follows a call of its initializer: in the same wrapped function, or earlier at the top
//!   level; a use in another module's hoisted function needs that module to call the
//!   initializer and not to be on a cycle of modules requiring each other (on a cycle, the
//!   function may run before its module's initializer got that far);
//! - its namespace object is only read right after a call of its initializer
//!   (`(init_a(), a_exports)`, as esbuild writes it), since its getters are defined later
//!   than before;
//! - its initializer is a plain function (not `async`) that does not use `this` or
//!   `arguments`, and its file reads no bundle variable that is assigned anywhere (the file
//!   gets the values when it runs); a module that stays makes those that use its names stay.
//!   An `async` initializer (Bun's, top-level `await`) always keeps its declarations; its
//!   body still gets a file, which the loader runs as an async function's body.

mod check;
mod find;
mod order;
mod rewrite;
pub(crate) mod uses;
pub(crate) mod values;

use std::borrow::Cow;

use oxc_ast::ast::{Program, Statement};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::Span;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::recognize::esbuild::Helpers;
use crate::split::units::{Node, Unit};
use order::{Order, Owner};
pub(crate) use uses::TopLevel;
use uses::Use;

/// A CommonJS module function's span and the variable it is bound to.
pub(crate) type Bound = (Span, Option<SymbolId>);

/// A wrapped ES module, moved to a file.
#[derive(Debug, Clone)]
pub(crate) struct EsmModule {
    /// The variable holding its initializer (`init_shapes`, or a minified name).
    pub(crate) id: String,
    /// The source path esbuild keyed it by, when the bundle is not minified.
    pub(crate) source_path: Option<String>,
    /// The module function in the bundle: replaced by the loader's.
    pub(crate) function: Span,
    /// The function is a method (`"path"() {...}`).
    pub(crate) method: bool,
    /// The variable the rest of the bundle reads its names through.
    pub(crate) namespace: String,
    /// The module file as a function of its namespace object: `function (ns) {...}`.
    pub(crate) source: String,
    /// Top-level names of the bundle the file uses, in first-use order.
    pub(crate) outer: Vec<String>,
}

/// A wrapped ES module whose hoisted declarations stay in the bundle.
#[derive(Debug, Clone)]
pub(crate) struct Kept {
    /// The variable holding its initializer.
    pub(crate) id: String,
    /// The module function in the bundle.
    pub(crate) function: Span,
    /// The function is a method (`"path"() {...}`).
    pub(crate) method: bool,
    pub(crate) source_path: Option<String>,
    /// The function uses `this` or `arguments` of its own: it cannot run elsewhere.
    pub(crate) uses_own_this: bool,
    /// The function is `async`.
    pub(crate) asynchronous: bool,
    /// Its namespace object's variable, when esbuild gave it one.
    pub(crate) namespace: Option<String>,
}

/// What moving the wrapped ES modules changes in the bundle.
#[derive(Debug, Default)]
pub(crate) struct Moved {
    pub(crate) modules: Vec<EsmModule>,
    /// The wrapped modules whose hoisted declarations stay in the bundle, by variable.
    pub(crate) stayed: Vec<String>,
    /// Those modules' wrappers: their initializers' bodies still move into files (see
    /// [`crate::split::esbuild`]), reaching the declarations left in the bundle by name.
    pub(crate) kept: Vec<Kept>,
    /// Edits of the bundle besides replacing the module functions: the hoisted declarations
    /// removed, namespace objects added.
    pub(crate) edits: Vec<(Span, String)>,
    /// What the entry must leave in place: every `__esm` call and what moved, sorted.
    pub(crate) taken: Vec<Span>,
    /// Uses of moved names rewritten, and namespace objects renamed, sorted by position.
    substitutions: Vec<(Span, String)>,
    /// The name code outside a moved module uses instead of a name it moved or renamed.
    names: FxHashMap<SymbolId, String>,
    /// The names moved into files.
    members: FxHashSet<SymbolId>,
}

impl Moved {
    /// Whether `symbol` moved into a module file (its uses read a namespace object instead).
    pub(crate) fn is_member(&self, symbol: SymbolId) -> bool {
        self.members.contains(&symbol)
    }

    /// The bundle variable code outside the moved modules reads instead of `symbol`, when it
    /// is not `symbol` itself: a moved name's namespace, or a namespace object's new name.
    pub(crate) fn name_of(&self, symbol: SymbolId) -> Option<&str> {
        self.names.get(&symbol).map(String::as_str)
    }

    /// The text of `span` with the substitutions in it made.
    pub(crate) fn splice<'t>(&self, text: &'t str, span: Span) -> Cow<'t, str> {
        let from = self
            .substitutions
            .partition_point(|(s, _)| s.start < span.start);
        let to = self
            .substitutions
            .partition_point(|(s, _)| s.end <= span.end);
        if from >= to {
            return Cow::Borrowed(&text[span.start as usize..span.end as usize]);
        }
        let mut out = String::with_capacity((span.end - span.start) as usize + 64);
        self.splice_into(&mut out, text, span.start as usize, span.end as usize);
        Cow::Owned(out)
    }

    /// The text of `span` with the substitutions in it made, and those of `extra` inside it
    /// (none overlapping another).
    pub(crate) fn splice_with<'t>(
        &self,
        text: &'t str,
        span: Span,
        extra: &[(Span, String)],
    ) -> Cow<'t, str> {
        if extra.is_empty() {
            return self.splice(text, span);
        }
        let from = self
            .substitutions
            .partition_point(|(s, _)| s.start < span.start);
        let to = self
            .substitutions
            .partition_point(|(s, _)| s.end <= span.end)
            .max(from);
        // Only those inside `span`.
        let inside = extra
            .iter()
            .filter(|(s, _)| s.start >= span.start && s.end <= span.end);
        let mut all: Vec<&(Span, String)> =
            self.substitutions[from..to].iter().chain(inside).collect();
        // An insertion goes before a replacement starting at the same place.
        all.sort_by_key(|(s, _)| (s.start, s.end));
        let mut out = String::with_capacity((span.end - span.start) as usize + 64);
        let mut at = span.start as usize;
        for (s, replacement) in all {
            if (s.start as usize) < at {
                continue;
            }
            out.push_str(&text[at..s.start as usize]);
            out.push_str(replacement);
            at = s.end as usize;
        }
        out.push_str(&text[at..span.end as usize]);
        Cow::Owned(out)
    }

    /// Appends `text[from..to]` to `out` with the substitutions in it made.
    pub(crate) fn splice_into(&self, out: &mut String, text: &str, from: usize, to: usize) {
        let first = self
            .substitutions
            .partition_point(|(s, _)| (s.start as usize) < from);
        let mut at = from;
        for (span, replacement) in &self.substitutions[first..] {
            if span.end as usize > to {
                break;
            }
            out.push_str(&text[at..span.start as usize]);
            out.push_str(replacement);
            at = span.end as usize;
        }
        out.push_str(&text[at..to]);
    }
}

/// Top-level variables holding esbuild's `__esm` helper.
pub(crate) fn helpers(program: &Program<'_>) -> FxHashSet<SymbolId> {
    find::helpers(program)
}

/// Plans moving the wrapped ES modules of an esbuild bundle (`program`, its text `text`, its
/// `__esm` helpers `helpers`, the uses of its top-level names `uses`) into files. `commonjs`:
/// the spans of its CommonJS module functions and the variables they are bound to.
/// `keep_declarations`: no module's hoisted declarations move (an ES module file may export
/// them); every module is then left for its initializer alone to move.
pub(crate) fn plan(
    program: &Program<'_>,
    scoping: &Scoping,
    text: &str,
    (helpers, uses, commonjs): (&Helpers, &TopLevel, &[Bound]),
    keep_declarations: bool,
) -> Moved {
    if helpers.is_empty() {
        return Moved::default();
    }
    let units = crate::split::units::units(&program.body);
    let wrapped = find::wrapped(&units, scoping, helpers);
    if wrapped.is_empty() {
        return Moved::default();
    }
    let mut cx = Context {
        scoping,
        text,
        units,
        wrapped,
        hoisted: Vec::new(),
        uses,
    };
    let hoisted: Vec<find::Hoisted> = cx
        .wrapped
        .iter()
        .map(|w| {
            find::hoisted(&cx.units, scoping, w, &|s| {
                cx.uses_of(s).any(|u| u.after_calls.contains(&w.init))
            })
        })
        .collect();
    cx.hoisted = hoisted;
    for m in 0..cx.wrapped.len() {
        let keep = check::claimed(&cx, m);
        cx.hoisted[m].members.retain(|(_, s)| keep.contains(s));
    }
    // What a module's hoisted function does runs after that module started only if the
    // module moves (staying, the function can be called from anywhere at any time): assume
    // all move, and check again with fewer until the answer holds.
    // An async initializer (top-level `await`) keeps its declarations: only its body moves.
    let mut moving: Vec<bool> = cx
        .wrapped
        .iter()
        .map(|w| !keep_declarations && !w.asynchronous)
        .collect();
    if keep_declarations {
        let order = cx.order(commonjs, &moving);
        return rewrite::apply(&cx, &order, &moving);
    }
    loop {
        let order = cx.order(commonjs, &moving);
        let next = check::settle(&cx, &order, &moving);
        if next == moving {
            return rewrite::apply(&cx, &order, &moving);
        }
        moving = next;
    }
}

/// What the planning steps share: the bundle's top-level units, its wrapped modules and what
/// esbuild hoisted out of each, and every use of a top-level name.
struct Context<'c, 'n, 'a> {
    scoping: &'c Scoping,
    text: &'c str,
    units: Vec<Unit<'n, 'a>>,
    wrapped: Vec<find::Wrapped>,
    hoisted: Vec<find::Hoisted>,
    uses: &'c TopLevel,
}

impl Context<'_, '_, '_> {
    /// Every use of `symbol`.
    fn uses_of(&self, symbol: SymbolId) -> impl Iterator<Item = &Use> + '_ {
        self.uses.of(symbol)
    }

    /// The uses inside `span`.
    fn within(&self, span: Span) -> &[Use] {
        self.uses.within(span)
    }

    fn span(&self, unit: usize) -> Span {
        self.units[unit].node.span()
    }

    /// The spans of code that go into module `m`'s file: its function, its getters call and
    /// its hoisted declarations.
    fn file_spans(&self, m: usize) -> Vec<Span> {
        let h = &self.hoisted[m];
        let mut spans = vec![self.wrapped[m].function];
        spans.extend(h.export_call.map(|u| self.span(u)));
        spans.extend(h.members.iter().map(|(u, _)| self.span(*u)));
        spans
    }

    /// Whether code at `at` is module `m`'s own.
    fn owned_by(&self, order: &Order, at: u32, m: usize) -> bool {
        order.owner_of(at).and_then(Owner::esm) == Some(m)
    }

    /// The order facts, with the hoisted code of the modules `moving` says move owned by them.
    fn order(&self, commonjs: &[(Span, Option<SymbolId>)], moving: &[bool]) -> Order {
        let mut owners = Vec::new();
        for (m, (w, h)) in self.wrapped.iter().zip(&self.hoisted).enumerate() {
            owners.push((w.function, Owner::Body(m)));
            if !moving[m] {
                continue;
            }
            for unit in h.export_call.iter().chain(h.members.iter().map(|(u, _)| u)) {
                owners.push((self.span(*unit), Owner::Hoisted(m)));
            }
        }
        for (c, (span, _)) in commonjs.iter().enumerate() {
            owners.push((*span, Owner::Commonjs(c)));
        }
        let inits: Vec<SymbolId> = self.wrapped.iter().map(|w| w.init).collect();
        let requires: Vec<Option<SymbolId>> = commonjs.iter().map(|(_, s)| *s).collect();
        let functions = self
            .units
            .iter()
            .filter_map(|u| match &u.node {
                Node::Statement(Statement::FunctionDeclaration(f)) => {
                    f.id.as_ref()
                        .and_then(|id| id.symbol_id.get())
                        .map(|s| (u.node.span(), s))
                }
                _ => None,
            })
            .collect();
        Order::new(owners, &inits, &requires, self.uses.all(), functions)
    }
}
