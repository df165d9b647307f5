//! How the agent's commands run: confined by the sandbox (the default), unconfined when the
//! user says `--sandbox off`, or refused when no sandbox can be made here. One [`Runner`] serves
//! the run's shell, background commands, `get_errors`' checkers, git, and the command lines an
//! ACP client's terminal runs ([`Runner::shell_argv`]).

use std::{path::Path, process::Command};

use sandbox::{Mode, Policy};

use crate::{agent_config::AgentConfig, secrets::Secrets};

/// How commands run in one workspace.
#[derive(Debug, Clone)]
pub enum Runner {
    Confined(Policy),
    /// `--sandbox off`: with the user's rights.
    Unconfined,
    /// No sandbox could be made: every command is refused with this reason.
    Refused(String),
}

/// The sandbox mode the user chose: `[agent] sandbox`, already overridden by `--sandbox`.
fn mode_of(config: &AgentConfig) -> Result<Mode, String> {
    match &config.sandbox {
        None => Ok(Mode::default()),
        Some(name) => name.parse().map_err(|e: sandbox::Error| e.to_string()),
    }
}

impl Runner {
    /// The runner for the workspace at `root` (resolved) with the user's settings. The sandbox
    /// is probed once here; standard error says when commands will be unconfined or refused.
    pub fn for_workspace(root: &Path, config: &AgentConfig, secrets: &Secrets) -> Runner {
        let mode = match mode_of(config) {
            Ok(m) => m,
            Err(e) => return Runner::refused(e),
        };
        if mode == Mode::Off {
            eprintln!(
                "pilotfish: --sandbox off: the agent's commands run unconfined, with all your rights \
                 (your files, your network, your credentials)"
            );
            return Runner::Unconfined;
        }
        let bwrap = match sandbox::find_bwrap() {
            Ok(b) => b,
            Err(e) => return Runner::refused(e.to_string()),
        };
        let helper = match Policy::current_exe_helper() {
            Ok(h) => h,
            Err(e) => return Runner::refused(format!("pilotfish cannot find itself: {e}")),
        };
        let mut policy = Policy::new(mode, root, bwrap, helper);
        policy.network = config.network;
        policy.hidden = secrets.credentials().to_vec();
        match sandbox::probe(&policy) {
            Ok(()) => Runner::Confined(policy),
            Err(e) => Runner::refused(e.to_string()),
        }
    }

    fn refused(reason: String) -> Runner {
        eprintln!("pilotfish: commands will not run: {reason}");
        Runner::Refused(reason)
    }

    /// A [`Command`] for `argv`, confined as the runner says.
    pub fn command(&self, argv: &[String]) -> Result<Command, String> {
        match self {
            Runner::Confined(policy) => {
                let mut c = sandbox::command(policy, argv);
                for (name, _) in std::env::vars_os() {
                    if crate::secrets::is_secret_variable(&name.to_string_lossy()) {
                        c.env_remove(name);
                    }
                }
                Ok(c)
            }
            Runner::Unconfined => {
                let mut c = Command::new(&argv[0]);
                c.args(&argv[1..]);
                Ok(c)
            }
            Runner::Refused(reason) => Err(format!(
                "commands are refused: {reason}. Tell the user; do not try other commands"
            )),
        }
    }

    /// The command line that runs `command` (a shell line) as this runner would: for an ACP
    /// client's terminal, which runs it in the editor.
    pub fn shell_argv(&self, command: &str) -> Result<Vec<String>, String> {
        let bash = || {
            ["bash", "--noprofile", "--norc", "-c", command]
                .map(String::from)
                .to_vec()
        };
        match self {
            Runner::Confined(policy) => Ok(sandbox::shell_argv(policy, command)),
            Runner::Unconfined => Ok(bash()),
            Runner::Refused(_) => self.command(&bash()).map(|_| Vec::new()),
        }
    }
}

/// `--sandbox` and `--network`, shared by `pilotfish agent` and `pilotfish acp`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SandboxArgs {
    /// How the agent's commands are confined: `workspace-write` (the default: the workspace and
    /// a private /tmp writable, `.git` read-only, no network, credentials hidden), `read-only`,
    /// or `off` (unconfined, with all your rights). Overrides `[agent] sandbox`.
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Let sandboxed commands reach the network (as `[agent] network = true`).
    #[arg(long)]
    pub network: bool,
}

impl SandboxArgs {
    /// The configuration's `[agent]` section with these flags over it.
    pub fn apply(&self, config: &mut AgentConfig) {
        if let Some(mode) = &self.sandbox {
            config.sandbox = Some(mode.clone());
        }
        if self.network {
            config.network = true;
        }
    }
}
