//! The secret list, the ignored-file check and the `.env` redaction.

use std::path::{Path, PathBuf};

use super::{Secrets, ignored};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pilotfish-secrets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

#[test]
fn workspace_secret_files_follow_the_defaults_and_the_users_changes() {
    let root = scratch("files");
    let s = Secrets::new(&root, &[], &[]);
    for secret in [
        ".env",
        ".env.local",
        "certs/server.pem",
        "id.key",
        "sub/.env",
    ] {
        assert!(s.is_workspace_secret(&root.join(secret)), "{secret}");
    }
    for plain in [
        ".env.example",
        ".env.sample",
        "src/env.rs",
        "keys.txt",
        "README.md",
    ] {
        assert!(!s.is_workspace_secret(&root.join(plain)), "{plain}");
    }
    let changed = Secrets::new(&root, &["*.p12".into()], &["*.key".into()]);
    assert!(changed.is_workspace_secret(&root.join("me.p12")));
    assert!(!changed.is_workspace_secret(&root.join("id.key")));
    assert!(!s.is_workspace_secret(Path::new("/elsewhere/.env")));
}

#[test]
fn credentials_are_under_home_and_can_be_added_or_removed() {
    let root = scratch("creds");
    let home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let s = Secrets::new(&root, &["/opt/vault".into()], &["~/.kube".into()]);
    assert!(s.is_credential(&home.join(".ssh/id_rsa")));
    assert!(s.is_credential(&home.join(".docker/config.json")));
    assert!(!s.is_credential(&home.join(".docker/other.json")));
    assert!(
        !s.is_credential(&home.join(".kube/config")),
        "not_secrets removes it"
    );
    assert!(s.is_credential(Path::new("/opt/vault/token")));
    assert!(s.credentials().contains(&home.join(".netrc")));
}

#[test]
fn env_values_are_replaced_by_their_names() {
    let root = scratch("redact");
    std::fs::write(
        root.join(".env"),
        "# comment\nAPI_TOKEN=tok-12345-secret\nexport DB_PASSWORD=\"hunter2hunter\"\nDEBUG=true\nPORT=80\n",
    )
    .unwrap();
    std::fs::write(root.join(".env.example"), "API_TOKEN=example-value\n").unwrap();
    let r = Secrets::new(&root, &[], &[]).redactor();
    let out = r.redact("token tok-12345-secret, pw hunter2hunter, debug true on 80, example-value");
    assert_eq!(
        out,
        "token [.env: API_TOKEN], pw [.env: DB_PASSWORD], debug true on 80, example-value"
    );
}

#[test]
fn git_ignored_files_are_found_with_nested_rules_and_negations() {
    let root = scratch("ignored");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
    std::fs::write(root.join("sub/.gitignore"), "!keep.log\nlocal.txt\n").unwrap();
    assert!(ignored::is_git_ignored(&root, &root.join("a.log")));
    assert!(ignored::is_git_ignored(&root, &root.join("build/out.js")));
    assert!(ignored::is_git_ignored(&root, &root.join("sub/local.txt")));
    assert!(!ignored::is_git_ignored(&root, &root.join("sub/keep.log")));
    assert!(!ignored::is_git_ignored(&root, &root.join("src/main.rs")));
}

#[test]
fn variables_named_as_secrets_are_recognized() {
    for secret in [
        "OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "SSH_AUTH_SOCK",
        "db_password",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        assert!(super::is_secret_variable(secret), "{secret}");
    }
    for plain in [
        "PATH",
        "HOME",
        "GIT_AUTHOR_NAME",
        "KEYBOARD_LAYOUT",
        "LANG",
        "TERM",
    ] {
        assert!(!super::is_secret_variable(plain), "{plain}");
    }
}
