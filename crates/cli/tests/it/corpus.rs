//! `pilotfish unbundle` on the corpus of real npm bundles (`tools/real-bundles/corpus.tsv`,
//! fetched once per machine by `tools/real-bundles/setup.sh`): one test per line. Each counts
//! the bundle's wrappers from its text with a counter of its own ([`super::counts`]), requires
//! at least 95% of each kind as module files of the output and none made up, and runs the
//! bundle and its output each in a copy of the package, with a home, XDG folders, a temporary
//! and a working folder of its own for every run: the same standard output, standard error
//! (the sandbox's paths written alike) and exit status, or for a language server the same
//! answer to an LSP `initialize`. A line the corpus marks `installed` runs with the
//! dependencies setup.sh installed for it linked beside each copy, and its bundle must run
//! without error. A line the corpus marks `no: WHY` is checked as far as it can be (the
//! count, the bundle's own run, the output's files compiled by node) and says why.

use std::{ffi::OsStr, path::Path, time::Duration};

use serde_json::Value;
use test_utils::corpus::{self, Line, Ran, Run, Sandbox};

use super::counts::{self, Counts};

/// How long one run of a package may take on a slow, busy machine.
const LIMIT: Duration = Duration::from_secs(240);

/// Runs the package in `sandbox` as the corpus line says.
fn run(line: &Line, sandbox: &Sandbox) -> Ran {
    let node = line.node();
    let package = sandbox.package();
    match &line.run {
        Run::Args { file, args } => {
            let file = package.join(file);
            let mut all: Vec<&OsStr> = vec![file.as_os_str()];
            all.extend(args.iter().map(OsStr::new));
            sandbox.run(&node, &all, LIMIT)
        }
        Run::Lsp { file } => {
            let client = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tools/real-bundles/initialize.js");
            let server = package.join(file);
            let all = [client.as_os_str(), node.as_os_str(), server.as_os_str()];
            sandbox.run(&node, &all, LIMIT)
        }
    }
}

/// The module files of the manifest of each kind the counter knows, checked to exist.
fn recovered(manifest: &Value, out: &Path, name: &str) -> Counts {
    let mut found = Counts::default();
    for module in manifest["modules"].as_array().unwrap() {
        let path = module["path"].as_str().unwrap();
        assert!(
            out.join(path).is_file(),
            "{name}: {path} is in the manifest but not written"
        );
        match module["kind"].as_str().unwrap() {
            "commonjs" => found.commonjs += 1,
            "rollup" => found.rollup += 1,
            "esm" | "esm-initializer" => found.esm += 1,
            "webpack" => found.webpack += 1,
            "parcel" => found.parcel += 1,
            // A webpack bundle in a bundle file's own code, outside every wrapper (written
            // under `modules/FILE.d/`), is one the counter counts; one nested in a wrapper
            // is not (see `counts.rs`).
            "nested-webpack" => {
                let file = module["file"].as_str().unwrap();
                if path.starts_with(&format!("modules/{}.d/", file.replace('/', "_"))) {
                    found.webpack += 1;
                }
            }
            _ => {}
        }
    }
    found
}

/// Unbundles the line's bundle into `out`: the manifest, or pilotfish's error.
fn unbundle(line: &Line, files: &[String], out: &Path) -> Result<Value, String> {
    let dir = line.package_dir();
    let paths: Vec<String> = files
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let out_arg = out.display().to_string();
    let mut args: Vec<&str> = vec!["unbundle"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["-o", &out_arg]);
    let ran = super::pilotfish(&args, b"");
    if !ran.status.success() {
        return Err(String::from_utf8_lossy(&ran.stderr).into_owned());
    }
    let manifest = std::fs::read_to_string(out.join("unbundle.json")).map_err(|e| e.to_string())?;
    Ok(serde_json::from_str(&manifest).unwrap())
}

/// Compiles every JavaScript file of `out` with node (as a CommonJS function body, else as an
/// ES module): the files that do not compile.
fn not_compiling(out: &Path) -> String {
    let script = r#"
const fs = require('fs'), path = require('path'), vm = require('vm');
const bad = [];
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name);
  if (e.isDirectory()) walk(p);
  else if (/\.(c|m)?js$/.test(e.name)) {
    const src = fs.readFileSync(p, 'utf8').replace(/^#!.*/, '');
    try { vm.compileFunction(src, ['exports', 'require', 'module', '__filename', '__dirname']); }
    catch (e1) { try { new vm.SourceTextModule(src); } catch (e2) { bad.push(p + ': ' + e2.message); } }
  }
} };
walk(process.argv[1]);
console.log(bad.join('\n'));
"#;
    let ran = std::process::Command::new("node")
        .args(["--experimental-vm-modules", "--no-warnings", "-e", script])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    String::from_utf8_lossy(&ran.stdout).trim().to_owned()
}

