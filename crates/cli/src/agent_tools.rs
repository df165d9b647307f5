//! The agent's tools on disk, confined to the workspace: every path is resolved (symbolic
//! links followed) and refused outside the workspace or when `.copilotignore` names it; every
//! file is journaled before the run first changes it, so `--undo` can restore it.

use std::{
    collections::BTreeMap,
    io::{BufRead, IsTerminal, Write},
    path::{Component, Path, PathBuf},
    process::Command,
    time::Duration,
};

use agent::tools::{self, Call};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The longest a command may run.
const COMMAND_LIMIT: Duration = Duration::from_secs(120);
/// A file this short is asked for whole when a lazy edit of it cannot be placed.
const WHOLE_FILE_LINES: usize = 150;
/// A workspace of at most this many bytes of text is given whole by `search_codebase`.
const SMALL_WORKSPACE: usize = 20_000;
/// Files larger than this are not read whole.
const READ_LIMIT: u64 = 2 << 20;

/// A tool's answer: whether it did what was asked, and what the model is told.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) ok: bool,
    pub(crate) content: String,
}

fn fail(content: impl Into<String>) -> Outcome {
    Outcome {
        ok: false,
        content: content.into(),
    }
}

fn done(content: impl Into<String>) -> Outcome {
    Outcome {
        ok: true,
        content: content.into(),
    }
}

/// The state of files before the run first changed them, for `--undo`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Journal {
    /// Path → its text before the run (`None`: the file did not exist).
    pub(crate) before: BTreeMap<PathBuf, Option<String>>,
}

/// `[agent]`: rules for terminal commands, judged on every sub-command; deny wins.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct AgentConfig {
    /// Command prefixes that run without asking, besides the read-only defaults.
    pub(crate) allow: Vec<String>,
    /// Command prefixes that never run, even with `--yes`.
    pub(crate) deny: Vec<String>,
    /// `get_errors`' checker per language id, `{file}` standing for the file (over the
    /// defaults: py_compile, cargo check, tsc, go vet, node --check where installed).
    pub(crate) checkers: BTreeMap<String, String>,
}

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

/// How terminal commands are approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    /// `--yes`: every command runs.
    All,
    /// Ask on the terminal when standard input is one; otherwise decline.
    Ask,
}

/// The workspace the tools act in.
pub(crate) struct Workspace {
    pub(crate) root: PathBuf,
    excluded: Option<ignore::gitignore::Gitignore>,
    journal: Journal,
    journal_path: PathBuf,
    approval: Approval,
    allow: Vec<String>,
    deny: Vec<String>,
    checkers: BTreeMap<String, String>,
    shell: crate::agent_shell::Shell,
    /// The tool set offered, which decides how calls are read.
    pub(crate) profile: tools::Profile,
}

impl Workspace {
    pub(crate) fn open(root: &Path, approval: Approval, rules: &AgentConfig) -> Result<Workspace> {
        let root = std::fs::canonicalize(root)
            .with_context(|| format!("workspace folder {} cannot be opened", root.display()))?;
        let excluded = crate::exclusion::load(&root)?;
        let journal_path = journal_path(&root)?;
        Ok(Workspace {
            shell: crate::agent_shell::Shell::new(&root),
            root,
            excluded,
            journal: Journal::default(),
            journal_path,
            approval,
            allow: agent::commands::DEFAULT_ALLOW
                .iter()
                .map(|s| (*s).to_owned())
                .chain(rules.allow.iter().cloned())
                .collect(),
            deny: rules.deny.clone(),
            checkers: rules.checkers.clone(),
            profile: tools::Profile::Seed004,
        })
    }

