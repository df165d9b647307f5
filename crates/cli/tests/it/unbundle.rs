//! `pilotfish unbundle` on real bundles: the test app in `tools/bundlers/apps/` built by the
//! pinned bundlers from registry packages (installed by `tools/bundlers/setup.sh`), split,
//! and the output run by node beside the original: same standard output, same exit status,
//! every module the bundler reports accounted for, every module file valid JavaScript.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

mod no_wrapper;
mod shapes;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("pilotfish-unbundle-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds `app` with `bundler` into `out` and returns its stats (`files`, `modules`).
fn build(bundler: &str, app: &str, out: &Path) -> Value {
    let tools = repo().join("tools/bundlers");
    let setup = Command::new("bash")
        .arg(tools.join("setup.sh"))
        .status()
        .unwrap();
    assert!(setup.success(), "tools/bundlers/setup.sh failed");
    // An app with packages of its own installs them with its own setup.sh.
    let app_setup = tools.join("apps").join(app).join("setup.sh");
    if app_setup.exists() {
        let setup = Command::new("bash").arg(&app_setup).status().unwrap();
        assert!(setup.success(), "{} failed", app_setup.display());
    }
    let mut node = Command::new("node");
    if bundler.starts_with("webpack4") {
        // webpack 4 hashes with md4, which node 17 and later only offer through this flag.
        node.arg("--openssl-legacy-provider");
    }
    let built = node
        .arg(tools.join("build.js"))
        .args([bundler, app])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{bundler} failed: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap()
}

/// A file list of a build's stats (`files`, `initial`): names in load order.
fn listed(stats: &Value, key: &str) -> Vec<String> {
    stats[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// A webpack 5 bundle (minified as terser does it) of one module, 7, with `body`; its runtime
/// then runs `main` (`r(7)` runs the module).
fn one_module_bundle(body: &str, main: &str) -> String {
    format!(
        "(()=>{{var e={{7:(e,t,r)=>{{{body}}}}},t={{}};function r(o){{var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={{exports:{{}}}};return e[o](s,s.exports,r),s.exports}}{main}}})();"
    )
}

/// `pilotfish unbundle FILE -o OUT EXTRA...`
fn unbundle_into(file: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (file, out) = (file.display().to_string(), out.display().to_string());
    let mut args = vec!["unbundle", &file, "-o", &out];
    args.extend(extra);
    super::pilotfish(&args, b"")
}

/// `pilotfish unbundle FILES... -o OUT --format json`, which must succeed: the manifest it
/// prints (also written as `OUT/unbundle.json`).
fn unbundle_files(files: &[PathBuf], out: &Path) -> Value {
    let mut args = vec!["unbundle".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    args.extend([
        "-o".to_owned(),
        out.display().to_string(),
        "--format".to_owned(),
        "json".to_owned(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = super::pilotfish(&args, b"");
    assert!(
        ran.status.success(),
        "unbundle failed: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    serde_json::from_slice(&ran.stdout).unwrap()
}

/// Runs `node FILE` from an unrelated folder: standard output and exit status.
fn run_node(file: &Path) -> (String, Option<i32>) {
    run(Command::new("node").arg(file), file)
}

/// Loads `files` in order into the fake browser of `tools/bundlers/browser.js`, from an
/// unrelated folder: standard output and exit status.
fn run_in_browser(files: &[PathBuf]) -> (String, Option<i32>) {
    let browser = repo().join("tools/bundlers/browser.js");
    run(Command::new("node").arg(browser).args(files), &files[0])
}

fn run(command: &mut Command, file: &Path) -> (String, Option<i32>) {
    let out = command.current_dir(std::env::temp_dir()).output().unwrap();
    assert!(
        out.stderr.is_empty() || out.status.code().is_some(),
        "{} crashed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

fn unbundle_runs_like_the_bundle(bundler: &str) {
    unbundle_runs_like_the(bundler, "cjs");
}

/// Builds `app` with `bundler`, unbundles it, runs both, compares; the output folder's
/// module files' texts, by manifest id.
fn unbundle_runs_like_the(bundler: &str, app: &str) -> Vec<(String, String)> {
    let dir = scratch(&format!("{app}-{bundler}"));
    let bundle = dir.join("bundle");
    let stats = build(bundler, app, &bundle);
    let files: Vec<PathBuf> = listed(&stats, "files")
        .iter()
        .map(|f| bundle.join(f))
        .collect();
    let out = dir.join("out");
    let manifest = unbundle_files(&files, &out);
    assert_eq!(
        manifest,
        serde_json::from_str::<Value>(&std::fs::read_to_string(out.join("unbundle.json")).unwrap())
            .unwrap()
    );

    let web = bundler.contains("-web");
    let (original, unbundled) = if web {
        // A page's script tags, in order; the async chunk is loaded by the runtime.
        let initial = listed(&stats, "initial");
        assert!(
            initial.len() >= 2,
            "{bundler}: packages and app, and the runtime"
        );
        let page = |dir: &Path| -> Vec<PathBuf> { initial.iter().map(|f| dir.join(f)).collect() };
        let original = run_in_browser(&page(&bundle));
        assert_eq!(
            run_in_browser(&page(&out)),
            original,
            "{bundler}: the unbundled files, loaded by a page, behave as the bundle's"
        );
        // The entry runs the page's files itself (`index.js`), with no browser around it:
        // those the bundler says the page loads, not the async chunks.
        assert_eq!(manifest["entry"], "index.js", "{bundler}");
        let scripts: Vec<String> = initial.iter().map(|f| format!("{f:?}")).collect();
        let page_text = std::fs::read_to_string(out.join("index.js")).unwrap();
        assert!(
            page_text.contains(&format!("const SCRIPTS = [{}];", scripts.join(", "))),
            "{bundler}: {page_text}"
        );
        (original, run_node(&out.join("index.js")))
    } else {
        (
            run_node(&files[0]),
            run_node(&out.join(manifest["entry"].as_str().unwrap())),
        )
    };
    // webpack 4 gives a browser bundle its own `process`, whose exit code node ignores.
    let (exit, async_line) = match app {
        "cjs" => (3, "total  15"),
        "yaml" => (0, "late: name, fish, size, when"),
        _ => (4, "late: late async"),
    };
    let exit = if bundler.starts_with("webpack4-web") {
        0
    } else {
        exit
    };
    assert_eq!(original.1, Some(exit), "the test app exits with {exit}");
    assert!(original.0.contains(async_line), "the async chunk ran");
    assert_eq!(
        unbundled, original,
        "{bundler}: the unbundled program behaves as the bundle"
    );

    // Every module the bundler emitted has a file. The entry module webpack 5 and esbuild
    // inline (webpack knows its id, the bundle does not) is the manifest's `entry`. esbuild
    // names modules by their paths, webpack by numbers.
    // The modules of a webpack bundle nested in one of the app's (esprima's, in `yaml`) are
    // files too, but not modules of webpack's stats.
    let ids: Vec<&str> = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] != "nested-webpack")
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let emitted: Vec<&str> = stats["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let inlined_entry = usize::from(ids.contains(&"entry"));
    assert_eq!(
        inlined_entry,
        usize::from(
            [
                "webpack5",
                "webpack5-plain",
                "webpack5-dev",
                "webpack5-licenses"
            ]
            .contains(&bundler)
                || bundler.starts_with("esbuild")
        ),
        "{bundler}: webpack 5 and esbuild inline the entry, webpack 4 and a runtime of its own keep it in the table"
    );
    // esbuild-plain keys its wrappers by their paths; esbuild-comments drops the keys and
    // keeps the `// path` comment before each module.
    if ["esbuild-plain", "esbuild-comments"].contains(&bundler) {
        let paths: Vec<&str> = manifest["modules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["path"].as_str().unwrap().trim_start_matches("modules/"))
            .collect();
        // Written as the bundle names them, `..` parts as `__`.
        let written = |p: &str| -> String {
            p.split('/')
                .filter(|part| *part != ".")
                .map(|part| if part == ".." { "__" } else { part })
                .collect::<Vec<_>>()
                .join("/")
        };
        let missing: Vec<&&str> = emitted
            .iter()
            .filter(|p| {
                let p = written(p);
                !paths.iter().any(|q| q.ends_with(&p) || p.ends_with(q))
            })
            .collect();
        assert_eq!(
            missing.len(),
            inlined_entry,
            "{bundler}: modules not found by path: {missing:?}"
        );
    }
    if bundler.starts_with("esbuild") {
        // esbuild's ids are the variables the modules are bound to; count them instead.
        assert_eq!(ids.len(), emitted.len(), "{bundler}: modules recovered");
    } else {
        let missing: Vec<&&str> = emitted.iter().filter(|id| !ids.contains(id)).collect();
        assert_eq!(
            missing.len(),
            inlined_entry,
            "{bundler}: modules not recovered: {missing:?}"
        );
        assert_eq!(ids.len(), emitted.len(), "{bundler}: no module made up");
    }
    for module in manifest["modules"].as_array().unwrap() {
        let path = out.join(module["path"].as_str().unwrap());
        let check = Command::new("node")
            .arg("--check")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{} does not parse: {}",
            path.display(),
            String::from_utf8_lossy(&check.stderr)
        );
    }
    // The parameters webpack passes are named as such (the entry may need none of them).
    let modules: Vec<&Value> = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["id"] != "entry")
        .collect();
    let named = modules.iter().filter(|m| {
        let text = std::fs::read_to_string(out.join(m["path"].as_str().unwrap())).unwrap();
        text.contains("exports") || text.contains("require")
    });
    assert!(
        named.count() * 10 >= modules.len() * 9,
        "{bundler}: most modules read as CommonJS"
    );
    let texts = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_owned(),
                std::fs::read_to_string(out.join(m["path"].as_str().unwrap())).unwrap(),
            )
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    texts
}

#[test]
fn a_webpack_5_bundle_with_a_chunk_runs_the_same_unbundled() {
    unbundle_runs_like_the_bundle("webpack5");
}

#[test]
fn an_unminified_webpack_5_bundle_runs_the_same_unbundled() {
    // Unminified, webpack wraps every module function in parentheses.
    unbundle_runs_like_the_bundle("webpack5-plain");
}

#[test]
fn a_development_webpack_5_bundle_runs_the_same_unbundled_with_its_paths() {
    let texts = unbundle_runs_like_the("webpack5-dev", "cjs");
    // Modules keyed by their paths are written at those paths (`..` as `__`).
    assert!(
        texts
            .iter()
            .any(|(id, _)| id == "../../node_modules/ms/index.js"),
        "{:?}",
        texts.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
}

#[test]
fn license_comments_kept_in_a_bundle_name_their_packages() {
    // terser keeps lodash's `@license Lodash <https://lodash.com/>` inside its module when
    // told not to move license comments out: the module is named `lodash`, and so is the
    // entry's variable for it.
    let texts = unbundle_runs_like_the("webpack5-licenses", "cjs");
    let entry = &texts.iter().find(|(id, _)| id == "entry").unwrap().1;
    assert!(entry.contains("const lodash = require("), "{entry}");
}

#[test]
fn a_webpack_4_bundle_with_a_chunk_runs_the_same_unbundled() {
    unbundle_runs_like_the_bundle("webpack4");
}

#[test]
fn a_webpack_5_browser_bundle_in_four_files_runs_the_same_unbundled() {
    unbundle_runs_like_the_bundle("webpack5-web");
}

#[test]
fn a_webpack_4_browser_bundle_in_four_files_runs_the_same_unbundled() {
    unbundle_runs_like_the_bundle("webpack4-web");
}

#[test]
fn browser_bundles_whose_app_file_holds_the_runtime_run_the_same_unbundled() {
    // The runtime says which chunks its entry waits for (`r.O(void 0, [96], ...)`,
    // `i.push([22, 1])`); the async chunk is left to it.
    for bundler in ["webpack5-web-inline-runtime", "webpack4-web-inline-runtime"] {
        unbundle_runs_like_the_bundle(bundler);
    }
}

#[test]
fn a_webpack_4_browser_bundle_with_hashed_module_ids_runs_the_same_unbundled() {
    // `{mBYv: function (t, r, n) {...}, "+2uE": ...}`: keys a minifier leaves unquoted.
    let texts = unbundle_runs_like_the("webpack4-web-hashed", "cjs");
    assert!(
        texts.iter().any(|(id, _)| id.contains(['+', '/'])),
        "{:?}",
        texts.iter().map(|(id, _)| id).collect::<Vec<_>>()
    );
}

#[test]
fn a_browser_bundle_given_runtime_last_runs_its_page_in_that_order() {
    // A page may load its chunks before the runtime; the async chunk stays the runtime's.
    let dir = scratch("runtime-last");
    let bundle = dir.join("bundle");
    let stats = build("webpack5-web", "cjs", &bundle);
    let (initial, all) = (listed(&stats, "initial"), listed(&stats, "files"));
    let mut order: Vec<String> = initial[1..].iter().rev().cloned().collect();
    order.push(initial[0].clone());
    order.extend(all.iter().filter(|f| !initial.contains(f)).cloned());
    let out = dir.join("out");
    let paths: Vec<PathBuf> = order.iter().map(|f| bundle.join(f)).collect();
    unbundle_files(&paths, &out);
    let page = std::fs::read_to_string(out.join("index.js")).unwrap();
    let loaded: Vec<String> = order[..initial.len()]
        .iter()
        .map(|f| format!("{f:?}"))
        .collect();
    assert!(
        page.contains(&format!("const SCRIPTS = [{}];", loaded.join(", "))),
        "{page}"
    );
    let page_files: Vec<PathBuf> = initial.iter().map(|f| bundle.join(f)).collect();
    assert_eq!(run_node(&out.join("index.js")), run_in_browser(&page_files));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn es_modules_bundled_by_webpack_run_the_same_with_receivers_and_plain_exports_where_safe() {
    for bundler in ["webpack5", "webpack4"] {
        let texts = unbundle_runs_like_the(bundler, "esm");
        let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
        // `whoAmI` and tsc's `self` use `this`: their calls keep `(0, ...)`, and the output
        // printing what the bundle prints shows that mattered.
        assert!(all.contains(".whoAmI)()"), "{bundler}: {all}");
        assert!(all.contains(".self)()"), "{bundler}: {all}");
        assert!(all.contains(".greet(\"ts\")"), "{bundler}: {all}");
        assert!(all.contains("exports.area = "), "{bundler}: {all}");
        if bundler == "webpack5" {
            assert!(all.contains(".area(2)"), "{all}");
            // A class and a live binding keep their getters, written as what `require.d`
            // does.
            assert!(
                all.contains("Object.defineProperty(exports, \"value\", {\n\tenumerable: true,\n\tget: () => "),
                "{all}"
            );
        }
    }
}

#[test]
fn es_modules_bundled_by_esbuild_become_files_and_run_the_same() {
    for bundler in ["esbuild", "esbuild-plain"] {
        let texts = unbundle_runs_like_the(bundler, "esm");
        let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
        // What esbuild hoisted out of `__esm` wrappers is read through namespace objects;
        // `whoAmI` uses `this`, so its call keeps having no receiver.
        assert!(all.contains(".whoAmI)()"), "{bundler}: {all}");
        assert!(all.contains(".area(2)"), "{bundler}: {all}");
        // words.js had no namespace object: its file defines one's getters.
        assert!(
            all.contains("Object.defineProperties(exports"),
            "{bundler}: {all}"
        );
        if bundler == "esbuild-plain" {
            // By id: esbuild's variable for the module.
            let file = |id: &str| {
                &texts
                    .iter()
                    .find(|(i, _)| i == id)
                    .unwrap_or_else(|| panic!("no module {id}"))
                    .1
            };
            let shapes = file("init_shapes");
            assert!(shapes.contains("function area(r)"), "{shapes}");
            assert!(shapes.contains("value = 1;"), "{shapes}");
            let entry = file("entry");
            assert!(entry.contains("shapes_exports.setValue(5)"), "{entry}");
        }
    }
}

#[test]
fn es_modules_of_registry_packages_bundled_by_esbuild_become_files_and_run_the_same() {
    // Packages' ES module builds: esbuild wraps those required or loaded with `import()`, and
    // what they import, through the packages' re-exporting index files.
    let mut modules = Vec::new();
    for bundler in ["esbuild-plain", "esbuild"] {
        let dir = scratch(&format!("packages-{bundler}"));
        let bundle = dir.join("bundle");
        build(bundler, "esm-packages", &bundle);
        let out = dir.join("out");
        let ran = unbundle_into(&bundle.join("main.js"), &out, &["--format", "json"]);
        assert!(
            ran.status.success(),
            "{bundler}: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let manifest: Value = serde_json::from_slice(&ran.stdout).unwrap();
        let original = run_node(&bundle.join("main.js"));
        assert_eq!(original.1, Some(5), "the test app exits with 5");
        assert!(original.0.contains("gen-mapping: AAAA"), "{}", original.0);
        assert_eq!(
            run_node(&out.join("main.js")),
            original,
            "{bundler}: the unbundled program behaves as the bundle"
        );
        let ids: Vec<String> = manifest["modules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_owned())
            .filter(|id| id != "entry")
            .collect();
        if bundler == "esbuild-plain" {
            // Every module esbuild kept apart (`var init_x = __esm(`, `var require_x =
            // __commonJS(`) has a file, by its variable.
            let text = std::fs::read_to_string(bundle.join("main.js")).unwrap();
            let wrapped: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("var ")?.split_once(" = "))
                .filter(|(_, rest)| rest.starts_with("__esm(") || rest.starts_with("__commonJS("))
                .map(|(name, _)| name)
                .collect();
            let es_modules = wrapped.iter().filter(|w| w.starts_with("init_")).count();
            assert!(es_modules >= 15, "{es_modules} ES modules wrapped");
            let missing: Vec<&&str> = wrapped
                .iter()
                .filter(|w| !ids.iter().any(|id| id == *w))
                .collect();
            assert!(missing.is_empty(), "not recovered: {missing:?}");
            assert_eq!(ids.len(), wrapped.len(), "no module made up");
        }
        modules.push(ids.len());
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Minified, the names are gone but the same modules are recovered.
    assert_eq!(modules[0], modules[1], "plain and minified");
}

#[test]
fn a_minified_esbuild_bundle_runs_the_same_unbundled() {
    unbundle_runs_like_the_bundle("esbuild");
}

#[test]
fn a_plain_esbuild_bundle_runs_the_same_unbundled_with_its_paths() {
    unbundle_runs_like_the_bundle("esbuild-plain");
}

#[test]
fn an_esbuild_bundle_that_keeps_its_path_comments_names_its_modules_by_them() {
    // Minified for names and syntax but not whitespace: the wrappers are `q((e, t) => ...)`
    // with no path key, and only the comment above each says where its module came from.
    let dir = scratch("comments-shape");
    let stats = build("esbuild-comments", "cjs", &dir);
    let text = std::fs::read_to_string(dir.join(listed(&stats, "files")[0].as_str())).unwrap();
    assert!(
        !text.contains("__commonJS") && !text.contains(".js\"("),
        "no path keys"
    );
    assert!(text.contains("\n// ") && text.contains("node_modules/ms/index.js\n"));
    let _ = std::fs::remove_dir_all(&dir);
    unbundle_runs_like_the_bundle("esbuild-comments");
}

#[test]
fn a_minified_esbuild_bundle_with_its_source_map_gets_its_local_names_back() {
    // `--minify --sourcemap`: `exports.pad = function(s, l) {let h = String(s); ...}` in the
    // bundle; the map's `names` give the parameters their names again (`h` keeps its own:
    // `s`, its source name, is another variable's in the module).
    let dir = scratch("map-names");
    let bundle = dir.join("bundle");
    let stats = build("esbuild-map", "cjs", &bundle);
    let files: Vec<PathBuf> = listed(&stats, "files")
        .iter()
        .map(|f| bundle.join(f))
        .collect();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains("width"), "the bundle has lost the name");
    let out = dir.join("out");
    let manifest = unbundle_files(&files, &out);
    let pad = std::fs::read_to_string(
        out.join(
            manifest["modules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["path"].as_str().unwrap())
                .find(|p| p.ends_with("apps/cjs/lib/text.js"))
                .expect("text.js under its source path"),
        ),
    )
    .unwrap();
    assert!(pad.contains("function(text, width)"), "{pad}");
    assert_eq!(
        run_node(&out.join(manifest["entry"].as_str().unwrap())),
        run_node(&files[0]),
        "the renamed program behaves as the bundle"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_source_map_written_as_a_json_string_is_read_through_the_string() {
    // ncc's webpack 4 builds (the `now` CLI 16) published their `.map` file as a JSON string
    // holding the map's JSON: `"{\"version\":3,...}"`. That map names the modules as the
    // plain one does; a map that does not parse is refused in a line of a few hundred
    // characters, not one quoting the megabytes of the map.
    let dir = scratch("map-quoted");
    let bundle = dir.join("bundle");
    let stats = build("esbuild-map", "cjs", &bundle);
    let file = bundle.join(listed(&stats, "files")[0].as_str());
    let map = PathBuf::from(format!("{}.map", file.display()));
    let json = std::fs::read_to_string(&map).unwrap();
    std::fs::write(&map, serde_json::to_string(&json).unwrap()).unwrap();
    let out = dir.join("out");
    let manifest = unbundle_files(std::slice::from_ref(&file), &out);
    let paths: Vec<&str> = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("apps/cjs/lib/text.js")),
        "{paths:?}"
    );
    std::fs::write(
        &map,
        format!("{{\"version\":3,\"mappings\":{}", "x".repeat(100_000)),
    )
    .unwrap();
    let refused = dir.join("refused");
    let ran = unbundle_into(&file, &refused, &[]);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        !ran.status.success() && stderr.contains("source map"),
        "{stderr}"
    );
    assert!(
        stderr.len() < 1_000,
        "{} bytes: {stderr:.2000}",
        stderr.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_is_not_a_bundle_is_refused_and_nothing_is_written() {
    let dir = scratch("refused");
    let plain = dir.join("plain.js");
    std::fs::write(&plain, "console.log(1 + 1);\n").unwrap();
    let broken = dir.join("broken.js");
    std::fs::write(&broken, "(()=>{var e={1:(e,t)=>{e.exports=1}};").unwrap();
    let binary = dir.join("binary.js");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    for (file, says) in [
        (&plain, "not a bundle"),
        (&broken, "not JavaScript that parses"),
        (&binary, "not UTF-8"),
    ] {
        let out = dir.join("out");
        let ran = unbundle_into(file, &out, &[]);
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert!(!ran.status.success(), "{} was accepted", file.display());
        assert!(stderr.contains(says), "{}: {stderr}", file.display());
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(!out.exists(), "nothing is written for {}", file.display());
    }
    // An output folder that holds something is refused without --force.
    let full = dir.join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("keep.txt"), "mine").unwrap();
    let bundle = dir.join("b.js");
    std::fs::write(
        &bundle,
        one_module_bundle("e.exports=1", "console.log(r(7))"),
    )
    .unwrap();
    let ran = unbundle_into(&bundle, &full, &[]);
    assert!(!ran.status.success());
    assert!(String::from_utf8_lossy(&ran.stderr).contains("--force"));
    assert_eq!(
        std::fs::read_to_string(full.join("keep.txt")).unwrap(),
        "mine"
    );
    let ran = unbundle_into(&bundle, &full, &["--force"]);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(!full.join("keep.txt").exists());
    assert_eq!(run_node(&full.join("b.js")).0, "1\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random programs full of the minifier's shapes (sequences, also leading what a `throw`, a
/// `switch`, a loop head, a declaration, a `!` or a comparison evaluates first, in arrow
/// bodies and in the branches of returned and assigned conditionals; `&&`/`||`/`??` and `?:`
/// as statements and in `if` tests, several declarators, `!0`, `void 0`), each call logged in
/// order: the unbundled module must log the same calls in the same order and return the same
/// value.
#[test]
fn transforms_keep_the_order_and_results_of_every_call() {
    struct Gen(u64);
    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
        fn expr(&mut self, depth: u32) -> String {
            let pick = if depth == 0 { 0 } else { self.next(11) };
            let n = self.next(20);
            match pick {
                0 | 1 => format!("g({n})"),
                2 => format!("({} && {})", self.expr(depth - 1), self.expr(depth - 1)),
                3 => format!("({} || {})", self.expr(depth - 1), self.expr(depth - 1)),
                4 => format!("({} ?? {})", self.expr(depth - 1), self.expr(depth - 1)),
                5 => format!("({}, {})", self.expr(depth - 1), self.expr(depth - 1)),
                6 => format!(
                    "({} ? {} : {})",
                    self.expr(depth - 1),
                    self.expr(depth - 1),
                    self.expr(depth - 1)
                ),
                7 => ["!0", "!1"][self.next(2) as usize].to_owned(),
                8 => format!("!({}, {})", self.expr(depth - 1), self.expr(depth - 1)),
                9 => format!(
                    "(({}, {}) === {})",
                    self.expr(depth - 1),
                    self.expr(depth - 1),
                    self.expr(depth - 1)
                ),
                _ => "void 0".to_owned(),
            }
        }
        fn statement(&mut self) -> String {
            match self.next(14) {
                6 => format!(
                    "try {{ throw ({}, {}); }} catch (c) {{ L.push(\"c\" + String(c)); }}",
                    self.expr(2),
                    self.expr(2)
                ),
                7 => format!(
                    "switch ({}, {}) {{ case 0: g(91); break; case null: g(92); }}",
                    self.expr(2),
                    self.expr(2)
                ),
                8 => format!(
                    "for ({}, x = 0; x < 1; x++) {};",
                    self.expr(2),
                    self.expr(1)
                ),
                9 => format!("for (var k in ({}, {{ a: 1 }})) g(93);", self.expr(2)),
                10 => format!("var y = ({}, {}); x = y;", self.expr(2), self.expr(2)),
                11 => format!(
                    "var h = () => ({}, {}); x = h();",
                    self.expr(2),
                    self.expr(2)
                ),
                12 => format!(
                    "if ({} && ({}, {})) g(94);",
                    self.expr(1),
                    self.expr(2),
                    self.expr(2)
                ),
                13 => format!(
                    "x = {} ? ({}, {}) : {};",
                    self.expr(1),
                    self.expr(2),
                    self.expr(2),
                    self.expr(2)
                ),
                0 => format!("{};", self.expr(3)),
                1 => format!(
                    "if ({}, {}) g(90); else {};",
                    self.expr(2),
                    self.expr(2),
                    self.expr(2)
                ),
                2 => format!("x = ({}, {});", self.expr(2), self.expr(2)),
                3 => format!("var a = {}, b = {};", self.expr(2), self.expr(2)),
                4 => format!(
                    "for (let i = 0, k = {} ? 2 : 1; i < k; i++) {};",
                    self.expr(1),
                    self.expr(2)
                ),
                _ => format!("{} ? {} : {};", self.expr(2), self.expr(2), self.expr(2)),
            }
        }
    }
    let dir = scratch("transforms");
    let mut random = Gen(20261123);
    for case in 0..40 {
        let statements: Vec<String> = (0..2 + random.next(5))
            .map(|_| random.statement())
            .collect();
        let body = format!(
            "var L=[],x;function g(n){{L.push(n);return [0,1,null,void 0,\"s\"][n%5]}}function f(){{{} return {}}}var out=f();console.log(JSON.stringify(L),String(out),String(x));",
            statements.join(""),
            random.expr(3)
        );
        let bundle = one_module_bundle(&body, "r(7)");
        let file = dir.join(format!("case{case}.js"));
        std::fs::write(&file, &bundle).unwrap();
        let out = dir.join(format!("out{case}"));
        let ran = unbundle_into(&file, &out, &[]);
        assert!(
            ran.status.success(),
            "{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let original = run_node(&file);
        let unbundled = run_node(&out.join(format!("case{case}.js")));
        assert_eq!(
            unbundled,
            original,
            "case {case}:\n{body}\n--- became ---\n{}",
            std::fs::read_to_string(out.join("modules/7.cjs")).unwrap()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_node_bundle_given_its_chunk_first_runs_from_its_runtime() {
    let dir = scratch("chunk-first");
    let bundle = dir.join("bundle");
    let stats = build("webpack5", "cjs", &bundle);
    let mut files: Vec<PathBuf> = listed(&stats, "files")
        .iter()
        .map(|f| bundle.join(f))
        .collect();
    assert!(files.len() >= 2, "a runtime and a chunk: {files:?}");
    files.reverse();
    let out = dir.join("out");
    let manifest = unbundle_files(&files, &out);
    assert_eq!(manifest["entry"], "main.js");
    assert_eq!(
        run_node(&out.join("main.js")),
        run_node(&bundle.join("main.js"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jsonp_chunks_pushed_through_any_global_spelling_run_the_same_unbundled() {
    // webpack writes `self.webpackChunk` (5) and `window.webpackJsonp` (4); configured
    // otherwise (`output.globalObject`) it writes `this` or `globalThis`. Each spelling,
    // swapped into every file of the real bundles, must be found and run the same.
    for (bundler, global) in [("webpack5-web", "self."), ("webpack4-web", "window.")] {
        let dir = scratch(&format!("spelling-{bundler}"));
        let bundle = dir.join("bundle");
        let stats = build(bundler, "cjs", &bundle);
        let (files, initial) = (listed(&stats, "files"), listed(&stats, "initial"));
        for spelling in ["globalThis.", "this."] {
            let respelled = dir.join(spelling.trim_end_matches('.'));
            std::fs::create_dir_all(&respelled).unwrap();
            for file in &files {
                let text = std::fs::read_to_string(bundle.join(file)).unwrap();
                assert!(text.contains(global), "{bundler}: {file} uses {global}");
                std::fs::write(respelled.join(file), text.replace(global, spelling)).unwrap();
            }
            let out = respelled.join("out");
            let paths: Vec<PathBuf> = files.iter().map(|f| respelled.join(f)).collect();
            unbundle_files(&paths, &out);
            let page: Vec<PathBuf> = initial.iter().map(|f| respelled.join(f)).collect();
            let original = run_in_browser(&page);
            assert!(
                original.0.contains("total  15"),
                "{bundler} {spelling}: {original:?}"
            );
            assert_eq!(
                run_node(&out.join("index.js")),
                original,
                "{bundler} {spelling}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn minified_esbuild_bundles_of_every_format_run_the_same_unbundled() {
    // ES module output (`.mjs`), code-split into an entry and chunks that import esbuild's
    // helpers from one of them, and bundles with their source maps beside them. The cjs app
    // is not code-split: esbuild's own split output of it fails (a CommonJS module's
    // `import()` of a chunk).
    for (bundler, app) in [
        ("esbuild-esm", "cjs"),
        ("esbuild-esm", "esm"),
        ("esbuild-esm-split", "esm"),
        ("esbuild-map", "cjs"),
        ("esbuild-esm-map", "esm"),
    ] {
        let dir = scratch(&format!("formats-{app}-{bundler}"));
        let bundle = dir.join("bundle");
        let stats = build(bundler, app, &bundle);
        let files: Vec<PathBuf> = listed(&stats, "files")
            .iter()
            .map(|f| bundle.join(f))
            .collect();
        let out = dir.join("out");
        let manifest = unbundle_files(&files, &out);
        let original = run_node(&files[0]);
        assert_eq!(
            original.1,
            Some(if app == "cjs" { 3 } else { 4 }),
            "{bundler} {app}"
        );
        assert_eq!(
            run_node(&out.join(manifest["entry"].as_str().unwrap())),
            original,
            "{bundler} {app}: the unbundled program behaves as the bundle"
        );
        let wrappers = &manifest["wrappers"];
        assert!(
            wrappers["commonjs"]["found"].as_u64().unwrap() > 0,
            "{bundler} {app}: {wrappers}"
        );
        for kind in ["commonjs", "esm"] {
            assert_eq!(
                wrappers[kind]["split"], wrappers[kind]["found"],
                "{bundler} {app}: every {kind} wrapper became a file"
            );
        }
        for module in manifest["modules"].as_array().unwrap() {
            let path = out.join(module["path"].as_str().unwrap());
            let check = Command::new("node")
                .arg("--check")
                .arg(&path)
                .output()
                .unwrap();
            assert!(check.status.success(), "{} does not parse", path.display());
            // With the source map beside the bundle, each wrapped module is written under
            // its original path (`modules/node_modules/ms/index.js`, `modules/lib/...`).
            if bundler.ends_with("-map") && module["kind"] != "entry" {
                let id = module["id"].as_str().unwrap();
                let path = module["path"].as_str().unwrap();
                assert_ne!(path, format!("modules/{id}.cjs"), "{bundler} {app}");
                assert!(
                    path.contains("node_modules/") || path.contains("lib/"),
                    "{bundler} {app}: {path}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
