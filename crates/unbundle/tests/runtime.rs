//! esbuild's runtime helpers move out of the bundle into `esbuild-runtime.cjs`, which the
//! bundle requires where it defined them, only where nothing can tell: the outputs run as the
//! bundles do.

mod common;

/// esbuild's helpers as `--minify` writes them: `c` `Object.create`, `d` `defineProperty`,
/// `g` `getOwnPropertyNames`, `h` `getPrototypeOf`, `p` `hasOwnProperty`, `r` `__require`
/// (reads node's `require`), `q` `__commonJS`, `cp` `__copyProps`, `t` `__toESM`; then `rest`.
fn bundle(rest: &str) -> String {
    format!(
        "var c=Object.create;var d=Object.defineProperty;var g=Object.getOwnPropertyNames;var h=Object.getPrototypeOf,p=Object.prototype.hasOwnProperty;var r=(x=>typeof require<\"u\"?require:x)(function(x){{return require.apply(this,arguments)}});var q=(i,s)=>()=>(s||i((s={{exports:{{}}}}).exports,s),s.exports);var cp=(a,b,e,f)=>{{if(b&&typeof b==\"object\"||typeof b==\"function\")for(let k of g(b))!p.call(a,k)&&k!==e&&d(a,k,{{get:()=>b[k],enumerable:!0}});return a}};var t=(m,n,o)=>(o=m!=null?c(h(m)):{{}},cp(n||!m||!m.__esModule?d(o,\"default\",{{value:m,enumerable:!0}}):o,m));{rest}"
    )
}

const MODULES: &str = "var a=q((i,s)=>{s.exports={v:41}});var b=q((i,s)=>{var m=t(a());s.exports=m.default.v+1});console.log(b(),r(\"path\").sep);";

fn file<'o>(out: &'o unbundle::Output, path: &str) -> Option<&'o str> {
    out.files
        .iter()
        .find(|f| f.path == path)
        .map(|f| f.text.as_str())
}

#[test]
fn the_helpers_move_to_one_runtime_file_the_bundle_requires() {
    let text = bundle(MODULES);
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    let runtime = file(&out, "esbuild-runtime.cjs").expect("a runtime file");
    let main = file(&out, "main.js").unwrap();
    assert!(
        out.notes.iter().any(|n| n.contains("esbuild-runtime.cjs")),
        "the summary says where the helpers went: {:?}",
        out.notes
    );
    for helper in ["var q = ", "var t = ", "var cp = ", "var c = Object.create"] {
        assert!(runtime.contains(helper), "{helper} in {runtime}");
        assert!(!main.contains(helper), "{helper} left in {main}");
    }
    let exported: String = runtime
        .split("module.exports = ")
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(exported, "{c,d,g,h,p,q,cp,t};", "{runtime}");
    assert!(
        main.contains("var { c, d, g, h, p, q, cp, t } = require(\"./esbuild-runtime.cjs\");"),
        "{main}"
    );
    // The runtime says which helper is which, as esbuild names them.
    assert!(
        runtime.contains("q is __commonJS") && runtime.contains("t is __toESM"),
        "{runtime}"
    );
    assert!(
        runtime.contains("c is __create") && runtime.contains("cp is __copyProps"),
        "{runtime}"
    );
    // `__require` reads the bundle file's own `require`: it stays.
    assert!(main.contains("var r = "), "{main}");
    assert!(!runtime.contains("require.apply"), "{runtime}");
    let (before, after) = common::run_both("runtime", &text, &out);
    assert_eq!(before.0, "42 /\n");
    assert_eq!(before, after);
}

