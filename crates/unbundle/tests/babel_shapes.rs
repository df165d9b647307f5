//! Two shapes of Babel's CommonJS output, as Tailwind's language server ships them in its
//! nested bundles, judged by the rule for `(0, x.f)(...)` with `x = require(ID)`:
//! - lazy requires (`function F() { const D = require(ID); F = function () { return D; };
//!   return D; }`): `F()` is always module ID's exports object, so `(0, F().f)(...)` loses its
//!   `0,` exactly where `(0, x.f)(...)` would;
//! - `export * from` (`Object.keys(x).forEach(function (k) { ... x[k] ... })`, `x[k]` only
//!   compared or handed back): module ID's exports are only read, so they do not escape.
//!
//! Each case is a small webpack 5 bundle in terser's shape (fixture in), unbundled and run
//! with node before and after (both must print the same), with the calls the entry must hold
//! and must not hold (expected calls out).

mod common;

use common::run_both;

/// A webpack 5 runtime around `modules`, starting module 9; modules are called with their
/// exports as `this`, as webpack does.
fn bundle(modules: &str) -> String {
    format!(
        "(()=>{{\"use strict\";var e={{{modules}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o].call(s.exports,s,s.exports,r),s.exports}}r(9)}})();"
    )
}

/// Module 1: `f` needs no receiver; `who` says whether it got one.
const ONE: &str = "1:function(e,t){\"use strict\";t.f=function(e){return e+1},t.who=function(){return void 0===this?\"none\":\"some\"}}";

/// The lazy-require function `o` of module 1, minified as terser leaves babel's.
const LAZY: &str = "function o(){const e=r(1);return o=function(){return e},e}";

/// Module 2: babel's `export * from` module 1, minified.
const STAR: &str = "2:function(e,t,r){\"use strict\";Object.defineProperty(t,\"__esModule\",{value:!0});var n=r(1);Object.keys(n).forEach(function(e){\"default\"!==e&&\"__esModule\"!==e&&(e in t&&t[e]===n[e]||Object.defineProperty(t,e,{enumerable:!0,get:function(){return n[e]}}))})}";

/// Module 2, for cases that need none.
const NOTHING: &str = "2:function(){}";

/// Module 2: a loop over module 1's keys that writes them (to a function that reads `this`).
const WRITES: &str = "2:function(e,t,r){\"use strict\";var n=r(1);Object.keys(n).forEach(function(e){n[e]=function(){return void 0===this?\"none\":\"some\"}})}";

/// One case: its name, the modules besides 9, module 9's body (its parameters `e, t, r`),
/// what both print, the texts the entry's file must hold, and those it must not.
struct Case {
    name: &'static str,
    modules: &'static str,
    body: String,
    prints: &'static str,
    holds: &'static [&'static str],
    lacks: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "star-loop",
            modules: STAR,
            body: "var a=r(1),b=r(2);console.log((0,a.f)(1),(0,b.f)(2),(0,a.who)())".to_owned(),
            prints: "2 3 none\n",
            holds: &["a.f(1)", "(0, a.who)()"],
            lacks: &["(0, a.f)"],
        },
        Case {
            name: "star-loop-that-writes",
            modules: WRITES,
            body: "var a=r(1);r(2);console.log((0,a.f)())".to_owned(),
            prints: "none\n",
            holds: &["(0, a.f)()"],
            lacks: &[],
        },
        Case {
            modules: NOTHING,
            name: "minified",
            body: format!("{LAZY}console.log((0,o().f)(1),(0,o().who)())"),
            prints: "2 none\n",
            holds: &["o().f(1)", "(0, o().who)()"],
            lacks: &["(0, o().f)"],
        },
        Case {
            modules: NOTHING,
            name: "as-babel-writes-it",
            body: "function o(){const e=r(1);o=function(){return e};return e}console.log((0,o().f)(1),(0,o().who)())".to_owned(),
            prints: "2 none\n",
            holds: &["o().f(1)", "(0, o().who)()"],
            lacks: &["(0, o().f)"],
        },
        // The exports object handed on: `g` may give it an `f` that reads `this`.
        Case {
            modules: NOTHING,
            name: "handed-on",
            body: format!(
                "{LAZY}(function(n){{n.f=function(){{return void 0===this?\"none\":\"some\"}}}})(o());console.log((0,o().f)())"
            ),
            prints: "none\n",
            holds: &["(0, o().f)()"],
            lacks: &[],
        },
        // The function itself handed on: whoever gets it gets the exports object.
        Case {
            modules: NOTHING,
            name: "function-handed-on",
            body: format!(
                "{LAZY}(function(n){{n().f=function(){{return void 0===this?\"none\":\"some\"}}}})(o);console.log((0,o().f)())"
            ),
            prints: "none\n",
            holds: &["(0, o().f)()"],
            lacks: &[],
        },
        // A look-alike that hands back another object once it has run.
        Case {
            modules: NOTHING,
            name: "look-alike",
            body: "function o(){const e=r(1);return o=function(){return{f:function(){return void 0===this?\"none\":\"some\"}}},e}o();console.log((0,o().f)())".to_owned(),
            prints: "none\n",
            holds: &["(0, o().f)()"],
            lacks: &[],
        },
    ]
}

#[test]
fn calls_through_babel_s_lazy_requires_and_star_re_exports_are_judged_as_through_the_module() {
    for case in cases() {
        let text = bundle(&format!(
            "{ONE},{},9:function(e,t,r){{{}}}",
            case.modules, case.body
        ));
        let out = unbundle::unbundle(&[unbundle::Input {
            name: "main.js",
            text: &text,
        }])
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let (before, after) = run_both(case.name, &text, &out);
        assert_eq!(
            before.0, case.prints,
            "{}: the bundle prints {}",
            case.name, before.1
        );
        assert_eq!(
            after, before,
            "{}: the unbundled program prints the same",
            case.name
        );
        let entry = &out
            .files
            .iter()
            .find(|f| f.path == "modules/9.cjs")
            .unwrap()
            .text;
        for call in case.holds {
            assert!(entry.contains(call), "{}: no {call} in {entry}", case.name);
        }
        for call in case.lacks {
            assert!(!entry.contains(call), "{}: {call} in {entry}", case.name);
        }
    }
}
