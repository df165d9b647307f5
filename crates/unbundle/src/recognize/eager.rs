//! Recognizes the eager CommonJS modules of rollup 2's `@rollup/plugin-commonjs` (before its
//! lazy wrappers, [`super::rollup`]) by shape: a top-level helper
//!
//! ```js
//! function createCommonjsModule(fn, basedir, module) {
//!     return module = { path: basedir, exports: {}, require: ... }, fn(module, module.exports), module.exports;
//! }
//! // or: function createCommonjsModule(fn) {
//! //     var module = { exports: {} };
//! //     return fn(module, module.exports), module.exports;
//! // }
//! var x = createCommonjsModule(function (module, exports) { ... the module's code ... });
//! ```
//!
//! (the names are the plugin's, but only the shape counts: the helper returns a module object
//! holding `exports: {}`, calls its first parameter with that object and its `exports`, and
//! gives back the `exports`). Each call of the helper outside every function, whose first
//! argument is a plain function of at most two parameters, is a module that runs where the
//! call is; what moves into files is planned in [`crate::split::rollup`].

use oxc_ast::ast::{
    ArrowFunctionExpression, AssignmentTarget, BindingPattern, CallExpression, Expression,
    Function, FunctionBody, IdentifierReference, Program, Statement, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::{GetSpan, Span};
use oxc_syntax::scope::ScopeFlags;

/// One eager module: a call of the helper with its module function.
pub(crate) struct Eager {
    /// The variable the call's result is bound to (`x`), or the helper's name.
    pub(crate) name: String,
    /// The module function (`function (module, exports) {...}`), the argument of the call.
    pub(crate) function: Span,
    /// Its body, braces included.
    pub(crate) body: Span,
    /// Its parameters' names: the module object's, then the exports' if it has one.
    pub(crate) module: String,
    pub(crate) exports: Option<String>,
    /// The module function reads its own `arguments` (which in a file would be the
    /// loader's).
    pub(crate) own_arguments: bool,
}

/// The eager modules of `program`, in order: none when it defines no such helper.
pub(crate) fn eager_wrappers(program: &Program<'_>) -> Vec<Eager> {
    let helpers: Vec<&str> = program
        .body
        .iter()
        .filter_map(|s| match s {
            Statement::FunctionDeclaration(f) => helper_name(f),
            _ => None,
        })
        .collect();
    if helpers.is_empty() {
        return Vec::new();
    }
    let mut finder = Finder {
        helpers,
        depth: 0,
        bound: None,
        found: Vec::new(),
    };
    finder.visit_program(program);
    finder.found
}

/// The helper's name, when `f` has its shape.
fn helper_name<'a>(f: &Function<'a>) -> Option<&'a str> {
    let id = f.id.as_ref()?;
    let params: Vec<&str> = f
        .params
        .items
        .iter()
        .map(|p| p.pattern.get_identifier_name().map(|n| n.as_str()))
        .collect::<Option<_>>()?;
    let body = f.body.as_ref()?;
    if params.is_empty() || params.len() > 3 || f.r#async || f.generator {
        return None;
    }
    // `return m = {..., exports: {}, ...}, fn(m, m.exports), m.exports`, or `var m = {...};`
    // first and the rest returned.
    let (object, m, rest) = match body.statements.as_slice() {
        [Statement::ReturnStatement(ret)] => {
            let Some(Expression::SequenceExpression(seq)) = &ret.argument else {
                return None;
            };
            let [Expression::AssignmentExpression(assign), rest @ ..] = seq.expressions.as_slice()
            else {
                return None;
            };
            let AssignmentTarget::AssignmentTargetIdentifier(m) = &assign.left else {
                return None;
            };
            (&assign.right, m.name.as_str(), rest)
        }
        [
            Statement::VariableDeclaration(var),
            Statement::ReturnStatement(ret),
        ] => {
            let [declarator] = var.declarations.as_slice() else {
                return None;
            };
            let BindingPattern::BindingIdentifier(m) = &declarator.id else {
                return None;
            };
            let Some(Expression::SequenceExpression(seq)) = &ret.argument else {
                return None;
            };
            (
                declarator.init.as_ref()?,
                m.name.as_str(),
                seq.expressions.as_slice(),
            )
        }
        _ => return None,
    };
    let [call, last] = rest else {
        return None;
    };
    let Expression::ObjectExpression(object) = object else {
        return None;
    };
    let has_exports = object.properties.iter().any(|p| {
        p.as_property().is_some_and(|p| {
            p.key.static_name().is_some_and(|k| k == "exports")
                && matches!(&p.value, Expression::ObjectExpression(o) if o.properties.is_empty())
        })
    });
    // `fn(m, m.exports)`, then `m.exports`.
    let Expression::CallExpression(call) = call else {
        return None;
    };
    let exports_of_m = |e: &Expression<'_>| {
        matches!(e, Expression::StaticMemberExpression(s)
            if s.property.name == "exports"
            && matches!(&s.object, Expression::Identifier(o) if o.name == m))
    };
    let calls_fn = matches!(&call.callee, Expression::Identifier(c) if c.name == params[0])
        && call.arguments.len() == 2
        && matches!(call.arguments[0].as_expression(), Some(Expression::Identifier(a)) if a.name == m)
        && call.arguments[1].as_expression().is_some_and(exports_of_m);
    (has_exports && calls_fn && exports_of_m(last)).then_some(id.name.as_str())
}

