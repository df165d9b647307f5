//! The tools of seed 004 as the model sees them: typed arguments whose JSON schemas are
//! generated from the Rust types, and a parser that answers a bad call with an error the
//! model can act on.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// `edit_file`: the new text of a file, or of parts of it with `...existing code...` lines
/// standing for what stays.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditFile {
    /// The file to edit or create (absolute inside the workspace, or relative to its root).
    pub file_path: String,
    /// The new code. Unchanged regions are one comment line `...existing code...` each, in the
    /// file's comment syntax; include an unchanged line before and after each change.
    pub code: String,
    /// What the edit does, in one sentence.
    #[serde(default)]
    pub explanation: String,
}

/// `read_file`: lines of a file, counted from 0, both ends included.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFile {
    pub file_path: String,
    pub start_line_number_base_zero: usize,
    pub end_line_number_base_zero: usize,
}

/// `list_dir`: the entries of a folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListDir {
    pub path: String,
}

/// `file_search`: files whose path from the workspace root matches a glob.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FileSearch {
    /// A glob such as `**/*.py` or `src/**/test_*.rs`.
    pub query: String,
}

/// `grep_search`: lines that contain a text or match a regular expression.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepSearch {
    pub query: String,
    #[serde(default)]
    pub is_regexp: bool,
    /// Only files whose path matches this glob.
    #[serde(default)]
    pub include_pattern: Option<String>,
}

/// `run_in_terminal`: a shell command in the workspace.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunInTerminal {
    pub command: String,
    /// Why it is run, in one sentence (shown to the user who approves it).
    #[serde(default)]
    pub explanation: String,
    #[serde(default)]
    pub is_background: bool,
}

/// `get_terminal_output`: what a background command printed so far.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetTerminalOutput {
    /// The id `run_in_terminal` gave the background command.
    pub id: String,
}

/// `get_errors`: the syntax and compile errors of files.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetErrors {
    pub file_paths: Vec<String>,
}

/// `replace_string_in_file`: one exact piece of text replaced.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplaceString {
    pub file_path: String,
    /// The text to replace, exactly as in the file, with 3 to 5 unchanged lines around the
    /// change so that it occurs once.
    pub old_string: String,
    pub new_string: String,
}

/// `create_file`: a new file with its whole content.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateFile {
    pub file_path: String,
    pub content: String,
}

/// `search_codebase`: the workspace's code most relevant to a question.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchCodebase {
    /// What to look for, in words and the names that might appear in the code.
    pub query: String,
}

/// `updateUserPreferences`: facts about the user to remember in later runs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct UpdateUserPreferences {
    pub facts: Vec<String>,
}

/// `get_changed_files`: the workspace's uncommitted changes as git diffs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetChangedFiles {
    #[serde(default)]
    pub workspace_paths: Vec<String>,
    /// `staged`, `unstaged` and/or `merge-conflicts`; all when empty.
    #[serde(default)]
    pub source_control_state: Vec<String>,
}

/// `runSubagent`: a custom agent runs a task and returns its final answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSubagent {
    pub agent_name: String,
    pub prompt: String,
}

/// Copilot's `read_file` today: lines counted from 1, both ends included.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadFileLines {
    pub file_path: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// `manage_todo_list`: the model's to-do list for the task, written whole each time (or read).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManageTodoList {
    /// `write` (the default) replaces the list with `todoList`; `read` returns it.
    #[serde(default)]
    pub operation: Option<String>,
    /// The whole list, in order.
    #[serde(default)]
    pub todo_list: Vec<Todo>,
}

/// One step of the to-do list.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
pub struct Todo {
    pub id: u32,
    /// What the step does, in a few words.
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// `not-started`, `in-progress` or `completed`.
    pub status: String,
}

/// The states a step of the to-do list may be in.
pub const TODO_STATES: [&str; 3] = ["not-started", "in-progress", "completed"];

