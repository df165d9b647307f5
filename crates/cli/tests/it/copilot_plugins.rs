//! Copilot's own editor plugins against `pilotfish lsp`, set up as `docs/editors.md` says:
//! copilot.lua in a real headless Neovim 0.11.4 (`tools/neovim.sh`) and copilot.el (0.2.0 and
//! the current 0.9.0) in a real Emacs 30 (`tools/emacs.sh`), all carried as test fixtures under
//! their MIT licences
//! (`tests/fixtures/plugins`). Each opens a file and, with nothing typed, shows pilotfish's
//! suggestion on a line with non-ASCII text before the cursor, cycles, accepts it (without extra
//! lines) and fills the panel, in a file with LF and one with CRLF line breaks. The model is the
//! scripted fake, so that the suggestions are known; the plugins start the `pilotfish` binary
//! itself, which reads its configuration from `PILOTFISH_CONFIG`.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use serde_json::{Value, json};
use test_utils::scripted::{Reply, ScriptedModel};

/// The file both plugins edit: line 2 is `    s = "é" + ` (the cursor goes at its end).
const SOURCE: [&str; 3] = ["def add(a, b):", "    s = \"é\" + ", "    return s"];

/// What the fake model answers: the first suggestion for the ghost text (temperature 0, with
/// the line break a model ends a line with), another for the candidates asked when cycling.
fn fake_model(runtime: &tokio::runtime::Runtime) -> ScriptedModel {
    // FAKE: a scripted model server, so that what the editor shows is known.
    runtime.block_on(ScriptedModel::answering(
        |body| {
            if body["temperature"].as_f64().unwrap_or(0.0) == 0.0 {
                Reply::text("a + b\n", 2)
            } else {
                Reply::text("b + a\n", 2)
            }
        },
        Duration::ZERO,
    ))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs an install script of `tools/` and returns the path it prints last.
fn tool(script: &str) -> String {
    let out = Command::new("bash")
        .arg(repo().join("tools").join(script))
        .output()
        .expect("the tools script runs");
    assert!(
        out.status.success(),
        "tools/{script} installs its tool: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().last().unwrap().to_owned()
}

/// A folder with the two files (LF and CRLF) and a configuration pointing at `model`.
fn workspace(name: &str, model: &ScriptedModel) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lf.py"), SOURCE.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("crlf.py"), SOURCE.join("\r\n") + "\r\n").unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[backend]\nkind = \"openai-completions\"\nendpoint = \"{}\"\n",
            model.url
        ),
    )
    .unwrap();
    dir
}

