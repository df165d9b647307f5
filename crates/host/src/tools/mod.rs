//! The agent's tools in a workspace, confined to it: every path is resolved (symbolic links
//! followed) and refused outside the workspace or when `.copilotignore` names it; every file is
//! journaled before the run first changes it, so `--undo` can restore it. What the model reads
//! and writes goes through a [`FileAccess`] (the disk, or an editor's buffers); commands and
//! MCP tools are judged by the user's rules before they run.

mod checks;
mod edit;
mod read;
mod search;
mod terminal;

use std::{
    collections::BTreeMap,
    path::{Component, Path, PathBuf},
    sync::{Arc, atomic::AtomicBool},
};

use agent::{
    conversation::{Outcome, ToolCall, ToolSpec},
    run::Permission,
    tools::{self, Call},
};
use anyhow::{Context, Result};

use crate::{
    confinement::Runner,
    files::{Disk, FileAccess},
    journal::{Journal, journal_path},
    mcp_tools::McpTools,
    secrets::Secrets,
};

/// A file this short is asked for whole when a lazy edit of it cannot be placed.
const WHOLE_FILE_LINES: usize = 150;
/// A workspace of at most this many bytes of text is given whole by `search_codebase`.
const SMALL_WORKSPACE: usize = 20_000;

pub use crate::agent_config::AgentConfig;

/// The workspace the tools act in.
pub struct Workspace {
    pub root: PathBuf,
    excluded: Option<ignore::gitignore::Gitignore>,
    journal: Journal,
    journal_path: PathBuf,
    allow: Vec<String>,
    deny: Vec<String>,
    checkers: BTreeMap<String, String>,
    shell: crate::shell::Shell,
    /// How commands run (sandboxed, unconfined, or refused).
    runner: Runner,
    secrets: Secrets,
    /// Git-ignored files the user allowed "always" for this workspace.
    ignored: crate::secrets::ignored::Store,
    /// Where commands run instead of `shell` (an editor's terminals), if anywhere.
    editor_terminals: Option<Box<dyn crate::runner::Runner>>,
    /// The tool call being run, for `editor_terminals` to show it.
    call_id: String,
    files: Box<dyn FileAccess>,
    mcp: McpTools,
    /// Set when the user cancels: a running command or MCP call stops.
    cancel: Arc<AtomicBool>,
    /// The tool set offered, which decides how calls are read.
    pub profile: tools::Profile,
    /// The model's to-do list (`manage_todo_list`).
    todos: Vec<tools::Todo>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.root)
            .field("profile", &self.profile)
            .finish_non_exhaustive()
    }
}

impl Workspace {
    /// The workspace at `root`, reading and writing the disk, with the user's command rules.
    pub fn open(root: &Path, rules: &AgentConfig) -> Result<Workspace> {
        let root = std::fs::canonicalize(root)
            .with_context(|| format!("workspace folder {} cannot be opened", root.display()))?;
        let excluded = crate::exclusion::load(&root)?;
        let journal_path = journal_path(&root)?;
        let secrets = Secrets::new(&root, &rules.secrets, &rules.not_secrets);
        let runner = Runner::for_workspace(&root, rules, &secrets);
        Ok(Workspace {
            shell: crate::shell::Shell::new(&root, runner.clone(), secrets.clone()),
            runner,
            secrets,
            ignored: crate::secrets::ignored::Store::open(),
            editor_terminals: None,
            call_id: String::new(),
            root,
            excluded,
            journal: Journal::default(),
            journal_path,
            allow: agent::commands::DEFAULT_ALLOW
                .iter()
                .map(|s| (*s).to_owned())
                .chain(rules.allow.iter().cloned())
                .collect(),
            deny: rules.deny.clone(),
            checkers: rules.checkers.clone(),
            files: Box::new(Disk),
            mcp: McpTools::default(),
            cancel: Arc::new(AtomicBool::new(false)),
            profile: tools::Profile::Original,
            todos: Vec::new(),
        })
    }

