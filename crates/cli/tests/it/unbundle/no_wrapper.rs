//! `pilotfish unbundle` on a code-split build in which no file holds a module wrapper (the
//! `esm-chunks` app, ES modules only, built by esbuild `--splitting --format=esm`): the
//! summary says so and what was written instead; files that do not link are refused in one
//! line, with nothing written.

use super::{build, listed, run_node, scratch};

/// `pilotfish unbundle FILES... -o OUT`, the files named in `folder`.
fn unbundle(
    folder: &std::path::Path,
    files: &[String],
    out: &std::path::Path,
) -> std::process::Output {
    let paths: Vec<String> = files
        .iter()
        .map(|f| folder.join(f).display().to_string())
        .collect();
    let out = out.display().to_string();
    let mut args = vec!["unbundle"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["-o", &out]);
    super::super::pilotfish(&args, b"")
}

#[test]
fn a_chunk_set_with_no_wrapper_is_written_and_the_summary_says_each_chunk_is_a_module() {
    let dir = scratch("no-wrapper");
    let bundle = dir.join("bundle");
    let files = listed(&build("esbuild-esm-split", "esm-chunks", &bundle), "files");
    assert!(files.len() >= 3, "{files:?}");
    let out = dir.join("out");
    let ran = unbundle(&bundle, &files, &out);
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "no file held a module wrapper, so each of the {} chunks",
            files.len()
        )) && stdout.contains("was written as a module of its own"),
        "{stdout}"
    );
    // Nothing loads a module file, so neither the loader nor the line about its files.
    assert!(!out.join("unbundle-loader.cjs").exists());
    assert!(!stdout.contains("unbundle-loader"), "{stdout}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("unbundle.json")).unwrap()).unwrap();
    assert_eq!(manifest["entry"], files[0].as_str());
    assert_eq!(
        run_node(&out.join(&files[0])),
        run_node(&bundle.join(&files[0]))
    );

    // The entry given with another build's chunks, which do not link to it.
    let other = dir.join("other");
    let rollup = listed(
        &build("rollup-commonjs-chunks", "esm-chunks", &other),
        "files",
    );
    std::fs::copy(other.join(&rollup[0]), bundle.join(&rollup[0])).unwrap();
    let unlinked: Vec<String> = [rollup[0].clone()]
        .into_iter()
        .chain(files[1..].iter().cloned())
        .collect();
    let refused = dir.join("refused");
    let ran = unbundle(&bundle, &unlinked, &refused);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(!ran.status.success(), "accepted: {stderr}");
    assert!(
        stderr.contains("not a bundle pilotfish recognizes"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(!refused.exists(), "nothing is written");
    let _ = std::fs::remove_dir_all(&dir);
}
