//! Ways out: namespaces, mounts, nested sandboxes, other socket families; what the sandbox lets
//! a command see; the command line alone confining whoever runs it; the probe's message.

use std::process::Command;

use sandbox::{Mode, Policy};

use crate::{Scene, bwrap, exists, stdout};

#[test]
fn seccomp_refuses_socket_families_that_pass_network_namespaces() {
    let s = Scene::new("families");
    let attack = r#"python3 - <<'EOF'
import socket
kinds = [("netlink", socket.AF_NETLINK, socket.SOCK_RAW),
         ("packet", socket.AF_PACKET, socket.SOCK_RAW),
         ("vsock", socket.AF_VSOCK, socket.SOCK_STREAM)]
for name, family, kind in kinds:
    try:
        socket.socket(family, kind).close()
        print(name, "opened")
    except OSError as e:
        print(name, "refused", e.errno)
EOF"#;
    let out = stdout(&s.run(Some(&s.policy(Mode::WorkspaceWrite)), attack));
    for family in ["netlink", "packet", "vsock"] {
        assert!(out.contains(&format!("{family} refused 1")), "{out}");
    }
    let control = stdout(&s.run(None, attack));
    assert!(
        control.contains("netlink opened"),
        "the control opens netlink: {control}"
    );
}

#[test]
fn no_namespace_mount_or_nested_sandbox_gets_out() {
    let s = Scene::new("unshare");
    let outside = s.home.join("escaped");
    let attacks = [
        format!(
            "unshare -Ur sh -c 'touch {}' && echo escaped",
            outside.display()
        ),
        format!(
            "unshare -Urm sh -c 'mount --bind . {home} && touch {home}/escaped' && echo escaped",
            home = s.home.display()
        ),
        "mount -t tmpfs none /mnt && echo escaped".to_owned(),
        format!(
            "{} --ro-bind / / --bind {home} {home} touch {home}/escaped && echo escaped",
            bwrap().display(),
            home = s.home.display()
        ),
    ];
    let p = s.policy(Mode::WorkspaceWrite);
    for attack in &attacks {
        let out = s.run(Some(&p), attack);
        assert!(!stdout(&out).contains("escaped"), "{attack}");
        assert!(!exists(&outside), "{attack}");
    }
    let control = s.run(None, &attacks[0]);
    assert!(stdout(&control).contains("escaped"), "the control unshares");
    assert!(exists(&outside));
}

#[test]
fn only_its_own_processes_and_environment_are_seen() {
    let s = Scene::new("pid");
    let p = s.policy(Mode::WorkspaceWrite);
    let out = stdout(&s.run(Some(&p), "ls /proc | grep -c '^[0-9]'; hostname"));
    let mut lines = out.lines();
    let processes: usize = lines.next().unwrap().trim().parse().unwrap();
    assert!(
        processes < 10,
        "a private process table, {processes} processes seen"
    );
    assert_eq!(lines.next(), Some("sandbox"));
    let control = stdout(&s.run(None, "ls /proc | grep -c '^[0-9]'"));
    assert!(control.trim().parse::<usize>().unwrap() > processes);
}

#[test]
fn the_command_line_alone_confines_whoever_runs_it() {
    // As an editor's terminal would: only the argument list, no file descriptor, no set-up.
    let s = Scene::new("argv");
    let outside = s.home.join("from-terminal");
    let line = sandbox::shell_argv(
        &s.policy(Mode::WorkspaceWrite),
        &format!("touch inside; touch {}", outside.display()),
    );
    assert!(line.iter().all(|a| !a.contains("/proc/self/fd")));
    let status = Command::new(&line[0])
        .args(&line[1..])
        .current_dir(&s.ws)
        .status()
        .unwrap();
    assert!(!status.success());
    assert!(exists(&s.ws.join("inside")));
    assert!(!exists(&outside));
    let off = sandbox::shell_argv(&s.policy(Mode::Off), "true");
    assert_eq!(off[0], "bash", "off runs the command itself: {off:?}");
}

#[test]
fn a_sandbox_that_cannot_start_says_why_and_what_to_do() {
    let s = Scene::new("probe");
    assert!(sandbox::probe(&s.policy(Mode::WorkspaceWrite)).is_ok());
    let missing = Policy::new(
        Mode::WorkspaceWrite,
        &s.ws,
        s.root.join("no-bwrap"),
        vec!["x".into()],
    );
    let e = sandbox::probe(&missing).unwrap_err().to_string();
    assert!(e.contains("--sandbox off"), "{e}");

    let setuid = s.root.join("bwrap-setuid");
    std::fs::copy(bwrap(), &setuid).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&setuid, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let mut p = s.policy(Mode::WorkspaceWrite);
    p.bwrap = setuid;
    let e = sandbox::probe(&p).unwrap_err();
    assert!(matches!(e, sandbox::Error::Setuid(_)), "{e}");
    assert!(e.to_string().contains("setuid"));
}

#[test]
fn a_helper_under_tmp_is_still_reached_inside() {
    // As in a checkout under /tmp: inside, /tmp is the sandbox's own, empty one.
    let s = Scene::new("helper");
    let dir = std::env::temp_dir().join(format!("pilotfish-helper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let helper = dir.join("pilotfish-sandbox-exec");
    std::fs::copy(env!("CARGO_BIN_EXE_pilotfish-sandbox-exec"), &helper).unwrap();
    let mut p = s.policy(Mode::WorkspaceWrite);
    p.helper = vec![helper.to_string_lossy().into_owned()];
    let out = s.run(Some(&p), "echo reached; ls /tmp | wc -l");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("reached\n"));
}
