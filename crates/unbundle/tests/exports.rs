//! The transforms that depend on other modules: `(0, x.f)(...)` loses its `0,` only where the
//! receiver cannot matter, and webpack's `require.d` getters of function declarations become
//! plain exports only where nothing could tell the difference.

/// A webpack 5 bundle (minified as terser writes it) of `modules` (`ID:(e,t,r)=>{...}`, each
/// `e` module, `t` exports, `r` require), whose runtime runs module 7.
fn bundle(modules: &[&str]) -> String {
    format!(
        "(()=>{{var e={{{}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}r.d=(e,t)=>{{for(var n in t)Object.defineProperty(e,n,{{enumerable:!0,get:t[n]}})}},r.r=e=>{{}},r(7)}})();",
        modules.join(",")
    )
}

/// The text of module `id`'s file once `modules` are unbundled with `transforms`, and what
/// was changed.
fn module_text(
    modules: &[&str],
    id: &str,
    transforms: unbundle::Transforms,
) -> (String, unbundle::Changes) {
    let text = bundle(modules);
    let out = unbundle::unbundle_with(
        &[unbundle::Input {
            name: "main.js",
            text: &text,
        }],
        &unbundle::Options {
            transforms,
            ..Default::default()
        },
    )
    .unwrap();
    let file = out
        .files
        .iter()
        .find(|f| f.path == format!("modules/{id}.cjs"))
        .unwrap();
    (file.text.clone(), out.changes)
}

/// Module 1 exports by getters: a function without `this`, one with, a class, a live `let`.
const GETTERS: &str = "1:(e,t,r)=>{function a(){return 1}function b(){return this}class C{}let v=1;r.r(t),r.d(t,{area:()=>a,who:()=>b,Shape:()=>C,value:()=>v})}";
/// Module 2 exports plain properties: a function without `this`, one with, one set twice.
const PLAIN: &str = "2:(e,t,r)=>{t.f=t.g=void 0,t.f=function(){return 2},t.g=function(){return this},t.h=()=>1,t.h=[]}";

#[test]
fn calls_lose_their_receiverless_zero_only_where_the_receiver_cannot_matter() {
    let all = unbundle::Transforms::ALL;
    let caller = "7:(e,t,r)=>{const a=r(1),b=r(2);e.exports=[(0,a.area)(),(0,a.who)(),(0,b.f)(),(0,b.g)(),(0,b.h)()]}";
    let (text, changes) = module_text(&[GETTERS, PLAIN, caller], "7", all);
    assert!(text.contains("a.area()"), "{text}");
    assert!(text.contains("b.f()"), "{text}");
    // `this` used, or not always a function: the `0,` stays.
    assert!(text.contains("(0, a.who)()"), "{text}");
    assert!(text.contains("(0, b.g)()"), "{text}");
    assert!(text.contains("(0, b.h)()"), "{text}");
    assert_eq!(changes.calls, 2);

    // Another module writes module 2's exports: its plain properties may change, its
    // getters (module 1) cannot.
    let writer = "3:(e,t,r)=>{const c=r(2),d=r(1);c.f=null,d.area=null}";
    let (text, _) = module_text(&[GETTERS, PLAIN, writer, caller], "7", all);
    assert!(text.contains("(0, b.f)()"), "{text}");
    assert!(text.contains("a.area()"), "{text}");
    // A module that passes another's exports on: the same.
    let passer = "3:(e,t,r)=>{const c=r(2);console.log(c)}";
    let (text, _) = module_text(&[GETTERS, PLAIN, passer, caller], "7", all);
    assert!(text.contains("(0, b.f)()"), "{text}");

    // A variable assigned again may hold anything.
    let reassigned = "7:(e,t,r)=>{let a=r(1);a=r(2),e.exports=(0,a.area)()}";
    let (text, _) = module_text(&[GETTERS, PLAIN, reassigned], "7", all);
    assert!(text.contains("(0, a.area)()"), "{text}");

    let mut off = all;
    off.calls = false;
    let (text, changes) = module_text(&[GETTERS, PLAIN, caller], "7", off);
    assert!(text.contains("(0, a.area)()"), "{text}");
    assert_eq!(changes.calls, 0);
}

