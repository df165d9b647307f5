//! `import.meta` and `import()` in a module file. A module file is compiled as a function
//! body (see `write/loader.js`), where `import.meta` does not parse and `import()` would
//! resolve from the wrong place (or not at all); the bundle file that holds the entry passes
//! the loader its own `import.meta` and an `import()` of its own, and every module file reads
//! them as [`META`] and [`IMPORT`]. So a module of an ES module bundle parses on its own and
//! still sees the bundle's URL, and what it imports is found from the bundle's folder, as it
//! was.
//!
//! Code a module builds at run time (`new Function("s", "return import(s)")`, as packages do
//! to keep a compiler from turning `import()` into `require`) imports as the script that
//! called `Function` does, and a function compiled by node's `vm` may not import at all: a
//! module that reads the words `import` calls the global `Function` as [`FUNCTION`], a
//! `Function` the loader defines, so that the code it builds imports as the bundle's did.

use std::borrow::Cow;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BindingIdentifier, CallExpression, Expression, ImportExpression, ImportMeta, NewExpression,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::SourceType;

/// The name a module file reads the bundle's `import.meta` by.
pub(crate) const META: &str = "__pilotfish_import_meta";
/// The name of the function a module file imports through, as the bundle would have.
pub(crate) const IMPORT: &str = "__pilotfish_import";
/// The name a module file calls the global `Function` by (see the module's comment).
pub(crate) const FUNCTION: &str = "__pilotfish_function";

/// `source` (a module's function, wrapped as `module.rs` parses it) with each `import.meta`
/// read as [`META`], each `import(...)` called as [`IMPORT`]`(...)` and, where the text says
/// `import` and nothing in it is named `Function`, each call of `Function` (with `new` or
/// without) made to [`FUNCTION`]; borrowed when it has none of them. A text that parses neither as a script nor as a module is left as it is (its
/// parse error is the one to report).
pub(crate) fn through_entry(source: &str) -> Cow<'_, str> {
    if !source.contains("import") {
        return Cow::Borrowed(source);
    }
    let allocator = Allocator::default();
    // A script allows sloppy code but no `import.meta`; a module the other way round.
    let mut parsed = Parser::new(&allocator, source, SourceType::script()).parse();
    if parsed.diagnostics.errors().next().is_some() {
        parsed = Parser::new(&allocator, source, SourceType::mjs()).parse();
        if parsed.diagnostics.errors().next().is_some() {
            return Cow::Borrowed(source);
        }
    }
    let mut found = Found::default();
    found.visit_program(&parsed.program);
    if !found.declares_function {
        found.edits.append(&mut found.function_calls);
    }
    if found.edits.is_empty() {
        return Cow::Borrowed(source);
    }
    found.edits.sort_by_key(|(start, ..)| *start);
    let mut out = String::with_capacity(source.len() + 32 * found.edits.len());
    let mut at = 0;
    for (start, end, replacement) in found.edits {
        out.push_str(&source[at..start as usize]);
        out.push_str(replacement);
        at = end as usize;
    }
    out.push_str(&source[at..]);
    Cow::Owned(out)
}

/// The spans to replace, and by what.
#[derive(Default)]
struct Found {
    edits: Vec<(u32, u32, &'static str)>,
    /// The callees `Function` of calls and `new` expressions.
    function_calls: Vec<(u32, u32, &'static str)>,
    /// Something in the text is named `Function` (a variable, a parameter, a function).
    declares_function: bool,
}

impl Found {
    fn callee(&mut self, callee: &Expression<'_>) {
        if let Expression::Identifier(id) = callee
            && id.name == "Function"
        {
            self.function_calls
                .push((id.span.start, id.span.end, FUNCTION));
        }
    }
}

impl<'a> Visit<'a> for Found {
    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        self.declares_function |= it.name == "Function";
    }

    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        self.callee(&it.callee);
        walk::walk_new_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        self.callee(&it.callee);
        walk::walk_call_expression(self, it);
    }

    fn visit_import_meta(&mut self, it: &ImportMeta) {
        self.edits.push((it.span.start, it.span.end, META));
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        // `import` is the expression's first token: `import (x)` keeps its space.
        let keyword = it.span.start;
        self.edits
            .push((keyword, keyword + "import".len() as u32, IMPORT));
        walk::walk_import_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::through_entry;

    #[test]
    fn meta_and_dynamic_imports_are_read_through_the_entry_s_names() {
        let text = "(function () { return [import.meta.url, import('./a.js'), import (b)]; });";
        assert_eq!(
            through_entry(text),
            "(function () { return [__pilotfish_import_meta.url, __pilotfish_import('./a.js'), __pilotfish_import (b)]; });"
        );
        // Sloppy code with a dynamic import still parses as a script.
        let sloppy = "(function () { with (o) { import('x'); } });";
        assert!(through_entry(sloppy).contains("__pilotfish_import('x')"));
        let plain = "(function () { var imported = 1; });";
        assert!(matches!(
            through_entry(plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn code_built_at_run_time_is_built_by_the_loader_s_function() {
        let text = "(function () { var a = new Function('s', 'return import(s)'), b = Function('x'); return a instanceof Function; });";
        assert_eq!(
            through_entry(text),
            "(function () { var a = new __pilotfish_function('s', 'return import(s)'), b = __pilotfish_function('x'); return a instanceof Function; });"
        );
        // A module naming something `Function` keeps it; without the word `import`, nothing
        // changes.
        let own = "(function (Function) { return new Function('return import(s)'); });";
        assert_eq!(through_entry(own), own);
        let plain = "(function () { return new Function('return 1'); });";
        assert!(matches!(
            through_entry(plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
