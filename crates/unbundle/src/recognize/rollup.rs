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
//!
//! Minifiers join these statements: `if(F)return x;F=1,a(),...;return b(),x` (the code
//! starts inside the flag's statement, or an `if`'s test, `if(F=1,!x)...`, and ends inside
//! the return's), and where every
//! statement of the module is an expression, esbuild writes the whole wrapper as one return,
//! `return F||(F=1,CODE),x` or `return F?x:(F=1,CODE,x)`: the code is those expressions.

use oxc_ast::ast::{
    ArrowFunctionExpression, AssignmentTarget, Expression, Function, IdentifierReference, Program,
    ReturnStatement, Statement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::{GetSpan, Span};
use oxc_syntax::scope::ScopeFlags;

/// One lazy wrapper.
pub(crate) struct Lazy {
    /// The wrapper function's name (`requireX`).
    pub(crate) name: String,
    /// The whole function declaration.
    pub(crate) function: Span,
    /// The module's code: from after the flag's assignment to before the last return.
    pub(crate) code: Span,
    /// The expressions the last return evaluates before what it returns (`return f(), x`,
    /// with their comma): the end of the module's code; empty when there are none.
    pub(crate) tail: Span,
    /// The variable the wrapper returns (`x`), in its guard.
    pub(crate) holder: Span,
    /// It returns `x.exports` (`x` is a module object), not `x` (the exports themselves).
    pub(crate) module_object: bool,
    /// Where the code or the tail starts inside an expression a minifier joined to the flag
    /// or the return (`A=1,function(h){...}(d)`, `return function(h){...}(d),B`) with a
    /// token that would start a declaration or a block as the first of a statement: those
    /// expressions, to be written in parentheses.
    pub(crate) leads: Vec<Span>,
    /// The code is expressions joined by commas in the wrapper's return (`return F || (F =
    /// 1, CODE), X`), not statements.
    pub(crate) expressions: bool,
    /// What the code's text needs before it: `if (` when the flag was set first in an `if`'s
    /// test (`if(F=1,!x)try{...}`, the code starting at `!x`).
    pub(crate) code_prefix: &'static str,
    /// Then the `if` statement's start and the flag's assignment (`F=1`): the wrapper keeps
    /// the assignment as a statement of its own where the `if` was.
    pub(crate) flag_in_if: Option<(u32, Span)>,
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
            let mut lazy = match body.statements.as_slice() {
                [Statement::ReturnStatement(r)] => expressions_form(r.argument.as_ref()?, text)?,
                statements => statements_form(statements, text)?,
            };
            lazy.name = id.name.to_string();
            lazy.function = f.span;
            Some(lazy)
        })
        .collect()
}

