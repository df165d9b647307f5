//! esbuild's wrapped ES modules (`__esm`) become module files exactly when moving what esbuild
//! hoisted out of them keeps the bundle's behaviour; otherwise they stay where they are. Each
//! case is a small bundle in esbuild's minified shape, unbundled, and run with node before and
//! after: both must print the same.

mod common;

use common::run_both;

/// esbuild's helpers as it minifies them: `E` is `__esm`, `X` is `__export`.
const HELPERS: &str = "var E=(f,r)=>()=>(f&&(r=f(f=0)),r);var X=(t,a)=>{for(var n in a)Object.defineProperty(t,n,{get:a[n],enumerable:!0})};";

/// Unbundles `HELPERS + code`, checks that the output prints what the bundle prints, and
/// gives the ids of the ES modules that became files whole (their hoisted declarations with
/// them) and every file's text by path.
fn unbundled(name: &str, code: &str) -> (Vec<String>, Vec<(String, String)>) {
    let text = format!("{HELPERS}{code}");
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let (before, after) = run_both(name, &text, &out);
    assert_eq!(
        after, before,
        "{name}: the unbundled program prints the same"
    );
    let moved = out
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::Esm)
        .map(|m| m.id.clone())
        .collect();
    let files = out.files.into_iter().map(|f| (f.path, f.text)).collect();
    (moved, files)
}

/// The file's code, after the comment lines saying where the names it is given come from
/// (`tests/runtime.rs` checks those).
fn text<'f>(files: &'f [(String, String)], path: &str) -> &'f str {
    let mut text = files
        .iter()
        .find(|(p, _)| p == path)
        .unwrap_or_else(|| panic!("no {path}"))
        .1
        .as_str();
    if text.starts_with("// pilotfish unbundle:") {
        while text.starts_with("//") {
            text = text.split_once('\n').map_or("", |(_, rest)| rest);
        }
    }
    text
}

#[test]
fn a_module_with_a_namespace_object_moves_and_is_read_through_it() {
    let (moved, files) = unbundled(
        "namespace",
        "var s={};X(s,{f:()=>f,v:()=>v,t:()=>t});function f(){return v}function t(){return this===void 0}var v,i=E(()=>{v=2});i();console.log(f(),v,t(),{f});",
    );
    assert_eq!(moved, ["i"]);
    let module = text(&files, "modules/i.cjs");
    assert!(module.starts_with("X(exports, {"), "{module}");
    assert!(
        module.contains("function f() {\n\treturn v;\n}"),
        "{module}"
    );
    assert!(module.contains("v = 2;"), "{module}");
    // `t` uses its receiver, so its call keeps having none; `{f}` keeps its key.
    let entry = text(&files, "modules/entry.cjs");
    assert!(
        entry.contains("console.log(s.f(), s.v, (0, s.t)(), { f: s.f })"),
        "{entry}"
    );
    let bundle = text(&files, "main.js");
    assert!(!bundle.contains("function f"), "{bundle}");
}

#[test]
fn a_module_without_a_namespace_object_gets_one() {
    let (moved, files) = unbundled(
        "no-namespace",
        "function g(){return w}var w,j=E(()=>{w=3});j();console.log(g(),w);",
    );
    assert_eq!(moved, ["j"]);
    let bundle = text(&files, "main.js");
    assert!(bundle.contains("var j_exports = {};"), "{bundle}");
    let module = text(&files, "modules/j.cjs");
    assert!(
        module.starts_with("Object.defineProperties(exports, {"),
        "{module}"
    );
    let entry = text(&files, "modules/entry.cjs");
    assert!(entry.contains("j_exports.g(), j_exports.w"), "{entry}");
    // The entry's file says which file the namespace it reads belongs to.
    let whole = &files
        .iter()
        .find(|(p, _)| p == "modules/entry.cjs")
        .unwrap()
        .1;
    assert!(whole.contains("//   j_exports: modules/j.cjs\n"), "{whole}");
}

