//! Chunks of a code-split build that hold no module wrapper: the files of the set each one
//! names by a relative path (`import`, `export ... from`, `import("./x.js")`,
//! `require("./x.js")`), and whether a set none of whose files holds a wrapper is one
//! program, its files linked to each other, or files that were merely given together.

use oxc_ast::ast::{
    Argument, CallExpression, ExportAllDeclaration, ExportFromDeclaration, Expression,
    ImportDeclaration, ImportExpression, Program,
};
use oxc_ast_visit::{Visit, walk};

/// The relative specifiers (`./x.js`, `../shared/y.mjs`) `program` imports, re-exports,
/// imports dynamically with a string, or requires with a string, in the order they appear.
/// What its text only mentions (a comment, a string that is not imported) is not among them.
pub(crate) fn specifiers(program: &Program<'_>) -> Vec<String> {
    let mut found = Specifiers::default();
    found.visit_program(program);
    found.0
}

#[derive(Default)]
struct Specifiers(Vec<String>);

impl Specifiers {
    fn push(&mut self, specifier: &str) {
        if specifier.starts_with("./") || specifier.starts_with("../") {
            self.0.push(specifier.to_owned());
        }
    }
}

impl<'a> Visit<'a> for Specifiers {
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        self.push(&it.source.value);
    }

    fn visit_export_from_declaration(&mut self, it: &ExportFromDeclaration<'a>) {
        self.push(&it.source.value);
    }

    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        self.push(&it.source.value);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Some(specifier) = string(&it.source) {
            self.push(&specifier);
        }
        walk::walk_import_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        // node's `require`, or one an ES module made with `createRequire(import.meta.url)`.
        if let (Expression::Identifier(callee), [Argument::StringLiteral(path)]) =
            (&it.callee, it.arguments.as_slice())
            && callee.name == "require"
        {
            self.push(&path.value);
        }
        walk::walk_call_expression(self, it);
    }
}

/// The text of a string literal, or of a template literal without substitutions.
fn string(expr: &Expression<'_>) -> Option<String> {
    match expr.without_parentheses() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => t
            .quasis
            .first()
            .and_then(|q| q.value.cooked.as_ref())
            .map(|c| c.to_string()),
        _ => None,
    }
}

/// Whether the files `names` (the set's, as given) are one program: every file reached from
/// the first by following the files' relative imports and requires (`specifiers`, each
/// file's, in the order of `names`) either way. The first file not reached, otherwise.
pub(crate) fn unlinked<'n>(names: &[&'n str], specifiers: &[Vec<String>]) -> Option<&'n str> {
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (from, named) in specifiers.iter().enumerate() {
        for specifier in named {
            if let Some(to) = resolve(names, names[from], specifier)
                && to != from
            {
                edges[from].push(to);
                edges[to].push(from);
            }
        }
    }
    let mut reached = vec![false; names.len()];
    let mut next = vec![0];
    reached[0] = true;
    while let Some(at) = next.pop() {
        for &to in &edges[at] {
            if !reached[to] {
                reached[to] = true;
                next.push(to);
            }
        }
    }
    names
        .iter()
        .zip(&reached)
        .find(|(_, reached)| !**reached)
        .map(|(name, _)| *name)
}

/// The file of the set `specifier`, written in the file `from`, names: as written, or with
/// the extension or `index` file node would add.
fn resolve(names: &[&str], from: &str, specifier: &str) -> Option<usize> {
    let path = super::shared::beside(from, specifier);
    let candidates = [
        path.clone(),
        format!("{path}.js"),
        format!("{path}.mjs"),
        format!("{path}.cjs"),
        format!("{path}/index.js"),
        format!("{path}/index.mjs"),
        format!("{path}/index.cjs"),
    ];
    candidates
        .iter()
        .find_map(|c| names.iter().position(|n| n == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specifiers_of(text: &str) -> Vec<String> {
        let allocator = oxc_allocator::Allocator::default();
        let parsed = oxc_parser::Parser::new(&allocator, text, oxc_span::SourceType::mjs()).parse();
        assert!(parsed.diagnostics.errors().next().is_none(), "{text}");
        specifiers(&parsed.program)
    }

    #[test]
    fn what_a_file_imports_or_requires_by_a_relative_path_is_read_from_its_code() {
        let text = r#"
            import { a } from "./a.mjs";
            import "node:fs";
            export { b } from "../shared/b.mjs";
            export * from "./c.mjs";
            const d = () => import("./d.mjs");
            const e = require("./e.cjs");
            const f = import(`./f.mjs`);
            // import("./in-a-comment.mjs")
            const g = "./g.mjs";
            const h = import(g);
            const pkg = require("lodash");
            /** @type {import('./types').T} */
            let t;
        "#;
        assert_eq!(
            specifiers_of(text),
            [
                "./a.mjs",
                "../shared/b.mjs",
                "./c.mjs",
                "./d.mjs",
                "./e.cjs",
                "./f.mjs"
            ]
        );
    }

    #[test]
    fn a_set_is_one_program_when_every_file_is_reached_through_imports_either_way() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        // The entry imports a chunk, which requires another in a folder (without its
        // extension); a last chunk only imports the first chunk.
        let names = ["index.mjs", "chunk-a.mjs", "shared/b.js", "chunk-c.mjs"];
        let linked = [
            s(&["./chunk-a.mjs"]),
            s(&["./shared/b"]),
            s(&[]),
            s(&["./chunk-a.mjs"]),
        ];
        assert_eq!(unlinked(&names, &linked), None);
        // Two pairs, each linked within itself only.
        let pairs = [s(&["./chunk-a.mjs"]), s(&[]), s(&["./chunk-c.mjs"]), s(&[])];
        assert_eq!(unlinked(&names, &pairs), Some("shared/b.js"));
        // Files that name only themselves, or files outside the set.
        let none = [
            s(&["./index.mjs"]),
            s(&["../x.js"]),
            s(&["./nope.mjs"]),
            s(&[]),
        ];
        assert_eq!(unlinked(&names, &none), Some("chunk-a.mjs"));
    }
}
