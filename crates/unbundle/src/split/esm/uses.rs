//! Every reference to a top-level name of an esbuild bundle, with what the de-hoisting needs to
//! know about it: whether it writes, whether it is called (its receiver may matter), whether it
//! is a shorthand property (`{area}`), and which initializer calls run before it in the same
//! sequence (`(init_a(), a_exports)`).

use oxc_ast::ast::{
    AssignmentExpression, AssignmentTarget, AssignmentTargetPropertyIdentifier, CallExpression,
    Class, Expression, ForInStatement, ForOfStatement, ForStatementLeft, Function,
    IdentifierReference, ObjectProperty, SequenceExpression, TaggedTemplateExpression,
    VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{ScopeFlags, Scoping, SymbolId};
use rustc_hash::{FxHashMap, FxHashSet};

use super::values::{Value, classify};

/// How a reference uses its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    /// The callee of a call or the tag of a template: `f()`, ``f`x` ``.
    Callee,
    /// The value of a shorthand property: `{f}`.
    Shorthand,
    /// `x = ...` with a value that ignores its receiver ([`super::values`]).
    SafeWrite,
    /// Any other write.
    Write,
}

/// One reference to a top-level name.
#[derive(Debug, Clone)]
pub(crate) struct Use {
    pub(crate) at: u32,
    pub(crate) end: u32,
    pub(crate) symbol: SymbolId,
    pub(crate) kind: Kind,
    /// Calls of top-level functions without arguments earlier in an enclosing sequence.
    pub(crate) after_calls: Vec<SymbolId>,
    /// The name is a shorthand target of a destructuring assignment (`({x} = o)`): a
    /// replacement must keep the key (`({x: y.x} = o)`).
    pub(crate) pattern_shorthand: bool,
    /// The name is assigned an anonymous function or class (`x = () => 1`), which takes its
    /// `name` from it: the assigned value's span, parentheses included.
    pub(crate) names_value: Option<oxc_span::Span>,
}

impl Use {
    pub(crate) fn writes(&self) -> bool {
        matches!(self.kind, Kind::SafeWrite | Kind::Write)
    }
}

/// Every use of a top-level name of a bundle, gathered in one pass over it, with the lookups
/// the CommonJS modules' names and the ES modules' planning both need.
pub(crate) struct TopLevel {
    /// In source order.
    list: Vec<Use>,
    by_symbol: FxHashMap<SymbolId, Vec<usize>>,
    /// The names assigned anywhere.
    written: FxHashSet<SymbolId>,
    /// The names whose every value, from each declaration and each assignment, ignores its
    /// receiver ([`super::values`]): a call through an object is the same as one without.
    receiver_free: FxHashSet<SymbolId>,
}

impl TopLevel {
    pub(crate) fn collect(program: &oxc_ast::ast::Program<'_>, scoping: &Scoping) -> TopLevel {
        let (mut list, (values, declared)) = collect(program, scoping);
        let mut by_symbol: FxHashMap<SymbolId, Vec<usize>> = FxHashMap::default();
        let mut written = FxHashSet::default();
        for (i, u) in list.iter().enumerate() {
            by_symbol.entry(u.symbol).or_default().push(i);
            if u.writes() {
                written.insert(u.symbol);
            }
        }
        // A factory is never assigned, and each of its declarations gives it one.
        let factory = |s: SymbolId| {
            !written.contains(&s)
                && declared
                    .get(&s)
                    .is_some_and(|all| all.iter().all(|v| *v == Value::Free { factory: true }))
        };
        let free = |v: &Value| match v {
            Value::Free { .. } => true,
            Value::CallOf(callee) => factory(*callee),
            Value::Other => false,
        };
        for u in list.iter_mut().filter(|u| u.writes()) {
            u.kind = if values.get(&u.at).is_some_and(free) {
                Kind::SafeWrite
            } else {
                Kind::Write
            };
        }
        let receiver_free = declared
            .iter()
            .filter(|(symbol, all)| {
                all.iter().all(free)
                    && by_symbol
                        .get(symbol)
                        .is_none_or(|uses| uses.iter().all(|&u| list[u].kind != Kind::Write))
            })
            .map(|(symbol, _)| *symbol)
            .collect();
        TopLevel {
            list,
            by_symbol,
            written,
            receiver_free,
        }
    }