/// `multi_replace_string_in_file`: several replacements, in one or more files, applied
/// together or not at all.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MultiReplace {
    pub replacements: Vec<ReplaceString>,
    #[serde(default)]
    pub explanation: String,
}

/// Which tool set the model is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `original`: the tools of Copilot's agent mode as its first published system prompt
    /// names them (seed 004; lines from 0, `edit_file`). The default.
    Original,
    /// `copilot`: the tools Copilot's agent mode offers models today (lines from 1,
    /// `insert_edit_into_file`, `multi_replace_string_in_file`, `semantic_search`).
    Copilot,
}

impl Profile {
    /// The names users give on the command line.
    pub const NAMES: &'static str = "original or copilot";

    /// A profile by its name; `seed004` and `default` are older names of `original`, still
    /// taken so that existing scripts keep working.
    pub fn parse(name: &str) -> Option<Profile> {
        match name {
            "original" | "seed004" | "default" => Some(Profile::Original),
            "copilot" => Some(Profile::Copilot),
            _ => None,
        }
    }
}

/// A call, parsed and checked.
#[derive(Debug, Clone)]
pub enum Call {
    EditFile(EditFile),
    ReadFile(ReadFile),
    ListDir(ListDir),
    FileSearch(FileSearch),
    GrepSearch(GrepSearch),
    RunInTerminal(RunInTerminal),
    GetErrors(GetErrors),
    ReplaceString(ReplaceString),
    CreateFile(CreateFile),
    UpdateUserPreferences(UpdateUserPreferences),
    GetChangedFiles(GetChangedFiles),
    RunSubagent(RunSubagent),
    SearchCodebase(SearchCodebase),
    GetTerminalOutput(GetTerminalOutput),
    MultiReplace(MultiReplace),
    ManageTodoList(ManageTodoList),
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: Value,
}

fn schema<T: JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        // Servers' tool templates want the bare object schema.
        o.remove("$schema");
        o.remove("title");
    }
    v
}

/// The tools offered: seed 004's, plus the string-replacement and whole-file tools that
/// smaller local models use more reliably than lazy edits.
pub fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "read_file",
            description: "Read lines of a file. Line numbers count from 0 and both ends are included. Read enough to understand the code before you edit it.",
            parameters: schema::<ReadFile>(),
        },
        Spec {
            name: "list_dir",
            description: "List a folder of the workspace; folders end with /.",
            parameters: schema::<ListDir>(),
        },
        Spec {
            name: "file_search",
            description: "Find files of the workspace by a glob on their path (such as **/*.py). At most 20 results.",
            parameters: schema::<FileSearch>(),
        },
        Spec {
            name: "grep_search",
            description: "Find lines of the workspace's files containing a text (or matching a regular expression). At most 20 results, with path and line.",
            parameters: schema::<GrepSearch>(),
        },
        Spec {
            name: "search_codebase",
            description: "Search the workspace's code for what a question is about: the most relevant pieces of files, or all of the workspace when it is small. Prefer it unless you know the exact text or file name. Never call it twice in parallel.",
            parameters: schema::<SearchCodebase>(),
        },
        Spec {
            name: "edit_file",
            description: "Change a file, or create it. Write only the parts that change; stand for each unchanged region with one comment line `...existing code...` in the file's comment syntax, and keep an unchanged line before and after each change so it can be placed. Without any such line, the code is the whole new file.",
            parameters: schema::<EditFile>(),
        },
        Spec {
            name: "replace_string_in_file",
            description: "Replace one piece of text in a file. oldString must be copied exactly from the file, with 3 to 5 unchanged lines around the change, and occur once.",
            parameters: schema::<ReplaceString>(),
        },
        Spec {
            name: "create_file",
            description: "Create a new file with its whole content. Refused if the file exists: edit it instead.",
            parameters: schema::<CreateFile>(),
        },
        Spec {
            name: "run_in_terminal",
            description: "Run a shell command in the workspace and get its output and exit status. One shell serves the whole run: its current folder and variables stay between commands. A long-running process (a server, a watcher) must use isBackground=true; its id comes back for get_terminal_output. Run one command at a time, never several in parallel. The user may decline it.",
            parameters: schema::<RunInTerminal>(),
        },
        Spec {
            name: "get_changed_files",
            description: "Get the workspace's uncommitted changes as git diffs (staged, unstaged, merge conflicts).",
            parameters: schema::<GetChangedFiles>(),
        },
        Spec {
            name: "updateUserPreferences",
            description: "Remember facts about the user or their preferences (a coding style, a tool they use) for later runs. Call it after finishing the task when the user told you such a fact.",
            parameters: schema::<UpdateUserPreferences>(),
        },
        Spec {
            name: "runSubagent",
            description: "Hand a task to one of the workspace's custom agents; it works on its own and returns its final answer. Use it when the instructions say a kind of task belongs to that agent.",
            parameters: schema::<RunSubagent>(),
        },
        Spec {
            name: "get_terminal_output",
            description: "Get what a background command started with run_in_terminal has printed so far, and whether it still runs.",
            parameters: schema::<GetTerminalOutput>(),
        },
        Spec {
            name: "get_errors",
            description: "Get the syntax and compile errors of files. Call it after editing a file, to check the edit.",
            parameters: schema::<GetErrors>(),
        },
    ]
}

