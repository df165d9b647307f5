//! `complete --summary`, the README's demo (the example shop's cursor with the cart and the
//! inventory open), against a real model: SmolLM2-135M-Instruct on llama-server, which refuses
//! fill-in-the-middle (a 501, then the prompt asked again prefix-only) and whose small context
//! lowers the prompt's budget. The summary's counts are compared with the prompt's own parts,
//! as `--format json --explain` gives them; each note is said once.

use std::path::{Path, PathBuf};

use test_utils::LlamaServer;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The demo's command in a fresh home, with `extra` arguments.
fn demo(name: &str, url: &str, extra: &[&str]) -> (String, String) {
    let home = crate::fresh_home("summary", name);
    // Budgets in tokens only, so that both runs build the same prompt whatever the machine's
    // load (the first-token target sizes prompts to the server's measured speed), and time
    // for a cold prompt on a loaded machine.
    let config = home.join("config.toml");
    std::fs::write(
        &config,
        "[backend]\ntimeout_seconds = 180\n[completion]\nfirst_token_target_ms = 0\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let mut args = vec![
        "complete",
        "examples/shop/orders.py:31:13",
        "--open",
        "examples/shop/cart.py",
        "--open",
        "examples/shop/inventory.py",
        "--endpoint",
        url,
        "--config",
        &config,
        "--max-tokens",
        "16",
        // Lowered to what the server's small context holds (a note says so).
        "--max-prompt-tokens",
        "400",
    ];
    args.extend(extra);
    let out = crate::pilotfish_as_user(&home, &repo(), &args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{name}: {stderr}");
    let _ = std::fs::remove_dir_all(&home);
    (stdout, stderr)
}

/// The code around the cursor, which the summary counts apart from the context.
fn around_cursor(kind: &str) -> bool {
    kind.starts_with("BeforeCursor") || kind.starts_with("AfterCursor")
}

#[test]
fn the_demos_summary_counts_what_it_lists_and_says_each_note_once() {
    // A small context: the prompt is lowered to it, and reads in seconds on a loaded machine.
    let server = LlamaServer::smollm2(512, &[]);
    let (summary, notes) = demo("text", &server.url, &["--summary"]);
    // `N tokens of a B-token budget: S of F context part(s), prefix P line(s), ...`
    let header = summary
        .lines()
        .find(|l| l.contains("context part(s)"))
        .unwrap_or_else(|| panic!("no counts: {summary}"));
    let numbers: Vec<usize> = header
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let (budget, sent, found) = (numbers[1], numbers[2], numbers[3]);
    // The listed parts: `  status   Kind path ×n`.
    let (mut listed_sent, mut listed) = (0, 0);
    for line in summary.lines().filter(|l| l.starts_with("  ")) {
        let mut words = line.split_whitespace();
        let (Some(status), Some(kind)) = (words.next(), words.next()) else {
            continue;
        };
        if !matches!(status, "included" | "cut" | "dropped") || around_cursor(kind) {
            continue;
        }
        let times = line
            .rsplit_once(" ×")
            .and_then(|(_, n)| n.trim().parse().ok())
            .unwrap_or(1);
        listed += times;
        if status != "dropped" {
            listed_sent += times;
        }
    }
    assert!(sent > 0, "the demo sends context: {summary}");
    assert_eq!(
        (sent, found),
        (listed_sent, listed),
        "the counts are those listed: {summary}"
    );
    // The prompt's own parts, as the same command builds it in a home of its own.
    let (json, _) = demo("json", &server.url, &["--format", "json", "--explain"]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        value["trace"]["max_prompt_tokens"].as_u64(),
        Some(budget as u64),
        "the same budget: {summary}"
    );
    let elements = value["prompt"]["elements"].as_array().expect("elements");
    let context: Vec<_> = elements
        .iter()
        .filter(|e| !around_cursor(e["kind"].as_str().unwrap_or_default()))
        .collect();
    let included = context.iter().filter(|e| e["included"] == true).count();
    assert_eq!(
        (sent, found),
        (included, context.len()),
        "the summary counts the prompt's parts: {summary}"
    );
    // Each note once: the budget lowered for the small context and the refusal of
    // fill-in-the-middle are met by both rounds of the request.
    let said: Vec<&str> = notes.lines().filter(|l| l.starts_with("note: ")).collect();
    for note in &said {
        assert_eq!(
            said.iter().filter(|n| n == &note).count(),
            1,
            "said twice: {note}\n{notes}"
        );
    }
    assert!(
        said.iter()
            .any(|n| n.contains("refused fill-in-the-middle"))
            && said.iter().any(|n| n.contains("prompt budget lowered")),
        "{notes}"
    );
    assert_eq!(
        said.iter()
            .filter(|n| n.contains("prompt budget lowered"))
            .count(),
        1,
        "{notes}"
    );
}
