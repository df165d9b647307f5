//! esbuild's `--format=iife` output: the whole bundle inside `(() => { ... })();`, its helpers
//! and wrappers at that arrow's top level rather than the file's (Yarn's `bin/yarn.js`). Such
//! a file is read as if the arrow's body were the file: the arrow's head and tail are blanked
//! out (so every offset in the file, and a source map's lines and columns, stay where they
//! were), the file is split as any esbuild bundle, and its new text is put back inside the
//! same arrow, so that its top-level names stay as private as they were.
//!
//! Reading the body as the top level keeps its meaning: an arrow has no `this`, `arguments`
//! or `new.target` of its own, and a body that `return`s or uses `await` is not taken apart
//! this way (it would not parse as a file of its own).

use oxc_allocator::Allocator;
use oxc_ast::ast::{Expression, Statement};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

/// A file whose bundle sits inside an arrow called at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unwrapped {
    /// The file with the arrow's head (`(() => {`) and tail (`})();`) blanked out.
    pub(crate) text: String,
}

/// The file read without its arrow, when it is an esbuild bundle inside one; `None` for any
/// other file (a webpack 5 bundle's arrow holds no esbuild helper, so it stays as it is).
pub(crate) fn unwrap(text: &str) -> Option<Unwrapped> {
    // Cheap look first: only a file whose code starts with a parenthesis can be one.
    if !code_start(text).starts_with('(') {
        return None;
    }
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, text, SourceType::script()).parse();
    if parsed.diagnostics.errors().next().is_some() {
        return None;
    }
    let [Statement::ExpressionStatement(statement)] = parsed.program.body.as_slice() else {
        return None;
    };
    let Expression::CallExpression(call) = statement.expression.without_parentheses() else {
        return None;
    };
    let Expression::ArrowFunctionExpression(arrow) = call.callee.without_parentheses() else {
        return None;
    };
    let oxc_ast::ast::ArrowFunctionBody::FunctionBody(function_body) = &arrow.body else {
        return None;
    };
    if !call.arguments.is_empty()
        || arrow.r#async
        || !arrow.params.items.is_empty()
        || arrow.params.rest.is_some()
        || !crate::recognize::esbuild::defines_helpers(&function_body.statements)
    {
        return None;
    }
    let body = function_body.span;
    let (head, tail) = (
        statement.span.start as usize..body.start as usize + 1,
        body.end as usize - 1..statement.span().end as usize,
    );
    let mut blanked = text.as_bytes().to_vec();
    for range in [head, tail] {
        for byte in &mut blanked[range] {
            // Only ASCII punctuation and spaces can sit there, besides comments, whose
            // newlines stay so that line numbers do not move.
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    }
    // Blanking a comment's bytes could cut a multi-byte character in two.
    let text = String::from_utf8(blanked).ok()?;
    Some(Unwrapped { text })
}

/// `text` after its hashbang, blank space and comments.
fn code_start(text: &str) -> &str {
    let mut rest = text;
    if rest.starts_with("#!") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            return rest;
        }
    }
}

impl Unwrapped {
    /// `split`, the file's new text, put back inside an arrow called at once, after its
    /// hashbang (which must stay on the first line).
    pub(crate) fn wrap(split: &str) -> String {
        let (hashbang, rest) = match split.strip_prefix("#!") {
            Some(_) => split.split_once('\n').unwrap_or((split, "")),
            None => ("", split),
        };
        let mut wrapped = String::with_capacity(split.len() + 24);
        if !hashbang.is_empty() {
            wrapped.push_str(hashbang);
            wrapped.push('\n');
        }
        wrapped.push_str("(() => {\n");
        wrapped.push_str(rest);
        if !rest.ends_with('\n') {
            wrapped.push('\n');
        }
        wrapped.push_str("})();\n");
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELPER: &str = "var c=(t,e)=>()=>(e||t((e={exports:{}}).exports,e),e.exports);";

    #[test]
    fn an_arrow_holding_esbuild_helpers_is_blanked_in_place() {
        let text = format!("#!/usr/bin/env node\n(()=>{{{HELPER}var a=c(e=>{{e.x=1}});a()}})();\n");
        let unwrapped = unwrap(&text).expect("an esbuild bundle in an arrow");
        assert_eq!(unwrapped.text.len(), text.len());
        assert!(
            unwrapped
                .text
                .starts_with("#!/usr/bin/env node\n      var c=")
        );
        assert!(unwrapped.text.ends_with("a()     \n"), "{}", unwrapped.text);
    }

    #[test]
    fn other_arrows_stay_as_they_are() {
        // webpack 5's runtime creates `{exports: {}}` inside a function of one parameter.
        let webpack = "(()=>{var e={1:e=>{e.exports=1}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r(1)})();";
        assert_eq!(unwrap(webpack), None);
        // An async arrow, one called with arguments, or a function whose `this` differs.
        for text in [
            format!("(async()=>{{{HELPER}}})();"),
            format!("((x)=>{{{HELPER}}})(1);"),
            format!("(function(){{{HELPER}}})();"),
            format!("{HELPER}(()=>{{}})();"),
        ] {
            assert_eq!(unwrap(&text), None, "{text}");
        }
    }

    #[test]
    fn the_new_text_goes_back_inside_an_arrow_after_the_hashbang() {
        assert_eq!(
            Unwrapped::wrap("#!/usr/bin/env node\nvar a = 1;\n"),
            "#!/usr/bin/env node\n(() => {\nvar a = 1;\n})();\n"
        );
        assert_eq!(Unwrapped::wrap("a();"), "(() => {\na();\n})();\n");
    }
}
