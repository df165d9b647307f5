//! The repository as git knows it: its root, the text files it tracks (read from the work
//! tree, as the editor would show them) and the order its recent commits changed them in.

use std::{path::Path, process::Command};

use super::EvalError;

/// Files larger than this are not read (generated data, bundles): no case is picked in them.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Commits of `git log` read for the order files changed in.
const LOG_COMMITS: &str = "500";

/// The root of the repository holding `folder`, and its tracked text files with the order
/// they changed in, newest first.
pub fn read_repository(folder: &Path) -> Result<(String, eval::Repository), EvalError> {
    let shown = folder.display().to_string();
    if !folder.is_dir() {
        return Err(EvalError::NotARepository(shown));
    }
    let root = match git(folder, &["rev-parse", "--show-toplevel"]) {
        Ok(out) => out.trim().to_owned(),
        Err(EvalError::Git { .. }) => return Err(EvalError::NotARepository(shown)),
        Err(e) => return Err(e),
    };
    let listed = git(Path::new(&root), &["ls-files", "-z"])?;
    let mut files = Vec::new();
    for path in listed.split('\0').filter(|p| !p.is_empty()) {
        let full = Path::new(&root).join(path);
        let Ok(meta) = std::fs::metadata(&full) else {
            continue;
        };
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            continue;
        }
        let Ok(bytes) = std::fs::read(&full) else {
            continue;
        };
        if bytes.contains(&0) {
            continue;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            files.push(eval::SourceFile {
                path: path.to_owned(),
                text,
            });
        }
    }
    if files.is_empty() {
        return Err(EvalError::NoTrackedFiles(root));
    }
    // A repository without commits yet has no history: its files keep their listed order.
    let recency = git(
        Path::new(&root),
        &[
            "log",
            "-n",
            LOG_COMMITS,
            "--name-only",
            "--format=",
            "--no-renames",
        ],
    )
    .unwrap_or_default()
    .lines()
    .filter(|l| !l.is_empty())
    .map(str::to_owned)
    .collect();
    Ok((root, eval::Repository { files, recency }))
}

/// `git ARGS` in `dir`, its standard output.
fn git(dir: &Path, args: &[&str]) -> Result<String, EvalError> {
    let out = Command::new("git")
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| EvalError::NoGit(e.to_string()))?;
    if !out.status.success() {
        return Err(EvalError::Git {
            command: args.join(" "),
            folder: dir.display().to_string(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
