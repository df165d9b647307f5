//! Module functions in, module files out: the parameters take webpack's names only where no
//! other name is captured or shadowed, the bundle file's own names are kept apart, and
//! strictness survives the move out of the bundle.

/// A one-module webpack 5 bundle around `module_function`, unbundled; the module file's text.
fn module_file(module_function: &str, strict: bool) -> String {
    let bundle = format!(
        "{}(()=>{{var e={{7:{module_function}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}r(7)}})();",
        if strict { "\"use strict\";" } else { "" }
    );
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &bundle,
    }])
    .unwrap();
    out.files
        .iter()
        .find(|f| f.path == "modules/7.js")
        .unwrap()
        .text
        .clone()
}

#[test]
fn parameters_take_webpacks_names_by_position() {
    let cases = [
        // Terser's names in webpack 5, and webpack 4's JSONP order.
        (
            "(e,t,r)=>{e.exports=r(1)+t.x}",
            "module.exports = require(1) + exports.x;\n",
        ),
        (
            "function(t,e,n){t.exports=n(1)+e.x}",
            "module.exports = require(1) + exports.x;\n",
        ),
        // One parameter: only `module`.
        ("e=>{e.exports=1}", "module.exports = 1;\n"),
        // An arrow with an expression body.
        ("e=>e.exports=2", "module.exports = 2;\n"),
    ];
    for (function, expected) in cases {
        assert_eq!(module_file(function, false), expected, "{function}");
    }
}

#[test]
fn a_name_that_would_be_shadowed_or_captured_is_not_taken() {
    // A binding named `require` in the module: the third parameter keeps its name.
    let kept = module_file("(e,t,r)=>{var require=5;e.exports=r(1)+require}", false);
    assert!(kept.contains("r(1) + require"), "{kept}");
    assert!(kept.contains("module.exports"), "{kept}");
    // An inner function's parameter named `module` would shadow the renamed one where it is used.
    let shadowed = module_file(
        "(e,t)=>{function f(module){return e.id+module}t.f=f}",
        false,
    );
    assert!(shadowed.contains("e.id + module"), "{shadowed}");
    assert!(shadowed.contains("exports.f = f"), "{shadowed}");
}

#[test]
fn the_bundle_files_own_names_are_kept_apart() {
    // `require("fs")` is node's require of the bundle file, not webpack's.
    let text = module_file("(e,t,r)=>{e.exports=[r(1),require(\"fs\")]}", false);
    assert_eq!(
        text,
        "module.exports = [require(1), __node_require(\"fs\")];\n"
    );
}

#[test]
fn strictness_moves_with_the_module() {
    assert_eq!(
        module_file("e=>{e.exports=1}", true),
        "\"use strict\";\nmodule.exports = 1;\n"
    );
    // A module strict on its own says so once.
    assert_eq!(
        module_file("e=>{\"use strict\";e.exports=1}", true),
        "\"use strict\";\nmodule.exports = 1;\n"
    );
}
