//! The VS Code extension (editors/vscode) in a real VS Code: code-server with the packaged
//! `.vsix`, driven by Debian's Chromium through puppeteer-core, against `pilotfish lsp` and the
//! real SmolLM2 model in llama-server; and the inspector's HTML page in headless Chromium. The
//! browser scripts are `editors/vscode/test/*.js`; their screenshots land in
//! `target/tmp/vscode/`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use test_utils::{LlamaServer, vscode_tools};

pub(crate) fn artifacts(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("vscode")
        .join(name)
}

/// Runs node 24 in `editors/vscode` with `args` and `vars`, node 24 first on PATH, and fails
/// with its output unless it succeeded (and printed a `PASS` line, where `pass` says it must).
fn run_node(args: &[&str], vars: &[(&str, &std::ffi::OsStr)], pass: bool) -> String {
    let tools = vscode_tools();
    let extension = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../editors/vscode");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![tools.node.join("bin")];
    paths.extend(std::env::split_paths(&path));
    let out = Command::new(tools.node.join("bin/node"))
        .current_dir(&extension)
        .args(args)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env("CODE_SERVER_DIR", &tools.code_server)
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && (!pass || stdout.lines().any(|l| l == "PASS")),
        "node {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    stdout
}

/// Runs `editors/vscode/test/SCRIPT`, which prints `PASS` when every check held.
pub(crate) fn run_browser_script(script: &str, vars: &[(&str, &std::ffi::OsStr)]) -> String {
    run_node(&[&format!("test/{script}")], vars, true)
}

#[test]
fn the_extension_shows_ghost_text_in_code_server_and_the_inspector_shows_the_prompt() {
    let tools = vscode_tools();
    let model = LlamaServer::smollm2(2048, &[]);
    let work = crate::temp_dir("vscode-code-server");
    let shots = artifacts("code-server");
    let pid = model.pid().to_string();
    let out = run_browser_script(
        "browser.js",
        &[
            ("VSIX", tools.vsix.as_os_str()),
            ("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish").as_ref()),
            ("ENDPOINT", model.url.as_ref()),
            ("MODEL_PID", pid.as_ref()),
            ("WORK", work.as_os_str()),
            ("ARTIFACTS", shots.as_os_str()),
        ],
    );
    println!("{out}");
    for shot in ["2-ghost-text", "4-inspector", "5-no-model-server"] {
        assert!(shots.join(format!("{shot}.png")).is_file(), "{shot}");
    }
}

#[test]
fn the_inspector_page_renders_in_headless_chromium_with_no_requests() {
    let page = crate::temp_dir("vscode-html-page").join("prompt.html");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .current_dir(&root)
        .args([
            "prompt",
            "examples/shop/orders.py:31:13",
            "--open",
            "examples/shop/cart.py",
            "--open",
            "examples/shop/inventory.py",
            "--html",
        ])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let shots = artifacts("html-page");
    let out = run_browser_script(
        "html-page.js",
        &[
            ("PAGE", page.as_os_str()),
            (
                "EXPECT",
                "def cancel(self, number: int, cart: Cart)".as_ref(),
            ),
            ("ARTIFACTS", shots.as_os_str()),
        ],
    );
    assert!(out.contains("context-1, prefix, suffix"), "{out}");
}

#[test]
fn the_extension_passes_its_settings_and_names_each_state() {
    run_node(&["--test", "test/unit.test.ts"], &[], false);
}

#[test]
fn a_missing_binary_is_named_in_the_status_bar() {
    let tools = vscode_tools();
    let work = crate::temp_dir("vscode-no-binary");
    let missing = work.join("no-such-pilotfish");
    run_browser_script(
        "browser.js",
        &[
            ("VSIX", tools.vsix.as_os_str()),
            ("PILOTFISH", missing.as_os_str()),
            ("ENDPOINT", "http://127.0.0.1:9".as_ref()),
            ("MODEL_PID", "0".as_ref()),
            ("NO_BINARY", "1".as_ref()),
            ("WORK", work.as_os_str()),
            ("ARTIFACTS", artifacts("no-binary").as_os_str()),
        ],
    );
}