fn unbundles_and_behaves_the_same(name: &str) {
    let line = corpus::line(name);
    let dir = line.package_dir();
    let files = line.bundle_files();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let base = f.rsplit('/').next().unwrap().to_owned();
            (base, std::fs::read_to_string(dir.join(f)).unwrap())
        })
        .collect();
    let counted = counts::count(&texts);
    let total = counted.commonjs + counted.rollup + counted.esm + counted.webpack + counted.parcel;
    // A line may hold no wrapper at all: a scope-hoisted file, which need not unbundle, or a
    // chunk set none of whose files holds one, each chunk written as a module of its own
    // (checked below).
    assert!(
        total > 0 || line.unbundles.is_err() || files.len() > 1,
        "{name}: the counter found {counted:?} in {files:?}"
    );
    // The figures of docs/unbundle.md's corpus table (`--nocapture` shows them).
    eprintln!("corpus {name}: counted {counted:?}");

    let work = Sandbox::new(&format!("{name}-out"));
    let out = work.root.join("out");
    let manifest = unbundle(&line, &files, &out);
    match (&line.unbundles, &manifest) {
        (Ok(()), Err(refused)) => panic!("{name}: pilotfish refused the bundle: {refused}"),
        (Err(why), Err(refused)) => {
            eprintln!("corpus {name}: not required to unbundle ({why}); refused: {refused}")
        }
        (Err(why), Ok(manifest)) => {
            let split = recovered(manifest, &out, name);
            let nested = &manifest["wrappers"]["nested_webpack"];
            eprintln!(
                "corpus {name}: recovered {split:?}, nested webpack {nested}, not required ({why})"
            );
        }
        (Ok(()), Ok(manifest)) => {
            let split = recovered(manifest, &out, name);
            // Modules of webpack bundles nested in another's module: the counter does not
            // count those (see `counts.rs`); the figure is the manifest's own.
            let nested = &manifest["wrappers"]["nested_webpack"];
            eprintln!("corpus {name}: recovered {split:?}, nested webpack {nested}");
            if total == 0 {
                every_file_a_chunk(name, manifest, &files);
            }
            for (kind, found, split) in [
                ("commonjs", counted.commonjs, split.commonjs),
                ("rollup", counted.rollup, split.rollup),
                ("esm", counted.esm, split.esm),
                ("webpack", counted.webpack, split.webpack),
                ("parcel", counted.parcel, split.parcel),
            ] {
                assert!(
                    split * 100 >= found * 95,
                    "{name}: {split} of {found} {kind} wrappers became module files"
                );
                assert!(
                    split <= found,
                    "{name}: {split} {kind} module files for {found} wrappers"
                );
            }
        }
    }
    let Ok(manifest) = manifest else { return };

    let bundle_run = Sandbox::new(&format!("{name}-bundle"));
    line.copy_into(&bundle_run, &dir);
    let original = run(&line, &bundle_run);
    drop(bundle_run);
    if let Err(why) = &line.behaves {
        let bad = not_compiling(&out);
        assert!(
            bad.is_empty(),
            "{name}: output files node does not compile:\n{bad}"
        );
        eprintln!("{name}: the behaviour is not compared ({why}); the bundle gave {original:?}");
        return;
    }
    assert!(
        original.status.is_some(),
        "{name}: the bundle did not end in time: {original:?}"
    );
    if let Run::Lsp { .. } = line.run {
        assert!(
            original.stdout.contains("capabilities"),
            "{name}: {original:?}"
        );
    } else {
        let printed = original.stdout.trim().len() + original.stderr.trim().len();
        assert!(
            printed > 0,
            "{name}: the bundle printed nothing: {original:?}"
        );
    }
    if line.dependencies {
        // Without its dependencies the bundle fails, and its output fails alike: that must not
        // pass for behaving the same.
        let missing = [
            "Cannot find module",
            "Cannot find package",
            "ERR_MODULE_NOT_FOUND",
        ];
        assert!(
            original.status == Some(0)
                && !missing
                    .iter()
                    .any(|m| original.stdout.contains(m) || original.stderr.contains(m)),
            "{name}: the bundle did not run with its dependencies installed: {original:?}"
        );
    }
    let output_run = Sandbox::new(&format!("{name}-output"));
    let package = line.copy_into(&output_run, &dir);
    corpus::install_output(&out, &package, &files, manifest["entry"].as_str().unwrap());
    let unbundled = run(&line, &output_run);
    assert_eq!(
        line.compared(&unbundled),
        line.compared(&original),
        "{name}: the output behaves differently; bundle {original:?}, output {unbundled:?}"
    );
    eprintln!("corpus {name}: behaves the same");
}