    /// Whether every value `symbol` is ever given ignores its receiver: calling it through
    /// an object (`o.f()`) does what calling it alone does.
    pub(crate) fn receiver_free(&self, symbol: SymbolId) -> bool {
        self.receiver_free.contains(&symbol)
    }

    /// Every use, in source order.
    pub(crate) fn all(&self) -> &[Use] {
        &self.list
    }

    /// Every use of `symbol`.
    pub(crate) fn of(&self, symbol: SymbolId) -> impl Iterator<Item = &Use> + '_ {
        self.by_symbol
            .get(&symbol)
            .into_iter()
            .flatten()
            .map(|&u| &self.list[u])
    }

    /// The uses inside `span`.
    pub(crate) fn within(&self, span: oxc_span::Span) -> &[Use] {
        let from = self.list.partition_point(|u| u.at < span.start);
        let to = self.list.partition_point(|u| u.at < span.end);
        &self.list[from..to]
    }

    /// Whether `symbol` is assigned anywhere.
    pub(crate) fn written(&self, symbol: SymbolId) -> bool {
        self.written.contains(&symbol)
    }
}

/// What [`collect`] gathers besides the uses: the value each plain assignment gives (by where
/// its target starts), and the values each top-level name's declarations give it.
type Values = (FxHashMap<u32, Value>, FxHashMap<SymbolId, Vec<Value>>);

/// The references to top-level names in `program`, in source order (each write a
/// [`Kind::Write`] until [`TopLevel::collect`] has looked at its value), and their values.
fn collect(program: &oxc_ast::ast::Program<'_>, scoping: &Scoping) -> (Vec<Use>, Values) {
    let mut uses = Uses {
        scoping,
        out: Vec::new(),
        callee: FxHashSet::default(),
        shorthand: FxHashSet::default(),
        values: (FxHashMap::default(), FxHashMap::default()),
        pattern_shorthand: FxHashSet::default(),
        names_value: FxHashMap::default(),
        after_calls: Vec::new(),
    };
    uses.visit_program(program);
    let mut out = uses.out;
    out.sort_by_key(|u| u.at);
    (out, uses.values)
}

struct Uses<'s> {
    scoping: &'s Scoping,
    out: Vec<Use>,
    /// Where references that are callees or shorthand values start.
    callee: FxHashSet<u32>,
    shorthand: FxHashSet<u32>,
    values: Values,
    pattern_shorthand: FxHashSet<u32>,
    names_value: FxHashMap<u32, oxc_span::Span>,
    after_calls: Vec<SymbolId>,
}

