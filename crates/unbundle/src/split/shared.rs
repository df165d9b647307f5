//! esbuild's helpers shared between the files of a code-split ES module bundle: esbuild
//! defines `__commonJS` and `__esm` once, in one chunk, exports them under short names
//! (`export {y as a, b as m}`), and the entry and the other chunks import them
//! (`import {a as u} from "./chunk-AKF52I5M.mjs"`). CommonJS files share them the same way
//! (`module.exports = {__commonJS, ...}` and `const {__commonJS} = require("./esblib.cjs")`,
//! as zx ships them), or rolldown's way: `exports.m = __commonJSMin` in one chunk, and
//! `const e = require("./index.cjs"); ... e.m(...)` in another. A chunk's wrappers are calls
//! of such an imported name (or namespace member), so the helpers are found in the chunk that
//! defines them and followed through each `export` and `import` to the files that call them.

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, AssignmentTarget, BindingPattern, Expression, ImportDeclarationSpecifier,
    ModuleExportName, ObjectPropertyKind, Program, Statement,
};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::SourceType;
use rustc_hash::FxHashSet;

use crate::Input;
use crate::recognize::esbuild::Helpers;

/// The helpers each file exports: (file name, exported name).
#[derive(Debug, Default)]
pub(crate) struct Shared {
    commonjs: FxHashSet<(String, String)>,
    esm: FxHashSet<(String, String)>,
    /// The bundle has several files: an ES module among them with no wrapper of its own is
    /// one of its chunks, kept as it is.
    pub(crate) several_files: bool,
}

/// The helpers a file imports from another: as its own variables, or as members of the
/// other file's namespace it required.
#[derive(Debug, Default)]
pub(crate) struct Imported {
    pub(crate) commonjs: Helpers,
    pub(crate) esm: Helpers,
}

