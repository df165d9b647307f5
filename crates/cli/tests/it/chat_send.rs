//! `pilotfish chat MESSAGE` sends what the dry run prints, to a real llama-server, and keeps a
//! named session under the user's state folder.

use std::{path::Path, process::Command};

use crate::{assert_clean_failure, pilotfish, temp_file};

#[test]
fn chat_sends_streams_and_keeps_a_session() {
    let server = test_utils::LlamaServer::start();
    let state = std::env::temp_dir().join(format!("pilotfish-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let config = temp_file("chat.toml", b"[chat]\nmax_tokens = 8\ntemperature = 0\n");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let chat = |message: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pilotfish"))
            .args([
                "chat",
                message,
                "--folder",
                "examples/shop",
                "--session",
                "work",
            ])
            .args(["--config", &config.display().to_string()])
            .args(extra)
            .current_dir(&repo)
            .env("XDG_STATE_HOME", &state)
            .output()
            .unwrap()
    };
    let endpoint = format!("{}/v1", server.url);
    let first = chat("Say hello", &["--endpoint", &endpoint]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(!first.stdout.is_empty(), "the answer is printed");
    let second = chat(
        "And again",
        &["--endpoint", &format!("{endpoint}/chat/completions")],
    );
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state.join("pilotfish/sessions/work.json")).unwrap(),
    )
    .unwrap();
    let turns = stored.as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["user"], "Say hello");
    assert_eq!(
        turns[0]["assistant"].as_str().unwrap().trim(),
        String::from_utf8_lossy(&first.stdout).trim()
    );
    // The dry run of the next turn shows both earlier turns, and sends nothing.
    let dry = chat("Third", &["--dry-run"]);
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(dry.status.success());
    assert!(
        text.contains("Say hello") && text.contains("And again"),
        "{text}"
    );
    // A dead server is one clear line; the session keeps what it had.
    let dead = chat("Fourth", &["--endpoint", "http://127.0.0.1:9"]);
    assert_clean_failure(&dead, "is the server running?");
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state.join("pilotfish/sessions/work.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored.as_array().unwrap().len(), 2);
    // A session name is a file name, never a path.
    assert_clean_failure(
        &pilotfish(&["chat", "x", "--session", "../escape", "--dry-run"], b""),
        "session name `../escape`",
    );
    assert_clean_failure(
        &pilotfish(&["chat", "x", "--backend", "gpt"], b""),
        "unknown chat backend `gpt`",
    );
}

#[test]
fn prompt_files_and_file_references_shape_the_message() {
    let dir = std::env::temp_dir().join(format!("pilotfish-prompts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".github/prompts")).unwrap();
    std::fs::write(
        dir.join(".github/prompts/review.prompt.md"),
        "---\ndescription: Review a file\nmode: agent\n---\nReview the attached code for bugs.\n",
    )
    .unwrap();
    std::fs::write(dir.join("cart.py"), "def total(items):\n    return 0\n").unwrap();
    let folder = dir.display().to_string();
    let run = |args: &[&str]| {
        pilotfish(
            &[&["chat", "--dry-run", "--folder", &folder][..], args].concat(),
            b"",
        )
    };
    let out = run(&["/review focus on totals #file:cart.py"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Review the attached code for bugs.\n\nfocus on totals"),
        "{text}"
    );
    assert!(
        text.contains("def total(items):"),
        "the file is attached: {text}"
    );
    let out = run(&["--prompt", "review", "and style"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("for bugs.\n\nand style"));
    assert_clean_failure(
        &run(&["/nosuch thing"]),
        "there is no prompt file nosuch.prompt.md in .github/prompts (there are: review)",
    );
    assert_clean_failure(&run(&["look at #file:missing.py"]), "missing.py");
}