/// The tools of a profile.
pub fn specs_for(profile: Profile) -> Vec<Spec> {
    let original = specs();
    if profile == Profile::Original {
        return original;
    }
    let mut out: Vec<Spec> = Vec::new();
    for s in original {
        match s.name {
            "read_file" => out.push(Spec {
                name: "read_file",
                description: "Read lines of a file. Lines count from 1 and both ends are included. Read enough to understand the code before you edit it.",
                parameters: schema::<ReadFileLines>(),
            }),
            "edit_file" => out.push(Spec {
                name: "insert_edit_into_file",
                description: s.description,
                parameters: s.parameters,
            }),
            "search_codebase" => out.push(Spec {
                name: "semantic_search",
                description: s.description,
                parameters: s.parameters,
            }),
            "replace_string_in_file" => {
                out.push(s);
                out.push(Spec {
                    name: "multi_replace_string_in_file",
                    description: "Make several replace_string_in_file replacements at once, in one or more files; all are applied or none.",
                    parameters: schema::<MultiReplace>(),
                });
            }
            _ => out.push(s),
        }
    }
    // Copilot's agent keeps a to-do list of the task's steps; editors show it as the plan.
    out.push(Spec {
        name: "manage_todo_list",
        description: "Keep a to-do list of the task's steps: write the whole list (each step with an id, a title and its status: not-started, in-progress or completed) when you plan the work and each time a step starts or ends; read returns it. Use it for tasks of several steps.",
        parameters: schema::<ManageTodoList>(),
    });
    out
}