/// A chunk set with no wrapper in any file: the manifest lists each file given, and nothing
/// else, as a chunk written under its own name (a module of its own).
fn every_file_a_chunk(name: &str, manifest: &Value, files: &[String]) {
    let modules = manifest["modules"].as_array().unwrap();
    let chunks = modules.iter().filter(|m| m["kind"] == "chunk").count();
    assert_eq!(
        (chunks, modules.len()),
        (files.len(), files.len()),
        "{name}: each of the {} files is a chunk of its own: {modules:?}",
        files.len()
    );
    for module in modules {
        let path = module["path"].as_str().unwrap();
        assert!(
            files.iter().any(|f| f.ends_with(&format!("/{path}"))),
            "{name}: {path} is not one of {files:?}"
        );
    }
}

macro_rules! corpus_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                unbundles_and_behaves_the_same(stringify!($name));
            }
        )*
        /// Every line of the corpus has its test, and every test its line.
        #[test]
        fn every_corpus_line_has_its_test() {
            let mut tests = vec![$(stringify!($name)),*];
            let mut lines: Vec<String> = corpus::lines().into_iter().map(|l| l.name).collect();
            tests.sort_unstable();
            lines.sort();
            assert_eq!(tests, lines);
        }
    };
}

corpus_tests!(
    amp_bun,
    claude_code_bun,
    codex_esbuild_esm,
    copilot_cli_esbuild_esm,
    prettier_esbuild_esm,
    devcontainers_esbuild_cjs,
    aws_cdk_esbuild_cjs,
    zx_esbuild_cjs,
    zx_core_esbuild_cjs,
    tsx_pkgroll,
    typescript_language_server_rollup,
    nuxi_rollup,
    vite_rollup,
    ncu_17_vite,
    ncu_22_rolldown,
    ncu_22_rolldown_cjs,
    degit_rolldown,
    ccusage_rolldown,
    ni_rollup_chunks,
    sv_rollup_chunks,
    pyright_webpack,
    pyright_langserver_webpack,
    ncc_0_22_webpack4,
    ncc_0_45_cli_webpack5,
    ncc_0_45_index_webpack5,
    create_next_app_ncc,
    create_expo_app_ncc,
    gemini_cli_esbuild_split,
    auggie_esbuild_esm,
    letta_code_bun,
    create_vue_rolldown,
    create_vite_rolldown,
    rollup_3_scope_hoisted,
    prettier_2_esbuild_cjs,
    czg_esbuild_cjs,
    intelephense_1_webpack4,
    intelephense_webpack5,
    html_inliner_parcel,
    claude_code_router_esbuild_cjs,
    qwen_code_esbuild_esm,
    solidity_language_server_esbuild,
    prisma_7_esbuild_cjs,
    prisma_4_esbuild_cjs,
    taze_rolldown,
    svelte_check_4_rollup,
    svelte_check_2_rollup_2,
    tsup_esbuild_cjs_split,
    ccstatusline_bun,
    drizzle_kit_esbuild_cjs,
    vim_language_server_webpack5,
    some_sass_language_server_webpack5,
    snyk_webpack5_chunks,
    create_next_app_10_ncc_webpack4,
    vercel_28_ncc_webpack5,
    datadog_ci_rolldown_webpack4,
    expo_doctor_ncc,
    expo_env_info_ncc,
    create_expo_module_ncc,
    uri_scheme_ncc,
    main_branch_parcel,
    claude_code_2_bun,
    vitest_rollup_chunks,
    nuxt_cli_rolldown_chunks,
    giget_rolldown_chunks,
    pod_install_ncc,
    expo_optimize_ncc,
    install_expo_modules_ncc,
    now_16_ncc_webpack4,
    rsbuild_rslib_esm,
    rsdoctor_cli_rslib_esm,
    yarn_2_webpack5,
    tailwindcss_language_server_0_0_5_ncc,
    bitwarden_cli_webpack5_chunks,
    rslib_core_rslib_esm,
    continue_cli_esbuild_esm,
    smithery_cli_esbuild_esm,
    notion_mcp_esbuild_esm,
    mcp_remote_tsup_chunks,
    chrome_devtools_mcp_rollup,
    buddy_bot_bun_chunks,
    launchpad_bun_chunks,
    bumpp_rolldown,
    vitepress_rollup_chunks,
    windicss_2_rollup_2,
    vite_2_rollup_inline,
    convex_esbuild_cjs,
    storybook_esbuild_split,
    tsup_5_esbuild_cjs,
    mcp_inspector_vite_app,
);
