//! `tools/emacs.sh` never removes or downgrades what the machine has: it uses an Emacs 30 that
//! is there, leaves an older one alone with a message, and installs what is missing only after
//! simulating apt and finding no removal and no downgrade in the plan (a package the new Emacs
//! itself provides at a newer version excepted). apt, dpkg-query and Emacs are FAKE here
//! (shell scripts named so, first on a PATH of their own): a test must not install packages on
//! the machine running it. The fake `apt-get` logs each call, prints the plan the test chose
//! for `-s`, and for a real install of `emacs-nox` puts a fake Emacs 30 on the PATH.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// What the fake apt plans for a clean install of Emacs 30 from bookworm-backports and elpa-f.
const CLEAN_PLAN: &str = "\
Inst emacsen-common (3.0.5 Debian:12.14/oldstable [all])
Inst emacs-common (1:30.1+1-6~bpo12+1 Debian Backports:bookworm-backports [all])
Inst emacs-nox (1:30.1+1-6~bpo12+1 Debian Backports:bookworm-backports [amd64])
Inst elpa-f (0.20.0-3 Debian:12.14/oldstable [all])
Conf emacs-nox (1:30.1+1-6~bpo12+1 Debian Backports:bookworm-backports [amd64])
";

/// The tools of the machine the script may use, linked into a folder of their own, so that a
/// real Emacs or apt on the machine is never found.
const SYSTEM_TOOLS: [&str; 16] = [
    "awk", "cat", "chmod", "dpkg", "echo", "flock", "grep", "head", "id", "mkdir", "printf", "rm",
    "sed", "sh", "tee", "tr",
];

/// A machine of fakes in a folder: its PATH, apt's sources, and the log of apt's calls.
struct Machine {
    dir: PathBuf,
}

fn script(path: &Path, body: &str) {
    std::fs::write(
        path,
        format!("#!/bin/sh\n# FAKE, for tools/emacs.sh's tests.\n{body}"),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Machine {
    fn new(name: &str) -> Machine {
        let dir = std::env::temp_dir()
            .join(format!("pilotfish-emacs-script-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["fake", "system", "etc/sources.list.d", "cache"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        for tool in SYSTEM_TOOLS {
            let found = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
                .iter()
                .map(|d| Path::new(d).join(tool))
                .find(|p| p.exists())
                .unwrap_or_else(|| panic!("{tool} is on this machine"));
            std::os::unix::fs::symlink(found, dir.join("system").join(tool)).unwrap();
        }
        std::fs::write(
            dir.join("etc/sources.list"),
            "deb http://deb.debian.org/debian bookworm main\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("os-release"),
            "ID=debian\nVERSION_CODENAME=bookworm\n",
        )
        .unwrap();
        std::fs::write(dir.join("plan"), CLEAN_PLAN).unwrap();
        std::fs::write(dir.join("installed"), "").unwrap();
        std::fs::write(dir.join("apt.log"), "").unwrap();
        let fake = dir.join("fake");
        let d = dir.display();
        script(
            &fake.join("apt-get"),
            &format!(
                "echo \"apt-get $*\" >> {d}/apt.log\n\
                 case \" $* \" in\n\
                 *' -s '*) cat {d}/plan ;;\n\
                 *' install '*) case \" $* \" in *' emacs-nox '*)\n\
                   printf '#!/bin/sh\\necho \"GNU Emacs 30.1\"\\n' > {d}/fake/emacs; chmod 755 {d}/fake/emacs ;; esac ;;\n\
                 esac\n"
            ),
        );
        script(
            &fake.join("apt-cache"),
            "case \"$1\" in\n\
             policy) echo \"$2:\"; echo '  Installed: (none)'; echo '  Candidate: 1:28.2+1-15+deb12u4' ;;\n\
             show) echo \"Package: emacs-common\"; echo 'Provides: elpa-compat (= 30.1.9999), elpa-editorconfig (= 0.11.0), elpa-jsonrpc (= 1.0.25)' ;;\n\
             esac\n",
        );
        script(
            &fake.join("apt-config"),
            &format!(
                "echo \"SOURCEPARTS='{d}/etc/sources.list.d/'\"; echo \"SOURCELIST='{d}/etc/sources.list'\"\n"
            ),
        );
        script(
            &fake.join("dpkg-query"),
            &format!(
                "for p in $(cat {d}/installed); do [ \"$p\" = \"$3\" ] && {{ echo 'install ok installed'; exit 0; }}; done; exit 1\n"
            ),
        );
        script(&fake.join("sudo"), "exec \"$@\"\n");
        Machine { dir }
    }

    /// A fake Emacs of this version on the PATH.
    fn emacs(&self, version: &str) {
        script(
            &self.dir.join("fake/emacs"),
            &format!("echo \"GNU Emacs {version}\"\n"),
        );
    }

    /// Debian packages dpkg-query says are installed.
    fn installed(&self, packages: &str) {
        std::fs::write(self.dir.join("installed"), packages).unwrap();
    }

    /// What `apt-get -s install` answers.
    fn plan(&self, plan: &str) {
        std::fs::write(self.dir.join("plan"), plan).unwrap();
    }

    fn run(&self) -> Output {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        Command::new("/bin/bash")
            .arg(repo.join("tools/emacs.sh"))
            .env_clear()
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    self.dir.join("fake").display(),
                    self.dir.join("system").display()
                ),
            )
            .env("HOME", &self.dir)
            .env("PILOTFISH_CACHE", self.dir.join("cache"))
            .env("PILOTFISH_OS_RELEASE", self.dir.join("os-release"))
            .output()
            .unwrap()
    }

    /// apt-get's calls, one a line.
    fn apt_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("apt.log"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The calls that changed the machine (not simulated, not `update`).
    fn installs(&self) -> Vec<String> {
        self.apt_calls()
            .into_iter()
            .filter(|c| c.contains(" install ") && !c.contains(" -s "))
            .collect()
    }

    fn emacs_path(&self) -> String {
        self.dir.join("fake/emacs").display().to_string()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn an_emacs_30_already_there_is_used_and_nothing_installed() {
    let m = Machine::new("there");
    m.emacs("30.1");
    m.installed("elpa-f elpa-s elpa-dash");
    let out = m.run();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(last_line(&out), m.emacs_path());
    assert_eq!(m.apt_calls(), Vec::<String>::new(), "apt was not asked");
}

#[test]
fn an_older_emacs_is_left_alone_with_a_message() {
    let m = Machine::new("older");
    m.emacs("28.2");
    m.installed("emacs-nox elpa-f");
    let out = m.run();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("GNU Emacs 28.2") && said.contains("left alone"),
        "{said}"
    );
    assert!(said.contains("Emacs 30"), "it says what is needed: {said}");
    assert_eq!(m.installs(), Vec::<String>::new(), "{said}");
    let version = Command::new(m.emacs_path())
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        "GNU Emacs 28.2"
    );
}

#[test]
fn an_install_that_would_remove_a_package_is_refused() {
    let m = Machine::new("removes");
    m.plan(&format!(
        "Remv emacs-gtk [1:28.2+1-15+deb12u4]\n{CLEAN_PLAN}"
    ));
    let out = m.run();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("refused") && said.contains("remove emacs-gtk 1:28.2+1-15+deb12u4"),
        "{said}"
    );
    assert!(said.contains("nothing was changed"), "{said}");
    assert_eq!(m.installs(), Vec::<String>::new(), "{said}");
    assert!(!m.dir.join("fake/emacs").exists());
}

#[test]
fn an_install_that_would_downgrade_a_package_is_refused() {
    let m = Machine::new("downgrades");
    m.plan(&format!(
        "Inst libgccjit0 [13.2.0-1] (12.2.0-14+deb12u1 Debian:12.14/oldstable [amd64])\n{CLEAN_PLAN}"
    ));
    let out = m.run();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("downgrade libgccjit0 13.2.0-1 to 12.2.0-14+deb12u1"),
        "{said}"
    );
    assert_eq!(m.installs(), Vec::<String>::new(), "{said}");
}

