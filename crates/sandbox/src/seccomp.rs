//! The seccomp filter, and the helper that applies it inside bubblewrap before executing the
//! command: no mounts, no namespaces, no keyrings, no kernel modules or BPF, no io_uring, no
//! socket families beyond Unix and IP (netlink, packet and vsock reach past a network
//! namespace), no typing into the terminal (`TIOCSTI`).

use std::{collections::BTreeMap, ffi::OsString, os::unix::process::CommandExt};

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// The first argument that makes `pilotfish` (or the test helper) act as the sandbox's helper.
pub const HELPER_ARG: &str = "__sandbox-exec";

/// System calls refused outright (with `EPERM`).
const REFUSED: &[(&str, libc::c_long)] = &[
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("fsopen", libc::SYS_fsopen),
    ("fsmount", libc::SYS_fsmount),
    ("fsconfig", libc::SYS_fsconfig),
    ("fspick", libc::SYS_fspick),
    ("move_mount", libc::SYS_move_mount),
    ("open_tree", libc::SYS_open_tree),
    ("mount_setattr", libc::SYS_mount_setattr),
];

const NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

/// The names of the system calls the filter refuses outright (for documentation and tests).
pub fn filter_syscalls() -> Vec<&'static str> {
    REFUSED.iter().map(|(name, _)| *name).collect()
}

fn cond(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64) -> SeccompCondition {
    SeccompCondition::new(arg, len, op, value).expect("argument index below 6")
}

// The ioctl constants' type differs by architecture.
#[allow(clippy::unnecessary_cast)]
fn refused_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, seccompiler::BackendError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|(_, nr)| (*nr, Vec::new())).collect();
    let namespaces = NAMESPACE_FLAGS
        .iter()
        .map(|flag| {
            SeccompRule::new(vec![cond(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(*flag),
                *flag,
            )])
        })
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_clone, namespaces);
    let families = [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6]
        .iter()
        .map(|f| cond(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, *f as u64))
        .collect();
    rules.insert(libc::SYS_socket, vec![SeccompRule::new(families)?]);
    let ioctls = [libc::TIOCSTI, libc::TIOCLINUX]
        .iter()
        .map(|req| {
            SeccompRule::new(vec![cond(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                *req as u64,
            )])
        })
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctls);
    Ok(rules)
}

fn programs() -> Result<Vec<BpfProgram>, String> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("no seccomp support for this architecture: {e}"))?;
    let refused = SeccompFilter::new(
        refused_rules().map_err(|e| e.to_string())?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    // clone3 passes its flags in memory a filter cannot read: "not implemented" makes the C
    // library fall back to clone, whose flags the first filter checks.
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    [refused, clone3]
        .into_iter()
        .map(|f| BpfProgram::try_from(f).map_err(|e| e.to_string()))
        .collect()
}

/// The helper's main: `args` are what follows [`HELPER_ARG`] (`-- PROGRAM ARGS...`). Applies
/// the filter and executes the program; never returns (exit 126 when the filter or the program
/// cannot be set up, 127 when the program does not exist).
pub fn exec_main(args: Vec<OsString>) -> ! {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "--") {
        args.next();
    }
    let command: Vec<OsString> = args.collect();
    let Some(program) = command.first() else {
        eprintln!("pilotfish sandbox: no command to run");
        std::process::exit(126);
    };
    let applied = programs().and_then(|programs| {
        programs.iter().try_for_each(|p| {
            seccompiler::apply_filter(p).map_err(|e| format!("applying the filter: {e}"))
        })
    });
    if let Err(e) = applied {
        eprintln!("pilotfish sandbox: seccomp filter not applied, command not run: {e}");
        std::process::exit(126);
    }
    let err = std::process::Command::new(program)
        .args(&command[1..])
        .exec();
    eprintln!("{}: {err}", program.to_string_lossy());
    std::process::exit(if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    });
}
