//! Next edit suggestions in the VS Code extension, in code-server with the packaged `.vsix`
//! driven by Chromium (`editors/vscode/test/next-edit.js`), against `pilotfish lsp` whose next
//! edits go, through `pilotfish.chat.endpoint`, to the fake next-edit model
//! (`test_utils::fake_next_edit`, a fake named so: it plays a model's moves on the wire); and the
//! pure parts of the feature under node's test runner. Screenshots land in
//! `target/tmp/vscode/next-edit/`.

use test_utils::{
    fake_next_edit::{FakeNextEditModel, Script},
    vscode_tools,
};

use crate::vscode::{artifacts, run_browser_script, run_node};

/// The fakes, serving on a runtime of their own while the browser script runs: one renames
/// `return size` to `return length`, the other rewrites `return value / 2` on two lines.
fn fake_models() -> (
    tokio::runtime::Runtime,
    FakeNextEditModel,
    FakeNextEditModel,
) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let rename = Script::Replace("return size".into(), "return length".into());
    let lines = Script::Replace(
        "return value / 2".into(),
        "half = value / 2\n    return half".into(),
    );
    let (a, b) = runtime.block_on(async {
        (
            FakeNextEditModel::start(rename).await,
            FakeNextEditModel::start(lines).await,
        )
    });
    (runtime, a, b)
}

/// Runs the browser script with next edits on (or, `disabled`, off) against a fresh fake.
fn run(name: &str, disabled: bool) -> (String, [FakeNextEditModel; 2], tokio::runtime::Runtime) {
    let tools = vscode_tools();
    let (runtime, model, lines) = fake_models();
    let work = crate::temp_dir(name);
    let shots = artifacts(name);
    let mut vars = vec![
        ("VSIX", tools.vsix.as_os_str()),
        ("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish").as_ref()),
        ("NEXT_EDIT", model.url.as_ref()),
        ("NEXT_EDIT_LINES", lines.url.as_ref()),
        ("WORK", work.as_os_str()),
        ("ARTIFACTS", shots.as_os_str()),
    ];
    if disabled {
        vars.push(("DISABLED", "1".as_ref()));
    }
    let out = run_browser_script("next-edit.js", &vars);
    (out, [model, lines], runtime)
}

#[test]
fn a_renamed_parameters_other_use_is_suggested_and_applied_with_tab_in_code_server() {
    let (out, [model, lines], _runtime) = run("next-edit", false);
    println!("{out}");
    // The model was asked with the rename in the edit history.
    let asked = model.received.lock().unwrap().clone();
    assert!(
        asked.iter().any(|r| r.path.ends_with("/chat/completions")
            && r.body.to_string().contains("def scale(length, factor)")),
        "the fake was not asked about the rename: {} requests",
        asked.len()
    );
    // The settings changed while VS Code ran named the second model, and it was asked.
    assert!(
        lines.requests() > 0,
        "the model named by the new settings was not asked"
    );
    let shots = artifacts("next-edit");
    for shot in [
        "1-suggested",
        "2-at-the-suggestion",
        "3-accepted",
        "5-dismissed",
        "6-below",
    ] {
        assert!(shots.join(format!("{shot}.png")).is_file(), "{shot}");
    }
}

#[test]
fn with_next_edits_turned_off_nothing_is_asked_or_shown() {
    let (_, [model, lines], _runtime) = run("next-edit-off", true);
    assert_eq!(model.requests() + lines.requests(), 0);
}

#[test]
fn the_next_edit_view_places_suggestions_and_tab_chooses() {
    run_node(&["--test", "test/next-edit.test.ts"], &[], false);
}