#[test]
fn a_helper_read_by_a_declaration_left_behind_stays_with_those_after_it() {
    // `w` stays (its value is a call) and reads `t` when it runs: `t` must not be set earlier
    // than it was, so it stays too.
    let text = bundle(&format!("{MODULES}console.log(w);"))
        .replace("var q=", "var w=(()=>typeof t)();var q=");
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    let runtime = file(&out, "esbuild-runtime.cjs").expect("a runtime file");
    assert!(runtime.contains("var q = "), "{runtime}");
    assert!(!runtime.contains("var t = "), "{runtime}");
    let (before, after) = common::run_both("runtime-read", &text, &out);
    assert_eq!(before.0, "42 /\nundefined\n");
    assert_eq!(before, after);
}

#[test]
fn a_helper_assigned_again_stays() {
    let text = bundle(&format!("{MODULES}q=null;"));
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    assert_eq!(file(&out, "esbuild-runtime.cjs"), None);
    let (before, after) = common::run_both("runtime-assigned", &text, &out);
    assert_eq!(before, after);
}

#[test]
fn a_module_file_says_which_files_the_modules_and_helpers_it_is_given_are_in() {
    let text = bundle(MODULES);
    let out = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap();
    let path_of = |id: &str| {
        out.manifest
            .modules
            .iter()
            .find(|m| m.id == id)
            .map(|m| m.path.clone())
            .unwrap_or_else(|| panic!("module {id} in {:?}", out.manifest.modules))
    };
    // `b` calls `t(a())`: module `a`'s file, and the helper's.
    let b = file(&out, &path_of("b")).unwrap();
    let header: Vec<&str> = b.lines().take_while(|l| l.starts_with("//")).collect();
    assert!(
        header.contains(&format!("//   a: {}", path_of("a")).as_str()),
        "{b}"
    );
    assert!(header.contains(&"//   t: esbuild-runtime.cjs"), "{b}");
    // `a` is given nothing: no header.
    assert!(
        !file(&out, &path_of("a")).unwrap().starts_with("//"),
        "{:?}",
        file(&out, &path_of("a"))
    );
    // The entry calls `b` and the bundle's `require` helper, which stays in the bundle.
    let entry = file(&out, &path_of("entry")).unwrap();
    assert!(
        entry.contains(&format!("//   b: {}", path_of("b"))),
        "{entry}"
    );
    let (before, after) = common::run_both("runtime-links", &text, &out);
    assert_eq!(before, after);
}

#[test]
fn helpers_a_commonjs_file_requires_from_another_find_its_wrappers() {
    // zx's layout: esbuild's helpers in `esblib.cjs` (`module.exports = {__commonJS, ...}`),
    // and a file that takes them with `const {__commonJS} = require("./esblib.cjs")` and
    // wraps its modules with them: its wrappers are found and split, and it runs the same.
    let lib = "\"use strict\";var __commonJS=(cb,mod)=>function __require(){return mod||(0,cb[Object.getOwnPropertyNames(cb)[0]])((mod={exports:{}}).exports,mod),mod.exports};module.exports={__commonJS};";
    let main = "\"use strict\";const{__commonJS}=require(\"./esblib.cjs\");var require_a=__commonJS({\"a.js\"(exports,module){module.exports={v:41}}});var require_b=__commonJS({\"b.js\"(exports,module){module.exports=require_a().v+1}});console.log(require_b());";
    let out = unbundle::unbundle(&[
        unbundle::Input {
            name: "main.js",
            text: main,
        },
        unbundle::Input {
            name: "esblib.cjs",
            text: lib,
        },
    ])
    .unwrap();
    assert_eq!(out.manifest.wrappers.commonjs.found, 2);
    assert_eq!(out.manifest.wrappers.commonjs.split, 2);
    let dir =
        std::env::temp_dir().join(format!("pilotfish-unbundle-{}-esblib", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in [("main.js", main), ("esblib.cjs", lib)] {
        let path = dir.join("bundle").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    for file in &out.files {
        let path = dir.join("out").join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
    let before = common::node(&dir.join("bundle/main.js"));
    assert_eq!(before.0, "42\n");
    assert_eq!(common::node(&dir.join("out/main.js")), before);
    let _ = std::fs::remove_dir_all(&dir);
}
