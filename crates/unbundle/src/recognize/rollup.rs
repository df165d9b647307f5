//! Recognizes rollup's CommonJS modules by shape: `@rollup/plugin-commonjs` turns each
//! CommonJS file into a lazy wrapper at the bundle's top level,
//!
//! ```js
//! var hasRequiredX;
//! function requireX () {
//!     if (hasRequiredX) return x;       // or `x.exports`
//!     hasRequiredX = 1;
//!     ... the module's code ...
//!     return x;
//! }
//! ```
//!
//! (names are the plugin's, but only the shape counts: a guard that returns, the flag set to
//! 1, the module's code, and the same return). The module's code, between the flag and the
//! last return, is the module; what moves into files is planned in [`crate::split::rollup`].

use oxc_ast::ast::{AssignmentTarget, Expression, Program, Statement};
use oxc_span::{GetSpan, Span};

/// One lazy wrapper.
pub(crate) struct Lazy {
    /// The wrapper function's name (`requireX`).
    pub(crate) name: String,
    /// The whole function declaration.
    pub(crate) function: Span,
    /// The module's code: from after the flag's assignment to before the last return.
    pub(crate) code: Span,
    /// The variable the wrapper returns (`x`), in its guard.
    pub(crate) holder: Span,
    /// It returns `x.exports` (`x` is a module object), not `x` (the exports themselves).
    pub(crate) module_object: bool,
}

/// The lazy wrappers among `program`'s top-level function declarations, in order; their
/// module code may be empty.
pub(crate) fn lazy_wrappers(program: &Program<'_>, text: &str) -> Vec<Lazy> {
    program
        .body
        .iter()
        .filter_map(|statement| match statement {
            Statement::FunctionDeclaration(f) => Some(f),
            _ => None,
        })
        .filter_map(|f| {
            let id = f.id.as_ref()?;
            let body = f.body.as_ref()?;
            if !f.params.items.is_empty()
                || f.params.rest.is_some()
                || f.r#async
                || f.generator
                || !body.directives.is_empty()
            {
                return None;
            }
            let [guard, flag, .., last] = body.statements.as_slice() else {
                return None;
            };
            let (flag_name, returned) = guarded_return(guard)?;
            if !sets_to_one(flag, flag_name) || !returns_same(last, returned, text) {
                return None;
            }
            let (holder, module_object) = match returned {
                Expression::StaticMemberExpression(m) => (m.object.span(), true),
                other => (other.span(), false),
            };
            Some(Lazy {
                name: id.name.to_string(),
                function: f.span,
                code: Span::new(flag.span().end, last.span().start),
                holder,
                module_object,
            })
        })
        .collect()
}

/// `if (FLAG) return E;`: the flag's name and `E`.
fn guarded_return<'s, 'a>(statement: &'s Statement<'a>) -> Option<(&'s str, &'s Expression<'a>)> {
    let Statement::IfStatement(s) = statement else {
        return None;
    };
    let Expression::Identifier(flag) = &s.test else {
        return None;
    };
    if s.alternate.is_some() {
        return None;
    }
    let returned = match &s.consequent {
        Statement::ReturnStatement(r) => r.argument.as_ref()?,
        Statement::BlockStatement(b) => match b.body.as_slice() {
            [Statement::ReturnStatement(r)] => r.argument.as_ref()?,
            _ => return None,
        },
        _ => return None,
    };
    exports_shaped(returned).then_some((flag.name.as_str(), returned))
}

/// `x` or `x.exports`: what a wrapper returns.
fn exports_shaped(expr: &Expression<'_>) -> bool {
    match expr {
        Expression::Identifier(_) => true,
        Expression::StaticMemberExpression(m) => {
            m.property.name == "exports" && matches!(m.object, Expression::Identifier(_))
        }
        _ => false,
    }
}

/// `FLAG = 1;`
fn sets_to_one(statement: &Statement<'_>, flag: &str) -> bool {
    let Statement::ExpressionStatement(s) = statement else {
        return false;
    };
    let Expression::AssignmentExpression(a) = &s.expression else {
        return false;
    };
    matches!(&a.left, AssignmentTarget::AssignmentTargetIdentifier(id) if id.name == flag)
        && a.operator.is_assign()
        && matches!(&a.right, Expression::NumericLiteral(n) if n.value == 1.0)
}

/// `return E;` with the same `E` as the guard's.
fn returns_same(statement: &Statement<'_>, returned: &Expression<'_>, text: &str) -> bool {
    let Statement::ReturnStatement(r) = statement else {
        return false;
    };
    let source = |s: Span| &text[s.start as usize..s.end as usize];
    r.argument
        .as_ref()
        .is_some_and(|a| source(a.span()) == source(returned.span()))
}

#[cfg(test)]
mod tests {
    use oxc_allocator::Allocator;
    use oxc_parser::Parser;
    use oxc_span::SourceType;

    fn names(text: &str) -> Vec<String> {
        let allocator = Allocator::default();
        let program = Parser::new(&allocator, text, SourceType::script())
            .parse()
            .program;
        super::lazy_wrappers(&program, text)
            .into_iter()
            .map(|l| l.name)
            .collect()
    }

    #[test]
    fn only_the_lazy_wrapper_shape_is_one() {
        let text = "var a,h;function requireA(){if(h)return a;h=1;a=2;return a}\
            var b={exports:{}},k;function requireB () { if (k) return b.exports; k = 1; (function (module) { module.exports = 3; })(b); return b.exports; }\
            function other(){if(h)return a;h=2;return a}\
            function another(){if(h)return a;h=1;return b}";
        assert_eq!(names(text), ["requireA", "requireB"]);
    }
}
