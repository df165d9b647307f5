//! `import.meta` and `import()` in a module file. A module file is compiled as a function
//! body (see `write/loader.js`), where `import.meta` does not parse and `import()` would
//! resolve from the wrong place (or not at all); the bundle file that holds the entry passes
//! the loader its own `import.meta` and an `import()` of its own, and every module file reads
//! them as [`META`] and [`IMPORT`]. So a module of an ES module bundle parses on its own and
//! still sees the bundle's URL, and what it imports is found from the bundle's folder, as it
//! was.

use std::borrow::Cow;

use oxc_allocator::Allocator;
use oxc_ast::ast::{ImportExpression, ImportMeta};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::SourceType;

/// The name a module file reads the bundle's `import.meta` by.
pub(crate) const META: &str = "__pilotfish_import_meta";
/// The name of the function a module file imports through, as the bundle would have.
pub(crate) const IMPORT: &str = "__pilotfish_import";

/// `source` (a module's function, wrapped as `module.rs` parses it) with each `import.meta`
/// read as [`META`] and each `import(...)` called as [`IMPORT`]`(...)`; borrowed when it has
/// neither. A text that parses neither as a script nor as a module is left as it is (its
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
}

impl<'a> Visit<'a> for Found {
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
}