#[test]
fn calls_of_an_export_read_off_require_itself_are_judged_the_same() {
    // webpack's `(0, r(1).area)()`, the module not bound to a variable (as for a module only
    // this call uses).
    let all = unbundle::Transforms::ALL;
    let caller =
        "7:(e,t,r)=>{e.exports=[(0,r(1).area)(),(0,r(1).who)(),(0,r(2).f)(),(0,r(2).h)()]}";
    let (text, changes) = module_text(&[GETTERS, PLAIN, caller], "7", all);
    assert!(text.contains("require(1).area()"), "{text}");
    assert!(text.contains("require(2).f()"), "{text}");
    assert!(text.contains("(0, require(1).who)()"), "{text}");
    assert!(text.contains("(0, require(2).h)()"), "{text}");
    assert_eq!(changes.calls, 2);
    // Written by another module: module 2's plain properties may change.
    let writer = "3:(e,t,r)=>{r(2).f=null}";
    let (text, _) = module_text(&[GETTERS, PLAIN, writer, caller], "7", all);
    assert!(text.contains("(0, require(2).f)()"), "{text}");
    assert!(text.contains("require(1).area()"), "{text}");
}

#[test]
fn getters_of_functions_become_plain_exports_in_order_where_nothing_can_tell() {
    let all = unbundle::Transforms::ALL;
    let caller = "7:(e,t,r)=>{const a=r(1);e.exports=a.area()}";
    let (text, changes) = module_text(&[GETTERS, caller], "1", all);
    // Functions (hoisted, never assigned) plainly; the class and the live `let` keep their
    // getters, and every property keeps its place.
    assert!(
        text.contains(
            "require.r(exports);\nexports.area = a;\nexports.who = b;\nrequire.d(exports, {\n\tShape: () => C,\n\tvalue: () => value\n});"
        ),
        "{text}"
    );
    assert_eq!(changes.plain_exports, 2);

    // Another module writes to module 1's exports: a getter ignores that, a property takes it.
    let writer = "3:(e,t,r)=>{const d=r(1);d.area=null}";
    let (text, changes) = module_text(&[GETTERS, writer, caller], "1", all);
    assert!(text.contains("area: () => a"), "{text}");
    assert_eq!(changes.plain_exports, 0);

    let mut off = all;
    off.plain_exports = false;
    let (text, _) = module_text(&[GETTERS, caller], "1", off);
    assert!(text.contains("area: () => a"), "{text}");
}

#[test]
fn webpack_4s_one_getter_calls_are_read_the_same_way() {
    let all = unbundle::Transforms::ALL;
    let getters = "1:function(e,t,r){\"use strict\";r.r(t),r.d(t,\"area\",(function(){return a})),r.d(t,\"Shape\",(function(){return C})),r.d(t,\"who\",(function(){return b}));function a(){return 1}function b(){return this}class C{}}";
    let caller = "7:function(e,t,r){var n=r(1);e.exports=[(0,n.area)(),(0,n.who)()]}";
    let (one, changes) = module_text(&[getters, caller], "1", all);
    assert!(one.contains("exports.area = a;\n"), "{one}");
    assert!(one.contains("exports.who = b;\n"), "{one}");
    assert!(one.contains("require.d(exports, \"Shape\""), "{one}");
    assert_eq!(changes.plain_exports, 2);
    let (seven, changes) = module_text(&[getters, caller], "7", all);
    assert!(seven.contains("n.area()"), "{seven}");
    assert!(seven.contains("(0, n.who)()"), "{seven}");
    assert_eq!(changes.calls, 1);
}
