//! One module function made into a module file: its parameters renamed to `module`,
//! `exports` and `require` by their position (with scope analysis, so that no other name is
//! captured or shadowed), the names the function used from outside it (node's own `require`,
//! `module` and `exports` of the bundle file) renamed so the new parameter names cannot
//! capture them, and its body printed as the file.

use oxc_allocator::{Allocator, TakeIn};
use oxc_ast::ast::{Expression, IdentifierReference, Statement};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_codegen::Codegen;
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::{ScopeId, SemanticBuilder, SymbolId};
use oxc_span::GetSpan;
use oxc_span::SourceType;
use oxc_str::Ident;
use oxc_syntax::reference::ReferenceId;
use rustc_hash::FxHashSet;

/// What webpack passes a module function, by position.
pub(crate) const WEBPACK: [&str; 3] = ["module", "exports", "require"];
/// What esbuild's `__commonJS` passes, by position. esbuild leaves node's `require` as it is.
pub(crate) const ESBUILD: [&str; 2] = ["exports", "module"];
/// What the loader passes an esbuild ES module's file: its namespace object.
pub(crate) const ESM: [&str; 1] = ["exports"];

/// A module file's text.
#[derive(Debug)]
pub(crate) struct ModuleFile {
    pub(crate) text: String,
    /// What the readability transforms changed.
    pub(crate) changes: crate::transform::Changes,
    /// Parameters left with their minified names because the new name would have been
    /// shadowed or would have captured another binding.
    pub(crate) kept: Vec<String>,
    /// The module calls `eval`: no name of it was changed.
    pub(crate) evals: bool,
    /// What the first pass learned for the transforms that depend on other modules.
    pub(crate) facts: crate::transform::exports::Facts,
}

/// Why a module function could not be rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("module {id}: {message}")]
pub struct ModuleError {
    pub id: String,
    pub message: String,
}

/// What a module's file is made from besides its text: whether its surroundings were strict,
/// esbuild's `__name` helper as the module reads it, the source map's names by offset in the
/// text, and the calls it writes as `require`s of other modules' files (see `requires/`).
pub(crate) struct Given<'j> {
    pub(crate) strict: bool,
    pub(crate) name_helper: Option<&'j str>,
    pub(crate) source_names: &'j [(u32, String)],
    pub(crate) links: &'j [crate::requires::Link],
    /// The bundle's `__toESM` helper, when it has esbuild's shape.
    pub(crate) to_esm: Option<&'j str>,
    /// The bundle's `__name` helper, when it hands back the function it names.
    pub(crate) namer: Option<&'j str>,
    /// The bundle's ES module initializers that run none of its code (`split/quiet.rs`).
    pub(crate) quiet_inits: &'j [String],
}