    /// The file a tool call names, if the call may touch it: inside the workspace once links
    /// are followed, and not excluded.
    pub(crate) fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // Follow links on the part that exists; the rest must not climb out with `..`.
        let mut existing = joined.clone();
        let mut rest = Vec::new();
        while !existing.exists() {
            let Some(name) = existing.file_name() else {
                break;
            };
            rest.push(name.to_owned());
            if !existing.pop() {
                break;
            }
        }
        let mut real = std::fs::canonicalize(&existing)
            .map_err(|e| format!("{path} cannot be reached: {e}"))?;
        for part in rest.iter().rev() {
            let p = Path::new(part);
            if p.components()
                .any(|c| matches!(c, Component::ParentDir | Component::RootDir))
            {
                return Err(format!("{path} is outside the workspace: refused"));
            }
            real.push(part);
        }
        if !real.starts_with(&self.root) {
            return Err(format!(
                "{path} is outside the workspace ({}): refused; only files inside it can be used",
                self.root.display()
            ));
        }
        if let Some(rules) = &self.excluded
            && crate::exclusion::is_excluded(rules, &self.root, &real.to_string_lossy())
        {
            return Err(format!(
                "{path} is excluded by the workspace's .copilotignore: it is not shown to the model"
            ));
        }
        Ok(real)
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// Runs one call.
    pub(crate) fn run(&mut self, name: &str, arguments: &str) -> Outcome {
        let call = match tools::parse_in(self.profile, name, arguments) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        match call {
            Call::ReadFile(a) => self.read_file(
                &a.file_path,
                a.start_line_number_base_zero,
                a.end_line_number_base_zero,
            ),
            Call::ListDir(a) => self.list_dir(&a.path),
            Call::FileSearch(a) => self.file_search(&a.query),
            Call::GrepSearch(a) => {
                self.grep_search(&a.query, a.is_regexp, a.include_pattern.as_deref())
            }
            Call::EditFile(a) => {
                let language = languages::detect_language_from_path(&a.file_path, "");
                let lang = syntax::Lang::from_language_id(&language);
                self.edit(&a.file_path, |old| match old {
                    Some(old) => agent::edit::apply_lazy_edit_in(old, &a.code, lang).map_err(|e| {
                        // A short file is cheap to send whole: the surest way past a misplaced edit.
                        let lines = old.lines().count();
                        if lines <= WHOLE_FILE_LINES {
                            format!("{e}. The file has only {lines} lines: send its whole new text with edit_file and no `...existing code...` lines")
                        } else {
                            e.to_string()
                        }
                    }),
                    None => Ok(a.code.clone()),
                })
            }
            Call::ReplaceString(a) => self.edit(&a.file_path, |old| match old {
                Some(old) => agent::edit::replace_string(old, &a.old_string, &a.new_string)
                    .map_err(|e| e.to_string()),
                None => Err("the file does not exist: create it with create_file".into()),
            }),
            Call::CreateFile(a) => self.edit(&a.file_path, |old| match old {
                Some(_) => {
                    Err("the file exists: edit it with edit_file or replace_string_in_file".into())
                }
                None => Ok(a.content.clone()),
            }),
            Call::RunInTerminal(a) => {
                self.run_in_terminal(&a.command, &a.explanation, a.is_background)
            }
            Call::GetTerminalOutput(a) => match self.shell.output(&a.id) {
                Some((text, code, running)) => done(format!(
                    "{text}\n[{}]",
                    if running {
                        "still running".to_owned()
                    } else {
                        format!("exited with status {}", code.unwrap_or(-1))
                    }
                )),
                None => fail(format!(
                    "there is no background command `{}`; the ids are: {}",
                    a.id,
                    self.shell.ids().join(", ")
                )),
            },
            Call::UpdateUserPreferences(a) => match remember(&a.facts) {
                Ok(path) => done(format!("remembered in {}", path.display())),
                Err(e) => fail(format!("the preferences could not be saved: {e:#}")),
            },
            Call::GetChangedFiles(a) => self.changed_files(&a.source_control_state),
            Call::RunSubagent(_) => fail("runSubagent is run by the agent loop"),
            Call::SearchCodebase(a) => self.search_codebase(&a.query),
            Call::MultiReplace(a) => self.multi_replace(&a.replacements),
            Call::GetErrors(a) => {
                let mut out = String::new();
                for p in &a.file_paths {
                    match self.resolve(p) {
                        Ok(path) => out.push_str(&self.errors_of(&path)),
                        Err(e) => out.push_str(&format!("{e}\n")),
                    }
                }
                done(out)
            }
        }
    }

