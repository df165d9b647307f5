//! What names in a module refer to, asked the same way everywhere: the symbol a reference (or
//! a plain-name expression) resolves to, webpack's require helpers (`require.d`, ...), the
//! variable a `require.d` getter returns, whether code uses its function's own `this`, and the
//! symbols of a module function's parameters ([`Wrapper`]).

use oxc_ast::ast::{Argument, Expression, IdentifierReference, Statement};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{ScopeId, Scoping, SymbolId};
use oxc_syntax::scope::ScopeFlags;

/// The symbol `reference` resolves to; `None` for a global.
pub(crate) fn symbol_of(
    scoping: &Scoping,
    reference: &IdentifierReference<'_>,
) -> Option<SymbolId> {
    reference
        .reference_id
        .get()
        .and_then(|r| scoping.get_reference(r).symbol_id())
}

/// The symbol `expr` names, when it is a plain name (parentheses aside).
pub(crate) fn expression_symbol(scoping: &Scoping, expr: &Expression<'_>) -> Option<SymbolId> {
    match expr.without_parentheses() {
        Expression::Identifier(i) => symbol_of(scoping, i),
        _ => None,
    }
}

/// Whether `expr` is `require.NAME` with the module's require parameter `require`.
pub(crate) fn is_require_helper(
    scoping: &Scoping,
    require: Option<SymbolId>,
    expr: &Expression<'_>,
    name: &str,
) -> bool {
    matches!(expr.without_parentheses(), Expression::StaticMemberExpression(m)
        if m.property.name == name
            && require.is_some()
            && expression_symbol(scoping, &m.object) == require)
}

/// The variable a getter returns: `() => x` (webpack 5), `function () { return x; }`
/// (webpack 4).
pub(crate) fn getter_value<'o, 'a>(
    getter: &'o Expression<'a>,
) -> Option<&'o IdentifierReference<'a>> {
    match getter_returns(getter)? {
        Expression::Identifier(i) => Some(i),
        _ => None,
    }
}

/// The property of another object a getter returns: `() => x.f`, `function () { return x.f;
/// }` (a re-export, as webpack and tsc write them).
pub(crate) fn getter_member<'o, 'a>(
    getter: &'o Expression<'a>,
) -> Option<&'o oxc_ast::ast::StaticMemberExpression<'a>> {
    match getter_returns(getter)? {
        Expression::StaticMemberExpression(m) => Some(m),
        _ => None,
    }
}

