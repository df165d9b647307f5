//! Recognizes Parcel 2's CommonJS modules by shape. Parcel scope-hoists what it can and
//! registers each module it cannot with its runtime, which keeps them in a table and runs
//! one when first required:
//!
//! ```js
//! (g = function (id) { ... }).register = function (id, fn) { table[id] = fn; };
//! g.register("3ITin", function (module, exports) { ... the module's code ... });
//! ```
//!
//! or, not minified, the method defined in an `if (parcelRequire == null) {...}` and called
//! through a variable (`var parcelRegister = parcelRequire.register;`), its function in a call
//! of esbuild's `__name` helper when the Parcel-built package sits in a `--keep-names` esbuild
//! bundle's top level
//! (names minified or not; only the shape counts: a method that stores its second argument
//! in a table under its first, calls of a method of that name with a string and a function
//! of at most two plain parameters, which Parcel runs with the module object and its
//! exports, `this` being the exports, and a call `NAME("id")` requiring one of them). What moves into files is planned in
//! [`crate::split::parcel`].

use oxc_ast::ast::{
    AssignmentTarget, BindingPattern, CallExpression, Expression, Function, FunctionBody,
    IdentifierReference, Program, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::Span;
use oxc_syntax::scope::ScopeFlags;

/// One registered module.
pub(crate) struct Registered {
    /// The id it is registered under.
    pub(crate) id: String,
    /// The whole function expression.
    pub(crate) function: Span,
    /// Its body, braces included.
    pub(crate) body: Span,
    /// The names of its parameters: the module object, then its exports.
    pub(crate) params: Vec<String>,
}

/// The registered modules of `program`, in order, when it defines a registering method;
/// found in its top-level expressions (not inside functions: a bundle nested in a module
/// stays whole).
pub(crate) fn registered(program: &Program<'_>) -> Vec<Registered> {
    let mut exprs: Vec<&Expression<'_>> = Vec::new();
    // Variables and what they start as (`var parcelRegister = parcelRequire.register`).
    let mut inits: Vec<(&str, &Expression<'_>)> = Vec::new();
    for statement in &program.body {
        top_level(statement, &mut exprs, &mut inits);
        if let Statement::IfStatement(s) = statement
            && let Statement::BlockStatement(block) = &s.consequent
        {
            for inner in &block.body {
                top_level(inner, &mut exprs, &mut inits);
            }
        }
    }
    let mut flat = Vec::new();
    for expr in exprs {
        flatten(expr, &mut flat);
    }
    // esbuild's `__name` helper, when a package Parcel built sits in a `--keep-names` esbuild
    // bundle's top level: `X.register = __name(function register(id, init) {...}, "register")`.
    let namers: Vec<&str> = inits
        .iter()
        .filter(|(_, init)| super::esbuild::names_functions(init))
        .map(|(name, _)| *name)
        .collect();
    let Some(method) = flat.iter().find_map(|e| registering_method(e, &namers)) else {
        return Vec::new();
    };
    let aliases: Vec<&str> = inits
        .iter()
        .filter(|(_, init)| {
            matches!(init.without_parentheses(),
                Expression::StaticMemberExpression(m) if m.property.name == method)
        })
        .map(|(name, _)| *name)
        .collect();
    let found: Vec<Registered> = flat
        .iter()
        .filter_map(|e| registration(e, method, &aliases))
        .collect();
    if requires_one(program, &found) {
        found
    } else {
        Vec::new()
    }
}

/// Whether the program requires one of `found` by its id: `NAME("id")`, one string only
/// (an object's method handed functions by name, as an event emitter's, is not a runtime).
fn requires_one(program: &Program<'_>, found: &[Registered]) -> bool {
    struct Finds<'r> {
        ids: Vec<&'r str>,
        found: bool,
    }
    impl<'a> Visit<'a> for Finds<'_> {
        fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
            if let (Expression::Identifier(_), [argument]) = (&it.callee, it.arguments.as_slice())
                && let Some(Expression::StringLiteral(id)) = argument.as_expression()
            {
                self.found |= self.ids.contains(&id.value.as_str());
            }
            walk::walk_call_expression(self, it);
        }
    }
    if found.is_empty() {
        return false;
    }
    let mut finds = Finds {
        ids: found.iter().map(|r| r.id.as_str()).collect(),
        found: false,
    };
    finds.visit_program(program);
    finds.found
}

