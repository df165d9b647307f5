//! The Neovim plugin shipped in `editors/neovim` shows ghost text and accepts it, in a real
//! Neovim 0.11.4 (from PyPI, installed by `tools/neovim.sh`) typing in insert mode against
//! `pilotfish lsp`. The model is the scripted fake, so that the suggestion is known.

use std::{path::Path, process::Command, time::Duration};

use test_utils::scripted::{Reply, ScriptedModel};

#[test]
fn the_neovim_plugin_shows_ghost_text_and_accepts_it() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let nvim = Command::new("bash")
        .arg(repo.join("tools/neovim.sh"))
        .output()
        .expect("tools/neovim.sh runs");
    assert!(nvim.status.success(), "tools/neovim.sh installs Neovim");
    let nvim = String::from_utf8(nvim.stdout).unwrap();
    let nvim = nvim.lines().last().unwrap().to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // FAKE: the model answers one continuation for the ghost text (temperature 0) and another
    // for the candidates asked when cycling (higher temperatures).
    let model = runtime.block_on(ScriptedModel::answering(
        |body| {
            if body["temperature"].as_f64().unwrap_or(0.0) == 0.0 {
                Reply::text("otal(items)", 4)
            } else {
                Reply::text("otal(len(items))", 4)
            }
        },
        Duration::ZERO,
    ));
    let dir = std::env::temp_dir().join(format!("pilotfish-ghost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("orders.py");
    std::fs::write(
        &file,
        "from cart import total\n\n\ndef order_total(items):\n    amount = \n    return amount\n",
    )
    .unwrap();
    let out = dir.join("ghost.json");
    let run = Command::new(&nvim)
        .args(["--headless", "--clean", "-c"])
        .arg(format!(
            "luafile {}",
            repo.join("crates/cli/tests/editors/ghost.lua").display()
        ))
        .env("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish"))
        .env("ENDPOINT", &model.url)
        .env("PLUGIN", repo.join("editors/neovim"))
        .env("FILE", &file)
        .env("OUT", &out)
        .output()
        .expect("nvim runs");
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        run.status.success(),
        "nvim: {seen} {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&seen).unwrap();
    assert_eq!(v["failure"], serde_json::Value::Null, "{v}");
    // Typed `t` after "    amount = ": the rest of the suggestion is drawn after the cursor.
    assert_eq!(v["first"], "otal(items)", "{v}");
    assert_eq!(v["cursor"], serde_json::json!([5, 14]), "{v}");
    assert_eq!(v["second"], "otal(len(items))", "{v}");
    assert_eq!(v["accepted"], "    amount = total(len(items))", "{v}");
    // The cursor ends after the accepted text, still in insert mode.
    assert_eq!(v["cursor_after"], serde_json::json!([5, 30]), "{v}");
    assert_eq!(v["mode"], "i", "{v}");
    assert_eq!(v["next_mapped"], true, "{v}");
    // Dismissing leaves the typed text alone (Neovim indents the new line by default).
    assert_eq!(v["after_dismiss"], "    x", "{v}");
    assert!(model.requests() >= 2, "the model was asked");
}