    /// Reads and writes what the model sees through `files` (an editor's buffers) instead of
    /// the disk.
    pub fn with_files(mut self, files: Box<dyn FileAccess>) -> Workspace {
        self.files = files;
        self
    }

    /// Runs terminal commands through `runner` (an editor's terminals) instead of the run's
    /// own shell.
    pub fn with_runner(mut self, runner: Box<dyn crate::runner::Runner>) -> Workspace {
        self.editor_terminals = Some(runner);
        self
    }

    /// Offers the tools of these MCP servers beside the built-in ones.
    pub fn with_mcp(mut self, mcp: McpTools) -> Workspace {
        self.mcp = mcp;
        self
    }

    /// Starts more MCP servers (a workspace's, once approved) beside the running ones; returns
    /// their problems.
    pub fn start_mcp(&mut self, specs: &[crate::mcp_tools::ServerSpec]) -> Vec<String> {
        self.mcp.start_more(&self.root, specs)
    }

    /// The flag that stops a running command or MCP call; the agent loop's cancel flag.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// The built-in tools of the profile and the MCP servers' tools, as offered to a model.
    pub fn catalogue(&self) -> Vec<ToolSpec> {
        tools::specs_for(self.profile)
            .iter()
            .map(ToolSpec::from)
            .chain(self.mcp.specs())
            .collect()
    }

    /// Problems with the MCP servers (one that did not start, a tool name taken twice), for
    /// the user.
    pub fn mcp_problems(&self) -> &[String] {
        self.mcp.problems()
    }

