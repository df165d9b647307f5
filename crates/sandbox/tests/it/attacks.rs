//! Writes, `.git`, network and hidden credentials.

use sandbox::Mode;

use crate::{Listener, Scene, exists, stdout};

#[test]
fn writes_land_only_in_the_workspace_and_the_private_tmp() {
    let s = Scene::new("writes");
    let outside = s.home.join("planted.txt");
    let attack = format!(
        "echo in > inside.txt; echo t > /tmp/t.txt && cat /tmp/t.txt; echo out > {}",
        outside.display()
    );
    let p = s.policy(Mode::WorkspaceWrite);
    let out = s.run(Some(&p), &attack);
    assert!(!out.status.success(), "the write outside must fail");
    assert_eq!(
        std::fs::read_to_string(s.ws.join("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(stdout(&out).contains('t'), "the private /tmp is writable");
    assert!(
        !exists(&outside),
        "nothing may be written outside the workspace"
    );

    std::fs::remove_file(s.ws.join("inside.txt")).unwrap();
    let ro = s.policy(Mode::ReadOnly);
    let out = s.run(Some(&ro), "echo in > inside.txt");
    assert!(!out.status.success());
    assert!(
        !exists(&s.ws.join("inside.txt")),
        "read-only keeps the workspace as it is"
    );

    let control = s.run(None, &attack);
    assert!(control.status.success());
    assert!(exists(&outside), "the control writes outside");
}

#[test]
fn git_is_read_only_but_usable() {
    let s = Scene::new("git");
    let setup =
        "git init -q && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m first";
    assert!(s.run(None, setup).status.success());
    let hook = s.ws.join(".git/hooks/pre-commit");
    let attack = "git status --short && git log --oneline | grep -q first && echo usable; \
                  printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit";
    let p = s.policy(Mode::WorkspaceWrite);
    let out = s.run(Some(&p), attack);
    assert!(
        stdout(&out).contains("usable"),
        "git still reads its repository"
    );
    assert!(!out.status.success(), "planting a hook must fail");
    assert!(!exists(&hook), "nothing is written into .git");

    let control = s.run(None, attack);
    assert!(control.status.success());
    assert!(exists(&hook), "the control plants the hook");
}

#[test]
fn a_gitdir_file_points_at_a_folder_that_stays_read_only() {
    let s = Scene::new("gitdir");
    let real = s.ws.join("real-git");
    assert!(
        s.run(None, "git init -q --separate-git-dir real-git .")
            .status
            .success()
    );
    assert!(
        std::fs::read_to_string(s.ws.join(".git"))
            .unwrap()
            .starts_with("gitdir:")
    );
    let attack = "touch real-git/planted && echo wrote";
    let out = s.run(Some(&s.policy(Mode::WorkspaceWrite)), attack);
    assert!(!stdout(&out).contains("wrote"));
    assert!(!exists(&real.join("planted")));
    assert!(
        s.run(None, attack).status.success(),
        "the control writes there"
    );
}

#[test]
fn no_connection_leaves_without_network() {
    let s = Scene::new("net");
    let listener = Listener::new();
    let attack = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; \
         curl -s -m 5 http://127.0.0.1:{port}/ >/dev/null 2>&1; \
         python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5)' 2>/dev/null; true",
        port = listener.port
    );
    let out = s.run(Some(&s.policy(Mode::WorkspaceWrite)), &attack);
    assert!(!stdout(&out).contains("connected"));
    assert_eq!(
        listener.accepted(),
        0,
        "no connection may leave the sandbox"
    );

    let mut open = s.policy(Mode::WorkspaceWrite);
    open.network = true;
    let out = s.run(Some(&open), &attack);
    assert!(stdout(&out).contains("connected"), "--network opens it");
    assert!(listener.accepted() > 0);

    let control = s.run(None, &attack);
    assert!(stdout(&control).contains("connected"));
    assert!(listener.accepted() > 0, "the control connects");
}

#[test]
fn the_sandbox_has_its_own_loopback_for_test_suites() {
    let s = Scene::new("loopback");
    let serve = r#"python3 - <<'EOF'
import socket, threading
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
port = srv.getsockname()[1]
threading.Thread(target=lambda: srv.accept()[0].sendall(b"hello from inside"), daemon=True).start()
print(socket.create_connection(("127.0.0.1", port), 5).recv(100).decode())
EOF"#;
    let out = s.run(Some(&s.policy(Mode::WorkspaceWrite)), serve);
    assert!(stdout(&out).contains("hello from inside"));
}

#[test]
fn hidden_credentials_read_as_absent_even_through_links() {
    let s = Scene::new("secrets");
    std::os::unix::fs::symlink(s.home.join(".ssh/id_rsa"), s.ws.join("key-link")).unwrap();
    std::os::unix::fs::symlink(s.home.join(".ssh"), s.ws.join("ssh-link")).unwrap();
    let attack = format!(
        "cat {home}/.ssh/id_rsa; cat key-link; cat ssh-link/id_rsa; cat {home}/.netrc; ls -A {home}/.ssh",
        home = s.home.display()
    );
    let out = s.run(Some(&s.policy(Mode::WorkspaceWrite)), &attack);
    let text = stdout(&out);
    assert!(!text.contains("SECRET-KEY-TEXT"), "{text}");
    assert!(!text.contains("NETRC-SECRET"), "{text}");
    assert!(
        !text.contains("id_rsa"),
        "the folder reads as empty: {text}"
    );

    let control = stdout(&s.run(None, &attack));
    assert!(control.contains("SECRET-KEY-TEXT") && control.contains("NETRC-SECRET"));
}
