//! Module functions in, module files out: the parameters take webpack's names only where no
//! other name is captured or shadowed, the bundle file's own names are kept apart, and
//! strictness survives the move out of the bundle.

/// A webpack 5 bundle (minified as terser does it) whose table holds `modules`
/// (`7:(e,t,r)=>{...},...`) and whose runtime runs module 7.
fn bundle(modules: &str) -> String {
    format!(
        "(()=>{{var e={{{modules}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}r(7)}})();"
    )
}

/// Unbundles `text` with `options`; the text of module 7's file.
fn module_seven(text: &str, options: &unbundle::Options) -> String {
    let out = unbundle::unbundle_with(
        &[unbundle::Input {
            name: "main.js",
            text,
        }],
        options,
    )
    .unwrap();
    out.files
        .iter()
        .find(|f| f.path == "modules/7.cjs")
        .unwrap()
        .text
        .clone()
}

/// A one-module webpack 5 bundle around `module_function`, unbundled; the module file's text.
fn module_file(module_function: &str, strict: bool) -> String {
    let strict = if strict { "\"use strict\";" } else { "" };
    let text = format!("{strict}{}", bundle(&format!("7:{module_function}")));
    module_seven(&text, &unbundle::Options::default())
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
    // The file is compiled with the loader's names: the kept one is bound to its value.
    assert!(kept.starts_with("var r = arguments[2];\n"), "{kept}");
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

/// The module file for `body` with only `transforms` on.
fn with(transforms: unbundle::Transforms, body: &str) -> String {
    let options = unbundle::Options {
        transforms,
        ..Default::default()
    };
    module_seven(&bundle(&format!("7:(e,t,r)=>{{{body}}}")), &options)
}

#[test]
fn each_transform_does_what_it_says_and_nothing_where_it_would_change_meaning() {
    use unbundle::Transforms;
    let only = |name: &str| {
        let mut t = Transforms::NONE;
        match name {
            "sequences" => t.sequences = true,
            "logical" => t.logical = true,
            "conditional" => t.conditional = true,
            "declarations" => t.declarations = true,
            "booleans" => t.booleans = true,
            "void0" => t.void0 = true,
            _ => unreachable!(),
        }
        t
    };
    let cases: &[(&str, &str, &str)] = &[
        ("sequences", "a(),b(),c();", "a();\nb();\nc();\n"),
        (
            "sequences",
            "function f(){return a(),b()}",
            "function f() {\n\ta();\n\treturn b();\n}\n",
        ),
        ("sequences", "if(a(),b())c();", "a();\nif (b()) c();\n"),
        ("sequences", "x=(a(),b());", "a();\nx = b();\n"),
        // `x.y` is evaluated before `a()`: moving `a()` out would change the order.
        ("sequences", "x.y=(a(),b());", "x.y = (a(), b());\n"),
        ("logical", "a&&b();", "if (a) b();\n"),
        // The seed turned `a || b;` into `if (a) b;`.
        ("logical", "a||b();", "if (!a) b();\n"),
        ("logical", "a??b();", "if (a == null) b();\n"),
        ("conditional", "a?b():c();", "if (a) b();\nelse c();\n"),
        (
            "declarations",
            "var a=1,b=a+1;",
            "var a = 1;\nvar b = a + 1;\n",
        ),
        // A `for` head keeps its declarations (the seed split them and broke the loop).
        (
            "declarations",
            "for(let i=0,n=x.length;i<n;i++)f(i);",
            "for (let i = 0, n = x.length; i < n; i++) f(i);\n",
        ),
        ("booleans", "x=!0,y=!1;", "x = true, y = false;\n"),
        ("void0", "x=void 0;", "x = undefined;\n"),
        // A module that binds `undefined` keeps `void 0`.
        (
            "void0",
            "var undefined=1;x=void 0;",
            "var undefined = 1;\nx = void 0;\n",
        ),
    ];
    for (name, body, expected) in cases {
        assert_eq!(&with(only(name), body), expected, "{name}: {body}");
        // Off, the same input prints as it was parsed.
        let off = with(unbundle::Transforms::NONE, body);
        if body.contains("for(") || body.starts_with("x.y") || body.starts_with("var undefined") {
            assert_eq!(&off, expected, "{name} off: {body}");
        } else {
            assert_ne!(&off, expected, "{name} off: {body}");
        }
    }
    // A split never leaves a string that would read as a directive.
    let text = with(Transforms::ALL, "function f(){\"use strict\",g()}");
    assert!(!text.contains("\"use strict\""), "{text}");
}

/// The file of module 7 in a two-module bundle, module 8 named `helper` by hand.
fn named(body: &str) -> String {
    let text = bundle(&format!(
        "7:(e,t,r)=>{{{body}}},8:e=>{{e.exports={{f:()=>1}}}}"
    ));
    let mut names = unbundle::Names::new();
    names.insert(
        "8".to_owned(),
        unbundle::Named {
            name: Some("helper".to_owned()),
            path: Some("lib/helper.js".to_owned()),
        },
    );
    let options = unbundle::Options {
        names,
        ..Default::default()
    };
    let out = unbundle::unbundle_with(
        &[unbundle::Input {
            name: "main.js",
            text: &text,
        }],
        &options,
    )
    .unwrap();
    assert!(out.files.iter().any(|f| f.path == "modules/lib/helper.js"));
    let entry = out.manifest.modules.iter().find(|m| m.id == "8").unwrap();
    assert_eq!(entry.name.as_deref(), Some("helper"));
    module_seven(&text, &options)
}

#[test]
fn variables_bound_to_named_modules_take_their_names_where_nothing_collides() {
    assert_eq!(
        named("var n=r(8);e.exports=n.f()"),
        "var helper = require(8);\nmodule.exports = helper.f();\n"
    );
    // The module already uses the name: the variable keeps its own.
    assert_eq!(
        named("var n=r(8),helper=2;e.exports=n.f()+helper"),
        "var n = require(8);\nvar helper = 2;\nmodule.exports = n.f() + helper;\n"
    );
    // A global used under that name would be captured.
    assert_eq!(
        named("var n=r(8);e.exports=n.f()+helper"),
        "var n = require(8);\nmodule.exports = n.f() + helper;\n"
    );
}

#[test]
fn numeric_ids_are_the_numbers_the_runtime_asks_for() {
    // terser writes the key of module 3000 as `3e3`.
    let bundle = "(()=>{var e={3e3:e=>{e.exports=1}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}console.log(r(3000))})();";
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: bundle,
    }])
    .unwrap();
    assert_eq!(out.manifest.modules[0].id, "3000");
    assert!(out.files.iter().any(|f| f.path == "modules/3000.cjs"));
}