/// The helpers the ES module files among `inputs` export. Files that are not ES modules (no
/// `export` in them, or they do not parse as one) export none.
pub(crate) fn exported(inputs: &[Input<'_>]) -> Shared {
    let mut shared = Shared {
        several_files: inputs.len() > 1,
        ..Shared::default()
    };
    if inputs.len() < 2 {
        return shared;
    }
    for input in inputs.iter().filter(|i| i.text.contains("export")) {
        let allocator = Allocator::default();
        let mut parsed = oxc_parser::Parser::new(&allocator, input.text, SourceType::mjs()).parse();
        if parsed.diagnostics.errors().next().is_some() {
            // A CommonJS file (`module.exports = {...}`) may not parse as a module.
            parsed = oxc_parser::Parser::new(&allocator, input.text, SourceType::script()).parse();
        }
        if parsed.diagnostics.errors().next().is_some() {
            continue;
        }
        let program = parsed.program;
        let names = |symbols: FxHashSet<SymbolId>, scoping: &Scoping| -> FxHashSet<String> {
            symbols
                .into_iter()
                .map(|s| scoping.symbol_name(s).to_owned())
                .collect()
        };
        let semantic = oxc_semantic::SemanticBuilder::new()
            .build(&program)
            .semantic;
        let scoping = semantic.scoping();
        let commonjs = names(
            crate::recognize::esbuild::commonjs_helpers(&program),
            scoping,
        );
        let esm = names(crate::split::esm::helpers(&program), scoping);
        for (local, exported) in exports(&program) {
            if commonjs.contains(&local) {
                shared
                    .commonjs
                    .insert((input.name.to_owned(), exported.clone()));
            }
            if esm.contains(&local) {
                shared.esm.insert((input.name.to_owned(), exported));
            }
        }
    }
    shared
}

/// `export {local as exported}` pairs of a program, and those of a CommonJS file's
/// `module.exports = {exported: local, local}` (esbuild's helpers shared by CommonJS files,
/// as zx ships them) or `exports.exported = local` (rolldown's CommonJS chunks, joined by
/// commas).
fn exports(program: &Program<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for statement in &program.body {
        match statement {
            Statement::ExportNamedDeclaration(e) => {
                for s in &e.specifiers {
                    if let ModuleExportName::IdentifierReference(local) = &s.local {
                        out.push((local.name.to_string(), s.exported.name().to_string()));
                    }
                }
            }
            Statement::ExpressionStatement(e) => match &e.expression {
                Expression::SequenceExpression(seq) => {
                    out.extend(seq.expressions.iter().filter_map(exports_member));
                }
                other => {
                    out.extend(module_exports(other));
                    out.extend(exports_member(other));
                }
            },
            _ => {}
        }
    }
    out
}

/// The (local, exported) pair of `exports.exported = local`.
fn exports_member(expr: &Expression<'_>) -> Option<(String, String)> {
    let Expression::AssignmentExpression(a) = expr else {
        return None;
    };
    let (AssignmentTarget::StaticMemberExpression(m), Expression::Identifier(local)) =
        (&a.left, &a.right)
    else {
        return None;
    };
    let on_exports = matches!(&m.object, Expression::Identifier(o) if o.name == "exports");
    (on_exports && a.operator.is_assign())
        .then(|| (local.name.to_string(), m.property.name.to_string()))
}

/// The (local, exported) pairs of `module.exports = {exported: local, local, ...}`.
fn module_exports(expr: &Expression<'_>) -> Vec<(String, String)> {
    let Expression::AssignmentExpression(a) = expr else {
        return Vec::new();
    };
    let is_module_exports = matches!(&a.left, AssignmentTarget::StaticMemberExpression(m)
        if m.property.name == "exports"
            && matches!(&m.object, Expression::Identifier(o) if o.name == "module"));
    let Expression::ObjectExpression(o) = &a.right else {
        return Vec::new();
    };
    if !is_module_exports {
        return Vec::new();
    }
    o.properties
        .iter()
        .filter_map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) if !p.computed && !p.method => {
                let key = p.key.static_name()?;
                match &p.value {
                    Expression::Identifier(local) => {
                        Some((local.name.to_string(), key.to_string()))
                    }
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// `const {exported: local, ...} = require("./file")` at the top of a CommonJS file: the
/// file's name, and each (exported name, local symbol).
fn required_names(statement: &Statement<'_>) -> Option<(String, Vec<(String, SymbolId)>)> {
    let Statement::VariableDeclaration(d) = statement else {
        return None;
    };
    let [declarator] = d.declarations.as_slice() else {
        return None;
    };
    let from = required_path(declarator.init.as_ref()?)?.to_owned();
    let BindingPattern::ObjectPattern(pattern) = &declarator.id else {
        return None;
    };
    let names = pattern
        .properties
        .iter()
        .filter(|p| !p.computed)
        .filter_map(|p| {
            let key = p.key.static_name()?;
            let local = p.value.get_binding_identifier()?.symbol_id.get()?;
            Some((key.to_string(), local))
        })
        .collect();
    Some((from, names))
}

/// `const ns = require("./file")` (or `let`, `var`) among a top-level declaration's
/// declarators: each file's name and the variable holding its namespace.
fn required_namespaces(statement: &Statement<'_>) -> Vec<(String, SymbolId)> {
    let Statement::VariableDeclaration(d) = statement else {
        return Vec::new();
    };
    d.declarations
        .iter()
        .filter_map(|declarator| {
            let path = required_path(declarator.init.as_ref()?)?;
            let local = declarator.id.get_binding_identifier()?.symbol_id.get()?;
            path.starts_with('.').then(|| (path.to_owned(), local))
        })
        .collect()
}

/// The file `require("./file")` names, when `init` is just that call: both readers of a
/// top-level `require` declaration share it, so they agree on what counts as one.
fn required_path<'a>(init: &'a Expression<'_>) -> Option<&'a str> {
    let Expression::CallExpression(call) = init else {
        return None;
    };
    let (Expression::Identifier(callee), [Argument::StringLiteral(path)]) =
        (&call.callee, call.arguments.as_slice())
    else {
        return None;
    };
    (callee.name == "require").then_some(path.value.as_str())
}

impl Shared {
    /// The helpers `program` (the file `name`) imports from the files that export them.
    pub(crate) fn imported(
        &self,
        program: &Program<'_>,
        scoping: &Scoping,
        name: &str,
    ) -> Imported {
        let mut imported = Imported::default();
        if self.commonjs.is_empty() && self.esm.is_empty() {
            return imported;
        }
        for statement in &program.body {
            if let Some((from, names)) = required_names(statement) {
                let from = beside(name, &from);
                for (exported, symbol) in names {
                    let key = (from.clone(), exported);
                    if self.commonjs.contains(&key) {
                        imported.commonjs.symbols.insert(symbol);
                    }
                    if self.esm.contains(&key) {
                        imported.esm.symbols.insert(symbol);
                    }
                }
                continue;
            }
            for (from, namespace) in required_namespaces(statement) {
                // A namespace assigned again may hold anything by the time a helper is read.
                if scoping.symbol_is_mutated(namespace) {
                    continue;
                }
                let from = beside(name, &from);
                for (file, exported) in &self.commonjs {
                    if *file == from {
                        imported
                            .commonjs
                            .members
                            .insert((namespace, exported.clone()));
                    }
                }
                for (file, exported) in &self.esm {
                    if *file == from {
                        imported.esm.members.insert((namespace, exported.clone()));
                    }
                }
            }
            let Statement::ImportDeclaration(d) = statement else {
                continue;
            };
            // `./chunk-AKF52I5M.mjs`: the file, given beside this one (or `../shared/x.mjs`,
            // in a folder of the set).
            let from = beside(name, &d.source.value);
            for specifier in d.specifiers.iter().flatten() {
                let ImportDeclarationSpecifier::ImportSpecifier(s) = specifier else {
                    continue;
                };
                let key = (from.to_owned(), s.imported.name().to_string());
                let Some(symbol) = s.local.symbol_id.get() else {
                    continue;
                };
                if self.commonjs.contains(&key) {
                    imported.commonjs.symbols.insert(symbol);
                }
                if self.esm.contains(&key) {
                    imported.esm.symbols.insert(symbol);
                }
            }
        }
        imported
    }
}

/// The name of the file `specifier` (relative, `./x.mjs` or `../shared/x.mjs`) names, as the
/// set's files are named: relative to the folder of the set, like `from`'s own name.
pub(crate) fn beside(from: &str, specifier: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in specifier.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}