/// Runs an editor, then reads the JSON it wrote to `out`.
fn run_editor(mut editor: Command, out: &Path) -> Value {
    let run = editor.output().expect("the editor runs");
    let seen = std::fs::read_to_string(out).unwrap_or_default();
    assert!(
        run.status.success(),
        "the editor's steps: {seen}\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_str(&seen).unwrap();
    assert_eq!(v["failure"], Value::Null, "{v}");
    v
}

#[test]
fn copilot_lua_shows_accepts_cycles_and_fills_the_panel() {
    let nvim = tool("neovim.sh");
    let runtime = runtime();
    let model = fake_model(&runtime);
    let dir = workspace("copilot-lua", &model);
    let out = dir.join("seen.json");
    let mut nvim = Command::new(nvim);
    nvim.args(["--headless", "--clean", "-c"])
        .arg(format!(
            "luafile {}",
            repo()
                .join("crates/cli/tests/editors/copilot_lua.lua")
                .display()
        ))
        .current_dir(&dir)
        .env("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish"))
        .env("PILOTFISH_CONFIG", dir.join("config.toml"))
        .env(
            "PLUGIN",
            repo().join("crates/cli/tests/fixtures/plugins/copilot.lua"),
        )
        .env("FILE", dir.join("lf.py"))
        .env("CRLF", dir.join("crlf.py"))
        .env("OUT", &out)
        // copilot.lua keeps its state under Neovim's data folder: a fresh one per run.
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"));
    let v = run_editor(nvim, &out);
    for (name, fileformat) in [("lf", "unix"), ("crlf", "dos")] {
        let f = &v["files"][name];
        assert_eq!(f["fileformat"], fileformat, "{name}: {v}");
        // Shown in the file just opened, before any edit.
        assert_eq!(f["ghost"], "a + b", "{name}: {f}");
        assert_eq!(f["edited"], false, "{name}: {f}");
        assert_eq!(f["cycled"], "b + a", "{name}: {f}");
        assert_eq!(f["annotation"], "(2/2)", "{name}: {f}");
        // Accepted: the line completed, no line added, the cursor after the suggestion.
        assert_eq!(
            f["lines"],
            json!([SOURCE[0], "    s = \"é\" + b + a", SOURCE[2]]),
            "{name}: {f}"
        );
        assert_eq!(
            f["cursor"],
            json!([2, "    s = \"é\" + b + a".len()]),
            "{name}"
        );
        // The panel: its header says it is done, and the solutions are listed.
        let header = f["panel_header"].as_str().unwrap();
        assert!(header.contains("Synthesized"), "{name}: {f}");
        let panel: Vec<&str> = f["panel"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Asked at the end of the original line: both suggestions, as the text after it.
        for solution in ["a + b", "b + a"] {
            assert!(panel.contains(&solution), "{name}: {f}");
        }
    }
    assert!(model.requests() >= 4, "the model was asked");
}

/// copilot.el 0.2.0, which asks with Copilot's own methods (`getCompletions`,
/// `getCompletionsCycling`).
#[test]
fn copilot_el_shows_accepts_cycles_and_fills_the_panel() {
    copilot_el("copilot.el");
}

/// copilot.el 0.9.0, the current release, which asks with LSP's `textDocument/inlineCompletion`
/// and cycles through the items of an invoked request.
#[test]
fn copilot_el_0_9_0_shows_accepts_cycles_and_fills_the_panel() {
    copilot_el("copilot.el-0.9.0");
}

/// The steps of `tests/editors/copilot_el.el` with the copilot.el in `fixtures/plugins/PLUGIN`,
/// in the Emacs 30 `tools/emacs.sh` gives.
fn copilot_el(plugin: &str) {
    let emacs = tool("emacs.sh");
    let runtime = runtime();
    let model = fake_model(&runtime);
    let dir = workspace(&format!("{plugin}-test"), &model);
    let out = dir.join("seen.json");
    let mut emacs = Command::new(emacs);
    emacs
        .args(["--batch", "-l"])
        .arg(repo().join("crates/cli/tests/editors/copilot_el.el"))
        .current_dir(&dir)
        .env("PILOTFISH", env!("CARGO_BIN_EXE_pilotfish"))
        .env("PILOTFISH_CONFIG", dir.join("config.toml"))
        .env(
            "PLUGIN",
            repo()
                .join("crates/cli/tests/fixtures/plugins")
                .join(plugin),
        )
        .env("FILE", dir.join("lf.py"))
        .env("CRLF", dir.join("crlf.py"))
        .env("OUT", &out)
        .env("HOME", &dir);
    let v = run_editor(emacs, &out);
    assert!(
        v["emacs"].as_str().unwrap_or_default().starts_with("30."),
        "{v}"
    );
    for (name, eol_type) in [("lf", 0), ("crlf", 1)] {
        let f = &v["files"][name];
        // Emacs read the file with its line breaks (0: LF, 1: CRLF).
        assert_eq!(f["eol_type"], eol_type, "{name}: {v}");
        assert_eq!(f["shown"], "a + b", "{name}: {f}");
        assert_eq!(f["cycled"], "b + a", "{name}: {f}");
        // Accepted: the line completed, no line added (the final "" is the last line break).
        assert_eq!(
            f["lines"],
            json!([SOURCE[0], "    s = \"é\" + b + a", SOURCE[2], ""]),
            "{name}: {f}"
        );
        assert_eq!(f["line"], 2, "{name}: {f}");
        assert_eq!(
            f["column"],
            "    s = \"é\" + b + a".chars().count(),
            "{name}: {f}"
        );
        // Asked at the end of the accepted line: copilot.el lists each solution's whole line.
        let panel = f["panel"].as_str().unwrap();
        assert!(
            panel.contains("* Solution") && panel.contains("\n    s = \"é\" + b + a"),
            "{name}: {f}"
        );
        assert!(panel.contains("End of solutions"), "{name}: {f}");
    }
    assert!(model.requests() >= 4, "the model was asked");
}
