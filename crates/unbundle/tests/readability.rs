//! The readability transforms keep the program's behaviour: small webpack 5 bundles, in the
//! shape terser gives them (the runtime with webpack's helpers `d`, `n`, `o` and `r`), built
//! so that the unsafe form of each transform would print something else: a call that needs
//! no receiver and one that does, a getter read before its module finished (a cycle), a mark
//! read through `require.n`, a namespace object printed whole, a module that binds
//! `undefined` or `Object`, and sequences whose parts print in order. Each bundle is
//! unbundled and run with node before and after: both must print the same; the module files
//! must also read as the transforms promise.

mod common;

use common::run_both;

/// A webpack 5 runtime around `modules`, starting module 9.
fn bundle(modules: &str) -> String {
    format!(
        "(()=>{{\"use strict\";var e={{{modules}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}\
r.n=e=>{{var t=e&&e.__esModule?()=>e.default:()=>e;return r.d(t,{{a:t}}),t}},\
r.d=(e,t)=>{{for(var o in t)r.o(t,o)&&!r.o(e,o)&&Object.defineProperty(e,o,{{enumerable:!0,get:t[o]}})}},\
r.o=(e,t)=>Object.prototype.hasOwnProperty.call(e,t),\
r.r=e=>{{\"undefined\"!=typeof Symbol&&Symbol.toStringTag&&Object.defineProperty(e,Symbol.toStringTag,{{value:\"Module\"}}),Object.defineProperty(e,\"__esModule\",{{value:!0}})}},r(9)}})();"
    )
}

/// Unbundles `text`, checks both print the same (and print `expected`), and gives the module
/// files' texts by id.
fn unbundled(name: &str, text: &str, expected: &str) -> Vec<(String, String)> {
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let (before, after) = run_both(name, text, &out);
    assert_eq!(before.0, expected, "{name}: the bundle prints {}", before.1);
    assert_eq!(
        after, before,
        "{name}: the unbundled program prints the same"
    );
    out.manifest
        .modules
        .iter()
        .map(|m| {
            let text = &out.files.iter().find(|f| f.path == m.path).unwrap().text;
            (m.id.clone(), text.clone())
        })
        .collect()
}

fn file<'f>(files: &'f [(String, String)], id: &str) -> &'f str {
    &files.iter().find(|(i, _)| i == id).unwrap().1
}

#[test]
fn calls_lose_their_zero_only_where_the_receiver_cannot_matter() {
    let files = unbundled(
        "receivers",
        &bundle(
            "1:(e,t,r)=>{r.r(t),r.d(t,{area:()=>o,who:()=>s,half:()=>h});const o=e=>e*e,h=function(e){return e/2};function s(){return void 0===this?\"none\":\"some\"}},\
             9:(e,t,r)=>{const a=r(1);console.log((0,a.area)(3),(0,a.who)(),(0,a.half)(8))}",
        ),
        "9 none 4\n",
    );
    let entry = file(&files, "9");
    // An arrow and a function expression that never reads `this`, bound once: plain calls.
    assert!(
        entry.contains("a.area(3)") && entry.contains("a.half(8)"),
        "{entry}"
    );
    // `who` reads `this`: a receiver would change what it returns.
    assert!(entry.contains("(0, a.who)()"), "{entry}");
}

#[test]
fn getters_stay_getters_so_a_cycle_sees_what_it_saw() {
    // Module 6 asks module 7 to read its `late` export before 6 has set it: a getter throws
    // then (the constant is not initialized yet), and must still throw.
    let files = unbundled(
        "getters",
        &bundle(
            "6:(e,t,r)=>{r.r(t),r.d(t,{late:()=>o});console.log(\"six sees\",r(7).peek());const o=\"L\"},\
             7:(e,t,r)=>{r.r(t),r.d(t,{peek:()=>n});var m=r(6);function n(){try{return m.late}catch(e){return e.constructor.name}}},\
             9:(e,t,r)=>{const s=r(6),v=r(7);console.log(s.late,v.peek())}",
        ),
        "six sees ReferenceError\nL L\n",
    );
    let six = file(&files, "6");
    assert!(
        six.contains(
            "Object.defineProperty(exports, \"late\", {\n\tenumerable: true,\n\tget: () => "
        ),
        "{six}"
    );
    // A function declaration is hoisted: its getter becomes a plain export.
    assert!(
        file(&files, "7").contains("exports.peek = "),
        "{}",
        file(&files, "7")
    );
}

