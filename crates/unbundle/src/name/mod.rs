//! Names for a module's variables: those bound to other modules (`const e = require(6462)`
//! reads `const text = require(6462)` when module 6462 has a name, from `--names` or revealed
//! by the bundle like esbuild's `require_ms`), and those exported under a name
//! (`exports.Inventory = n` makes `n` read `Inventory`, the seed's renaming, and so does
//! webpack's getter `require.d(exports, {Inventory: () => n})`, or esbuild's
//! `__export(exports, {Inventory: () => n})`). A variable is
//! renamed only when its new name collides with nothing the module binds or uses: the seed
//! renamed `n` to `Error` for `exports.Error = n` and wrote `class Error extends Error`.

use oxc_ast::ast::{
    Argument, AssignmentExpression, AssignmentTarget, Expression, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolId};
use rustc_hash::{FxHashMap, FxHashSet};

pub(crate) mod keep_names;
pub(crate) mod license;
pub(crate) mod source_names;

use crate::refs::Wrapper;
use crate::syntax::is_identifier;

/// Module names by id.
pub(crate) type ModuleNames = FxHashMap<String, String>;

/// The name esbuild's own variable for a module reveals: `require_lodash_min` → `lodash_min`,
/// `init_shapes` → `shapes`.
pub(crate) fn revealed_by_esbuild(id: &str) -> Option<String> {
    let name = id
        .strip_prefix("require_")
        .or_else(|| id.strip_prefix("init_"))?;
    is_identifier(name).then(|| name.to_owned())
}

/// The renames for a module's variables: bound to named modules first, then exported under a
/// name (when `export_names`), each only to a name nothing else in the module has or uses.
pub(crate) fn renames(
    program: &oxc_ast::ast::Program<'_>,
    scoping: &Scoping,
    wrapper: Wrapper,
    names: &ModuleNames,
    export_names: bool,
    reserved: &[&str],
) -> Vec<Rename> {
    let mut finder = Bindings {
        scoping,
        wrapper,
        names,
        found: Vec::new(),
        exported: Vec::new(),
        naming: FxHashSet::default(),
    };
    finder.visit_program(program);
    // A function's or class's `name` is the name it was declared or first assigned under:
    // renaming its variable would change what `f.name` says. Such variables, and any that is
    // assigned after its declaration (perhaps with such a function), keep their names.
    let keeps_name = |symbol: SymbolId| {
        scoping
            .symbol_flags(symbol)
            .intersects(oxc_semantic::SymbolFlags::Function | oxc_semantic::SymbolFlags::Class)
            || finder.naming.contains(&symbol)
            || scoping
                .get_resolved_references(symbol)
                .any(|r| r.is_write())
    };
    finder.found.retain(|(s, _)| !keeps_name(*s));
    finder.exported.retain(|(s, _)| !keeps_name(*s));
    if !export_names {
        finder.exported.clear();
    }
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
    let mut out: Vec<Rename> = Vec::new();
    let found = finder.found.into_iter().map(|(s, n)| (s, n, false));
    let exported = finder.exported.into_iter().map(|(s, n)| (s, n, true));
    for (symbol, name, exported) in found.chain(exported) {
        if !is_identifier(&name) || taken.contains(&name) || out.iter().any(|r| r.symbol == symbol)
        {
            continue;
        }
        taken.insert(name.clone());
        out.push(Rename {
            symbol,
            name,
            exported,
        });
    }
    out
}

/// A variable to rename.
pub(crate) struct Rename {
    pub(crate) symbol: SymbolId,
    pub(crate) name: String,
    /// Named after its export (`exports.NAME = it`), else after the module it is bound to.
    pub(crate) exported: bool,
}

struct Bindings<'s> {
    scoping: &'s Scoping,
    wrapper: Wrapper,
    names: &'s ModuleNames,
    /// Variables bound to named modules.
    found: Vec<(SymbolId, String)>,
    /// Variables of the module's own scope assigned to `exports.NAME` or `module.exports.NAME`.
    exported: Vec<(SymbolId, String)>,
    /// Variables that give a function or class its `name` (`var a = function () {}`).
    naming: FxHashSet<SymbolId>,
}