#[test]
fn without_emacs_emacs_30_is_installed_without_removing_anything() {
    let m = Machine::new("none");
    // An upgrade is no downgrade: it may go through.
    m.plan(&format!(
        "Inst install-info [6.8-6] (6.8-6+b1 Debian:12.14/oldstable [amd64])\n{CLEAN_PLAN}"
    ));
    let out = m.run();
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    assert_eq!(last_line(&out), m.emacs_path());
    // bookworm's own emacs-nox is 28: backports, in a file of its own.
    let added = m
        .dir
        .join("etc/sources.list.d/pilotfish-bookworm-backports.sources");
    let source = std::fs::read_to_string(&added).unwrap_or_else(|_| panic!("{said}"));
    assert!(source.contains("Suites: bookworm-backports"), "{source}");
    assert_eq!(
        std::fs::read_to_string(m.dir.join("etc/sources.list")).unwrap(),
        "deb http://deb.debian.org/debian bookworm main\n"
    );
    let installs = m.installs();
    assert_eq!(installs.len(), 1, "{installs:?}");
    assert!(
        installs[0].contains("-t bookworm-backports") && installs[0].ends_with("emacs-nox elpa-f"),
        "{installs:?}"
    );
    // The plan was simulated first, with the same packages.
    let calls = m.apt_calls();
    let simulated = calls
        .iter()
        .position(|c| c.contains(" -s "))
        .expect("simulated");
    let installed = calls.iter().position(|c| c == &installs[0]).unwrap();
    assert!(simulated < installed, "{calls:?}");
}

#[test]
fn a_package_the_new_emacs_provides_may_go() {
    let m = Machine::new("replaced");
    m.installed("elpa-editorconfig");
    m.plan(&format!("Remv elpa-editorconfig [0.8.2-1]\n{CLEAN_PLAN}"));
    let out = m.run();
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("elpa-editorconfig 0.8.2-1 goes"), "{said}");
    assert_eq!(m.installs().len(), 1, "{said}");
    assert_eq!(last_line(&out), m.emacs_path());
}