#[test]
fn the_es_module_mark_goes_only_where_nothing_can_see_it() {
    let files = unbundled(
        "marks",
        &bundle(
            // 2 is read through `require.n` (which reads its mark), 3 is printed whole (its
            // `Symbol.toStringTag` shows), 4 is only read by name.
            "2:(e,t,r)=>{r.r(t),r.d(t,{default:()=>o});const o=\"two\"},\
             3:(e,t,r)=>{r.r(t),r.d(t,{three:()=>o});const o=3},\
             4:(e,t,r)=>{r.r(t),r.d(t,{four:()=>o});const o=4},\
             9:(e,t,r)=>{var n=r(2),o=r.n(n),h=r(3),f=r(4);console.log(o(),Object.prototype.toString.call(h),f.four)}",
        ),
        "two [object Module] 4\n",
    );
    for id in ["2", "3"] {
        let text = file(&files, id);
        assert!(
            text.contains("Object.defineProperty(exports, \"__esModule\", { value: true });"),
            "{id}: {text}"
        );
        assert!(!text.contains("require.r"), "{id}: {text}");
    }
    let four = file(&files, "4");
    assert!(
        !four.contains("__esModule") && !four.contains("require.r"),
        "{four}"
    );
}

#[test]
fn a_module_binding_object_or_undefined_keeps_the_forms_that_depend_on_them() {
    let files = unbundled(
        "shadows",
        &bundle(
            "5:(e,t,r)=>{r.r(t),r.d(t,{keys:()=>i});var undefined=1,Object={keys:()=>\"mine\"};function i(){return[void 0,Object.keys({})]}},\
             9:(e,t,r)=>{console.log(JSON.stringify(r(5).keys()))}",
        ),
        "[null,\"mine\"]\n",
    );
    let five = file(&files, "5");
    assert!(
        five.contains("void 0") && five.contains("require.r(exports)"),
        "{five}"
    );
}

#[test]
fn sequences_come_apart_in_the_order_they_ran() {
    let files = unbundled(
        "sequences",
        &bundle(
            "9:(e,t,r)=>{function f(x){return x?(console.log(\"yes\"),1):(console.log(\"no\"),2)}\
             const g=x=>(console.log(\"g\"),x+1);var k,h,o={a:1};\
             for(console.log(\"init\"),k=0;k<1;k++);\
             for(var p in console.log(\"in\"),o)console.log(p);\
             h=k?(console.log(\"h\"),3):4;\
             var q=(console.log(\"q\"),5);\
             try{throw console.log(\"t\"),new Error(\"e\")}catch(c){console.log(c.message)}\
             switch(console.log(\"s\"),k){case 1:console.log(\"one\")}\
             l:for(console.log(\"label\"),k=0;k<2;k++)for(;;)continue l;\
             if(k&&(console.log(\"and\"),q))console.log(\"then\");\
             if(!(console.log(\"not\"),0))console.log(\"so\");\
             console.log(f(1),f(0),g(1),h,q)}",
        ),
        "init\nin\na\nh\nq\nt\ne\ns\none\nlabel\nand\nthen\nnot\nso\nyes\nno\ng\n1 2 2 3 5\n",
    );
    let entry = file(&files, "9");
    assert_eq!(
        unbundle::junk::count(entry).unwrap().sequences,
        1,
        "{entry}"
    );
    // The labelled loop keeps its head: statements in front of it would need a block, and the
    // label would then name the block.
    assert!(entry.contains("l: for ("), "{entry}");
}

#[test]
fn re_exports_are_as_receiver_free_as_what_they_re_export() {
    // tsc's `export { f, tag, self } from "./one"`: getters returning module 1's exports;
    // module 3 re-exports module 2's again. `self` reads `this`.
    let files = unbundled(
        "re-exports",
        &bundle(
            "1:(e,t)=>{Object.defineProperty(t,\"__esModule\",{value:!0}),t.f=function(e){return e+1},t.tag=function(e){return e.join(\"|\")},t.self=function(){return void 0===this?\"none\":\"some\"}},\
             2:(e,t,r)=>{Object.defineProperty(t,\"__esModule\",{value:!0});var n=r(1);Object.defineProperty(t,\"f\",{enumerable:!0,get:function(){return n.f}}),Object.defineProperty(t,\"tag\",{enumerable:!0,get:function(){return n.tag}}),Object.defineProperty(t,\"self\",{enumerable:!0,get:function(){return n.self}})},\
             3:(e,t,r)=>{r.r(t),r.d(t,{f:()=>n.f,self:()=>n.self});var n=r(2)},\
             9:(e,t,r)=>{const a=r(2),b=r(3);console.log((0,a.f)(1),(0,a.tag)`x${1}y`,(0,b.f)(2),(0,a.self)(),(0,b.self)())}",
        ),
        "2 x|y 3 none none\n",
    );
    let entry = file(&files, "9");
    for plain in [
        "a.f(1)",
        "a.tag`",
        "b.f(2)",
        "(0, a.self)()",
        "(0, b.self)()",
    ] {
        assert!(entry.contains(plain), "{plain}: {entry}");
    }
}