/// What a getter of no parameters returns, when its body is only that.
fn getter_returns<'o, 'a>(getter: &'o Expression<'a>) -> Option<&'o Expression<'a>> {
    match getter.without_parentheses() {
        Expression::ArrowFunctionExpression(f) if f.is_expression() => f.get_expression(),
        Expression::FunctionExpression(f) if f.params.items.is_empty() => {
            match f.body.as_ref()?.statements.as_slice() {
                [Statement::ReturnStatement(r)] => r.argument.as_ref(),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether the code `visit` walks uses the `this` of the function it belongs to: outside inner
/// non-arrow functions (classes count, conservatively), or through a direct `eval`, which can
/// read it; with `arguments`, also that function's `arguments`.
pub(crate) fn uses_own_this(arguments: bool, visit: impl FnOnce(&mut OwnThis)) -> bool {
    let mut finder = OwnThis {
        found: false,
        arguments,
    };
    visit(&mut finder);
    finder.found
}

/// Whether function `f` (its parameters' defaults and its body) uses its own `this`.
pub(crate) fn function_uses_this(f: &oxc_ast::ast::Function<'_>) -> bool {
    uses_own_this(false, |t| {
        if let Some(body) = &f.body {
            t.visit_function_body(body);
        }
        t.visit_formal_parameters(&f.params);
    })
}

/// See [`uses_own_this`].
pub(crate) struct OwnThis {
    found: bool,
    arguments: bool,
}

impl<'a> Visit<'a> for OwnThis {
    fn visit_this_expression(&mut self, _: &oxc_ast::ast::ThisExpression) {
        self.found = true;
    }
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if self.arguments && it.name == "arguments" {
            self.found = true;
        }
    }
    fn visit_function(&mut self, _: &oxc_ast::ast::Function<'a>, _: ScopeFlags) {}
    /// A class's methods, field initializers and static blocks have a `this` of their own;
    /// only what it extends and its computed keys read the surrounding one.
    fn visit_class(&mut self, it: &oxc_ast::ast::Class<'a>) {
        if let Some(heritage) = &it.heritage {
            self.visit_expression(&heritage.expression);
        }
        for element in &it.body.body {
            let key = match element {
                oxc_ast::ast::ClassElement::MethodDefinition(m) if m.computed => Some(&m.key),
                oxc_ast::ast::ClassElement::PropertyDefinition(p) if p.computed => Some(&p.key),
                oxc_ast::ast::ClassElement::AccessorProperty(p) if p.computed => Some(&p.key),
                _ => None,
            };
            if let Some(key) = key {
                self.visit_property_key(key);
            }
        }
    }
    fn visit_call_expression(&mut self, it: &oxc_ast::ast::CallExpression<'a>) {
        if matches!(&it.callee, Expression::Identifier(i) if i.name == "eval") {
            self.found = true;
        }
        walk::walk_call_expression(self, it);
    }
}

/// The module function's parameters, as symbols, and its scope.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wrapper {
    /// webpack's require parameter (calls `require(ID)`); `None` for esbuild, whose modules
    /// call a top-level function named like the module (`require_x()`).
    pub(crate) require: Option<SymbolId>,
    pub(crate) exports: Option<SymbolId>,
    pub(crate) module: Option<SymbolId>,
    /// The function's own scope: only variables declared there take an export's name.
    pub(crate) scope: ScopeId,
    /// The bundle's `__toESM` helper as the module reads it, a name from outside (esbuild's
    /// modules; see `requires/to_esm.rs`).
    pub(crate) to_esm: Option<HelperName>,
    /// The bundle's `__name` helper as the module reads it, when it hands back the function it
    /// names (see `requires/namer.rs`).
    pub(crate) namer: Option<HelperName>,
    /// An ES module's initializer the module calls first, which runs no code that could reach
    /// the module's exports (see `split/quiet.rs`): its leading helpers come after it.
    pub(crate) quiet_init: Option<HelperName>,
    /// The function's parameters that take the bundle's names by value (the entry's function
    /// is given them so, a module's reads them free): the first and the last, whose symbols
    /// are consecutive.
    pub(crate) given: Option<(SymbolId, SymbolId)>,
}

impl Wrapper {
    /// Whether `i` reads one of the bundle's names: free in the module, or one of the
    /// parameters the function is given them by, never assigned.
    pub(crate) fn reads_bundle_name(&self, scoping: &Scoping, i: &IdentifierReference<'_>) -> bool {
        match symbol_of(scoping, i) {
            None => true,
            Some(s) => {
                self.given
                    .is_some_and(|(first, last)| first <= s && s <= last)
                    && !scoping.get_resolved_references(s).any(|r| r.is_write())
            }
        }
    }

    /// `expr`, or the function a call of the module's `__name` helper around it hands back:
    /// `namer(function () {...}, "get")` is that function, its `name` set.
    pub(crate) fn unnamed<'e, 'a>(
        &self,
        scoping: &Scoping,
        expr: &'e Expression<'a>,
    ) -> &'e Expression<'a> {
        if let (Some(namer), Expression::CallExpression(call)) =
            (self.namer, expr.without_parentheses())
            && let Expression::Identifier(callee) = &call.callee
            && namer.is(&callee.name)
            && self.reads_bundle_name(scoping, callee)
            && let [function, Argument::StringLiteral(_)] = call.arguments.as_slice()
            && let Some(function) = function.as_expression()
            && matches!(
                function.without_parentheses(),
                Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_)
            )
        {
            return function;
        }
        expr
    }
}

/// A helper's name of up to 23 bytes, kept inline so that [`Wrapper`] stays `Copy`; a longer
/// name is not kept (what it would allow is then not done).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HelperName {
    len: u8,
    bytes: [u8; 23],
}

impl HelperName {
    pub(crate) fn new(name: &str) -> Option<HelperName> {
        let mut bytes = [0; 23];
        bytes
            .get_mut(..name.len())?
            .copy_from_slice(name.as_bytes());
        Some(HelperName {
            len: name.len() as u8,
            bytes,
        })
    }

    pub(crate) fn is(&self, name: &str) -> bool {
        &self.bytes[..usize::from(self.len)] == name.as_bytes()
    }
}

/// The module function's scope and its parameters' symbols (each a plain name, else none).
pub(crate) fn function_of(program: &oxc_ast::ast::Program<'_>) -> Option<(ScopeId, Vec<SymbolId>)> {
    let Statement::ExpressionStatement(statement) = program.body.first()? else {
        return None;
    };
    let (scope, params) = match statement.expression.without_parentheses() {
        Expression::FunctionExpression(f) => (f.scope_id.get()?, &f.params),
        Expression::ArrowFunctionExpression(f) => (f.scope_id.get()?, &f.params),
        _ => return None,
    };
    let symbols = params
        .items
        .iter()
        .map(|p| match &p.pattern {
            oxc_ast::ast::BindingPattern::BindingIdentifier(b) => b.symbol_id.get(),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((scope, symbols))
}
