//! Attacks against the real bubblewrap sandbox. Each attack also runs unconfined (the control),
//! which must succeed, so a test cannot pass because the attack itself was broken.

mod attacks;
mod escapes;

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::Duration,
};

use sandbox::{Mode, Policy};

/// The bubblewrap the product would use; the tests fail, never skip, without one.
pub(crate) fn bwrap() -> PathBuf {
    sandbox::find_bwrap().unwrap_or_else(|e| {
        panic!(
            "the sandbox tests need bubblewrap: run `bash tools/bubblewrap.sh` \
             (.ci/run does, before the tests). {e}"
        )
    })
}

/// A scratch folder with a fake home (holding credentials) and a workspace.
pub(crate) struct Scene {
    pub root: PathBuf,
    pub home: PathBuf,
    pub ws: PathBuf,
}

impl Scene {
    pub(crate) fn new(name: &str) -> Scene {
        // Not under /tmp: inside, /tmp is the sandbox's own, which would hide the scene anyway.
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "pilotfish-sandbox-it-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let ws = root.join("ws");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "SECRET-KEY-TEXT\n").unwrap();
        std::fs::write(home.join(".netrc"), "machine x password NETRC-SECRET\n").unwrap();
        let root = root.canonicalize().unwrap();
        Scene {
            home: root.join("home"),
            ws: root.join("ws"),
            root,
        }
    }

    pub(crate) fn policy(&self, mode: Mode) -> Policy {
        let helper = vec![env!("CARGO_BIN_EXE_pilotfish-sandbox-exec").to_owned()];
        let mut p = Policy::new(mode, &self.ws, bwrap(), helper);
        p.hidden = vec![self.home.join(".ssh"), self.home.join(".netrc")];
        p
    }

    /// Runs `script` with bash in the workspace: confined by `policy`, or unconfined (`None`).
    pub(crate) fn run(&self, policy: Option<&Policy>, script: &str) -> Output {
        let line = match policy {
            Some(p) => sandbox::shell_argv(p, script),
            None => vec!["bash".into(), "-c".into(), script.into()],
        };
        let out = Command::new(&line[0])
            .args(&line[1..])
            .current_dir(&self.ws)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        eprintln!(
            "--- {} ran {script:?}: {}\nstdout: {}\nstderr: {}",
            if policy.is_some() {
                "sandbox"
            } else {
                "control"
            },
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A listener on the host's loopback, and a way to count who connected.
pub(crate) struct Listener {
    inner: TcpListener,
    pub port: u16,
}

impl Listener {
    pub(crate) fn new() -> Listener {
        let inner = TcpListener::bind("127.0.0.1:0").unwrap();
        inner.set_nonblocking(true).unwrap();
        let port = inner.local_addr().unwrap().port();
        Listener { inner, port }
    }

    /// How many connections arrived so far (waiting a little for late ones).
    pub(crate) fn accepted(&self) -> usize {
        let mut n = 0;
        for _ in 0..20 {
            while self.inner.accept().is_ok() {
                n += 1;
            }
            if n > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        n
    }
}

pub(crate) fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}
