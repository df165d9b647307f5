//! `get_errors` and the errors an edit reports: tree-sitter's syntax errors, then the
//! language's own checker where one is configured or installed, with a time limit.

use std::{collections::BTreeMap, path::Path, process::Command, time::Duration};

use super::Workspace;

/// How long a language's checker may take.
const CHECK_LIMIT: Duration = Duration::from_secs(60);

/// The checker for a language in `root`, if one is configured or installed.
fn checker(language: &str, root: &Path, configured: &BTreeMap<String, String>) -> Option<String> {
    if let Some(c) = configured.get(language) {
        return (!c.trim().is_empty()).then(|| c.clone());
    }
    let has = |program: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
    };
    let (program, command, marker) = match language {
        "python" => ("python3", "python3 -m py_compile {file}", None),
        "rust" => (
            "cargo",
            "cargo check --quiet --message-format=short",
            Some("Cargo.toml"),
        ),
        "typescript" | "typescriptreact" => ("tsc", "tsc --noEmit -p .", Some("tsconfig.json")),
        "go" => ("go", "go vet ./...", Some("go.mod")),
        "javascript" => ("node", "node --check {file}", None),
        _ => return None,
    };
    (has(program) && marker.is_none_or(|m| root.join(m).exists())).then(|| command.to_owned())
}

impl Workspace {
    /// Syntax errors from tree-sitter for the languages pilotfish parses.
    pub(super) fn errors_of(&self, path: &Path) -> String {
        match self.read_text(path) {
            Ok(text) => self.errors_in(path, &text),
            Err(_) => format!("{}: cannot be read\n", self.shown(path)),
        }
    }

    /// The errors of a file whose text is `text`; the language's own checker runs only when
    /// the text is on the disk, where it looks.
    pub(super) fn errors_in(&self, path: &Path, text: &str) -> String {
        let shown = self.shown(path);
        let language = languages::detect_language_from_path(&path.to_string_lossy(), "");
        let syntax_errors =
            syntax::Lang::from_language_id(&language).map(|lang| syntax::syntax_errors(lang, text));
        let mut out: String = syntax_errors
            .iter()
            .flatten()
            .map(|e| format!("{shown}:{}:{}: {}\n", e.line, e.column, e.message))
            .collect();
        let checker =
            checker(&language, &self.root, &self.checkers).filter(|_| self.files.on_disk());
        match checker {
            Some(command) => {
                let quoted = format!("'{}'", path.to_string_lossy().replace('\'', "'\\''"));
                let command = command.replace("{file}", &quoted);
                let argv = ["sh", "-c", &command].map(String::from);
                match self
                    .runner
                    .command(&argv)
                    .map(|c| run_checker(c, &self.root))
                {
                    Err(e) => out.push_str(&format!("`{command}` not run: {e}\n")),
                    Ok(Some((true, _))) => {}
                    Ok(Some((false, output))) => {
                        let output = self.redact(&output);
                        out.push_str(&format!("`{command}` reports:\n{output}\n"));
                    }
                    Ok(None) => out.push_str(&format!(
                        "`{command}` did not finish within {} s\n",
                        CHECK_LIMIT.as_secs()
                    )),
                }
            }
            None if syntax_errors.is_none() => {
                return format!("{shown}: no checker for {language} files\n");
            }
            None => {}
        }
        if out.is_empty() {
            format!("{shown}: no errors\n")
        } else {
            out
        }
    }
}

/// Runs a checker (confined as the workspace's commands are) in `root`: whether it passed and
/// what it printed; `None` if it ran too long.
fn run_checker(mut checker: Command, root: &Path) -> Option<(bool, String)> {
    let child = checker
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let pid = child.id();
    // Output is read while the checker runs (a full pipe would stall it).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(Ok(out)) = rx.recv_timeout(CHECK_LIMIT) else {
        // SAFETY: signals the checker's own process, which this function started.
        unsafe {
            libc::kill(pid as i32, libc::SIGKILL);
        }
        return None;
    };
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Some((
        out.status.success(),
        agent::budget::cut_middle(text.trim(), 4096),
    ))
}