    /// The file a tool call names, if the call may touch it: inside the workspace once links
    /// are followed, and not excluded.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
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
        if self.secrets.is_credential(&real) {
            // Read as absent: the model is not even told a credential is there.
            return Err(format!(
                "{path} cannot be reached: No such file or directory"
            ));
        }
        if !real.starts_with(&self.root) {
            return Err(format!(
                "{path} is outside the workspace ({}): refused; only files inside it can be used",
                self.root.display()
            ));
        }
        if self.secrets.is_workspace_secret(&real) {
            return Err(format!(
                "{path} is withheld: it holds secrets (the user's list: .env files, keys, \
                 .copilotignore); its content is never shown to the model. Do not try to read it \
                 another way"
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

    /// Whether reading `path` needs the user's yes: a git-ignored file may hold private data,
    /// unless the user said "always" for it in this workspace.
    fn ignored_read(&self, path: &str) -> Permission {
        let Ok(real) = self.resolve(path) else {
            // `run` says what is wrong with the path.
            return Permission::Granted;
        };
        let rel = self.shown(&real);
        if !crate::secrets::ignored::is_git_ignored(&self.root, &real)
            || self.ignored.allows(&self.root, &rel)
        {
            return Permission::Granted;
        }
        Permission::AskOrRemember(format!(
            "read `{rel}`, which git ignores (it may hold private data)"
        ))
    }

    /// The command line that runs `command` as this workspace's commands run (confined by the
    /// sandbox unless the user turned it off): for an ACP client's terminal, which runs it in
    /// the editor. An error when commands are refused here.
    pub fn terminal_argv(&self, command: &str) -> Result<Vec<String>, String> {
        self.runner.shell_argv(command)
    }

    /// Command output as the model may see it: the workspace's `.env` values replaced.
    pub fn redact(&self, output: &str) -> String {
        self.secrets.redactor().redact(output)
    }

    /// A path as the model and the user see it: relative to the workspace.
    pub fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// Runs one call (its permission settled).
    fn dispatch(&mut self, name: &str, arguments: &str) -> Outcome {
        if self.mcp.offers(name) {
            return self.mcp.call(name, arguments, &self.cancel);
        }
        let call = match tools::parse_in(self.profile, name, arguments) {
            Ok(c) => c,
            Err(e) => return Outcome::failed(e),
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
            Call::RunInTerminal(a) => self.run_in_terminal(&a.command, a.is_background),
            Call::GetTerminalOutput(a) => match self.background_output(&a.id) {
                Some((text, code, running)) => Outcome::done(format!(
                    "{text}\n[{}]",
                    if running {
                        "still running".to_owned()
                    } else {
                        format!("exited with status {}", code.unwrap_or(-1))
                    }
                )),
                None => Outcome::failed(format!(
                    "there is no background command `{}`; the ids are: {}",
                    a.id,
                    self.background_ids().join(", ")
                )),
            },
            Call::UpdateUserPreferences(a) => match crate::preferences::remember(&a.facts) {
                Ok(path) => Outcome::done(format!("remembered in {}", path.display())),
                Err(e) => Outcome::failed(format!("the preferences could not be saved: {e:#}")),
            },
            Call::GetChangedFiles(a) => self.changed_files(&a.source_control_state),
            Call::RunSubagent(_) => Outcome::failed("runSubagent is run by the agent loop"),
            Call::SearchCodebase(a) => self.search_codebase(&a.query),
            Call::MultiReplace(a) => self.multi_replace(&a.replacements),
            Call::ManageTodoList(a) => {
                if a.operation.as_deref() != Some("read") {
                    self.todos = a.todo_list;
                }
                Outcome::done(
                    self.todos
                        .iter()
                        .map(|t| format!("{}. [{}] {}\n", t.id, t.status, t.title))
                        .collect::<String>()
                        .trim_end()
                        .to_owned()
                        + if self.todos.is_empty() {
                            "(the to-do list is empty)"
                        } else {
                            ""
                        },
                )
            }
            Call::GetErrors(a) => {
                let mut out = String::new();
                for p in &a.file_paths {
                    match self.resolve(p) {
                        Ok(path) => out.push_str(&self.errors_of(&path)),
                        Err(e) => out.push_str(&format!("{e}\n")),
                    }
                }
                Outcome::done(out)
            }
        }
    }
}

impl agent::run::Tools for Workspace {
    fn permission(&mut self, call: &ToolCall) -> Permission {
        if self.mcp.offers(&call.name) {
            return Permission::Ask(format!(
                "call {} with {}",
                call.name,
                agent::budget::cut_middle(&call.arguments, 400)
            ));
        }
        match tools::parse_in(self.profile, &call.name, &call.arguments) {
            Ok(Call::RunInTerminal(a)) => {
                match agent::commands::judge(&a.command, &self.allow, &self.deny) {
                    agent::commands::Verdict::Deny(why) => Permission::Refused(format!(
                        "`{}` is refused by the user's rules ({why}); do not run it",
                        a.command
                    )),
                    agent::commands::Verdict::Allow => Permission::Granted,
                    agent::commands::Verdict::Ask => {
                        Permission::Ask(format!("run `{}` ({})", a.command, a.explanation))
                    }
                }
            }
            Ok(Call::ReadFile(a)) => self.ignored_read(&a.file_path),
            // Reading and editing inside the workspace need no one's leave; a call that does
            // not parse is answered by `run` with what was wrong.
            _ => Permission::Granted,
        }
    }

    fn run(&mut self, call: &ToolCall) -> Outcome {
        self.call_id.clone_from(&call.id);
        self.dispatch(&call.name, &call.arguments)
    }

    fn remember(&mut self, call: &ToolCall) {
        if let Ok(Call::ReadFile(a)) = tools::parse_in(self.profile, &call.name, &call.arguments)
            && let Ok(real) = self.resolve(&a.file_path)
        {
            let rel = self.shown(&real);
            if let Err(e) = self.ignored.allow(&self.root, &rel) {
                eprintln!("pilotfish: the answer for {rel} is not remembered: {e:#}");
            }
        }
    }
}