/// Parses a call of a profile's tool.
pub fn parse_in(profile: Profile, name: &str, arguments: &str) -> Result<Call, String> {
    if profile == Profile::Original {
        return parse(name, arguments);
    }
    let value = || -> Result<Value, String> {
        serde_json::from_str(if arguments.trim().is_empty() { "{}" } else { arguments }).map_err(|e| {
            format!("the arguments of {name} are not valid JSON ({e}); send one JSON object with the parameters")
        })
    };
    match name {
        "read_file" => {
            let r: ReadFileLines = serde_json::from_value(value()?).map_err(|e| {
                format!("the arguments of read_file do not fit its parameters: {e}")
            })?;
            if r.start_line == 0 || r.end_line < r.start_line {
                return Err("lines count from 1, and endLine must not be before startLine".into());
            }
            Ok(Call::ReadFile(ReadFile {
                file_path: r.file_path,
                start_line_number_base_zero: r.start_line - 1,
                end_line_number_base_zero: r.end_line - 1,
            }))
        }
        "multi_replace_string_in_file" => {
            let m: MultiReplace = serde_json::from_value(value()?).map_err(|e| {
                format!(
                    "the arguments of multi_replace_string_in_file do not fit its parameters: {e}"
                )
            })?;
            if m.replacements.is_empty() {
                return Err("replacements is empty".into());
            }
            Ok(Call::MultiReplace(m))
        }
        "manage_todo_list" => {
            let m: ManageTodoList = serde_json::from_value(value()?).map_err(|e| {
                format!("the arguments of manage_todo_list do not fit its parameters: {e}")
            })?;
            if let Some(t) = m
                .todo_list
                .iter()
                .find(|t| !TODO_STATES.contains(&t.status.as_str()))
            {
                return Err(format!(
                    "step {} has the status `{}`; use not-started, in-progress or completed",
                    t.id, t.status
                ));
            }
            Ok(Call::ManageTodoList(m))
        }
        "insert_edit_into_file" => parse("edit_file", arguments),
        "semantic_search" => parse("search_codebase", arguments),
        "edit_file" | "search_codebase" => Err(format!(
            "there is no tool `{name}` here; the tools are {}",
            specs_for(profile)
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => parse(name, arguments).map_err(|e| {
            if e.starts_with("there is no tool") {
                format!(
                    "there is no tool `{name}`; the tools are {}",
                    specs_for(profile)
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                e
            }
        }),
    }
}

/// Parses a call's arguments for its tool. The error says what was wrong in words the model can
/// act on (unknown tool, JSON that does not parse, a missing or mistyped parameter).
pub fn parse(name: &str, arguments: &str) -> Result<Call, String> {
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    let value: Value = serde_json::from_str(arguments).map_err(|e| {
        format!("the arguments of {name} are not valid JSON ({e}); send one JSON object with the parameters")
    })?;
    fn typed<T: serde::de::DeserializeOwned>(name: &str, v: Value) -> Result<T, String> {
        serde_json::from_value(v)
            .map_err(|e| format!("the arguments of {name} do not fit its parameters: {e}"))
    }
    Ok(match name {
        "edit_file" => Call::EditFile(typed(name, value)?),
        "read_file" => {
            let r: ReadFile = typed(name, value)?;
            if r.end_line_number_base_zero < r.start_line_number_base_zero {
                return Err("endLineNumberBaseZero is before startLineNumberBaseZero".into());
            }
            Call::ReadFile(r)
        }
        "list_dir" => Call::ListDir(typed(name, value)?),
        "file_search" => Call::FileSearch(typed(name, value)?),
        "grep_search" => Call::GrepSearch(typed(name, value)?),
        "run_in_terminal" => {
            let r: RunInTerminal = typed(name, value)?;
            if r.command.trim().is_empty() {
                return Err("command is empty".into());
            }
            Call::RunInTerminal(r)
        }
        "get_errors" => Call::GetErrors(typed(name, value)?),
        "replace_string_in_file" => Call::ReplaceString(typed(name, value)?),
        "create_file" => Call::CreateFile(typed(name, value)?),
        "updateUserPreferences" => {
            let p: UpdateUserPreferences = typed(name, value)?;
            if p.facts.iter().all(|f| f.trim().is_empty()) {
                return Err("facts is empty: give the facts to remember".into());
            }
            Call::UpdateUserPreferences(p)
        }
        "get_changed_files" => Call::GetChangedFiles(typed(name, value)?),
        "runSubagent" => Call::RunSubagent(typed(name, value)?),
        "search_codebase" => Call::SearchCodebase(typed(name, value)?),
        "get_terminal_output" => Call::GetTerminalOutput(typed(name, value)?),
        other => {
            let known: Vec<&str> = specs().iter().map(|s| s.name).collect();
            return Err(format!(
                "there is no tool `{other}`; the tools are {}",
                known.join(", ")
            ));
        }
    })
}