/// Finds the helper's calls outside every function.
struct Finder<'h> {
    helpers: Vec<&'h str>,
    /// How many functions the walk is in.
    depth: usize,
    /// The variable being declared at the top level, while its initializer is walked.
    bound: Option<String>,
    found: Vec<Eager>,
}

impl Finder<'_> {
    /// The module of `call`, when it is a call of the helper with a plain module function.
    fn module(&self, call: &CallExpression<'_>) -> Option<Eager> {
        let Expression::Identifier(callee) = &call.callee else {
            return None;
        };
        if !self.helpers.contains(&callee.name.as_str()) {
            return None;
        }
        let Some(Expression::FunctionExpression(f)) = call.arguments.first()?.as_expression()
        else {
            return None;
        };
        let names: Vec<String> = f
            .params
            .items
            .iter()
            .map(|p| p.pattern.get_identifier_name().map(|n| n.to_string()))
            .collect::<Option<_>>()?;
        let body: &FunctionBody<'_> = f.body.as_ref()?;
        if f.id.is_some() || f.r#async || f.generator || f.params.rest.is_some() || names.len() > 2
        {
            return None;
        }
        let name = self
            .bound
            .clone()
            .unwrap_or_else(|| callee.name.to_string());
        let mut arguments = Arguments::default();
        arguments.visit_function_body(body);
        let mut names = names.into_iter();
        Some(Eager {
            name,
            function: f.span,
            body: body.span,
            module: names
                .next()
                .unwrap_or_else(|| "__pilotfish_unused".to_owned()),
            exports: names.next(),
            own_arguments: arguments.found,
        })
    }
}

impl<'a> Visit<'a> for Finder<'_> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        let top = self.depth == 0;
        if top && let BindingPattern::BindingIdentifier(id) = &it.id {
            self.bound = Some(id.name.to_string());
        }
        walk::walk_variable_declarator(self, it);
        if top {
            self.bound = None;
        }
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if self.depth == 0
            && let Some(eager) = self.module(it)
        {
            self.found.push(eager);
            // A bundle's modules are not nested in one another.
            return;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.depth += 1;
        walk::walk_arrow_function_expression(self, it);
        self.depth -= 1;
    }
}

/// Whether a function body reads its own `arguments` (arrows see their outer function's).
#[derive(Default)]
struct Arguments {
    found: bool,
}

impl<'a> Visit<'a> for Arguments {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        self.found |= it.name == "arguments";
    }

    fn visit_function(&mut self, _: &Function<'a>, _: ScopeFlags) {}
}

impl GetSpan for Eager {
    fn span(&self) -> Span {
        self.function
    }
}
