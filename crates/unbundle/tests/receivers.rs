//! `(0, x.f)(...)` calls lose their `0,` through interop helpers only where the helper is
//! surely the one it looks like: tsc's `__importDefault`, recognized by its shape, hands on
//! the module (or an object whose `default` holds it), so a named export called through it
//! needs no receiver exactly when it needs none called directly. A look-alike helper (any
//! other body) keeps every `0,`. Each bundle is a small webpack 5 bundle in terser's shape,
//! unbundled and run with node before and after: both must print the same.

mod common;

use common::run_both;

/// A webpack 5 runtime around `modules`, starting module 9; modules are called with their
/// exports as `this`, as webpack does.
fn bundle(modules: &str) -> String {
    format!(
        "(()=>{{\"use strict\";var e={{{modules}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o].call(s.exports,s,s.exports,r),s.exports}}r(9)}})();"
    )
}

/// Unbundles `text`, checks that both print `expected`, and gives module 9's file.
fn entry_file(name: &str, text: &str, expected: &str) -> String {
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
    out.files
        .iter()
        .find(|f| f.path == "modules/9.cjs")
        .unwrap()
        .text
        .clone()
}

/// Module 1: a tsc-compiled ES module whose `default` and `f` need no receiver and whose
/// `who` says whether it got one.
const ONE: &str = "1:function(e,t){\"use strict\";Object.defineProperty(t,\"__esModule\",{value:!0}),t.default=e=>2*e,t.f=function(e){return e+1},t.who=function(){return void 0===this?\"none\":\"some\"}}";

#[test]
fn tsc_s_import_default_hands_on_the_module_or_a_default_holding_it() {
    // tsc's helper, as terser leaves it (`this && this.__importDefault || function ...`),
    // and an arrow form of it: calls through it drop their `0,` where the export needs no
    // receiver, and `who` keeps it.
    for helper in [
        "this&&this.__importDefault||function(e){return e&&e.__esModule?e:{default:e}}",
        "e=>e&&e.__esModule?e:{\"default\":e}",
    ] {
        let entry = entry_file(
            "import-default",
            &bundle(&format!(
                "{ONE},9:function(e,t,r){{\"use strict\";var n={helper};Object.defineProperty(t,\"__esModule\",{{value:!0}});const a=n(r(1));console.log((0,a.default)(3),(0,a.f)(1),(0,a.who)())}}"
            )),
            "6 2 none\n",
        );
        assert!(
            entry.contains("a.default(3)") && entry.contains("a.f(1)"),
            "{helper}: {entry}"
        );
        assert!(entry.contains("(0, a.who)()"), "{helper}: {entry}");
    }
}

#[test]
fn a_look_alike_of_import_default_keeps_every_zero() {
    // It hands on an object of its own, whose `f` reads `this`: with a receiver it would
    // print "some".
    let entry = entry_file(
        "look-alike",
        &bundle(&format!(
            "{ONE},9:function(e,t,r){{\"use strict\";var n=this&&this.__importDefault||function(e){{return e&&e.__esModule?{{f:function(){{return void 0===this?\"none\":\"some\"}}}}:{{default:e}}}};const a=n(r(1));console.log((0,a.f)())}}"
        )),
        "none\n",
    );
    assert!(entry.contains("(0, a.f)()"), "{entry}");
}

#[test]
fn exports_written_through_a_bare_require_keep_their_callers_zero() {
    // Module 3 replaces module 1's `f` through `require(1).f = ...` with a function that
    // reads `this`: a call of `a.f` through module 9's binding must keep its `0,`. Module 4
    // only destructures module 1 (`const {f: g} = require(1)`), which reads its exports and
    // changes nothing: alone, it would not stop the rewrite.
    let module_one = "1:(e,t)=>{t.f=()=>\"arrow\"}";
    let entry = entry_file(
        "written-through-require",
        &bundle(&format!(
            "{module_one},3:(e,t,r)=>{{r(1).f=function(){{return void 0===this?\"none\":\"some\"}}}},9:(e,t,r)=>{{const a=r(1);r(3);console.log((0,a.f)())}}"
        )),
        "none\n",
    );
    assert!(entry.contains("(0, a.f)()"), "{entry}");
    let entry = entry_file(
        "destructured",
        &bundle(&format!(
            "{module_one},4:(e,t,r)=>{{const{{f:g}}=r(1);t.g=g}},9:(e,t,r)=>{{const a=r(1);r(4);console.log((0,a.f)())}}"
        )),
        "arrow\n",
    );
    assert!(
        entry.contains("a.f()") && !entry.contains("(0, a.f)"),
        "{entry}"
    );
}