/// The wrapper's body as the plugin writes it, `if (F) return X; F = 1; ...; return X;`
/// (the flag's assignment and the last return perhaps joined by a minifier with the code
/// next to them): the wrapper, its name and span left to fill in.
fn statements_form(statements: &[Statement<'_>], text: &str) -> Option<Lazy> {
    let [guard, flag, .., last] = statements else {
        return None;
    };
    let (flag_name, returned) = guarded_return(guard)?;
    // `flag = 1;`, or minified `flag = 1, x = ..., ...;`: the code starts after it.
    let (code_start, code_lead, flag_in_if) = sets_to_one(flag, flag_name)?;
    let (tail_start, returned_at) = returns_same(last, returned, text)?;
    // The code runs as a function of its own: a `return` in it, or its reading of the
    // wrapper's `arguments`, would mean something else there.
    let code = &statements[1..statements.len() - 1];
    let tail: &[Expression<'_>] = match last {
        Statement::ReturnStatement(r) => match &r.argument {
            Some(Expression::SequenceExpression(seq)) => {
                &seq.expressions[..seq.expressions.len() - 1]
            }
            _ => &[],
        },
        _ => &[],
    };
    if !runs_apart(code, tail) {
        return None;
    }
    let leads = code_lead
        .into_iter()
        .chain(tail.first().map(GetSpan::span))
        .filter(|s| starts_a_statement_apart(&text[s.start as usize..s.end as usize]))
        .collect();
    Some(Lazy {
        code: Span::new(code_start, last.span().start),
        tail: Span::new(tail_start, returned_at),
        leads,
        expressions: false,
        code_prefix: if flag_in_if.is_some() { "if (" } else { "" },
        flag_in_if: flag_in_if.map(|a| (flag.span().start, a)),
        ..held(returned)
    })
}

/// The wrapper's body as a minifier writes it when all the module's code is expressions:
/// `return F || (F = 1, ...), X` or `return F ? X : (F = 1, ..., X)`; the wrapper, its name
/// and span left to fill in.
fn expressions_form(argument: &Expression<'_>, text: &str) -> Option<Lazy> {
    let source = |s: Span| &text[s.start as usize..s.end as usize];
    let (flag, sequence, returned) = match argument {
        // `F || (F = 1, ...), X`
        Expression::SequenceExpression(seq) => match seq.expressions.as_slice() {
            [Expression::LogicalExpression(l), returned] if l.operator.is_or() => {
                (&l.left, without_parentheses(&l.right), returned)
            }
            _ => return None,
        },
        // `F ? X : (F = 1, ..., X)`
        Expression::ConditionalExpression(c) => {
            (&c.test, without_parentheses(&c.alternate), &c.consequent)
        }
        _ => return None,
    };
    let Expression::Identifier(flag) = flag else {
        return None;
    };
    let Expression::SequenceExpression(seq) = sequence else {
        return None;
    };
    let expressions = seq.expressions.as_slice();
    let code = match argument {
        // The sequence ends with what the wrapper returns: the code is before it.
        Expression::ConditionalExpression(_) => match expressions {
            [first, code @ .., last] if source(last.span()) == source(returned.span()) => {
                (first, code)
            }
            _ => return None,
        },
        _ => (&expressions[0], &expressions[1..]),
    };
    let (first, code) = code;
    let (Some(start), Some(end)) = (code.first(), code.last()) else {
        return None;
    };
    let sets = matches!(first, Expression::AssignmentExpression(a)
        if a.operator.is_assign()
            && matches!(&a.left, AssignmentTarget::AssignmentTargetIdentifier(id) if id.name == flag.name)
            && matches!(&a.right, Expression::NumericLiteral(n) if n.value == 1.0));
    if !sets || !exports_shaped(returned) || !runs_apart(&[], code) {
        return None;
    }
    let leads = Some(start.span())
        .filter(|s| starts_a_statement_apart(source(*s)))
        .into_iter()
        .collect();
    Some(Lazy {
        code: Span::new(start.span().start, end.span().end),
        tail: Span::new(end.span().end, end.span().end),
        leads,
        expressions: true,
        ..held(returned)
    })
}

/// `expr` without the parentheses around it.
fn without_parentheses<'s, 'a>(expr: &'s Expression<'a>) -> &'s Expression<'a> {
    match expr {
        Expression::ParenthesizedExpression(p) => without_parentheses(&p.expression),
        other => other,
    }
}

/// A wrapper returning `returned`, all else empty.
fn held(returned: &Expression<'_>) -> Lazy {
    let (holder, module_object) = match returned {
        Expression::StaticMemberExpression(m) => (m.object.span(), true),
        other => (other.span(), false),
    };
    Lazy {
        name: String::new(),
        function: Span::default(),
        code: Span::default(),
        tail: Span::default(),
        holder,
        module_object,
        leads: Vec::new(),
        expressions: false,
        code_prefix: "",
        flag_in_if: None,
    }
}

/// Whether `code` and `tail` have no `return` of their own and read no `arguments` of the
/// function around them (an arrow's are its surroundings').
fn runs_apart(code: &[Statement<'_>], tail: &[Expression<'_>]) -> bool {
    struct Finds {
        functions: usize,
        arrows: usize,
        found: bool,
    }
    impl<'a> Visit<'a> for Finds {
        fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
            self.arrows += 1;
            walk::walk_arrow_function_expression(self, it);
            self.arrows -= 1;
        }
        fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
            self.functions += 1;
            walk::walk_function(self, it, flags);
            self.functions -= 1;
        }
        fn visit_return_statement(&mut self, it: &ReturnStatement<'a>) {
            // A return inside an arrow is the arrow's own.
            self.found |= self.functions == 0 && self.arrows == 0;
            walk::walk_return_statement(self, it);
        }
        fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
            self.found |= self.functions == 0 && it.name == "arguments";
        }
    }
    let mut finds = Finds {
        functions: 0,
        arrows: 0,
        found: false,
    };
    for statement in code {
        finds.visit_statement(statement);
    }
    for expr in tail {
        finds.visit_expression(expr);
    }
    !finds.found
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