#[test]
fn modules_stay_when_moving_them_could_change_what_runs() {
    for (name, code) in [
        // Read before the initializer ran.
        (
            "early",
            "function g(){return w}var w,j=E(()=>{w=3});console.log(w);j();console.log(g());",
        ),
        // Assigned from outside.
        ("assigned", "var w,j=E(()=>{w=3});j();w=4;console.log(w);"),
        // The namespace object read without its initializer before it.
        (
            "unguarded",
            "var s={};X(s,{v:()=>v});var v,i=E(()=>{v=2});console.log(Object.keys(s));i();",
        ),
        // On a cycle, b's function may run (from a's initializer) before b has called a's.
        (
            "cycle",
            "function fa(){return x}var x,a=E(()=>{b();x=1});function fb(){return fa()}var y,b=E(()=>{a();y=fb()});a();console.log(y);",
        ),
        // An initializer of its own `this`, and an async one, are not moved.
        (
            "this",
            "var t,k=E(function(){t=typeof this});k();console.log(t);",
        ),
        (
            "async",
            "var w,j=E(async()=>{w=3});j().then(()=>console.log(w));",
        ),
        // The bundle's own `module` variable: the file's `module` is node's.
        (
            "module",
            "var module={x:1};var w,j=E(()=>{w=module.x});j();console.log(w);",
        ),
        // `b` is named only after j starts, but `a`, which calls it, runs before.
        (
            "through-a-caller",
            "function h(){return 1}var j=E(()=>{});console.log(a());j();function b(){return h()}function a(){return b()}console.log(b());",
        ),
    ] {
        let (moved, _) = unbundled(name, code);
        assert!(moved.is_empty(), "{name}: {moved:?}");
    }
}

#[test]
fn a_function_named_like_the_prototype_key_is_read_through_its_getter() {
    let (moved, files) = unbundled(
        "proto",
        "function __proto__(){return 7}var w,j=E(()=>{w=__proto__()});j();console.log(__proto__(),w);",
    );
    assert_eq!(moved, ["j"]);
    assert!(text(&files, "modules/j.cjs").contains("[\"__proto__\"]: { get: () => __proto__ }"));
}

#[test]
fn a_module_that_reads_a_variable_of_one_that_stays_stays_too() {
    // j stays (its `w` is assigned outside), so k, whose initializer reads `w`, stays too;
    // l reads nothing assigned and moves.
    let (moved, _) = unbundled(
        "chain",
        "var w,j=E(()=>{w=3});var k=E(()=>{j();console.log(w)});function h(){return 1}var l=E(()=>{console.log(h())});j();w=5;k();l();",
    );
    assert_eq!(moved, ["l"]);
}

#[test]
fn a_neighbour_s_functions_before_a_module_stay_in_the_bundle() {
    // `p` belongs to the code before the module (it uses nothing of the module's) and stays a
    // top-level function; `q` uses the module's `w` and moves with it.
    let (moved, files) = unbundled(
        "neighbour",
        "console.log(1);function p(){return 7}function q(){return w}var w,j=E(()=>{w=8});j();console.log(q(),p());",
    );
    assert_eq!(moved, ["j"]);
    let module = text(&files, "modules/j.cjs");
    assert!(module.contains("function q()"), "{module}");
    assert!(!module.contains("function p()"), "{module}");
    assert!(text(&files, "main.js").contains("function p()"));
}

/// Pieces of wrapped ES modules sharing their names, for arrangements esbuild would not
/// write as well as those it would.
fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop::collection::vec(
        prop::sample::select(vec![
            "var s={};",
            "X(s,{f:()=>f,v:()=>v,g:()=>g});",
            "function f(){return v}",
            "function g(){return this===void 0}",
            "var v,i=E(()=>{v=2});",
            "var w,j=E(()=>{i();w=f()});",
            "var k=E(function(){j();console.log(w,v)});",
            "i();",
            "j();",
            "k();",
            "console.log(f(),v,g(),{f});",
            "console.log((i(),s).v);",
            "v=3;",
            "function h(){return w}",
            "console.log(typeof h==='function'&&h());",
            "var q=E(()=>{j()});",
            "q();",
            "function r(){return w+v}",
            "console.log(r());",
            "function b(){return f()}",
            "function a(){return b()}",
            "console.log(a());",
        ]),
        1..14,
    )
    .prop_map(|parts| parts.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

    /// Whatever moves, the program prints the same and exits the same way (errors included:
    /// a use before an initializer must fail, or not, as it did).
    #[test]
    fn any_arrangement_runs_the_same(code in pieces()) {
        let text = format!("{HELPERS}{code}");
        let Ok(out) = unbundle::unbundle(&[unbundle::Input { name: "main.js", text: &text }]) else {
            return Ok(());
        };
        let name = format!(
            "any-{:x}",
            text.len() * 31 + text.bytes().map(usize::from).sum::<usize>()
        );
        let ((before_out, _, before_code), (after_out, _, after_code)) =
            run_both(&name, &text, &out);
        proptest::prop_assert_eq!((after_out, after_code), (before_out, before_code), "{}", code);
    }
}