#[test]
fn a_variable_takes_its_export_name_only_where_that_name_is_free() {
    let all = unbundle::Transforms::ALL;
    let cases = [
        (
            "var n=[1];t.Inventory=n",
            "var Inventory = [1];\nexports.Inventory = Inventory;\n",
        ),
        // `Error` is a global the module uses: renaming would shadow it.
        (
            "var n=[1];t.Error=n,t.e=Error",
            "var n = [1];\nexports.Error = n;\nexports.e = Error;\n",
        ),
        // Exported twice: the first name.
        (
            "var n=[];t.first=n,t.second=n",
            "var first = [];\nexports.first = first;\nexports.second = first;\n",
        ),
        // `module.exports.Name = a` too, and webpack's getters.
        (
            "var n=[];e.exports.run=n",
            "var run = [];\nmodule.exports.run = run;\n",
        ),
        (
            "var n=[];r.d(t,{list:()=>n})",
            "var list = [];\nrequire.d(exports, { list: () => list });\n",
        ),
        // A function or class takes its `name` from its declaration, and a function
        // expression from the variable it is first assigned to: renaming would change
        // `f.name` (the seed's renaming also wrote `class Error extends Error`).
        (
            "class n{}t.Inventory=n",
            "class n {}\nexports.Inventory = n;\n",
        ),
        (
            "function n(){}t.run=n",
            "function n() {}\nexports.run = n;\n",
        ),
        (
            "var n=function(){};t.run=n",
            "var n = function() {};\nexports.run = n;\n",
        ),
        // Assigned again: perhaps with such a function.
        (
            "var n=[];n=[2];t.x=n",
            "var n = [];\nn = [2];\nexports.x = n;\n",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(with(all, body), expected, "{body}");
    }
    let mut off = all;
    off.export_names = false;
    assert_eq!(
        with(off, "var n=[1];t.Inventory=n"),
        "var n = [1];\nexports.Inventory = n;\n"
    );
}

#[test]
fn modules_keyed_by_paths_are_written_there_inside_the_output_and_apart() {
    let text = "(()=>{var e={\"./a.js\":(e,t,r)=>{e.exports=1},\"../a.js\":(e,t,r)=>{e.exports=2},\"../../../etc/x.js\":e=>{e.exports=3}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r(\"./a.js\")})();";
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap();
    let paths: Vec<&str> = out
        .manifest
        .modules
        .iter()
        .map(|m| m.path.as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "modules/a.js",
            "modules/__/a.js",
            "modules/__/__/__/etc/x.js"
        ]
    );
    // Two modules the names map sends to one file: refused, nothing half-written.
    let names = [("1", "same.js"), ("2", "same.js")]
        .into_iter()
        .map(|(id, path)| {
            (
                id.to_owned(),
                unbundle::Named {
                    name: None,
                    path: Some(path.to_owned()),
                },
            )
        })
        .collect();
    let text = bundle("1:e=>{e.exports=1},2:e=>{e.exports=2},7:e=>{e.exports=7}");
    let err = unbundle::unbundle_with(
        &[unbundle::Input {
            name: "main.js",
            text: &text,
        }],
        &unbundle::Options {
            names,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("modules/same.js"), "{err}");
}

#[test]
fn webpacks_external_modules_are_named_after_what_they_require() {
    let text = bundle(
        "3:e=>{\"use strict\";e.exports=require(\"node:fs\")},4:e=>{e.exports=require(\"./x\")},7:(e,t,r)=>{const n=r(3);e.exports=n.readFileSync}",
    );
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    let names: Vec<(&str, Option<&str>)> = out
        .manifest
        .modules
        .iter()
        .map(|m| (m.id.as_str(), m.name.as_deref()))
        .collect();
    assert_eq!(names, [("3", Some("fs")), ("4", Some("x")), ("7", None)]);
    let seven = &out
        .files
        .iter()
        .find(|f| f.path == "modules/7.cjs")
        .unwrap()
        .text;
    assert_eq!(
        seven,
        "const fs = require(3);\nmodule.exports = fs.readFileSync;\n"
    );
}
