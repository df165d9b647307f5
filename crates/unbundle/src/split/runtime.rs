//! esbuild's runtime helpers (`__commonJS`, `__esm`, `__export`, `__toESM`, `__toCommonJS`,
//! `__reExport`, `__name`, ... under whatever names a minifier gave them) move out of the
//! bundle into one small file, `esbuild-runtime.cjs`, which the bundle `require`s where they
//! were: the bundle then starts with its modules, and a reader finds the helpers once.
//!
//! A helper moves only when that cannot change what runs: it is a top-level `var` before
//! the first module wrapper, its value is a function or a property of a global (`Object.create`)
//! and reads nothing but globals and the helpers moved before it (not node's `require`,
//! `module` or `exports`, which are the bundle file's own, nor `this` or `import.meta`), and
//! nothing assigns it again. Declarations among the helpers that do not qualify (esbuild's
//! `__require`, which reads `require`) stay where they are; the helpers after one move only
//! when it does not read them (it would otherwise see them set earlier than it did).

use oxc_ast::ast::{
    BindingPattern, Expression, IdentifierReference, ImportMeta, Program, Statement,
    ThisExpression, VariableDeclarationKind,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use oxc_span::{GetSpan, Span};
use oxc_syntax::scope::ScopeFlags;
use rustc_hash::FxHashSet;

/// The file the helpers move to, beside the bundle file (when the bundle is one file; else
/// named after the file they come from).
pub(crate) const RUNTIME_FILE: &str = "esbuild-runtime.cjs";

/// The helpers that move: the statements that declared them and the names they bind, in
/// order, and the runtime file's text.
#[derive(Debug, Clone)]
pub(crate) struct Runtime {
    pub(crate) statements: Vec<Span>,
    pub(crate) names: Vec<String>,
    pub(crate) text: String,
}

/// Names that are the bundle file's own under node (its CommonJS wrapper's parameters): a
/// helper reading one cannot move to another file.
const FILE_OWN: [&str; 6] = [
    "require",
    "module",
    "exports",
    "__filename",
    "__dirname",
    "arguments",
];

/// esbuild's helpers at the top of `program`, when at least its `__commonJS` or `__esm` helper
/// is among those that can move; `strict`: the bundle file is strict (an ES module is), and so
/// is the runtime; `es_module`: the file is an ES module, whose helpers may follow its imports
/// and a banner.
pub(crate) fn helpers(
    program: &Program<'_>,
    scoping: &Scoping,
    text: &str,
    (strict, es_module): (bool, bool),
) -> Option<Runtime> {
    let (start, region) = helper_region(program, es_module);
    // A function declaration is set from the file's start: it moves only where nothing but
    // imports comes before the helpers (nothing of the file's runs before them).
    let functions_move = es_module
        && program.body[..start]
            .iter()
            .all(|s| matches!(s, Statement::ImportDeclaration(_)));
    let mut moved: FxHashSet<SymbolId> = FxHashSet::default();
    let mut statements = Vec::new();
    let mut names = Vec::new();
    let mut skipped_reads: FxHashSet<SymbolId> = FxHashSet::default();
    for statement in region {
        let (declared, qualifies) = match statement {
            Statement::VariableDeclaration(d) => (
                declared_symbols(d, scoping),
                d.kind == VariableDeclarationKind::Var
                    && d.declarations
                        .iter()
                        .all(|x| x.init.as_ref().is_some_and(helper_value)),
            ),
            // Bun's `function U(e) { return this[e]; }`, which its `__toESM` binds.
            Statement::FunctionDeclaration(f) if functions_move => (
                f.id.as_ref()
                    .and_then(|id| id.symbol_id.get())
                    .into_iter()
                    .collect(),
                !f.r#async && !f.generator,
            ),
            _ => break,
        };
        let qualifies = qualifies
            && !declared.is_empty()
            && declared.iter().all(|&s| never_assigned(scoping, s))
            && reads_only(statement, scoping, &moved, &declared);
        if !qualifies {
            skipped_reads.extend(root_reads(statement, scoping));
            continue;
        }
        // A declaration left behind that reads this helper would see it set too early.
        if declared.iter().any(|s| skipped_reads.contains(s)) {
            break;
        }
        moved.extend(declared.iter().copied());
        names.extend(declared.iter().map(|&s| scoping.symbol_name(s).to_owned()));
        statements.push(statement.span());
    }
    let moved_statements: Vec<&Statement<'_>> = region
        .iter()
        .filter(|s| statements.contains(&s.span()))
        .collect();
    if !defines_wrapper_helper(&moved_statements) {
        return None;
    }
    let known = esbuild_names(&moved_statements, text);
    Some(Runtime {
        text: runtime_text(text, (&statements, &known), &names, strict),
        statements,
        names,
    })
}

/// What esbuild calls each helper that moves, recognized by its shape (a minifier renames
/// them, `Ze` for `__toESM`): `(name in the bundle, esbuild's name)`, for the runtime file's
/// reader.
fn esbuild_names(moved: &[&Statement<'_>], text: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for statement in moved {
        let Statement::VariableDeclaration(d) = statement else {
            continue;
        };
        for declarator in &d.declarations {
            let Some(init) = &declarator.init else {
                continue;
            };
            match &declarator.id {
                BindingPattern::BindingIdentifier(id) => {
                    let source = &text[init.span().start as usize..init.span().end as usize];
                    if let Some(name) = helper_name(init, source) {
                        out.push((id.name.to_string(), name));
                    }
                }
                // `var {getPrototypeOf: a, defineProperty: b} = Object`
                BindingPattern::ObjectPattern(pattern) => {
                    for property in &pattern.properties {
                        if let (Some(key), BindingPattern::BindingIdentifier(id)) =
                            (property.key.static_name(), &property.value)
                            && let Some(name) = object_member_name(&key)
                        {
                            out.push((id.name.to_string(), name));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// esbuild's name for the helper `init` (its source `source`), by shape.
fn helper_name(init: &Expression<'_>, source: &str) -> Option<&'static str> {
    use crate::recognize::esbuild as shapes;
    if let Expression::StaticMemberExpression(m) = init.without_parentheses() {
        return object_member_name(m.property.name.as_str());
    }
    let params = match init.without_parentheses() {
        Expression::ArrowFunctionExpression(f) => &f.params,
        Expression::FunctionExpression(f) => &f.params,
        _ => return None,
    };
    let first = params
        .items
        .first()
        .and_then(|p| p.pattern.get_binding_identifier())
        .map_or("", |b| b.name.as_str());
    let params = params.items.len();
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    let name = if shapes::names_functions(init) {
        "__name"
    } else if compact.contains("{exports:{}}") && params == 2 {
        "__commonJS"
    } else if (2..=3).contains(&params) && shapes::assigns_zero(init, first) {
        "__esm"
    } else if compact.contains("__esModule") && params == 1 {
        "__toCommonJS"
    } else if compact.contains("__esModule") && compact.contains("\"default\"") {
        "__toESM"
    } else if compact.contains("\"default\"") && params == 3 {
        "__reExport"
    } else if compact.contains("for(var") && compact.contains("get:") && params == 2 {
        "__export"
    } else if compact.contains("enumerable") && params == 4 {
        "__copyProps"
    } else {
        return None;
    };
    Some(name)
}

/// esbuild's name for its alias of a member of `Object`.
fn object_member_name(member: &str) -> Option<&'static str> {
    Some(match member {
        "create" => "__create",
        "defineProperty" => "__defProp",
        "getOwnPropertyDescriptor" => "__getOwnPropDesc",
        "getOwnPropertyNames" => "__getOwnPropNames",
        "getPrototypeOf" => "__getProtoOf",
        "hasOwnProperty" => "__hasOwnProp",
        _ => return None,
    })
}

/// The statements before the first module wrapper: the first that is not a `var`, or whose
/// value calls a name (`var require_a = __commonJS(...)`, `var fs = require("fs")`). In an ES
/// module they start after its opening imports, `const`/`let` declarations and expression
/// statements (the banner esbuild is given, `const require = createRequire(import.meta.url)`,
/// or a prelude of another tool's): those ran before the helpers were set, and still do.
fn helper_region<'p, 'a>(
    program: &'p Program<'a>,
    es_module: bool,
) -> (usize, &'p [Statement<'a>]) {
    let start = if es_module {
        program
            .body
            .iter()
            .position(|s| match s {
                Statement::ImportDeclaration(_) | Statement::ExpressionStatement(_) => false,
                Statement::VariableDeclaration(d) => d.kind == VariableDeclarationKind::Var,
                _ => true,
            })
            .unwrap_or(program.body.len())
    } else {
        0
    };
    let body = &program.body[start..];
    let end = body
        .iter()
        .position(|s| match s {
            Statement::VariableDeclaration(d) => d.declarations.iter().any(|x| {
                matches!(
                    x.init.as_ref().map(Expression::without_parentheses),
                    Some(Expression::CallExpression(call))
                        if matches!(call.callee.without_parentheses(), Expression::Identifier(_))
                )
            }),
            // Bun declares a helper among them as a function.
            Statement::FunctionDeclaration(_) => !es_module,
            _ => true,
        })
        .unwrap_or(body.len());
    (start, &body[..end])
}

/// Whether `moved` defines esbuild's `__commonJS` or `__esm` helper: without one, the file is
/// not an esbuild bundle's top, and nothing moves.
fn defines_wrapper_helper(moved: &[&Statement<'_>]) -> bool {
    moved
        .iter()
        .any(|s| crate::recognize::esbuild::defines_helpers(std::slice::from_ref(*s)))
}

/// A helper's value: a function, or a property read of a global (`Object.prototype.
/// hasOwnProperty`), or a global itself (`var {defineProperty: d} = Object`).
fn helper_value(init: &Expression<'_>) -> bool {
    match init.without_parentheses() {
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => true,
        Expression::Identifier(_) => true,
        Expression::StaticMemberExpression(m) => helper_value(&m.object),
        _ => false,
    }
}

/// The top-level symbols a declaration binds.
fn declared_symbols(d: &oxc_ast::ast::VariableDeclaration<'_>, scoping: &Scoping) -> Vec<SymbolId> {
    let mut out = Vec::new();
    for declarator in &d.declarations {
        collect_bindings(&declarator.id, &mut out);
    }
    out.retain(|s| scoping.symbol_scope_id(*s) == scoping.root_scope_id());
    out
}

fn collect_bindings(pattern: &BindingPattern<'_>, out: &mut Vec<SymbolId>) {
    for binding in pattern.get_binding_identifiers() {
        if let Some(symbol) = binding.symbol_id.get() {
            out.push(symbol);
        }
    }
}

/// Whether nothing writes `symbol` after its declaration.
fn never_assigned(scoping: &Scoping, symbol: SymbolId) -> bool {
    scoping
        .get_resolved_references(symbol)
        .all(|r| !r.is_write())
}

/// Whether `statement` reads only globals (not the file's own names), the helpers `moved`
/// before it, its own `declared` names and its inner functions' locals, and no `this` of the
/// top level or `import.meta`.
fn reads_only(
    statement: &Statement<'_>,
    scoping: &Scoping,
    moved: &FxHashSet<SymbolId>,
    declared: &[SymbolId],
) -> bool {
    struct Reads<'s> {
        scoping: &'s Scoping,
        moved: &'s FxHashSet<SymbolId>,
        declared: &'s [SymbolId],
        ok: bool,
        /// Functions with a `this` of their own around the point visited.
        own_this: usize,
    }
    impl<'a> Visit<'a> for Reads<'_> {
        fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
            match crate::refs::symbol_of(self.scoping, it) {
                None => self.ok &= !FILE_OWN.contains(&it.name.as_str()),
                Some(symbol) => {
                    let top = self.scoping.symbol_scope_id(symbol) == self.scoping.root_scope_id();
                    self.ok &=
                        !top || self.moved.contains(&symbol) || self.declared.contains(&symbol);
                }
            }
        }
        fn visit_this_expression(&mut self, _: &ThisExpression) {
            self.ok &= self.own_this > 0;
        }
        fn visit_import_meta(&mut self, _: &ImportMeta) {
            self.ok = false;
        }
        fn visit_function(&mut self, it: &oxc_ast::ast::Function<'a>, flags: ScopeFlags) {
            self.own_this += 1;
            walk::walk_function(self, it, flags);
            self.own_this -= 1;
        }
    }
    let mut reads = Reads {
        scoping,
        moved,
        declared,
        ok: true,
        own_this: 0,
    };
    reads.visit_statement(statement);
    reads.ok
}

/// The top-level symbols `statement` reads.
fn root_reads(statement: &Statement<'_>, scoping: &Scoping) -> Vec<SymbolId> {
    struct Reads<'s> {
        scoping: &'s Scoping,
        found: Vec<SymbolId>,
    }
    impl<'a> Visit<'a> for Reads<'_> {
        fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
            if let Some(symbol) = crate::refs::symbol_of(self.scoping, it)
                && self.scoping.symbol_scope_id(symbol) == self.scoping.root_scope_id()
            {
                self.found.push(symbol);
            }
        }
    }
    let mut reads = Reads {
        scoping,
        found: Vec::new(),
    };
    reads.visit_statement(statement);
    reads.found
}

/// The runtime file: the helpers' statements as the bundle wrote them, and an object of them
/// for the bundle.
fn runtime_text(
    text: &str,
    (statements, known): (&[Span], &[(String, &str)]),
    names: &[String],
    strict: bool,
) -> String {
    let mut out = String::from(
        "// esbuild's runtime helpers, moved out of the bundle by pilotfish unbundle: the bundle\n// takes them from here where it defined them, and passes them to its modules.\n",
    );
    if !known.is_empty() {
        let listed: Vec<String> = known
            .iter()
            .map(|(ours, theirs)| {
                if ours == theirs {
                    ours.clone()
                } else {
                    format!("{ours} is {theirs}")
                }
            })
            .collect();
        out.push_str(&format!(
            "// By their shapes, in esbuild's names: {}.\n",
            listed.join(", ")
        ));
    }
    if strict {
        out.push_str("\"use strict\";\n");
    }
    for span in statements {
        out.push_str(&text[span.start as usize..span.end as usize]);
        out.push('\n');
    }
    out.push_str(&format!("module.exports = {{ {} }};\n", names.join(", ")));
    out
}

/// What replaces the helpers' first statement in the bundle: `path` is the runtime file's. An
/// ES module requires it through node's `require` made for it (see `split/mod.rs`'s prelude).
pub(crate) fn require_line(names: &[String], path: &str, es_module: bool) -> String {
    let require = if es_module {
        "__pilotfish_require(import.meta.url)"
    } else {
        "require"
    };
    format!("var {{ {} }} = {require}(\"./{path}\");", names.join(", "))
}