impl<'a> Visit<'a> for Bindings<'_> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(binding), Some(init)) = (it.id.get_binding_identifier(), &it.init)
            && init.is_anonymous_function_definition()
            && let Some(symbol) = binding.symbol_id.get()
        {
            self.naming.insert(symbol);
        }
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

    fn visit_call_expression(&mut self, it: &oxc_ast::ast::CallExpression<'a>) {
        // webpack's `require.d(exports, {NAME: () => a})` (and webpack 4's
        // `require.d(exports, "NAME", function () { return a; })`) export `a` as NAME too, and
        // so does esbuild's `__export(exports, {NAME: () => a})` in an ES module's file, where
        // `__export` is a name from the bundle (free in the file).
        let esbuild_export = self.wrapper.require.is_none()
            && matches!(&it.callee, Expression::Identifier(c) if self.symbol_of(c).is_none());
        if (esbuild_export
            || crate::refs::is_require_helper(self.scoping, self.wrapper.require, &it.callee, "d"))
            && let Some(Argument::Identifier(target)) = it.arguments.first()
            && self.wrapper.exports.is_some()
            && self.symbol_of(target) == self.wrapper.exports
        {
            match &it.arguments[1..] {
                [Argument::ObjectExpression(o)] => {
                    for property in &o.properties {
                        if let oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p) = property
                            && let oxc_ast::ast::PropertyKey::StaticIdentifier(key) = &p.key
                        {
                            self.getter_export(key.name.as_str(), &p.value);
                        }
                    }
                }
                [Argument::StringLiteral(name), getter] => {
                    if let Some(getter) = getter.as_expression() {
                        self.getter_export(name.value.as_str(), getter);
                    }
                }
                _ => {}
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(target) = &it.left
            && self.is_exports(&target.object)
            && let Expression::Identifier(value) = &it.right
            && let Some(symbol) = self.symbol_of(value)
            && self.scoping.symbol_scope_id(symbol) == self.wrapper.scope
            && self.scoping.symbol_name(symbol) != target.property.name.as_str()
        {
            self.exported
                .push((symbol, target.property.name.to_string()));
        }
        walk::walk_assignment_expression(self, it);
    }
}

impl Bindings<'_> {
    /// A getter exporting a variable of the module's scope as `name`.
    fn getter_export(&mut self, name: &str, getter: &Expression<'_>) {
        if let Some(value) = crate::refs::getter_value(getter)
            && let Some(symbol) = self.symbol_of(value)
            && self.scoping.symbol_scope_id(symbol) == self.wrapper.scope
            && self.scoping.symbol_name(symbol) != name
            && is_identifier(name)
        {
            self.exported.push((symbol, name.to_owned()));
        }
    }

    fn symbol_of(&self, reference: &oxc_ast::ast::IdentifierReference<'_>) -> Option<SymbolId> {
        crate::refs::symbol_of(self.scoping, reference)
    }

    /// `exports`, or `module.exports`, of this module.
    fn is_exports(&self, expr: &Expression<'_>) -> bool {
        match expr {
            Expression::Identifier(r) => {
                self.wrapper.exports.is_some() && self.symbol_of(r) == self.wrapper.exports
            }
            Expression::StaticMemberExpression(m) => {
                m.property.name == "exports"
                    && matches!(&m.object, Expression::Identifier(r)
                        if self.wrapper.module.is_some() && self.symbol_of(r) == self.wrapper.module)
            }
            _ => false,
        }
    }

    /// The id of the module a call of `callee` with `arguments` returns, if it is one.
    fn module_id(
        &self,
        callee: &oxc_ast::ast::IdentifierReference<'_>,
        arguments: &[Argument<'_>],
    ) -> Option<String> {
        module_id(self.scoping, self.wrapper, callee, arguments)
    }
}

/// The id of the module a call of `callee` with `arguments` returns, if it is one, in a
/// module whose parameters `wrapper` gives.
pub(crate) fn module_id(
    scoping: &Scoping,
    wrapper: Wrapper,
    callee: &oxc_ast::ast::IdentifierReference<'_>,
    arguments: &[Argument<'_>],
) -> Option<String> {
    let symbol = crate::refs::symbol_of(scoping, callee);
    match (wrapper.require, symbol, arguments) {
        // webpack: `require(6462)` with the require parameter.
        (Some(require), Some(s), [Argument::NumericLiteral(n)]) if s == require => {
            crate::syntax::number_key(n.value)
        }
        (Some(require), Some(s), [Argument::StringLiteral(l)]) if s == require => {
            Some(l.value.to_string())
        }
        // esbuild: `require_ms()`, a name from outside the module.
        (None, _, []) if wrapper.reads_bundle_name(scoping, callee) => {
            Some(callee.name.to_string())
        }
        _ => None,
    }
}
