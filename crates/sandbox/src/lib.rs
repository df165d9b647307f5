//! Confines a command with bubblewrap and a seccomp filter: the whole file system read-only, the
//! workspace and a private `/tmp` writable, `.git` read-only, no network unless allowed, and the
//! user's credential files hidden (see README.md).
//!
//! The confined command line is plain data ([`argv`], [`shell_argv`]), so whoever runs it (our own
//! [`spawn`], or an editor's terminal over ACP) runs it confined: bubblewrap starts the helper
//! ([`exec_main`], behind [`HELPER_ARG`]), which applies the seccomp filter and then executes the
//! command.

mod bwrap;
mod seccomp;

use std::{
    fmt,
    path::{Path, PathBuf},
    process::{Child, Command},
    str::FromStr,
};

pub use bwrap::{BWRAP_ENV, find_bwrap, probe};
pub use seccomp::{HELPER_ARG, exec_main, filter_syscalls};

/// How much a command may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Read everything (less the hidden paths), write the workspace and `/tmp` only.
    #[default]
    WorkspaceWrite,
    /// Read everything (less the hidden paths), write only `/tmp`.
    ReadOnly,
    /// No sandbox: commands run with the user's rights.
    Off,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Mode, Error> {
        match s {
            "workspace-write" => Ok(Mode::WorkspaceWrite),
            "read-only" => Ok(Mode::ReadOnly),
            "off" => Ok(Mode::Off),
            other => Err(Error::UnknownMode(other.to_owned())),
        }
    }
}

/// What went wrong setting up the sandbox; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "unknown sandbox mode `{0}`: use `workspace-write` (the default), `read-only` or `off`"
    )]
    UnknownMode(String),
    #[error(
        "no bubblewrap (`bwrap`) found on PATH, in ${BWRAP_ENV} or in the tools cache: install it \
         (Debian/Ubuntu: `apt install bubblewrap`; or run the project's `tools/bubblewrap.sh`), \
         or run commands unconfined with `--sandbox off`"
    )]
    NotFound,
    #[error(
        "{0} is not an executable bubblewrap: install bubblewrap (Debian/Ubuntu: \
         `apt install bubblewrap`; or the project's `tools/bubblewrap.sh`) and point \
         ${BWRAP_ENV} at it, or run commands unconfined with `--sandbox off`"
    )]
    NotExecutable(PathBuf),
    #[error(
        "{0} is setuid root, which pilotfish refuses to use (a setuid bwrap runs with more rights \
         than you have): install a non-setuid bubblewrap (`tools/bubblewrap.sh` brings one), or \
         run commands unconfined with `--sandbox off`"
    )]
    Setuid(PathBuf),
    #[error(
        "the sandbox cannot start here ({bwrap} said: {detail}); bubblewrap needs user namespaces \
         (check `unshare -Urn true`; sysctls `kernel.unprivileged_userns_clone=1`, \
         `user.max_user_namespaces` > 0) and network namespaces; fix that, or run commands \
         unconfined with `--sandbox off`"
    )]
    Broken { bwrap: PathBuf, detail: String },
    #[error("could not start bubblewrap ({0}): {1}")]
    Io(PathBuf, std::io::Error),
}

/// Where and how commands are confined.
#[derive(Clone, Debug)]
pub struct Policy {
    pub mode: Mode,
    /// Writable in [`Mode::WorkspaceWrite`]; its `.git` stays read-only.
    pub workspace: PathBuf,
    /// Whether commands reach the network (else only their own loopback).
    pub network: bool,
    /// Files and folders that read as absent inside (emptied folders, empty files).
    pub hidden: Vec<PathBuf>,
    /// The bubblewrap binary ([`find_bwrap`]).
    pub bwrap: PathBuf,
    /// The program (and leading arguments, ending with [`HELPER_ARG`]) that applies the seccomp
    /// filter inside and executes the command: `pilotfish __sandbox-exec` in the product.
    pub helper: Vec<String>,
}

impl Policy {
    /// A policy with the defaults: no network, nothing hidden.
    pub fn new(mode: Mode, workspace: &Path, bwrap: PathBuf, helper: Vec<String>) -> Policy {
        Policy {
            mode,
            workspace: workspace.to_path_buf(),
            network: false,
            hidden: Vec::new(),
            bwrap,
            helper,
        }
    }

    /// The helper as `pilotfish` itself provides it: this executable and [`HELPER_ARG`].
    pub fn current_exe_helper() -> std::io::Result<Vec<String>> {
        let exe = std::env::current_exe()?;
        Ok(vec![
            exe.to_string_lossy().into_owned(),
            HELPER_ARG.to_owned(),
        ])
    }
}

/// The confined command line for `command` (program and arguments); the command itself when
/// the sandbox is off.
pub fn argv(policy: &Policy, command: &[String]) -> Vec<String> {
    if policy.mode == Mode::Off {
        return command.to_vec();
    }
    let mut line = bwrap::args(policy);
    line.push("--".to_owned());
    line.extend(policy.helper.iter().cloned());
    line.push("--".to_owned());
    line.extend(command.iter().cloned());
    line
}

/// The confined command line for a shell command (`bash -c COMMAND`).
pub fn shell_argv(policy: &Policy, command: &str) -> Vec<String> {
    argv(
        policy,
        &[
            "bash".to_owned(),
            "--noprofile".to_owned(),
            "--norc".to_owned(),
            "-c".to_owned(),
            command.to_owned(),
        ],
    )
}

/// A [`Command`] that runs `command` confined; set its folder, pipes and variables as usual.
pub fn command(policy: &Policy, command: &[String]) -> Command {
    let line = argv(policy, command);
    let mut cmd = Command::new(&line[0]);
    cmd.args(&line[1..]);
    cmd
}

/// Starts `program` confined, in `folder`.
pub fn spawn(policy: &Policy, program: &[String], folder: &Path) -> std::io::Result<Child> {
    command(policy, program).current_dir(folder).spawn()
}
