//! Names for the variables a module binds to other modules: `const e = require(6462)` reads
//! `const text = require(6462)` when module 6462 has a name (from `--names`, or revealed by the
//! bundle, like esbuild's `require_ms`), and `var a = require_ms()` in an esbuild module reads
//! `var ms = require_ms()`. A variable is renamed only when its new name collides with nothing
//! the module binds or uses.

use oxc_ast::ast::{Argument, Expression, VariableDeclarator};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::{FxHashMap, FxHashSet};

/// Module names by id.
pub(crate) type ModuleNames = FxHashMap<String, String>;

/// The name esbuild's own variable for a module reveals: `require_lodash_min` → `lodash_min`.
pub(crate) fn revealed_by_esbuild(id: &str) -> Option<String> {
    let name = id.strip_prefix("require_")?;
    is_identifier(name).then(|| name.to_owned())
}

/// Whether `name` can be a variable name (ASCII identifiers, no reserved words).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !RESERVED.contains(&name)
}

const RESERVED: &[&str] = &[
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
];

/// The renames for the variables of a module that are bound to named modules: `require` is the
/// symbol of webpack's require parameter (calls `require(ID)`); without it, calls of a free
/// function named like a module id (esbuild's `require_x()`).
pub(crate) fn renames(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    require: Option<SymbolId>,
    names: &ModuleNames,
    reserved: &[&str],
) -> Vec<(SymbolId, String)> {
    if names.is_empty() {
        return Vec::new();
    }
    let mut finder = Bindings {
        scoping,
        require,
        names,
        found: Vec::new(),
    };
    finder.visit_program(program);
    // A name is free when nothing in the module is called so and nothing outside it is used
    // under it.
    let mut taken: FxHashSet<String> = scoping.symbol_names().map(str::to_owned).collect();
    taken.extend(
        scoping
            .root_unresolved_references()
            .keys()
            .map(|k| k.as_str().to_owned()),
    );
    taken.extend(reserved.iter().map(|r| (*r).to_owned()));
    let mut out = Vec::new();
    for (symbol, name) in finder.found {
        if !is_identifier(&name) || taken.contains(&name) {
            continue;
        }
        taken.insert(name.clone());
        out.push((symbol, name));
    }
    out
}

struct Bindings<'s> {
    scoping: &'s Scoping,
    require: Option<SymbolId>,
    names: &'s ModuleNames,
    found: Vec<(SymbolId, String)>,
}

impl<'a> Visit<'a> for Bindings<'_> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(binding), Some(Expression::CallExpression(call))) =
            (it.id.get_binding_identifier(), &it.init)
            && let Some(symbol) = binding.symbol_id.get()
            && let Expression::Identifier(callee) = &call.callee
            && let Some(id) = self.module_id(callee, &call.arguments)
            && let Some(name) = self.names.get(&id)
        {
            self.found.push((symbol, name.clone()));
        }
        walk::walk_variable_declarator(self, it);
    }
}

impl Bindings<'_> {
    /// The id of the module a call of `callee` with `arguments` returns, if it is one.
    fn module_id(
        &self,
        callee: &oxc_ast::ast::IdentifierReference<'_>,
        arguments: &[Argument<'_>],
    ) -> Option<String> {
        let symbol = callee
            .reference_id
            .get()
            .and_then(|r| self.scoping.get_reference(r).symbol_id());
        match (self.require, symbol, arguments) {
            // webpack: `require(6462)` with the require parameter.
            (Some(require), Some(s), [Argument::NumericLiteral(n)]) if s == require => {
                crate::shape::number_key(n.value)
            }
            (Some(require), Some(s), [Argument::StringLiteral(l)]) if s == require => {
                Some(l.value.to_string())
            }
            // esbuild: `require_ms()`, a name from outside the module.
            (None, None, []) => Some(callee.name.to_string()),
            _ => None,
        }
    }
}