/// The expressions a top-level statement evaluates, and the variables it starts.
fn top_level<'b, 'a>(
    statement: &'b Statement<'a>,
    exprs: &mut Vec<&'b Expression<'a>>,
    inits: &mut Vec<(&'b str, &'b Expression<'a>)>,
) {
    match statement {
        Statement::ExpressionStatement(s) => exprs.push(&s.expression),
        Statement::VariableDeclaration(d) => {
            for declarator in &d.declarations {
                let Some(init) = &declarator.init else {
                    continue;
                };
                exprs.push(init);
                if let BindingPattern::BindingIdentifier(id) = &declarator.id {
                    inits.push((id.name.as_str(), init));
                }
            }
        }
        _ => {}
    }
}

/// The expressions of `expr` evaluated at its own level: through sequences, logical
/// operators, parentheses and assignments' right sides.
fn flatten<'b, 'a>(expr: &'b Expression<'a>, out: &mut Vec<&'b Expression<'a>>) {
    out.push(expr);
    match expr {
        Expression::SequenceExpression(s) => s.expressions.iter().for_each(|e| flatten(e, out)),
        Expression::LogicalExpression(l) => {
            flatten(&l.left, out);
            flatten(&l.right, out);
        }
        Expression::ParenthesizedExpression(p) => flatten(&p.expression, out),
        Expression::AssignmentExpression(a) => flatten(&a.right, out),
        _ => {}
    }
}

/// `X.NAME = function (a, b) { T[a] = b; }` (or that function in a call of one of `namers`,
/// `__name(function ..., "NAME")`, which hands it back): the method's name.
fn registering_method<'a>(expr: &Expression<'a>, namers: &[&str]) -> Option<&'a str> {
    let Expression::AssignmentExpression(assign) = expr else {
        return None;
    };
    let AssignmentTarget::StaticMemberExpression(target) = &assign.left else {
        return None;
    };
    let mut right = assign.right.without_parentheses();
    if let Expression::CallExpression(call) = right
        && let Expression::Identifier(callee) = &call.callee
        && namers.contains(&callee.name.as_str())
        && let [function, name] = call.arguments.as_slice()
        && matches!(name.as_expression(), Some(Expression::StringLiteral(_)))
        && let Some(function) = function.as_expression()
    {
        right = function.without_parentheses();
    }
    let Expression::FunctionExpression(f) = right else {
        return None;
    };
    let [id, module] = plain_params(f)?[..] else {
        return None;
    };
    let [Statement::ExpressionStatement(only)] = f.body.as_ref()?.statements.as_slice() else {
        return None;
    };
    let Expression::AssignmentExpression(store) = only.expression.without_parentheses() else {
        return None;
    };
    let AssignmentTarget::ComputedMemberExpression(slot) = &store.left else {
        return None;
    };
    let reads = |e: &Expression<'_>, name: &str| matches!(e.without_parentheses(), Expression::Identifier(i) if i.name == name);
    (reads(&slot.expression, id) && reads(&store.right, module))
        .then_some(target.property.name.as_str())
}

/// `Y.METHOD("id", function (module, exports) {...})`, or `ALIAS("id", ...)`.
fn registration(expr: &Expression<'_>, method: &str, aliases: &[&str]) -> Option<Registered> {
    let Expression::CallExpression(call) = expr else {
        return None;
    };
    let registers = match &call.callee {
        Expression::StaticMemberExpression(callee) => callee.property.name == method,
        Expression::Identifier(callee) => aliases.contains(&callee.name.as_str()),
        _ => false,
    };
    if !registers {
        return None;
    }
    let [id, function] = call.arguments.as_slice() else {
        return None;
    };
    let Some(Expression::StringLiteral(id)) = id.as_expression() else {
        return None;
    };
    let Expression::FunctionExpression(f) = function.as_expression()?.without_parentheses() else {
        return None;
    };
    let params = plain_params(f)?;
    let body = f.body.as_ref()?;
    if f.r#async || f.generator || params.len() > 2 || reads_arguments(body) {
        return None;
    }
    Some(Registered {
        id: id.value.to_string(),
        function: f.span,
        body: body.span,
        params: params.into_iter().map(str::to_owned).collect(),
    })
}

/// The names of `f`'s parameters, when each is a plain name.
fn plain_params<'a>(f: &Function<'a>) -> Option<Vec<&'a str>> {
    if f.params.rest.is_some() {
        return None;
    }
    f.params
        .items
        .iter()
        .map(|p| match &p.pattern {
            BindingPattern::BindingIdentifier(id) if p.initializer.is_none() => {
                Some(id.name.as_str())
            }
            _ => None,
        })
        .collect()
}

/// Whether the body reads its function's `arguments`, which would be another function's in
/// a module file.
fn reads_arguments(body: &FunctionBody<'_>) -> bool {
    struct Finds {
        functions: usize,
        found: bool,
    }
    impl<'a> Visit<'a> for Finds {
        fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
            self.functions += 1;
            walk::walk_function(self, it, flags);
            self.functions -= 1;
        }
        fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
            self.found |= self.functions == 0 && it.name == "arguments";
        }
    }
    let mut finds = Finds {
        functions: 0,
        found: false,
    };
    finds.visit_function_body(body);
    finds.found
}