#[test]
fn arrangements_the_property_once_found_wrong_run_the_same() {
    // `r` sits before j's wrapper, but j stays (its names are declared twice), so `r` stays a
    // top-level function that runs before i's initializer: i must stay too.
    unbundled(
        "stayed-hoisted",
        "function r(){return w+v}var w,j=E(()=>{i();w=f()});console.log(r());var v,i=E(()=>{v=2});var w,j=E(()=>{i();w=f()});",
    );
}

#[test]
fn a_module_that_stays_is_named_in_the_notes_and_its_initializer_still_gets_a_file() {
    let text = format!(
        "{HELPERS}var w,j=E(()=>{{w=3}});var v,i=E(()=>{{v=1}});j();i();w=4;console.log(w,v);"
    );
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    let kind = |id: &str| {
        out.manifest
            .modules
            .iter()
            .find(|m| m.id == id)
            .map(|m| m.kind)
    };
    assert_eq!(kind("i"), Some(unbundle::ModuleKind::Esm));
    assert_eq!(kind("j"), Some(unbundle::ModuleKind::EsmInitializer));
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("ES module(s) j keep their declarations in the bundle file")),
        "{:?}",
        out.notes
    );
    // j's file assigns the bundle's `w` through the live names.
    let j = &out
        .files
        .iter()
        .find(|f| f.path == "modules/j.cjs")
        .unwrap()
        .text;
    assert!(j.contains("__pilotfish_live.w = 3"), "{j}");
    assert_eq!(
        out.manifest.wrappers.esm,
        unbundle::Count { found: 2, split: 2 }
    );
    let (before, after) = common::run_both("stays-named", &text, &out);
    assert_eq!(after, before);
}

#[test]
fn commonjs_modules_reach_assigned_and_later_names_live() {
    // esbuild's `__commonJS` as it minifies it. `n` is assigned inside a module and outside,
    // `L` is declared after the module that reads it, `h` is assigned an arrow that takes
    // its name from it, and `{n}` is a shorthand property: each module still gets a file,
    // and the program prints the same.
    let text = "var C=(t,e)=>()=>(e||t((e={exports:{}}).exports,e),e.exports);\
        var n=1,h;var r=C((t,e)=>{e.exports={get:()=>n,set:f=>{n=f},g:()=>L,o:()=>({n})}});\
        var q=C((t,e)=>{h=()=>2;e.exports=h.name+h()});\
        var o=r();o.set(5);console.log(n,o.get(),o.g(),o.o());var L=7;n=9;\
        console.log(o.g(),o.get(),q(),h.name);";
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap();
    assert_eq!(
        out.manifest.wrappers.commonjs,
        unbundle::Count { found: 2, split: 2 }
    );
    let r = &out
        .files
        .iter()
        .find(|f| f.path == "modules/r.cjs")
        .unwrap()
        .text;
    assert!(r.contains("__pilotfish_live.n = f"), "{r}");
    assert!(r.contains("n: __pilotfish_live.n"), "{r}");
    let (before, after) = common::run_both("live-names", text, &out);
    assert_eq!(after, before);
}

#[test]
fn esbuild_s_name_calls_give_functions_their_names() {
    // `N` is esbuild's `__name` (keepNames): `a` takes the name the call gives it and the call
    // goes; `b` cannot (a module variable is already called `taken`).
    let text = "var D=Object.defineProperty;var N=(e,t)=>D(e,\"name\",{value:t,configurable:!0});\
        var C=(t,e)=>()=>(e||t((e={exports:{}}).exports,e),e.exports);\
        var r=C((t,e)=>{function a(){return 1}N(a,\"answer\");var taken=2;function b(){return taken}N(b,\"taken\");e.exports={a,b,n:a.name}});\
        console.log(r().n,r().a.name,r().b.name,r().b());";
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap();
    let r = &out
        .files
        .iter()
        .find(|f| f.path == "modules/r.cjs")
        .unwrap()
        .text;
    assert!(r.contains("function answer()"), "{r}");
    assert!(!r.contains("N(answer"), "{r}");
    assert!(r.contains("N(b, \"taken\")"), "{r}");
    let (before, after) = common::run_both("keep-names", text, &out);
    assert_eq!(after, before);
}