/// `FLAG = 1;`, or `FLAG = 1, rest...;` as a minifier joins it with what follows, or `if
/// (FLAG = 1, rest...) ...` as it joins it with an `if`: where the module's code starts
/// (after the statement, or at the sequence's second element), that second element when it
/// starts a statement, and in an `if` the flag's assignment.
fn sets_to_one(statement: &Statement<'_>, flag: &str) -> Option<(u32, Option<Span>, Option<Span>)> {
    let (expression, prefix) = match statement {
        Statement::ExpressionStatement(s) => (&s.expression, ""),
        Statement::IfStatement(s) => (&s.test, "if ("),
        _ => return None,
    };
    let (first, rest) = match expression {
        Expression::SequenceExpression(seq) => match seq.expressions.as_slice() {
            [first, second, ..] => (first, Some(second.span())),
            _ => return None,
        },
        _ if !prefix.is_empty() => return None,
        other => (other, None),
    };
    let Expression::AssignmentExpression(a) = first else {
        return None;
    };
    let sets = matches!(&a.left, AssignmentTarget::AssignmentTargetIdentifier(id) if id.name == flag)
        && a.operator.is_assign()
        && matches!(&a.right, Expression::NumericLiteral(n) if n.value == 1.0);
    let lead = rest.filter(|_| prefix.is_empty());
    let in_if = (!prefix.is_empty()).then_some(a.span);
    sets.then(|| (rest.map_or(statement.span().end, |r| r.start), lead, in_if))
}

/// Whether an expression written as `text` would be read otherwise at the start of a
/// statement: as a function or class declaration, a block, or a `let` declaration.
fn starts_a_statement_apart(text: &str) -> bool {
    let word = |w: &str| {
        text.strip_prefix(w).is_some_and(|rest| {
            !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
        })
    };
    let after_async = text
        .strip_prefix("async")
        .map(str::trim_start)
        .is_some_and(|rest| rest.starts_with("function"));
    word("function")
        || word("class")
        || text.starts_with('{')
        || after_async
        || (word("let") && text[3..].trim_start().starts_with('['))
}

/// `return E;` with the same `E` as the guard's.
/// `return E;`, or `return a, b, E;` as a minifier joins the last statements: `None` when it
/// is neither, else where the expressions before `E` start and where `E` starts (the same
/// place when there are none).
fn returns_same(
    statement: &Statement<'_>,
    returned: &Expression<'_>,
    text: &str,
) -> Option<(u32, u32)> {
    let Statement::ReturnStatement(r) = statement else {
        return None;
    };
    let source = |s: Span| &text[s.start as usize..s.end as usize];
    let argument = r.argument.as_ref()?;
    let last = match argument {
        Expression::SequenceExpression(seq) => seq.expressions.last()?,
        other => other,
    };
    (source(last.span()) == source(returned.span()))
        .then(|| (argument.span().start, last.span().start))
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
            function another(){if(h)return a;h=1;return b}\
            function early(){if(h)return a;h=1;if(a)return 5;return a}\
            function reads(){if(h)return a;h=1;a=()=>arguments[0];return a}\
            function requireC(){if(h)return a;h=1;a=function(){return arguments[0]};return a}\
            function Vn(){if(h)return a;h=1,a=n,n.sync=s;function n(){}function s(){}return g(s),a}\
            function pl(){if(P)return L;if(P=1,!g.D)try{g.D=1}catch(i){}return L=g.D,L}\
            function iff(){if(P)return L;if(P=1)L=2;return L}";
        assert_eq!(
            names(text),
            ["requireA", "requireB", "requireC", "Vn", "pl"]
        );
    }

    #[test]
    fn a_wrapper_minified_into_one_return_is_one() {
        let text = "function d(){return s||(s=1,function(e){e.a=1}(t)),t}\
            function f(){return n?a:(n=1,a.x=2,a.y=3,a)}\
            function m(){return s||(s=1,q.exports=2),q.exports}\
            function flagged(){return s||(s=2,t.a=1),t}\
            function empty(){return s||(s=1),t}\
            function other(){return n?a:(n=1,a.x=2,b)}\
            function reads(){return s||(s=1,t.a=arguments[0]),t}";
        assert_eq!(names(text), ["d", "f", "m"]);
    }
}
