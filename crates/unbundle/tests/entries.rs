//! The entry module a bundler left outside its table (webpack 5 inlines it into the runtime,
//! esbuild leaves it at the top level) becomes `modules/entry.cjs` exactly when moving it out
//! changes nothing; otherwise it stays where it is.

/// A webpack 5 runtime (minified as terser does it) around a one-module table, ending with
/// `tail` (which starts with `,` to join the runtime's last sequence, or `;`); `t` is the
/// module cache, `r` the require function.
fn webpack(tail: &str) -> String {
    format!(
        "(()=>{{var e={{7:(e,t,r)=>{{e.exports=41}}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}r.o=(e,t)=>1{tail}}})();"
    )
}

/// A minified esbuild bundle with one CommonJS module, `a`, ending with `tail`.
fn esbuild(tail: &str) -> String {
    format!(
        "var q=(i,s)=>()=>(s||i((s={{exports:{{}}}}).exports,s),s.exports);var z=1;var a=q((i,s)=>{{s.exports=41}});{tail}"
    )
}

/// The entry file's text, if one was made, and the bundle file as rewritten.
fn unbundled(text: &str) -> (Option<String>, String) {
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text,
    }])
    .unwrap();
    let file = |path: &str| {
        out.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.text.clone())
    };
    // An esbuild entry's file opens with where the names it is given come from (checked in
    // `module_files.rs`); here only its code counts.
    let entry = file("modules/entry.cjs").map(|text| {
        text.lines()
            .skip_while(|l| l.starts_with("// pilotfish unbundle:") || l.starts_with("//   "))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    });
    assert_eq!(
        entry.is_some(),
        out.manifest.modules.iter().any(|m| m.id == "entry"),
        "the manifest lists the entry file when there is one"
    );
    (entry, file("main.js").unwrap())
}

#[test]
fn the_entry_moves_out_exactly_when_that_changes_nothing() {
    // (bundle, the entry file's text or None when it must stay)
    let cases: Vec<(String, Option<&str>)> = vec![
        // webpack 5's inlined entry, joined to the runtime's last assignment by terser.
        (
            webpack(",console.log(r(7))"),
            Some("console.log(require(7));\n"),
        ),
        // Declarations of its own move with it.
        (
            webpack(";const a=r(7),b=a+1;console.log(b)"),
            Some("const a = require(7);\nconst b = a + 1;\nconsole.log(b);\n"),
        ),
        // Start-up that only runs a module of the table is no module of its own.
        (webpack(",r(7)"), None),
        (webpack(";var x=r(7);module.exports=x"), None),
        // It reads the module cache: the runtime's own, so it stays.
        (webpack(",console.log(t)"), None),
        // It returns from the runtime function.
        (webpack(";return r(7)"), None),
        // The runtime uses a function it declares (hoisted).
        (
            "(()=>{var e={7:(e,t,r)=>{e.exports=41}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r.o=()=>g();function g(){return 1}console.log(r(7))})();".to_owned(),
            Some("console.log(require(7));\n"),
        ),
        (
            "(()=>{var e={7:(e,t,r)=>{e.exports=41}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r.o=()=>g();console.log(r(7));function g(){return 1}})();".to_owned(),
            None,
        ),
        // The function's `arguments` would be another function's in a file.
        (webpack(",console.log(arguments)"), None),
        // esbuild: the entry reads the bundle's top-level names, which are passed in; a call
        // of a CommonJS wrapper requires that module's file.
        (
            esbuild("console.log(a(),z)"),
            Some("console.log(require(\"./a.cjs\"), z);\n"),
        ),
        // A name assigned anywhere cannot be passed in as a value: the entry would keep a
        // copy (and an assignment in it would land on one).
        (esbuild("z=2;console.log(a(),z)"), None),
        (esbuild("console.log(a(),z);z=2"), None),
        (
            esbuild("z=2;console.log(a())"),
            Some("console.log(require(\"./a.cjs\"));\n"),
        ),
        // A `return` in an arrow function is the arrow's, not the program's.
        (
            esbuild("Promise.resolve().then(()=>{return a()})"),
            Some("Promise.resolve().then(() => {\n\treturn require(\"./a.cjs\");\n});\n"),
        ),
        // A top-level `return` (node allows one in a CommonJS file) stays.
        (esbuild("console.log(a());return"), None),
    ];
    for (bundle, expected) in cases {
        let (entry, main) = unbundled(&bundle);
        assert_eq!(entry.as_deref(), expected, "{bundle}\n---\n{main}");
        if expected.is_some() {
            assert!(
                main.contains("modules/entry.cjs"),
                "the bundle runs the entry file: {main}"
            );
        }
    }
}

#[test]
fn a_module_named_entry_keeps_its_name() {
    let bundle = "var q=(i,s)=>()=>(s||i((s={exports:{}}).exports,s),s.exports);var entry=q((i,s)=>{s.exports=41});console.log(entry())";
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: bundle,
    }])
    .unwrap();
    let ids: Vec<&str> = out.manifest.modules.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["entry", "entry_"]);
}

#[test]
fn a_runtime_without_set_up_keeps_its_table_and_require_function() {
    // Nothing sets the runtime up, so every statement but the table's and the require
    // function's could move: the entry is the last one.
    let bundle = "(()=>{var e={1:(e,t,r)=>{e.exports=r(2)+1},2:e=>{e.exports=41}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}console.log(r(1))})();";
    let (entry, main) = unbundled(bundle);
    assert_eq!(
        entry.as_deref(),
        Some("console.log(require(1));\n"),
        "{main}"
    );
}

#[test]
fn an_entry_that_builds_code_at_run_time_stays_where_it_is() {
    // `new Function("m", "return import(m)")` (prettier's bin) imports from the file it runs
    // in, which a module file is not: that entry stays in the bundle file.
    let (entry, main) = unbundled(&esbuild(
        "var d=new Function(\"m\",\"return import(m)\");d(\"node:path\").then(p=>console.log(typeof p.join));",
    ));
    assert_eq!(entry, None, "{main}");
    assert!(main.contains("return import(m)"), "{main}");
}
