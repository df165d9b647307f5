//! esbuild's ES module initializers that cannot reach another module's exports: those a
//! CommonJS module may call before its leading helpers without changing what they hold.
//!
//! esbuild's `inject` (the `import.meta.url` shim bundles written for CommonJS carry) makes
//! every module start with a call of the shim's initializer: `p(); var __createBinding =
//! exports && exports.__createBinding || ...`. The module's exports object is fresh when its
//! function starts, and only the loader's table (a `require` of the module, on a cycle) can
//! hand it out before the module does. An initializer is *quiet* when its file reads no
//! top-level name of the bundle (so it calls no other module's wrapper or initializer, and
//! no function of the bundle that could) and every call it makes is of node's own `require`
//! with a string (a built-in module) or of something read from what such a call gives:
//! it runs none of the bundle's code, so no module's exports change while it runs.

use oxc_allocator::Allocator;
use oxc_ast::ast::{Argument, CallExpression, Expression};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_semantic::{Scoping, SemanticBuilder, SymbolId};
use oxc_span::SourceType;

use super::esm::Moved;

/// The initializers of the ES modules moved into files that are quiet (see the module
/// documentation), by their names in the bundle.
pub(crate) fn initializers(moved: &Moved) -> Vec<String> {
    moved
        .modules
        .iter()
        .filter(|m| m.outer.is_empty() && runs_no_bundle_code(&m.source))
        .map(|m| m.id.clone())
        .collect()
}

/// Whether the module file `source` (`function (ns) {...}`) calls nothing but node's
/// `require` with a string and what it reads from its result.
fn runs_no_bundle_code(source: &str) -> bool {
    let allocator = Allocator::default();
    let text = format!("({source});");
    let parsed = Parser::new(&allocator, &text, SourceType::cjs()).parse();
    if parsed.diagnostics.errors().next().is_some() || parsed.panicked {
        return false;
    }
    let semantic = SemanticBuilder::new().build(&parsed.program).semantic;
    let namespace = crate::refs::function_of(&parsed.program).and_then(|(_, p)| p.first().copied());
    let mut check = Calls {
        scoping: semantic.scoping(),
        namespace,
        ok: true,
    };
    check.visit_program(&parsed.program);
    check.ok
}

struct Calls<'s> {
    scoping: &'s Scoping,
    /// The file's namespace object (its function's parameter).
    namespace: Option<SymbolId>,
    ok: bool,
}

impl Calls<'_> {
    /// `Object.defineProperties(ns, {...})`: the getters the file defines on its own
    /// namespace object when it starts (see `esm/`), which call nothing.
    fn defines_namespace(&self, call: &CallExpression<'_>) -> bool {
        matches!(call.callee.without_parentheses(), Expression::StaticMemberExpression(m)
            if m.property.name == "defineProperties"
                && matches!(&m.object, Expression::Identifier(o)
                    if o.name == "Object" && crate::refs::symbol_of(self.scoping, o).is_none()))
            && matches!(call.arguments.as_slice(), [Argument::Identifier(ns), Argument::ObjectExpression(_)]
                if self.namespace.is_some() && crate::refs::symbol_of(self.scoping, ns) == self.namespace)
    }

    /// `require("...")` with node's `require` (free).
    fn requires_builtin(&self, call: &CallExpression<'_>) -> bool {
        matches!(&call.callee, Expression::Identifier(r)
            if r.name == "require" && crate::refs::symbol_of(self.scoping, r).is_none())
            && matches!(call.arguments.as_slice(), [Argument::StringLiteral(_)])
    }

    /// `require("...")`, or a property read from it (`require("url").pathToFileURL`), or from
    /// a call of such a property.
    fn reads_builtin(&self, expr: &Expression<'_>) -> bool {
        match expr.without_parentheses() {
            Expression::CallExpression(c) => {
                self.requires_builtin(c) || self.reads_builtin(&c.callee)
            }
            Expression::StaticMemberExpression(m) => self.reads_builtin(&m.object),
            _ => false,
        }
    }
}

impl<'a> Visit<'a> for Calls<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.ok &= self.requires_builtin(it)
            || self.defines_namespace(it)
            || matches!(&it.callee, Expression::StaticMemberExpression(m) if self.reads_builtin(&m.object));
        walk::walk_call_expression(self, it);
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        if matches!(
            it,
            Expression::NewExpression(_)
                | Expression::TaggedTemplateExpression(_)
                | Expression::ImportExpression(_)
                | Expression::AwaitExpression(_)
                | Expression::YieldExpression(_)
        ) {
            self.ok = false;
        }
        walk::walk_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::runs_no_bundle_code;

    #[test]
    fn the_import_meta_shim_runs_no_bundle_code() {
        assert!(runs_no_bundle_code(
            "function (ns) { Object.defineProperties(ns, { u: { get: () => u } }); var u; u = typeof document > \"u\" ? require(\"node:url\").pathToFileURL(__filename).href : u; }"
        ));
    }

    #[test]
    fn a_call_of_anything_else_may() {
        assert!(!runs_no_bundle_code("function (ns) { u = f(); }"));
        assert!(!runs_no_bundle_code(
            "function (ns) { u = require(name).x(); }"
        ));
        assert!(!runs_no_bundle_code(
            "function (ns) { u = new URL(\"a\"); }"
        ));
        assert!(!runs_no_bundle_code(
            "function (ns) { u = require(\"url\")[k](); }"
        ));
        assert!(!runs_no_bundle_code(
            "function (ns) { Object.defineProperties(other, {}); }"
        ));
    }
}
