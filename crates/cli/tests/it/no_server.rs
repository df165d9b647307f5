//! No model server configured and none running: `complete` and the language server say in one
//! line how to get one, naming the address they tried, or, when the tools scripts already
//! cached the default model and llama-server, `complete` runs that model and says so.
//! Where pilotfish looks by default is a port each test holds bound and not listening
//! (`PILOTFISH_DEFAULT_ENDPOINT`), so that nothing else on the machine can answer there.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

const CURSOR: &str = "examples/shop/orders.py:31:13";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("pilotfish-noserver-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    dir
}

/// pilotfish with nothing configured: an empty home, `dir/cache` as its cache folder, no
/// server named by the environment, no llama-server on PATH, and `nobody` where it looks for
/// a server by default.
fn pilotfish(dir: &Path, nobody: &test_utils::HeldPort, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(args)
        .env("PILOTFISH_DEFAULT_ENDPOINT", nobody.url())
        .current_dir(repo())
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("XDG_STATE_HOME", dir.join(".local/state"))
        .env("PILOTFISH_CACHE", dir.join("cache"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("PILOTFISH_LLAMA_SERVER")
        .env_remove("PILOTFISH_CONFIG")
        .env_remove("PILOTFISH_ENDPOINT")
        .env_remove("PILOTFISH_BACKEND")
        .stdin(Stdio::null())
        .output()
        .expect("pilotfish runs")
}

#[test]
fn without_a_server_complete_and_the_language_server_say_how_to_get_one() {
    let nobody = test_utils::held_port();
    let default = nobody.url();
    let dir = scratch("none");
    let out = pilotfish(&dir, &nobody, &["complete", CURSOR]);
    crate::assert_clean_failure(&out, &format!("no model server answers at {default} ("));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refused"),
        "the held port refused: {stderr}"
    );
    assert!(
        stderr.contains("bash tools/smollm2.sh && bash tools/llama-server.sh")
            && stderr.contains("--endpoint URL"),
        "the line gives the commands: {stderr}"
    );
    // The language server starts anyway (the editor may name a server), and says it once in
    // its log; standard input closed at once ends it.
    let out = pilotfish(&dir, &nobody, &["lsp"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches(&format!("no model server answers at {default}"))
            .count(),
        1,
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_server_complete_runs_the_cached_default_model() {
    let nobody = test_utils::held_port();
    let default = nobody.url();
    let dir = scratch("cached");
    // The cache as the tools scripts leave it: the model and a llama-server they built.
    std::os::unix::fs::symlink(
        test_utils::smollm2_path(),
        dir.join("cache/SmolLM2-135M-Instruct.Q4_1.gguf"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        &test_utils::llama_paths().0,
        dir.join("cache/llama-server-test"),
    )
    .unwrap();
    // A small prompt and generous limits (the first token's too): the model's cold read is not
    // under test, and a busy machine reads slowly. The configuration names no server.
    let config = dir.join("patient.toml");
    std::fs::write(
        &config,
        "[backend]\ntimeout_seconds = 180\nfirst_token_timeout_seconds = 120\n",
    )
    .unwrap();
    let out = pilotfish(
        &dir,
        &nobody,
        &[
            "complete",
            CURSOR,
            "--max-tokens",
            "8",
            "--max-prompt-tokens",
            "256",
            "--config",
            &config.display().to_string(),
        ],
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("no model server answers at {default}"))
            && stderr.contains("using the default local model"),
        "it says what it chose and why: {stderr}"
    );
    assert!(!stdout.trim().is_empty(), "a completion: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
