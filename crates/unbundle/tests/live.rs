//! Calls of a bundle's top-level variable that a module file reaches live, through the
//! accessor object the split passes (`__pilotfish_live`), lose their `0,` only when every
//! value the variable is ever given ignores its receiver: esbuild's `require_x` (given the
//! result of `__commonJS`, whose shape makes it an arrow or a function without `this`), a
//! hoisted ES module variable only ever assigned functions without `this` or arrows (also as
//! a template's tag). A variable once given a function that reads `this` keeps its `0,`: with
//! the accessor object as its receiver it would print "some". The bundle is built by the
//! esbuild pinned in `tools/bundlers`; the unbundled program must print what it prints.

mod common;

use std::path::{Path, PathBuf};

use common::{bundlers, install_bundlers, node_in, scratch};

/// `a.js` and `b.js` require each other, so `require_a` is declared after `b.js`'s module
/// and `b.js`'s file reaches it live. `m1.mjs` reads `arguments`, which keeps its initializer
/// in the bundle, so the names it assigns stay there and `m2.mjs`'s file reaches them live.
const SOURCES: [(&str, &str); 5] = [
    (
        "entry.js",
        "const a = require(\"./a.js\");\nconsole.log(a.run());\nimport(\"./m2.mjs\").then((m) => console.log(m.r));\n",
    ),
    (
        "a.js",
        "exports.who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\nexports.run = () => require(\"./b.js\").call();\n",
    ),
    ("b.js", "exports.call = () => require(\"./a.js\").who();\n"),
    (
        "m1.mjs",
        "export let who = function () { return this === undefined || this === globalThis ? \"none\" : \"some\"; };\nexport let plain = function () { return \"plain\"; };\nexport const arrow = (s) => s[0];\nif (typeof arguments === \"undefined\") console.log(\"not bundled\");\n",
    ),
    (
        "m2.mjs",
        "import { who, plain, arrow } from \"./m1.mjs\";\nexport const r = [who(), plain(), arrow`tagged`].join(\" \");\n",
    ),
];

/// Writes [`SOURCES`] into `dir` and bundles them with the pinned esbuild for node: the
/// bundle's path.
fn build(dir: &Path) -> PathBuf {
    install_bundlers();
    for (name, text) in SOURCES {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let esbuild = bundlers().join("node_modules/esbuild");
    let script = format!(
        "require({:?}).buildSync({{entryPoints: [{:?}], bundle: true, platform: 'node', \
         outfile: {:?}, logLevel: 'error'}})",
        esbuild.to_str().unwrap(),
        dir.join("entry.js").to_str().unwrap(),
        dir.join("bundle/main.js").to_str().unwrap(),
    );
    let built = node_in(dir, &["-e", &script]);
    assert_eq!(built.2, Some(0), "esbuild failed: {}", built.1);
    dir.join("bundle/main.js")
}

#[test]
fn a_live_variable_whose_every_value_ignores_its_receiver_is_called_without_zero() {
    let dir = scratch("live", "receiver-free");
    let bundle = build(&dir);
    let text = std::fs::read_to_string(&bundle).unwrap();
    let output = unbundle::unbundle(&[unbundle::Input {
        name: "main.js",
        text: &text,
    }])
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    for file in &output.files {
        let path = out.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.text).unwrap();
    }
    let before = node_in(&dir, &[bundle.to_str().unwrap()]);
    assert_eq!(before.0, "some\nnone plain tagged\n", "the bundle runs: {}", before.1);
    let entry = out.join(&output.manifest.entry);
    assert_eq!(node_in(&dir, &[entry.to_str().unwrap()]), before);

    let file = |path: &str| {
        let found = output.files.iter().find(|f| f.path == path);
        found.unwrap_or_else(|| panic!("no {path}")).text.clone()
    };
    let b = file("modules/b.js");
    assert!(b.contains("__pilotfish_live.require_a().who()"), "{b}");
    let m2 = file("modules/m2.mjs");
    assert!(m2.contains("(0, __pilotfish_live.who)()"), "{m2}");
    assert!(
        m2.contains("__pilotfish_live.plain()") && !m2.contains("(0, __pilotfish_live.plain)"),
        "{m2}"
    );
    assert!(m2.contains("__pilotfish_live.arrow`tagged`"), "{m2}");
    let _ = std::fs::remove_dir_all(&dir);
}