/// esbuild's `__commonJS` (minified, as `q`) around `rest`, which ends by calling a module.
fn esbuild_bundle(rest: &str) -> String {
    format!("var q=(i,s)=>()=>(s||i((s={{exports:{{}}}}).exports,s),s.exports);{rest}")
}

/// tsc's helper as esbuild writes a CommonJS module's top-level `this`: `exports && ...`.
const IMPORT_DEFAULT: &str =
    "var n=e&&e.__importDefault||function(m){return m&&m.__esModule?m:{default:m}};";

/// Module `b`: tsc's output for an ES module, helpers first, whose `f` needs no receiver and
/// whose `who` says whether it got one.
const B: &str = "var b=q((e,s)=>{\"use strict\";var n=e&&e.__importDefault||function(m){return m&&m.__esModule?m:{default:m}};Object.defineProperty(e,\"__esModule\",{value:!0});e.f=function(x){return x+1};e.who=function(){return void 0===this?\"none\":\"some\"}});";

/// Unbundles `text`, checks that both print `expected`, and gives the module file that
/// prints (the one holding `console.log`).
fn printing_file(name: &str, text: &str, expected: &str) -> String {
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
    out.files
        .iter()
        .find(|f| f.path.starts_with("modules/") && f.text.contains("console.log"))
        .unwrap_or_else(|| panic!("{name}: no module file prints"))
        .text
        .clone()
}

#[test]
fn tsc_s_helpers_read_through_esbuild_s_exports_keep_a_module_s_exports_known() {
    // esbuild writes tsc's `this && this.__importDefault` as `exports && exports...`. The
    // bare `exports` only tests the object: module `b`'s exports stay known, and `f`, called
    // directly or through `__importDefault`, loses its `0,`; `who` keeps it.
    let entry = printing_file(
        "esbuild-tsc-helpers",
        &esbuild_bundle(&format!(
            "{B}var a=q((e,s)=>{{\"use strict\";{IMPORT_DEFAULT}Object.defineProperty(e,\"__esModule\",{{value:!0}});const y=b(),x=n(b());console.log((0,y.f)(1),(0,x.f)(2),(0,y.who)(),(0,x.who)())}});a();"
        )),
        "2 3 none none\n",
    );
    assert!(
        entry.contains("y.f(1)") && entry.contains("x.f(2)"),
        "{entry}"
    );
    assert!(
        entry.contains("(0, y.who)()") && entry.contains("(0, x.who)()"),
        "{entry}"
    );
}

#[test]
fn a_helper_read_from_exports_after_other_code_ran_keeps_every_zero() {
    // Module `a` first puts a helper of its own on its exports; the look-alike `exports &&
    // exports.__importDefault || ...` then takes it, and it hands on an object whose `f`
    // reads `this`: with a receiver it would print "some".
    let entry = printing_file(
        "esbuild-not-leading",
        &esbuild_bundle(&format!(
            "{B}var a=q((e,s)=>{{\"use strict\";e.__importDefault=function(m){{return{{f:function(){{return void 0===this?\"none\":\"some\"}}}}}};{IMPORT_DEFAULT}const x=n(b());console.log((0,x.f)())}});a();"
        )),
        "none\n",
    );
    assert!(entry.contains("(0, x.f)()"), "{entry}");
}

/// tsc's interop helpers as tsc 4 prints them, `this` written `exports` as esbuild does.
const TSC_HELPERS: &str = r#"var __createBinding = (exports && exports.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (exports && exports.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __exportStar = (exports && exports.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
"#;