/// Rewrites the module function `source` (its text in the bundle), whose surroundings were
/// strict when `strict`. The first pass has no `plan` and gathers facts; the second applies
/// the plan made from every module's facts (see `exports/`).
pub(crate) fn rewrite(
    id: &str,
    source: &str,
    given: Given<'_>,
    parameters: &[&'static str],
    transforms: crate::transform::Transforms,
    names: &crate::name::ModuleNames,
    plan: Option<&crate::transform::exports::Plan>,
) -> Result<ModuleFile, ModuleError> {
    let error = |message: String| ModuleError {
        id: id.to_owned(),
        message,
    };
    let allocator = Allocator::default();
    let (wrapped, changed, at) = wrap(source, given.strict);
    let mut program = parse(&allocator, &wrapped).map_err(error)?;
    let semantic = SemanticBuilder::new().build(&program).semantic;
    let Some((function_scope, params)) = crate::refs::function_of(&program) else {
        return Err(error("is not a function".to_owned()));
    };
    // Which parameters can take their names, decided before anything changes.
    let scoping = semantic.scoping();
    // A module that calls `eval` may read any of its names by their text: none is renamed.
    let evals = scoping.root_unresolved_references().contains_key("eval");
    let (renames, kept, prologue) =
        parameter_names(scoping, function_scope, &params, parameters, evals);
    let (name_helper, source_names) =
        usable_names(evals, changed, given.name_helper, given.source_names);
    let outer = free_parameter_names(scoping, parameters);
    let binds_undefined = scoping.symbol_names().any(|n| n == "undefined");
    let wrapper = wrapper_of(parameters, &given, (&program, scoping));
    let facts = first_pass_facts(plan, transforms, &program, scoping, wrapper);
    let plain_functions = plain_functions(plan, id, &program, scoping, wrapper);
    let module_renames = if evals {
        Vec::new()
    } else {
        variable_names(&program, scoping, wrapper, names, transforms, parameters)
    };
    let (named, name_calls) = given_names(
        (&program, scoping),
        (name_helper, source_names, at),
        &module_renames,
        (&renames, &params),
        parameters,
    );
    let mut scoping = semantic.into_scoping();
    apply_renames(
        &mut scoping,
        (&module_renames, &named),
        &renames,
        function_scope,
        &allocator,
    );
    RenameOuter {
        ids: &outer,
        allocator: &allocator,
    }
    .visit_program(&mut program);
    let nested = transforms.calls && !evals;
    let calls = receiver_calls(
        &mut program,
        (&allocator, &scoping),
        wrapper,
        plan,
        nested.then_some(&wrapped),
    );
    // The function's body becomes the program.
    let Some(body) = take_body(&mut program, &allocator) else {
        return Err(error("is not a function".to_owned()));
    };
    program.directives.clear();
    program.body = body.1;
    crate::name::keep_names::drop_calls(&mut program, &name_calls);
    let mut changes = transform_body(
        &mut program,
        &allocator,
        &scoping,
        wrapper,
        Passes {
            transforms,
            binds_undefined,
            plain_functions: &plain_functions,
            unmarked: plan.is_some_and(|p| p.unmarked.contains(id)),
        },
    );
    changes.calls = calls;
    changes.requires =
        crate::requires::rewrite(&mut program, (&scoping, &params), given.links, &allocator);
    changes.export_names = module_renames.iter().filter(|r| r.exported).count();
    changes.module_names = module_renames.len() - changes.export_names;
    let text = print(&program, scoping, (&body.0, &prologue), given.strict);
    Ok(ModuleFile {
        text,
        changes,
        kept,
        evals,
        facts,
    })
}

/// The `(0, x.f)` calls given their receiver: those the plan allows, and those of a webpack
/// bundle nested in the module (`nested`: the module's wrapped text, when `calls` runs).
fn receiver_calls<'a>(
    program: &mut oxc_ast::ast::Program<'a>,
    (allocator, scoping): (&'a Allocator, &oxc_semantic::Scoping),
    wrapper: crate::refs::Wrapper,
    plan: Option<&crate::transform::exports::Plan>,
    nested: Option<&String>,
) -> usize {
    let mut calls = plan.map_or(0, |plan| {
        crate::transform::exports::rewrite_calls(program, allocator, scoping, wrapper, plan)
    });
    if let Some(wrapped) = nested {
        calls +=
            crate::transform::exports::rewrite_nested_calls(program, allocator, scoping, wrapped);
    }
    calls
}

/// The `__name` helper and the source map's names a module is named by: none in a module
/// that calls `eval` (nothing is renamed there), and no source map names in a text that
/// changed (they are by offset).
fn usable_names<'n>(
    evals: bool,
    changed: bool,
    name_helper: Option<&'n str>,
    source_names: &'n [(u32, String)],
) -> (Option<&'n str>, &'n [(u32, String)]) {
    match (evals, changed) {
        (true, _) => (None, &[]),
        (false, true) => (name_helper, &[]),
        (false, false) => (name_helper, source_names),
    }
}

/// What the first pass (no `plan` yet) learns for the transforms that depend on other
/// modules, when any of them runs.
fn first_pass_facts(
    plan: Option<&crate::transform::exports::Plan>,
    transforms: crate::transform::Transforms,
    program: &oxc_ast::ast::Program<'_>,
    scoping: &oxc_semantic::Scoping,
    wrapper: crate::refs::Wrapper,
) -> crate::transform::exports::Facts {
    if plan.is_none() && (transforms.calls || transforms.plain_exports || transforms.helpers) {
        crate::transform::exports::facts(program, scoping, wrapper)
    } else {
        crate::transform::exports::Facts::default()
    }
}

