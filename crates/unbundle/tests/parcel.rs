//! Parcel 2's registered modules, in the shapes Parcel writes for node (`tests/parcel/`,
//! taken from the shape of `@mherod/html-inliner` 1.2.4's minified `dist/cli.js`, and of
//! Parcel's unminified runtime with its `parcelRegister` variable; Parcel itself is not among
//! the pinned bundlers): each registered function becomes a module file, a module nobody
//! requires still never runs, and the output prints what the bundle prints.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/parcel")
        .join(name)
}

/// Standard output, standard error and exit status of `node FILE`.
fn run(file: &Path) -> (String, String, Option<i32>) {
    let ran = Command::new("node")
        .arg(file)
        .current_dir(file.parent().unwrap())
        .output()
        .expect("node runs");
    (
        String::from_utf8_lossy(&ran.stdout).into_owned(),
        String::from_utf8_lossy(&ran.stderr).into_owned(),
        ran.status.code(),
    )
}

/// Unbundles the fixture `name` into a scratch folder, checks the output runs as the bundle
/// does, and returns the output.
fn splits_and_runs_the_same(name: &str) -> unbundle::Output {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let inputs = [unbundle::Input { name, text: &text }];
    let output = unbundle::unbundle(&inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = std::env::temp_dir().join(format!(
        "pilotfish-unbundle-parcel-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    common::write_output(&output, &out);
    let before = run(&fixture(name));
    assert_eq!(before.1, "", "{name}: the bundle runs without errors");
    assert!(!before.0.is_empty(), "{name}: the bundle prints");
    let after = run(&out.join(&output.manifest.entry));
    assert_eq!(after, before, "{name}: the unbundled program runs the same");
    let _ = std::fs::remove_dir_all(&out);
    output
}

fn parcel_modules(output: &unbundle::Output) -> Vec<&str> {
    output
        .manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::Parcel)
        .map(|m| m.id.as_str())
        .collect()
}

#[test]
fn parcel_s_minified_registered_modules_each_become_a_module_file() {
    let output = splits_and_runs_the_same("minified.js");
    let w = output.manifest.wrappers.parcel;
    assert_eq!((w.found, w.split), (4, 4), "{w:?}");
    let mut ids = parcel_modules(&output);
    ids.sort_unstable();
    assert_eq!(ids, ["3ITin", "7Ztq9", "hTfib", "jpRJy"]);
    // The module nobody requires is a file, and still does not run.
    let never = output
        .files
        .iter()
        .find(|f| f.text.contains("never required"))
        .expect("the unrequired module's file");
    assert_ne!(never.path, output.manifest.entry);
}

#[test]
fn parcel_s_unminified_runtime_registering_through_a_variable_splits_too() {
    let output = splits_and_runs_the_same("plain.js");
    let mut ids = parcel_modules(&output);
    ids.sort_unstable();
    assert_eq!(ids, ["aXq2Z", "kfwLk"]);
    // The counter both the entry and a module assign stays one variable.
    let entry = output
        .files
        .iter()
        .find(|f| f.path == output.manifest.entry)
        .unwrap();
    assert!(entry.text.contains("$counter += 1"), "{}", entry.text);
}

#[test]
fn parcel_s_runtime_named_by_esbuild_s_keep_names_splits_too() {
    // A package Parcel built, in the top level of an esbuild bundle built with --keep-names
    // (prisma 4's CLI): esbuild wraps the runtime's functions in its `__name` helper,
    // `parcelRequire.register = __name(function register(id, init) {...}, "register")`.
    // Made here by the pinned esbuild's transform of the unminified fixture.
    common::install_bundlers();
    let dir = common::scratch("parcel", "keep-names");
    let fixture = fixture("plain.js");
    let script = "const fs = require('fs'); const esbuild = require(process.argv[1]); \
        const code = fs.readFileSync(process.argv[2], 'utf8'); \
        fs.writeFileSync('keep-names.js', esbuild.transformSync(code, { keepNames: true, format: 'cjs', platform: 'node' }).code);";
    let esbuild = common::bundlers().join("node_modules/esbuild");
    let built = common::node_in(
        &dir,
        &[
            "-e",
            script,
            &esbuild.display().to_string(),
            &fixture.display().to_string(),
        ],
    );
    assert_eq!(built.2, Some(0), "esbuild's transform: {built:?}");
    let text = std::fs::read_to_string(dir.join("keep-names.js")).unwrap();
    assert!(
        text.contains("__name(function register(id, init)"),
        "{text}"
    );
    let inputs = [unbundle::Input {
        name: "main.js",
        text: &text,
    }];
    let output = unbundle::unbundle(&inputs).unwrap();
    let mut ids = parcel_modules(&output);
    ids.sort_unstable();
    assert_eq!(ids, ["aXq2Z", "kfwLk"]);
    let (before, after) = common::run_both("parcel-keep-names", &text, &output);
    assert_eq!(before.1, "", "the bundle runs without errors");
    assert_eq!(after, before, "the unbundled program runs the same");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_event_emitter_shaped_like_parcel_s_runtime_is_no_bundle() {
    // A method that stores handlers by name, handed functions of two parameters, but nothing
    // requires one by its name alone.
    let text = "var handlers = {}, bus = {};\n\
        bus.on = function (name, handler) { handlers[name] = handler; };\n\
        bus.on(\"start\", function (a, b) { console.log(a + b); });\n\
        bus.on(\"stop\", function (a) { console.log(a); });\n\
        handlers.start(1, 2);\n";
    let inputs = [unbundle::Input {
        name: "emitter.js",
        text,
    }];
    match unbundle::unbundle(&inputs) {
        Err(unbundle::UnbundleError::NotABundle { .. }) => {}
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(output) => panic!("split: {:?}", output.manifest.wrappers),
    }
}