/// tsc 4's `__importStar`, then tsc 5's (which finds the keys with an `ownKeys` of its own).
const IMPORT_STARS: [&str; 2] = [
    r#"var __importStar = (exports && exports.__importStar) || function (mod) {
    if (mod && mod.__esModule) return mod;
    var result = {};
    if (mod != null) for (var k in mod) if (k !== "default" && Object.prototype.hasOwnProperty.call(mod, k)) __createBinding(result, mod, k);
    __setModuleDefault(result, mod);
    return result;
};
"#,
    r#"var __importStar = (exports && exports.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
"#,
];

/// Module `b`, plain CommonJS (no `__esModule`): `f` needs no receiver, `who` says whether
/// it got one. Module `idx` re-exports all of it with `__exportStar` (`helpers` first).
fn star_modules(helpers: &str) -> String {
    format!(
        "var b=q((exports)=>{{\"use strict\";exports.f=f;function f(x){{return x+1}}exports.who=function(){{return this===undefined?\"none\":\"some\"}}}});\nvar idx=q((exports)=>{{\"use strict\";\n{helpers}Object.defineProperty(exports,\"__esModule\",{{value:true}});__exportStar(b(),exports)}});\n"
    )
}

#[test]
fn tsc_s_star_helpers_hand_on_the_module_s_own_exports() {
    // `i.f` through `__exportStar` and `s.f` through `__importStar` (both of tsc's forms) are
    // `b`'s `f`: they lose their `0,`; `who` keeps it (through `__importStar` it would get
    // the fresh object as its receiver).
    for import_star in IMPORT_STARS {
        let entry = printing_file(
            "tsc-stars",
            &esbuild_bundle(&format!(
                "{}var a=q((exports)=>{{\"use strict\";\n{TSC_HELPERS}{import_star}const i=idx(),s=__importStar(b());console.log((0,i.f)(1),(0,i.who)(),(0,s.f)(2),(0,s.who)())}});a();",
                star_modules(TSC_HELPERS)
            )),
            "2 none 3 none\n",
        );
        assert!(
            entry.contains("i.f(1)") && entry.contains("s.f(2)"),
            "{entry}"
        );
        assert!(
            entry.contains("(0, i.who)()") && entry.contains("(0, s.who)()"),
            "{entry}"
        );
    }
}

#[test]
fn a_look_alike_of_create_binding_keeps_every_zero() {
    // This `__createBinding` puts a function of its own, which reads `this`, in place of
    // each export: `i.f` with a receiver would print "some".
    let look_alike = TSC_HELPERS
        .replace(
            "o[k2] = m[k];",
            "o[k2] = function () { return this === undefined ? \"none\" : \"some\"; };",
        )
        .replace("Object.create ?", "false ?");
    let entry = printing_file(
        "tsc-look-alike",
        &esbuild_bundle(&format!(
            "{}var a=q((exports)=>{{\"use strict\";const i=idx();console.log((0,i.f)(1))}});a();",
            star_modules(&look_alike)
        )),
        "none\n",
    );
    assert!(entry.contains("(0, i.f)(1)"), "{entry}");
}

#[test]
fn a_module_bound_after_other_requires_in_a_sequence_is_still_known() {
    // terser writes `a = (r(5), r(1))`: `a` holds module 1, module 5 is only required.
    let entry = entry_file(
        "sequence-binding",
        &bundle(&format!(
            "{ONE},5:function(){{}},9:function(e,t,r){{\"use strict\";const a=(r(5),r(1));console.log((0,a.f)(1),(0,a.who)())}}"
        )),
        "2 none\n",
    );
    assert!(
        entry.contains("a.f(1)") && entry.contains("(0, a.who)()"),
        "{entry}"
    );
}

