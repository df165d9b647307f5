//! Arbitrary text and arbitrary JavaScript-like input: never a panic, and what is not a
//! bundle is refused with a reason. Bundles whose modules and entry are such input: never a
//! panic, and whatever is written parses.

use proptest::prelude::*;

fn javascript_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            ",",
            ";",
            "=>",
            "function",
            "e",
            "t",
            "r",
            "1",
            "2:",
            "\"a\":",
            "var ",
            "=",
            "x.exports",
            "require(1)",
            "!0",
            "void 0",
            "\"use strict\";",
            "...",
            " ",
            "\n",
            "class A{}",
            "return",
            "async ",
            "/*! a 1.2 */",
            "/** @license B <http://b> */",
            "/*",
            "*/",
        ]),
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

/// Statements of the shapes minifiers write, which parse: most such bundles are bundles.
fn statements() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a&&b();",
            "a||b();",
            "a??b();",
            "a?b():c();",
            "x=1,y=2;",
            "var a=1,b=2;",
            "let c=3,d=c;",
            "const {a:f}=r(0);",
            "if(a)b();else c();",
            "function g(){return this}",
            "e.exports=r(0);",
            "t.x=!0;",
            "t.y=void 0;",
            "(0,t.f)();",
            "for(var i=0,n=2;i<n;i++);",
            "try{a()}catch(e){}",
            "class C{}",
            "z=2;",
            "console.log(r(0));",
            "arguments;",
            "return;",
            "var undefined=1;",
            "exports.Error=h;",
            "/*! pkg v1.0.0 */",
            "/** @license\n * Pkg <https://pkg.dev/>\n */",
        ]),
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_input_panics(text in prop_oneof![any::<String>(), javascript_soup()]) {
        match unbundle::unbundle(&[unbundle::Input { name: "x.js", text: &text }]) {
            Ok(out) => everything_parses(&out)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn bundles_of_arbitrary_modules_give_files_that_parse(
        bodies in prop::collection::vec(prop_oneof![statements(), javascript_soup()], 1..4),
        tail in prop_oneof![statements(), javascript_soup()],
        esbuild in any::<bool>(),
    ) {
        // The bodies and tail make a bundle only when they parse; the others must be refused.
        let text = if esbuild {
            let mut text = "var q=(i,s)=>()=>(s||i((s={exports:{}}).exports,s),s.exports);".to_owned();
            for (n, body) in bodies.iter().enumerate() {
                text.push_str(&format!("var m{n}=q((i,s)=>{{{body}\n}});"));
            }
            text + &tail
        } else {
            let table: Vec<String> =
                bodies.iter().enumerate().map(|(n, b)| format!("{n}:(e,t,r)=>{{{b}\n}}")).collect();
            format!(
                "(()=>{{var e={{{}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}r.o=1;{tail}\n}})();",
                table.join(",")
            )
        };
        match unbundle::unbundle(&[unbundle::Input { name: "x.js", text: &text }]) {
            Ok(out) => everything_parses(&out)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn esbuild_es_modules_in_any_arrangement_give_files_that_parse(pieces in es_module_pieces()) {
        let text = format!(
            "var E=(f,r)=>()=>(f&&(r=f(f=0)),r);var X=(t,a)=>{{for(var n in a)Object.defineProperty(t,n,{{get:a[n],enumerable:!0}})}};{pieces}"
        );
        match unbundle::unbundle(&[unbundle::Input { name: "x.js", text: &text }]) {
            Ok(out) => everything_parses(&out)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// Pieces of esbuild's wrapped ES modules (`E` is `__esm`, `X` is `__export`) sharing their
/// names, in any order: namespaces, getters, hoisted functions and variables, initializers,
/// and uses of them before and after, guarded or not.
fn es_module_pieces() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "var s={};",
            "X(s,{f:()=>f,v:()=>v});",
            "function f(){return v}",
            "function g(){return this}",
            "var v,i=E(()=>{v=2});",
            "var w,j=E(()=>{i();w=g()});",
            "var k=E(function(){j();console.log(w)});",
            "var o=E({\"src/o.js\"(){i()}});",
            "i();",
            "j();",
            "k();",
            "console.log(f(),v,{g},(i(),s));",
            "v=3;",
            "w=f`x`;",
            "console.log(1),X(s,{w:()=>w});",
            "var a,b=1;",
            "function h(){return w}",
        ]),
        0..16,
    )
    .prop_map(|parts| parts.concat())
}

/// Every file written parses: the bundle's files as scripts, module files as the function
/// bodies they are.
fn everything_parses(out: &unbundle::Output) -> Result<(), TestCaseError> {
    for file in &out.files {
        if file.path.ends_with(".json") {
            continue;
        }
        let text = if file.path.starts_with("modules/") {
            format!("(function(){{{}\n}})", file.text)
        } else {
            file.text.clone()
        };
        let allocator = oxc_allocator::Allocator::default();
        // As node reads a CommonJS file: a top-level `return` is allowed.
        let parsed = oxc_parser::Parser::new(&allocator, &text, oxc_span::SourceType::script())
            .with_options(oxc_parser::ParseOptions {
                allow_return_outside_function: true,
                ..oxc_parser::ParseOptions::default()
            })
            .parse();
        prop_assert!(
            parsed.diagnostics.errors().next().is_none(),
            "{} does not parse:\n{}",
            file.path,
            file.text
        );
    }
    Ok(())
}

#[test]
fn plain_programs_are_refused() {
    for text in [
        "console.log(1)",
        "",
        "module.exports = {a: 1}",
        "var x = {1: 2}",
    ] {
        let err = unbundle::unbundle(&[unbundle::Input { name: "x.js", text }]).unwrap_err();
        assert!(
            matches!(err, unbundle::UnbundleError::NotABundle { .. }),
            "{text}: {err}"
        );
    }
    assert!(matches!(
        unbundle::unbundle(&[]),
        Err(unbundle::UnbundleError::NoInput)
    ));
}

#[test]
fn a_runtime_whose_table_pilotfish_does_not_understand_is_refused_not_half_done() {
    // Module 1 takes four parameters, so the object is no table pilotfish knows; module 2 has
    // an object of functions inside it, which must not be taken for the table instead.
    let text = "(()=>{var e={1:(a,b,c,d)=>{a.exports=2},2:(e,t,r)=>{e.exports={1:(x)=>x,2:(y)=>y}}},t={};\nfunction r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r(2)})();";
    let err = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap_err();
    assert!(
        matches!(err, unbundle::UnbundleError::UnknownTable { line: 1, .. }),
        "{err}"
    );
}

/// js-yaml's directive handlers, called as `handlers[name].call(state, state, name, args)`:
/// an object of functions of three parameters, indexed and called with four arguments, as
/// webpack's runtime calls its table, but not with a module object and its `exports`.
const HANDLERS: &str = "var B={YAML:function(t,e,i){t.version=i[0]},TAG:function(t,e,i){t.tags[i[0]]=i[1]}};function d(t,r,i){B[r].call(t,t,r,i)}";

/// esprima's build: a webpack bundle, runtime and table, inside one module of another.
const NESTED: &str = "(function(e){var t={};function r(n){if(t[n])return t[n].exports;var o=t[n]={exports:{}};return e[n].call(o.exports,o,o.exports,r),o.exports}return r(0)})([function(t,e,i){t.exports=1},function(t,e,i){t.exports=i(0)+1}])";

#[test]
fn module_shaped_code_is_never_taken_for_the_runtime_or_its_table() {
    // Alone, such code is no bundle.
    let err = unbundle::unbundle(&[unbundle::Input {
        name: "yaml.js",
        text: HANDLERS,
    }])
    .unwrap_err();
    assert!(
        matches!(err, unbundle::UnbundleError::NotABundle { .. }),
        "{err}"
    );
    // Inside the modules of a JSONP chunk (an array of modules, as webpack 4 pushes a
    // vendors chunk, or an object), the chunk's own table is the one split, whole, and
    // the bundle nested in one of its modules is split under that module.
    for (table, ids) in [
        (
            format!(
                "[function(t,e,i){{{HANDLERS};t.exports=d}},,function(t,e,i){{t.exports={NESTED}}}]"
            ),
            vec!["0", "2"],
        ),
        (
            format!(
                "{{25:function(t,e,i){{{HANDLERS};t.exports=d}},7:function(t,e,i){{t.exports={NESTED}}}}}"
            ),
            vec!["25", "7"],
        ),
    ] {
        let text = format!("(window.webpackJsonp=window.webpackJsonp||[]).push([[2],{table}]);");
        let out = unbundle::unbundle(&[unbundle::Input {
            name: "2.js",
            text: &text,
        }])
        .unwrap_or_else(|e| panic!("{text}: {e}"));
        // esprima's own modules are files too, nested under the module holding them.
        let mut found: Vec<&str> = out
            .manifest
            .modules
            .iter()
            .filter(|m| m.kind != unbundle::ModuleKind::NestedWebpack)
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(out.manifest.wrappers.nested_webpack.split, 2, "{text}");
        found.sort_unstable();
        let mut ids = ids;
        ids.sort_unstable();
        assert_eq!(found, ids, "{text}");
        everything_parses(&out).unwrap();
    }
}