/// The module function's text wrapped in parentheses (after `"use strict";` when its
/// surroundings were strict) to parse, with `import.meta` and `import()` read through what
/// the entry passes on (see `imports.rs`); whether that changed it, and where `source`
/// starts in it.
fn wrap(source: &str, strict: bool) -> (String, bool, u32) {
    let prefix = if strict { "\"use strict\";(" } else { "(" };
    let wrapped = format!("{prefix}{source});");
    let changed = match crate::imports::through_entry(&wrapped) {
        std::borrow::Cow::Owned(changed) => Some(changed),
        std::borrow::Cow::Borrowed(_) => None,
    };
    let at = prefix.len() as u32;
    match changed {
        Some(changed) => (changed, true, at),
        None => (wrapped, false, at),
    }
}

/// The parameters that take the loader's names, those that keep theirs, and the lines that
/// bind the kept ones; in a module that calls `eval` (`evals`) all keep theirs.
fn parameter_names(
    scoping: &oxc_semantic::Scoping,
    function_scope: ScopeId,
    params: &[SymbolId],
    parameters: &[&'static str],
    evals: bool,
) -> (Vec<(SymbolId, &'static str)>, Vec<String>, String) {
    let (renames, kept) = if evals {
        (Vec::new(), unrenamed(scoping, params, parameters))
    } else {
        parameter_renames(scoping, function_scope, params, parameters)
    };
    let prologue = bind_kept(&kept, scoping, params);
    (renames, kept, prologue)
}

/// The parameters of a module that calls `eval` whose names differ from the loader's: all
/// keep their names.
fn unrenamed(
    scoping: &oxc_semantic::Scoping,
    params: &[SymbolId],
    parameters: &[&'static str],
) -> Vec<String> {
    params
        .iter()
        .zip(parameters)
        .map(|(symbol, &new)| (scoping.symbol_name(*symbol), new))
        .filter(|(old, new)| old != new)
        .map(|(old, _)| old.to_owned())
        .collect()
}

/// `var e = arguments[0];` for each parameter that keeps its name (`kept`), by its position:
/// the file is compiled with the loader's names, so the module's own must be bound to the
/// same values.
fn bind_kept(kept: &[String], scoping: &oxc_semantic::Scoping, params: &[SymbolId]) -> String {
    params
        .iter()
        .enumerate()
        .map(|(i, symbol)| (i, scoping.symbol_name(*symbol)))
        .filter(|(_, name)| kept.iter().any(|k| k == name))
        .map(|(i, name)| format!("var {name} = arguments[{i}];\n"))
        .collect()
}

/// Parses the module function in parentheses. Parentheses are dropped while parsing and put
/// back by the printer where precedence needs them, so that a transform sees `(a, b)` as the
/// sequence it is.
fn parse<'a>(
    allocator: &'a Allocator,
    wrapped: &'a str,
) -> Result<oxc_ast::ast::Program<'a>, String> {
    let parsed = Parser::new(allocator, wrapped, SourceType::script())
        .with_options(ParseOptions {
            preserve_parens: false,
            ..ParseOptions::default()
        })
        .parse();
    match parsed.diagnostics.errors().next() {
        Some(e) => Err(format!("does not parse on its own: {e}")),
        None => Ok(parsed.program),
    }
}

/// Free references to the bundle file's own names, which a parameter named like them would
/// capture.
fn free_parameter_names(
    scoping: &oxc_semantic::Scoping,
    parameters: &[&'static str],
) -> FxHashSet<ReferenceId> {
    scoping
        .root_unresolved_references()
        .iter()
        .filter(|(name, _)| parameters.contains(&name.as_str()))
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect()
}

/// Where the module function's parameters are, by the names they take, and the bundle's
/// helpers the module is `given`. Variables bound to named modules take the module's name:
/// webpack's modules call the require parameter; esbuild's call a top-level function named
/// like the module.
fn wrapper_of(
    parameters: &[&'static str],
    given: &Given<'_>,
    (program, scoping): (&oxc_ast::ast::Program<'_>, &oxc_semantic::Scoping),
) -> crate::refs::Wrapper {
    // `rewrite` refused a program that is not a function before this.
    let (scope, params) =
        crate::refs::function_of(program).unwrap_or_else(|| (scoping.root_scope_id(), Vec::new()));
    let params = &params[..];
    let position = |name: &str| {
        parameters
            .iter()
            .position(|p| *p == name)
            .and_then(|i| params.get(i).copied())
    };
    let mut wrapper = crate::refs::Wrapper {
        require: position("require"),
        exports: position("exports"),
        module: position("module"),
        scope,
        to_esm: given.to_esm.and_then(crate::refs::HelperName::new),
        namer: given.namer.and_then(crate::refs::HelperName::new),
        quiet_init: None,
        given: given_parameters(params, parameters.len()),
    };
    wrapper.quiet_init = quiet_init(program, scoping, wrapper, given.quiet_inits);
    wrapper
}

/// The parameters after the `positional` ones the bundler passes, which take the bundle's
/// names (the entry's function), when their symbols are consecutive.
fn given_parameters(params: &[SymbolId], positional: usize) -> Option<(SymbolId, SymbolId)> {
    let given = params.get(positional..)?;
    let (first, last) = (*given.first()?, *given.last()?);
    let consecutive = given
        .iter()
        .enumerate()
        .all(|(k, s)| s.index() == first.index() + k);
    consecutive.then_some((first, last))
}

/// The quiet initializer (one of `quiet`, a name from outside the module) the module's body
/// calls in its first statement, `init();`.
fn quiet_init(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &oxc_semantic::Scoping,
    wrapper: crate::refs::Wrapper,
    quiet: &[String],
) -> Option<crate::refs::HelperName> {
    let first = crate::transform::exports::module_body(program).first()?;
    let Statement::ExpressionStatement(s) = first else {
        return None;
    };
    let Expression::CallExpression(call) = s.expression.without_parentheses() else {
        return None;
    };
    let Expression::Identifier(callee) = &call.callee else {
        return None;
    };
    (call.arguments.is_empty()
        && wrapper.reads_bundle_name(scoping, callee)
        && quiet.iter().any(|q| q == callee.name.as_str()))
    .then(|| crate::refs::HelperName::new(&callee.name))
    .flatten()
}

/// The variables to rename after their module or their export. Node's own names, which a
/// module may use free, are never given to a variable.
fn variable_names(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &oxc_semantic::Scoping,
    wrapper: crate::refs::Wrapper,
    names: &crate::name::ModuleNames,
    transforms: crate::transform::Transforms,
    parameters: &[&'static str],
) -> Vec<crate::name::Rename> {
    let mut reserved: Vec<String> = ["module", "exports", "require"]
        .iter()
        .chain(parameters)
        .map(|p| (*p).to_owned())
        .collect();
    reserved.extend(parameters.iter().map(|p| crate::write::outer_name(p)));
    reserved.extend(["__filename", "__dirname"].map(str::to_owned));
    let reserved: Vec<&str> = reserved.iter().map(String::as_str).collect();
    crate::name::renames(
        program,
        scoping,
        wrapper,
        names,
        transforms.export_names,
        &reserved,
    )
}

/// The functions esbuild's `__name` helper (`helper`) names, with their names, and the calls
/// to drop: only to names nothing in the module has or uses, nor another rename took.
fn keep_names(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &oxc_semantic::Scoping,
    helper: &str,
    module_renames: &[crate::name::Rename],
    parameters: &[&'static str],
) -> (Vec<(SymbolId, String)>, FxHashSet<u32>) {
    let mut taken = taken_names(scoping, parameters);
    taken.extend(module_renames.iter().map(|r| r.name.clone()));
    crate::name::keep_names::renames(program, scoping, helper, &mut taken)
}

/// The function declarations whose getters the plan makes plain exports.
fn plain_functions(
    plan: Option<&crate::transform::exports::Plan>,
    id: &str,
    program: &oxc_ast::ast::Program<'_>,
    scoping: &oxc_semantic::Scoping,
    wrapper: crate::refs::Wrapper,
) -> FxHashSet<SymbolId> {
    match plan {
        Some(plan) if plan.plain_exports.contains(id) => {
            crate::transform::exports::function_declarations(program, scoping, wrapper)
        }
        _ => Default::default(),
    }
}

/// The names given back to variables: by esbuild's `__name(f, "original")` calls (`f`
/// takes the original name, and the calls go), then by the source map's `names` (by offset
/// in the module's text, which starts at `at` in the parsed text) to the variables no other
/// rename took.
fn given_names(
    (program, scoping): (&oxc_ast::ast::Program<'_>, &oxc_semantic::Scoping),
    (name_helper, source_names, at): (Option<&str>, &[(u32, String)], u32),
    module_renames: &[crate::name::Rename],
    (renames, params): (&[(SymbolId, &'static str)], &[SymbolId]),
    parameters: &[&'static str],
) -> (Vec<(SymbolId, String)>, FxHashSet<u32>) {
    let (mut named, name_calls) = match name_helper {
        Some(helper) => keep_names(program, scoping, helper, module_renames, parameters),
        None => Default::default(),
    };
    if source_names.is_empty() {
        return (named, name_calls);
    }
    let names: Vec<(u32, String)> = source_names
        .iter()
        .map(|(offset, n)| (offset + at, n.clone()))
        .collect();
    let mut taken = taken_names(scoping, parameters);
    taken.extend(module_renames.iter().map(|r| r.name.clone()));
    taken.extend(named.iter().map(|n| n.1.clone()));
    let mut renamed: FxHashSet<SymbolId> = module_renames.iter().map(|r| r.symbol).collect();
    renamed.extend(named.iter().map(|n| n.0));
    renamed.extend(renames.iter().map(|r| r.0));
    renamed.extend(params.iter().copied());
    let found = crate::name::source_names::renames(program, scoping, &names, &mut taken);
    named.extend(found.into_iter().filter(|(s, _)| !renamed.contains(s)));
    (named, name_calls)
}

/// The names a variable of the module cannot take: those it has or uses, and those the
/// module file's own parameters and node's module scope give.
fn taken_names(scoping: &oxc_semantic::Scoping, parameters: &[&'static str]) -> FxHashSet<String> {
    let mut taken: FxHashSet<String> = scoping.symbol_names().map(str::to_owned).collect();
    taken.extend(
        scoping
            .root_unresolved_references()
            .keys()
            .map(|k| k.as_str().to_owned()),
    );
    taken.extend(
        ["module", "exports", "require", "__filename", "__dirname"]
            .iter()
            .chain(parameters)
            .map(|p| (*p).to_owned()),
    );
    taken.extend(parameters.iter().map(|p| crate::write::outer_name(p)));
    taken
}

/// Gives variables their new names (after their modules or exports, and functions the names
/// esbuild's `__name` gives them), then the parameters theirs.
fn apply_renames(
    scoping: &mut oxc_semantic::Scoping,
    (module_renames, named): (&[crate::name::Rename], &[(SymbolId, String)]),
    parameter_renames: &[(SymbolId, &'static str)],
    function_scope: ScopeId,
    allocator: &Allocator,
) {
    for rename in module_renames {
        let scope = scoping.symbol_scope_id(rename.symbol);
        scoping.rename_symbol(
            rename.symbol,
            scope,
            Ident::from_str_in(&rename.name, &allocator),
        );
    }
    for (symbol, name) in named {
        let scope = scoping.symbol_scope_id(*symbol);
        scoping.rename_symbol(*symbol, scope, Ident::from_str_in(name, &allocator));
    }
    for &(symbol, new) in parameter_renames {
        scoping.rename_symbol(symbol, function_scope, Ident::from_str_in(new, &allocator));
    }
}

/// What the transforms of the module's body need besides the switches.
struct Passes<'p> {
    transforms: crate::transform::Transforms,
    /// The module binds a name `undefined`.
    binds_undefined: bool,
    /// The function declarations whose getters become plain exports.
    plain_functions: &'p FxHashSet<SymbolId>,
    /// The plan says nothing reads the module's ES module mark.
    unmarked: bool,
}

/// Runs the readability transforms and the export rewrites on the module's body.
fn transform_body<'a>(
    program: &mut oxc_ast::ast::Program<'a>,
    allocator: &'a Allocator,
    scoping: &oxc_semantic::Scoping,
    wrapper: crate::refs::Wrapper,
    passes: Passes<'_>,
) -> crate::transform::Changes {
    let transforms = passes.transforms;
    let mut changes = crate::transform::apply(
        &mut program.body,
        allocator,
        transforms,
        passes.binds_undefined,
    );
    if !passes.plain_functions.is_empty() {
        changes.plain_exports = crate::transform::exports::plain_exports(
            &mut program.body,
            allocator,
            scoping,
            wrapper,
            passes.plain_functions,
        );
    }
    if transforms.helpers {
        changes.helpers = crate::transform::exports::rewrite_helpers(
            &mut program.body,
            allocator,
            scoping,
            wrapper,
            passes.unmarked,
        );
    }
    changes
}

/// The module file's text: its directives, `"use strict"` when its surroundings were strict
/// and it does not say so itself, the bindings of the parameters that kept their names
/// (`prologue`), and its body.
fn print(
    program: &oxc_ast::ast::Program<'_>,
    scoping: oxc_semantic::Scoping,
    (directives, prologue): (&[String], &str),
    strict: bool,
) -> String {
    let code = Codegen::new()
        .with_scoping(Some(scoping))
        .build(program)
        .code;
    let own_strict = directives.iter().any(|d| d == "use strict");
    let mut text = String::with_capacity(code.len() + 16);
    for directive in directives {
        text.push_str(&format!("{directive:?};\n"));
    }
    if strict && !own_strict {
        text.insert_str(0, "\"use strict\";\n");
    }
    text.push_str(prologue);
    text.push_str(&code);
    text
}

/// The parameters that can take their new names by position, and the names of those that
/// cannot: the new name is bound elsewhere in the function's own scope, or is bound in a scope
/// between the function and a use of the parameter (it would shadow the parameter there).
fn parameter_renames(
    scoping: &oxc_semantic::Scoping,
    function_scope: ScopeId,
    params: &[SymbolId],
    parameters: &[&'static str],
) -> (Vec<(SymbolId, &'static str)>, Vec<String>) {
    let mut renames = Vec::new();
    let mut kept = Vec::new();
    for (symbol, &new) in params.iter().zip(parameters) {
        let old = scoping.symbol_name(*symbol);
        if old == new {
            continue;
        }
        let taken_here = scoping
            .get_binding(function_scope, new.into())
            .is_some_and(|s| s != *symbol);
        let shadowed = scoping
            .get_resolved_reference_ids(*symbol)
            .iter()
            .any(|&r| {
                let scope = scoping.get_reference(r).scope_id();
                scoping
                    .scope_ancestors(scope)
                    .take_while(|&s| s != function_scope)
                    .any(|s| scoping.get_binding(s, new.into()).is_some())
            });
        if taken_here || shadowed {
            kept.push(old.to_owned());
        } else {
            renames.push((*symbol, new));
        }
    }
    (renames, kept)
}

/// Takes the function's directives (as text) and statements out of the program.
fn take_body<'a>(
    program: &mut oxc_ast::ast::Program<'a>,
    allocator: &'a Allocator,
) -> Option<(Vec<String>, oxc_allocator::Vec<'a, Statement<'a>>)> {
    let Statement::ExpressionStatement(statement) = program.body.first_mut()? else {
        return None;
    };
    let mut expression = &mut statement.expression;
    while let Expression::ParenthesizedExpression(p) = expression {
        expression = &mut p.expression;
    }
    let body = match expression {
        Expression::FunctionExpression(f) => f.body.as_mut()?,
        Expression::ArrowFunctionExpression(f) => match &mut f.body {
            oxc_ast::ast::ArrowFunctionBody::FunctionBody(b) => b,
            // `e => e.exports = 1`: the expression is the body's one statement.
            body => {
                let expression = body.as_expression_mut()?.take_in(&allocator);
                let builder = AstBuilder::new(allocator);
                let statement =
                    Statement::new_expression_statement(expression.span(), expression, &builder);
                return Some((
                    Vec::new(),
                    oxc_allocator::Vec::from_value_in(statement, &allocator),
                ));
            }
        },
        _ => return None,
    };
    let directives = body
        .directives
        .iter()
        .map(|d| d.directive.to_string())
        .collect();
    let statements =
        std::mem::replace(&mut body.statements, oxc_allocator::Vec::new_in(&allocator));
    Some((directives, statements))
}

/// Renames free references to the bundle file's `module`, `exports` and `require`.
struct RenameOuter<'r, 'a> {
    ids: &'r FxHashSet<ReferenceId>,
    allocator: &'a Allocator,
}

impl<'a> VisitMut<'a> for RenameOuter<'_, 'a> {
    fn visit_identifier_reference(&mut self, it: &mut IdentifierReference<'a>) {
        if it.reference_id.get().is_some_and(|r| self.ids.contains(&r)) {
            it.name =
                Ident::from_str_in(&crate::write::outer_name(it.name.as_str()), &self.allocator);
        }
        walk_mut::walk_identifier_reference(self, it);
    }
}