#[test]
fn terser_s_form_of_tsc_5_s_import_star_is_seen_through() {
    // As pyright ships it: `ownKeys` is a variable of the module, set by the helper's own
    // sequence before the helper can run.
    let helpers = "var n,r=this&&this.__createBinding||(Object.create?function(e,t,a,n){void 0===n&&(n=a);var r=Object.getOwnPropertyDescriptor(t,a);r&&(\"get\"in r?!t.__esModule:!r.writable&&!r.configurable)||(r={enumerable:!0,get:function(){return t[a]}}),Object.defineProperty(e,n,r)}:function(e,t,a,n){void 0===n&&(n=a),e[n]=t[a]}),i=this&&this.__setModuleDefault||(Object.create?function(e,t){Object.defineProperty(e,\"default\",{enumerable:!0,value:t})}:function(e,t){e.default=t}),s=this&&this.__importStar||(n=function(e){return(n=Object.getOwnPropertyNames||function(e){var t=[];for(var a in e)Object.prototype.hasOwnProperty.call(e,a)&&(t[t.length]=a);return t})(e)},function(e){if(e&&e.__esModule)return e;var t={};if(null!=e)for(var a=n(e),s=0;s<a.length;s++)\"default\"!==a[s]&&r(t,e,a[s]);return i(t,e),t});";
    let module_one = "1:function(e,t){\"use strict\";t.f=function(e){return e+1},t.who=function(){return void 0===this?\"none\":\"some\"}}";
    let entry = entry_file(
        "terser-import-star",
        &bundle(&format!(
            "{module_one},9:function(e,t,a){{\"use strict\";{helpers}const o=s(a(1));console.log((0,o.f)(1),(0,o.who)())}}"
        )),
        "2 none\n",
    );
    assert!(
        entry.contains("o.f(1)") && entry.contains("(0, o.who)()"),
        "{entry}"
    );
}

#[test]
fn a_name_defined_only_under_a_condition_before_a_star_keeps_its_zero() {
    // `idx` defines `f` only when a test passes (here never): the star then gives it `b`'s
    // `who`-like `f`, which reads `this`.
    let b = "var b=q((exports)=>{\"use strict\";exports.f=function(){return this===undefined?\"none\":\"some\"}});\n";
    let entry = printing_file(
        "tsc-conditional-before-star",
        &esbuild_bundle(&format!(
            "{b}var idx=q((exports)=>{{\"use strict\";\n{TSC_HELPERS}if(Math.random()>2)exports.f=function(){{return 1}};__exportStar(b(),exports)}});\nvar a=q((exports)=>{{\"use strict\";const i=idx();console.log((0,i.f)())}});a();"
        )),
        "none\n",
    );
    assert!(entry.contains("(0, i.f)()"), "{entry}");
}

#[test]
fn a_declared_import_default_function_hands_on_the_module_as_tsc_s_does() {
    // swc and babel declare the helper as a function at the module's end (hoisted): calls
    // through it drop their `0,` where the export needs no receiver, and `who` keeps it.
    let entry = entry_file(
        "declared-import-default",
        &bundle(&format!(
            "{ONE},9:function(e,t,r){{\"use strict\";Object.defineProperty(t,\"__esModule\",{{value:!0}});const a=n(r(1));console.log((0,a.default)(3),(0,a.f)(1),(0,a.who)());function n(e){{return e&&e.__esModule?e:{{default:e}}}}}}"
        )),
        "6 2 none\n",
    );
    assert!(
        entry.contains("a.default(3)") && entry.contains("a.f(1)"),
        "{entry}"
    );
    assert!(entry.contains("(0, a.who)()"), "{entry}");
}

#[test]
fn a_declared_import_default_assigned_again_keeps_every_zero() {
    // The same declaration, replaced before the call by a function handing on an object of
    // its own whose `f` reads `this`: with a receiver it would print "some".
    let entry = entry_file(
        "declared-assigned",
        &bundle(&format!(
            "{ONE},9:function(e,t,r){{\"use strict\";n=function(e){{return{{f:function(){{return void 0===this?\"none\":\"some\"}}}}}};const a=n(r(1));console.log((0,a.f)());function n(e){{return e&&e.__esModule?e:{{default:e}}}}}}"
        )),
        "none\n",
    );
    assert!(entry.contains("(0, a.f)()"), "{entry}");
}