impl Uses<'_> {
    fn top_level(&self, reference: &IdentifierReference<'_>) -> Option<SymbolId> {
        let symbol = crate::refs::symbol_of(self.scoping, reference)?;
        (self.scoping.symbol_scope_id(symbol) == self.scoping.root_scope_id()).then_some(symbol)
    }

    /// Records that a declaration gives top-level `symbol` (if it is one) `value`.
    fn declares(&mut self, symbol: Option<SymbolId>, value: Value) {
        if let Some(symbol) = symbol
            && self.scoping.symbol_scope_id(symbol) == self.scoping.root_scope_id()
        {
            self.values.1.entry(symbol).or_default().push(value);
        }
    }

    /// The names a `for-in` or `for-of` head declares are given values nobody can know.
    fn loop_head(&mut self, left: &ForStatementLeft<'_>) {
        if let ForStatementLeft::VariableDeclaration(declaration) = left {
            for declarator in &declaration.declarations {
                for binding in declarator.id.get_binding_identifiers() {
                    self.declares(binding.symbol_id.get(), Value::Other);
                }
            }
        }
    }
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        let Some(symbol) = self.top_level(it) else {
            return;
        };
        let write = it
            .reference_id
            .get()
            .is_some_and(|r| self.scoping.get_reference(r).is_write());
        let at = it.span.start;
        let kind = if write {
            Kind::Write
        } else if self.callee.contains(&at) {
            Kind::Callee
        } else if self.shorthand.contains(&at) {
            Kind::Shorthand
        } else {
            Kind::Read
        };
        self.out.push(Use {
            at,
            end: it.span.end,
            symbol,
            kind,
            after_calls: self.after_calls.clone(),
            pattern_shorthand: self.pattern_shorthand.contains(&at),
            names_value: self.names_value.get(&at).copied(),
        });
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(callee) = &it.callee {
            self.callee.insert(callee.span.start);
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        if let Expression::Identifier(tag) = &it.tag {
            self.callee.insert(tag.span.start);
        }
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        if it.shorthand
            && let Expression::Identifier(value) = &it.value
        {
            self.shorthand.insert(value.span.start);
        }
        walk::walk_object_property(self, it);
    }

    fn visit_assignment_target_property_identifier(
        &mut self,
        it: &AssignmentTargetPropertyIdentifier<'a>,
    ) {
        self.pattern_shorthand.insert(it.binding.span.start);
        walk::walk_assignment_target_property_identifier(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::AssignmentTargetIdentifier(target) = &it.left
            && !it.operator.is_arithmetic()
            && !it.operator.is_bitwise()
            && it
                .right
                .without_parentheses()
                .is_anonymous_function_definition()
        {
            self.names_value
                .insert(target.span.start, oxc_span::GetSpan::span(&it.right));
        }
        if it.operator.is_assign()
            && let AssignmentTarget::AssignmentTargetIdentifier(target) = &it.left
        {
            let value = classify(self.scoping, &it.right);
            self.values.0.insert(target.span.start, value);
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        let plain = it.id.get_binding_identifier();
        for binding in it.id.get_binding_identifiers() {
            let value = match (&it.init, plain.is_some()) {
                // `var x;` holds `undefined` until assigned.
                (None, true) => Value::Free { factory: false },
                (Some(init), true) => classify(self.scoping, init),
                _ => Value::Other,
            };
            self.declares(binding.symbol_id.get(), value);
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if it.is_declaration()
            && let Some(id) = &it.id
        {
            self.declares(id.symbol_id.get(), super::values::free_function(it));
        }
        walk::walk_function(self, it, flags);
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        if it.is_declaration()
            && let Some(id) = &it.id
        {
            self.declares(id.symbol_id.get(), Value::Free { factory: false });
        }
        walk::walk_class(self, it);
    }

    fn visit_for_in_statement(&mut self, it: &ForInStatement<'a>) {
        self.loop_head(&it.left);
        walk::walk_for_in_statement(self, it);
    }

    fn visit_for_of_statement(&mut self, it: &ForOfStatement<'a>) {
        self.loop_head(&it.left);
        walk::walk_for_of_statement(self, it);
    }

    fn visit_sequence_expression(&mut self, it: &SequenceExpression<'a>) {
        let depth = self.after_calls.len();
        for element in &it.expressions {
            self.visit_expression(element);
            // `init_a()`: what follows in the sequence runs after it.
            if let Expression::CallExpression(call) = element.without_parentheses()
                && call.arguments.is_empty()
                && let Expression::Identifier(callee) = &call.callee
                && let Some(symbol) = self.top_level(callee)
            {
                self.after_calls.push(symbol);
            }
        }
        self.after_calls.truncate(depth);
    }
}

/// The strongly connected components of a graph given by adjacency lists: for each node,
/// whether it lies on a cycle. Iterative (Tarjan), so deep graphs cannot overflow the stack.
pub(crate) fn on_cycle(edges: &[Vec<usize>]) -> Vec<bool> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut cyclic = vec![false; n];
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next edge to look at)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*e) {
                *e += 1;
                if w == v {
                    cyclic[v] = true;
                } else if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    for w in component {
                        cyclic[w] = true;
                    }
                }
            }
        }
    }
    cyclic
}

#[cfg(test)]
mod tests {
    use super::on_cycle;

    #[test]
    fn cycles_are_found_and_chains_are_not() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 and 4 (alone) are not on one; 5 calls itself.
        let edges = vec![vec![1], vec![2], vec![0], vec![0], vec![], vec![5]];
        assert_eq!(on_cycle(&edges), [true, true, true, false, false, true]);
    }
}