    fn read_text(&self, path: &Path) -> Result<String, String> {
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("{} cannot be read: {e}", self.shown(path)))?;
        if meta.is_dir() {
            return Err(format!("{} is a folder: use list_dir", self.shown(path)));
        }
        if meta.len() > READ_LIMIT {
            return Err(format!(
                "{} is larger than 2 MB: search it with grep_search",
                self.shown(path)
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|e| format!("{} cannot be read: {e}", self.shown(path)))?;
        if bytes.contains(&0) {
            return Err(format!("{} is a binary file", self.shown(path)));
        }
        String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", self.shown(path)))
    }

    fn read_file(&self, path: &str, start: usize, end: usize) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return fail(e),
        };
        let text = match self.read_text(&path) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
        let lines: Vec<&str> = text.lines().collect();
        if start >= lines.len().max(1) {
            return fail(format!(
                "{} has {} lines (0 to {}); line {start} is past its end",
                self.shown(&path),
                lines.len(),
                lines.len().saturating_sub(1)
            ));
        }
        let end = end.min(lines.len().saturating_sub(1));
        let mut out = format!(
            "{} lines {start}-{end} of {}:\n",
            self.shown(&path),
            lines.len()
        );
        for (i, l) in lines[start..=end].iter().enumerate() {
            out.push_str(&format!("{:>5} {l}\n", start + i));
        }
        done(out)
    }

    fn list_dir(&self, path: &str) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return fail(e),
        };
        let Ok(entries) = std::fs::read_dir(&path) else {
            return fail(format!(
                "{} is not a folder that can be listed",
                self.shown(&path)
            ));
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| self.resolve(&e.path().to_string_lossy()).is_ok())
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir() {
                    format!("{name}/")
                } else {
                    name
                }
            })
            .collect();
        names.sort();
        done(names.join("\n"))
    }

    /// The workspace's files, ignore files respected, excluded files left out.
    fn files(&self) -> Vec<PathBuf> {
        ignore::WalkBuilder::new(&self.root)
            .require_git(false)
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.into_path())
            .filter(|p| self.resolve(&p.to_string_lossy()).is_ok())
            .collect()
    }

    fn file_search(&self, query: &str) -> Outcome {
        let glob = match globset::GlobBuilder::new(query)
            .literal_separator(true)
            .build()
        {
            Ok(g) => g.compile_matcher(),
            Err(e) => return fail(format!("`{query}` is not a valid glob: {e}")),
        };
        let found: Vec<String> = self
            .files()
            .iter()
            .map(|p| self.shown(p))
            .filter(|p| glob.is_match(p) || glob.is_match(format!("/{p}")))
            .take(20)
            .collect();
        done(if found.is_empty() {
            "no file matches".to_owned()
        } else {
            found.join("\n")
        })
    }

    fn grep_search(&self, query: &str, regexp: bool, include: Option<&str>) -> Outcome {
        let pattern = if regexp {
            query.to_owned()
        } else {
            regex::escape(query)
        };
        let re = match regex::Regex::new(&pattern) {
            Ok(r) => r,
            Err(e) => return fail(format!("`{query}` is not a valid regular expression: {e}")),
        };
        let include =
            match include.map(|g| globset::GlobBuilder::new(g).literal_separator(true).build()) {
                Some(Ok(g)) => Some(g.compile_matcher()),
                Some(Err(e)) => return fail(format!("includePattern is not a valid glob: {e}")),
                None => None,
            };
        let mut hits = Vec::new();
        for path in self.files() {
            let shown = self.shown(&path);
            if include.as_ref().is_some_and(|g| !g.is_match(&shown)) {
                continue;
            }
            let Ok(text) = self.read_text(&path) else {
                continue;
            };
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    hits.push(format!("{shown}:{i}: {}", line.trim()));
                    if hits.len() == 20 {
                        return done(hits.join("\n"));
                    }
                }
            }
        }
        done(if hits.is_empty() {
            "no match".to_owned()
        } else {
            hits.join("\n")
        })
    }

    /// Changes a file through `change` (given its text, or `None` when it does not exist),
    /// journaling it first; the result carries the file's syntax errors after the change.
    fn edit(
        &mut self,
        path: &str,
        change: impl FnOnce(Option<&str>) -> Result<String, String>,
    ) -> Outcome {
        let path = match self.resolve(path) {
            Ok(p) => p,
            Err(e) => return fail(e),
        };
        let old = if path.exists() {
            match self.read_text(&path) {
                Ok(t) => Some(t),
                Err(e) => return fail(e),
            }
        } else {
            None
        };
        let new = match change(old.as_deref()) {
            Ok(n) => n,
            Err(e) => return fail(format!("{} was not changed: {e}", self.shown(&path))),
        };
        if !self.journal.before.contains_key(&path) {
            self.journal.before.insert(path.clone(), old.clone());
            // Saved before the change, so that a crash still leaves a way back.
            if let Err(e) = self.save_journal() {
                return fail(format!(
                    "the undo journal could not be written, so nothing was changed: {e}"
                ));
            }
        }
        if let Some(dir) = path.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            return fail(format!("{} could not be created: {e}", dir.display()));
        }
        if let Err(e) = std::fs::write(&path, &new) {
            return fail(format!("{} could not be written: {e}", self.shown(&path)));
        }
        let verb = if old.is_some() { "edited" } else { "created" };
        let errors = self.errors_of(&path);
        done(format!("{} {verb}.\n{errors}", self.shown(&path)))
    }

    /// Syntax errors from tree-sitter for the languages pilotfish parses.
    fn errors_of(&self, path: &Path) -> String {
        let shown = self.shown(path);
        let Ok(text) = self.read_text(path) else {
            return format!("{shown}: cannot be read\n");
        };
        let language = languages::detect_language_from_path(&path.to_string_lossy(), "");
        let syntax_errors = syntax::Lang::from_language_id(&language)
            .map(|lang| syntax::syntax_errors(lang, &text));
        let mut out: String = syntax_errors
            .iter()
            .flatten()
            .map(|e| format!("{shown}:{}:{}: {}\n", e.line, e.column, e.message))
            .collect();
        match checker(&language, &self.root, &self.checkers) {
            Some(command) => {
                let quoted = format!("'{}'", path.to_string_lossy().replace('\'', "'\\''"));
                let command = command.replace("{file}", &quoted);
                match run_checker(&command, &self.root) {
                    Some((true, _)) => {}
                    Some((false, output)) => {
                        out.push_str(&format!("`{command}` reports:\n{output}\n"));
                    }
                    None => out.push_str(&format!(
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

    /// Several replacements, all computed before any file is written: all or nothing.
    fn multi_replace(&mut self, replacements: &[tools::ReplaceString]) -> Outcome {
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        for (i, r) in replacements.iter().enumerate() {
            let path = match self.resolve(&r.file_path) {
                Ok(p) => p,
                Err(e) => return fail(format!("replacement {i}: {e}; nothing was changed")),
            };
            let current = match files.iter().find(|(p, _)| *p == path) {
                Some((_, text)) => text.clone(),
                None => match self.read_text(&path) {
                    Ok(t) => t,
                    Err(e) => return fail(format!("replacement {i}: {e}; nothing was changed")),
                },
            };
            match agent::edit::replace_string(&current, &r.old_string, &r.new_string) {
                Ok(new) => match files.iter_mut().find(|(p, _)| *p == path) {
                    Some(entry) => entry.1 = new,
                    None => files.push((path, new)),
                },
                Err(e) => {
                    return fail(format!(
                        "replacement {i} ({}): {e}; nothing was changed",
                        r.file_path
                    ));
                }
            }
        }
        let mut out = String::new();
        for (path, new) in files {
            let result = self.edit(&path.to_string_lossy(), |_| Ok(new));
            if !result.ok {
                return result;
            }
            out.push_str(&result.content);
        }
        done(out)
    }

    fn search_codebase(&self, query: &str) -> Outcome {
        let texts: Vec<(String, String)> = self
            .files()
            .iter()
            .filter_map(|p| Some((self.shown(p), self.read_text(p).ok()?)))
            .collect();
        let total: usize = texts.iter().map(|(_, t)| t.len()).sum();
        // A small workspace is given whole: nothing can be missed.
        if total <= SMALL_WORKSPACE {
            let mut out = String::from("The workspace is small: here is all of it.\n");
            for (path, text) in &texts {
                out.push_str(&format!("\n─── {path} ───\n{text}\n"));
            }
            return done(out);
        }
        let index =
            retrieval::search::Index::build(texts.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        let hits = index.search(query, 8);
        if hits.is_empty() {
            return done(
                "nothing in the workspace matches those words; try the names the code would use",
            );
        }
        let mut out = String::new();
        for h in hits {
            let c = &h.chunk;
            out.push_str(&format!(
                "─── {} lines {}-{} ───\n{}\n",
                c.path, c.start_line, c.end_line, c.text
            ));
        }
        done(out)
    }

    fn changed_files(&self, states: &[String]) -> Outcome {
        let want = |s: &str| states.is_empty() || states.iter().any(|x| x == s);
        let mut out = String::new();
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(&self.root)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        };
        if git(&["rev-parse", "--git-dir"]).is_none() {
            return fail("the workspace is not a git repository");
        }
        if want("staged") {
            out.push_str(&format!(
                "staged:\n{}\n",
                git(&["diff", "--cached"]).unwrap_or_default()
            ));
        }
        if want("unstaged") {
            out.push_str(&format!(
                "unstaged:\n{}\n",
                git(&["diff"]).unwrap_or_default()
            ));
        }
        if want("merge-conflicts") {
            out.push_str(&format!(
                "merge conflicts:\n{}\n",
                git(&["diff", "--name-only", "--diff-filter=U"]).unwrap_or_default()
            ));
        }
        // Changes in ignored files are not shown.
        done(self.without_excluded_diffs(&out))
    }

    /// A diff with the sections of excluded files left out.
    fn without_excluded_diffs(&self, diff: &str) -> String {
        let mut out = String::new();
        let mut keep = true;
        for line in diff.lines() {
            if let Some(rest) = line.strip_prefix("diff --git a/") {
                let path = rest.split(" b/").next().unwrap_or(rest);
                keep = self.resolve(path).is_ok();
            }
            if keep {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    fn approved(&self, command: &str, explanation: &str) -> bool {
        match self.approval {
            Approval::All => true,
            Approval::Ask => {
                if !std::io::stdin().is_terminal() {
                    return false;
                }
                eprint!("pilotfish: run `{command}`? ({explanation}) [y/N] ");
                let _ = std::io::stderr().flush();
                let mut answer = String::new();
                let _ = std::io::stdin().lock().read_line(&mut answer);
                matches!(answer.trim(), "y" | "Y" | "yes")
            }
        }
    }

    fn run_in_terminal(&mut self, command: &str, explanation: &str, background: bool) -> Outcome {
        match agent::commands::judge(command, &self.allow, &self.deny) {
            agent::commands::Verdict::Deny(why) => {
                return fail(format!(
                    "`{command}` is refused by the user's rules ({why}); do not run it"
                ));
            }
            agent::commands::Verdict::Allow => {}
            agent::commands::Verdict::Ask => {
                if !self.approved(command, explanation) {
                    return fail(format!(
                        "the user declined to run `{command}`; do not run it again, find another way or ask"
                    ));
                }
            }
        }
        if background {
            return match self.shell.spawn(command) {
                Ok(id) => done(format!(
                    "started in the background; id: {id} (get_terminal_output shows its output)"
                )),
                Err(e) => fail(format!("the command could not be started: {e}")),
            };
        }
        match self.shell.run(command, COMMAND_LIMIT) {
            Ok(ran) => match ran.status {
                Some(code) => Outcome {
                    ok: code == 0,
                    content: format!("{}\n[exit status {code}]", ran.output),
                },
                None => fail(format!(
                    "{}\n[did not finish within {} s, or ended the shell; the shell was started afresh: run long processes with isBackground=true]",
                    ran.output,
                    COMMAND_LIMIT.as_secs()
                )),
            },
            Err(e) => fail(format!("the shell could not run the command: {e}")),
        }
    }

    fn save_journal(&self) -> Result<()> {
        if let Some(dir) = self.journal_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.journal_path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string(&self.journal)?)?;
        std::fs::rename(&tmp, &self.journal_path)?;
        Ok(())
    }
}

/// The user's state folder for pilotfish.
fn state_dir() -> Result<PathBuf> {
    Ok(std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state")))
        .context("neither XDG_STATE_HOME nor HOME is set: nowhere to keep pilotfish's state")?
        .join("pilotfish"))
}

/// Where `updateUserPreferences` keeps its facts, one per line.
pub(crate) fn preferences_path() -> Result<PathBuf> {
    Ok(state_dir()?.join("preferences.md"))
}

/// Adds facts to the preferences file.
fn remember(facts: &[String]) -> Result<PathBuf> {
    let path = preferences_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    for fact in facts.iter().map(|f| f.trim()).filter(|f| !f.is_empty()) {
        writeln!(file, "- {}", fact.replace('\n', " "))?;
    }
    Ok(path)
}

/// The remembered facts, for the prompt of later runs.
pub(crate) fn preferences() -> Option<String> {
    let text = std::fs::read_to_string(preferences_path().ok()?).ok()?;
    (!text.trim().is_empty()).then_some(text)
}

/// Where the undo journal of a workspace's last run is kept (the user's state folder).
fn journal_path(root: &Path) -> Result<PathBuf> {
    let base = state_dir()?;
    let name: String = root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Ok(base
        .join("pilotfish")
        .join("undo")
        .join(format!("{name}.json")))
}

/// Restores the files the last run in `root` changed; returns what was restored.
pub(crate) fn undo(root: &Path) -> Result<Vec<String>> {
    let root = std::fs::canonicalize(root)?;
    let path = journal_path(&root)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("no agent run to undo in {}", root.display())
        }
        Err(e) => return Err(e.into()),
    };
    let journal: Journal = serde_json::from_str(&text)
        .with_context(|| format!("the undo journal {} cannot be read", path.display()))?;
    let mut restored = Vec::new();
    for (file, before) in &journal.before {
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        match before {
            Some(text) => {
                std::fs::write(file, text).with_context(|| format!("could not restore {shown}"))?;
                restored.push(format!("restored {shown}"));
            }
            None => {
                if file.exists() {
                    std::fs::remove_file(file)
                        .with_context(|| format!("could not remove {shown}"))?;
                }
                restored.push(format!("removed {shown} (created by the run)"));
            }
        }
    }
    std::fs::remove_file(&path)?;
    Ok(restored)
}

/// Runs a checker in `root`: whether it passed and what it printed; `None` if it ran too long.
fn run_checker(command: &str, root: &Path) -> Option<(bool, String)> {
    let child = Command::new("sh")
        .args(["-c", command])
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
