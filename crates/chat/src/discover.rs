//! Finding the customization files of one or several workspace folders, as Copilot and VS Code
//! find them, and saying what went wrong with each file that could not be used.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::{
    apply::ApplyTo,
    files::{EntryKind, Files, FsError},
    frontmatter::{self, Frontmatter},
    jsonc,
};

/// Where to look, beyond the workspace folders themselves.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub folders: Vec<PathBuf>,
    /// For `~/` locations and the user-level folders.
    pub home: Option<PathBuf>,
    /// A `.code-workspace` file, whose `settings` are the workspace scope.
    pub workspace_file: Option<PathBuf>,
    /// The user's settings file (VS Code's `User/settings.json`).
    pub user_settings: Option<PathBuf>,
}

/// What kind of customization a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `.github/copilot-instructions.md`: always applies.
    CopilotInstructions,
    /// `*.instructions.md` (and `.claude/rules/*.md`): applies by `applyTo`.
    InstructionsFile,
    /// `AGENTS.md`: the nearest one applies to the files below it.
    AgentsMd,
    /// `CLAUDE.md`.
    ClaudeMd,
}

#[derive(Debug, Clone, Serialize)]
pub struct Instruction {
    pub kind: Kind,
    pub path: PathBuf,
    /// The workspace folder it belongs to (none for user-level files).
    pub folder: Option<PathBuf>,
    pub description: Option<String>,
    pub apply_to: Vec<String>,
    #[serde(skip)]
    pub matcher: Option<ApplyTo>,
    pub body: String,
}

/// A settings instruction: text, or a file's text, maybe for one language.
#[derive(Debug, Clone, Serialize)]
pub struct SettingInstruction {
    pub text: String,
    pub language: Option<String>,
    /// The settings file and scope it came from, and the instruction file if any.
    pub source: String,
    pub file: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Agent {
    pub name: String,
    pub path: PathBuf,
    pub description: Option<String>,
    pub tools: Vec<String>,
    pub model: Vec<String>,
    /// Whether the main agent may delegate to it on its own (`infer`, default true).
    pub infer: bool,
    pub body: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Skill {
    pub name: String,
    pub path: PathBuf,
    pub description: Option<String>,
    pub body: String,
}

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub path: PathBuf,
    pub message: String,
}

/// Everything found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Customizations {
    pub folders: Vec<PathBuf>,
    pub instructions: Vec<Instruction>,
    pub settings: Vec<SettingInstruction>,
    pub agents: Vec<Agent>,
    pub skills: Vec<Skill>,
    pub problems: Vec<Problem>,
}

const SETTING_INSTRUCTIONS: &str = "github.copilot.chat.codeGeneration.instructions";
const INSTRUCTION_LOCATIONS: &str = "chat.instructionsFilesLocations";
const AGENT_LOCATIONS: &str = "chat.agentFilesLocations";
const SKILL_LOCATIONS: &str = "chat.agentSkillsLocations";

/// Folders skipped when looking for nested `AGENTS.md`.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "dist",
    "build",
    "vendor",
    "__pycache__",
];
const MAX_DEPTH: usize = 8;

struct Finder<'a> {
    files: &'a dyn Files,
    ws: &'a Workspace,
    out: Customizations,
}

/// Finds every customization of `ws`.
pub fn discover(files: &dyn Files, ws: &Workspace) -> Customizations {
    let mut f = Finder {
        files,
        ws,
        out: Customizations {
            folders: ws.folders.clone(),
            ..Customizations::default()
        },
    };
    let settings = f.read_settings();
    f.copilot_instructions();
    let instruction_dirs = f.locations(
        &[
            ".github/instructions",
            ".claude/rules",
            "~/.claude/rules",
            "~/.copilot/instructions",
        ],
        &settings,
        INSTRUCTION_LOCATIONS,
    );
    for dir in instruction_dirs {
        f.instruction_files(&dir);
    }
    f.agents_md();
    f.setting_instructions(&settings);
    let agent_dirs = f.locations(
        &[
            ".github/agents",
            ".claude/agents",
            "~/.copilot/agents",
            "~/.claude/agents",
        ],
        &settings,
        AGENT_LOCATIONS,
    );
    for dir in agent_dirs {
        f.agents(&dir);
    }
    f.duplicate_agents();
    let skill_dirs = f.locations(
        &[
            ".github/skills",
            ".claude/skills",
            ".agents/skills",
            "~/.copilot/skills",
            "~/.claude/skills",
            "~/.agents/skills",
        ],
        &settings,
        SKILL_LOCATIONS,
    );
    for dir in skill_dirs {
        f.skills(&dir);
    }
    f.out
}

/// The settings of one scope.
struct Scope {
    name: String,
    file: PathBuf,
    /// Relative `file` entries and locations resolve against this folder.
    base: Option<PathBuf>,
    values: serde_json::Map<String, Value>,
}

impl Finder<'_> {
    fn problem(&mut self, path: &Path, message: impl Into<String>) {
        self.out.problems.push(Problem {
            path: path.to_path_buf(),
            message: message.into(),
        });
    }

    /// A file's text; missing files are silent, every other failure a problem.
    fn read(&mut self, path: &Path) -> Option<String> {
        match self.files.read_text(path) {
            Ok(t) => Some(t),
            Err(FsError::NotFound) => None,
            Err(e) => {
                self.problem(path, e.to_string());
                None
            }
        }
    }

    fn list(&mut self, dir: &Path) -> Vec<(String, EntryKind)> {
        match self.files.list(dir) {
            Ok(mut entries) => {
                entries.sort_by(|a, b| a.name.cmp(&b.name));
                entries.into_iter().map(|e| (e.name, e.kind)).collect()
            }
            Err(FsError::NotFound) => Vec::new(),
            Err(e) => {
                self.problem(dir, e.to_string());
                Vec::new()
            }
        }
    }

    fn read_settings(&mut self) -> Vec<Scope> {
        let mut scopes = Vec::new();
        for folder in self.ws.folders.clone() {
            scopes.push((
                "folder".to_owned(),
                folder.join(".vscode/settings.json"),
                Some(folder.clone()),
                false,
            ));
        }
        if let Some(w) = self.ws.workspace_file.clone() {
            let base = w.parent().map(Path::to_path_buf);
            scopes.push(("workspace".to_owned(), w, base, true));
        }
        if let Some(u) = self.ws.user_settings.clone() {
            scopes.push((
                "user".to_owned(),
                u,
                self.ws.folders.first().cloned(),
                false,
            ));
        }
        let mut out = Vec::new();
        for (name, file, base, nested) in scopes {
            let Some(text) = self.read(&file) else {
                continue;
            };
            match jsonc::parse(&text) {
                Ok(Value::Object(mut map)) => {
                    if nested {
                        map = match map.remove("settings") {
                            Some(Value::Object(s)) => s,
                            _ => serde_json::Map::new(),
                        };
                    }
                    out.push(Scope {
                        name,
                        file,
                        base,
                        values: map,
                    });
                }
                Ok(_) => self.problem(&file, "the settings file is not a JSON object"),
                Err(e) => self.problem(&file, format!("the settings file is not valid JSON: {e}")),
            }
        }
        out
    }

    /// `~/x`, absolute, or relative to each workspace folder.
    fn resolve(&self, location: &str) -> Vec<PathBuf> {
        if let Some(rest) = location.strip_prefix("~/") {
            return self.ws.home.iter().map(|h| h.join(rest)).collect();
        }
        let p = Path::new(location);
        if p.is_absolute() {
            return vec![p.to_path_buf()];
        }
        self.ws.folders.iter().map(|f| f.join(p)).collect()
    }

    /// The default locations, plus those a setting adds, minus those it turns off.
    fn locations(&mut self, defaults: &[&str], scopes: &[Scope], key: &str) -> Vec<PathBuf> {
        let mut chosen: Vec<String> = defaults.iter().map(|s| (*s).to_owned()).collect();
        for scope in scopes {
            match scope.values.get(key) {
                None => {}
                Some(Value::Object(map)) => {
                    for (loc, on) in map {
                        let loc = loc.trim_end_matches('/').to_owned();
                        match on.as_bool() {
                            Some(true) if !chosen.contains(&loc) => chosen.push(loc),
                            Some(false) => chosen.retain(|c| *c != loc),
                            Some(true) => {}
                            None => self.problem(
                                &scope.file,
                                format!("{key}: the value for {loc:?} must be true or false"),
                            ),
                        }
                    }
                }
                Some(_) => self.problem(
                    &scope.file,
                    format!("{key} must be an object of folder paths to true or false"),
                ),
            }
        }
        let mut dirs = Vec::new();
        for loc in chosen {
            for d in self.resolve(&loc) {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
        dirs
    }

    fn folder_of(&self, path: &Path) -> Option<PathBuf> {
        folder_of(&self.ws.folders, path).map(Path::to_path_buf)
    }

    fn header(&mut self, path: &Path, text: &str) -> Option<(Frontmatter, String)> {
        match frontmatter::split(text) {
            Ok((h, body)) => Some((h.unwrap_or_default(), body.to_owned())),
            Err(e) => {
                self.problem(path, e.to_string());
                None
            }
        }
    }

    fn copilot_instructions(&mut self) {
        for folder in self.ws.folders.clone() {
            let path = folder.join(".github/copilot-instructions.md");
            if let Some(text) = self.read(&path) {
                self.out.instructions.push(Instruction {
                    kind: Kind::CopilotInstructions,
                    path,
                    folder: Some(folder),
                    description: None,
                    apply_to: Vec::new(),
                    matcher: None,
                    body: text,
                });
            }
        }
    }

    /// Every `.md` file below `dir` (recursively, loops and depth bounded).
    fn markdown_below(&mut self, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        if depth > MAX_DEPTH {
            self.problem(
                dir,
                "is nested too deep (symbolic-link loop?); not searched further",
            );
            return;
        }
        for (name, kind) in self.list(dir) {
            let path = dir.join(&name);
            match kind {
                EntryKind::Dir => self.markdown_below(&path, depth + 1, out),
                EntryKind::File if name.ends_with(".md") => out.push(path),
                _ => {}
            }
        }
    }

    fn instruction_files(&mut self, dir: &Path) {
        let claude_rules = dir.ends_with(".claude/rules");
        let mut found = Vec::new();
        self.markdown_below(dir, 0, &mut found);
        for path in found {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if !claude_rules && !name.ends_with(".instructions.md") {
                continue;
            }
            if self.out.instructions.iter().any(|i| i.path == path) {
                continue;
            }
            let Some(text) = self.read(&path) else {
                continue;
            };
            let Some((header, body)) = self.header(&path, &text) else {
                continue;
            };
            let apply_to = header.apply_to.map(|a| a.items()).unwrap_or_default();
            let (matcher, bad) = ApplyTo::new(&apply_to);
            for b in bad {
                self.problem(&path, b.to_string());
            }
            self.out.instructions.push(Instruction {
                kind: Kind::InstructionsFile,
                folder: self.folder_of(&path),
                path,
                description: header.description,
                apply_to,
                matcher: Some(matcher),
                body,
            });
        }
    }

    fn agents_md(&mut self) {
        for folder in self.ws.folders.clone() {
            self.agents_md_below(&folder, &folder, 0);
        }
    }

    fn agents_md_below(&mut self, folder: &Path, dir: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for (name, kind) in self.list(dir) {
            let path = dir.join(&name);
            match kind {
                EntryKind::File if name == "AGENTS.md" || (name == "CLAUDE.md") => {
                    if let Some(body) = self.read(&path) {
                        self.out.instructions.push(Instruction {
                            kind: if name == "AGENTS.md" {
                                Kind::AgentsMd
                            } else {
                                Kind::ClaudeMd
                            },
                            path,
                            folder: Some(folder.to_path_buf()),
                            description: None,
                            apply_to: Vec::new(),
                            matcher: None,
                            body,
                        });
                    }
                }
                EntryKind::Dir
                    if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) =>
                {
                    self.agents_md_below(folder, &path, depth + 1);
                }
                _ => {}
            }
        }
    }

    fn setting_instructions(&mut self, scopes: &[Scope]) {
        let mut used_files: Vec<PathBuf> = Vec::new();
        for scope in scopes {
            let Some(value) = scope.values.get(SETTING_INSTRUCTIONS) else {
                continue;
            };
            let Some(items) = value.as_array() else {
                self.problem(
                    &scope.file,
                    format!("{SETTING_INSTRUCTIONS} must be a list"),
                );
                continue;
            };
            let source = format!("{} settings ({})", scope.name, scope.file.display());
            for item in items {
                let language = item["language"].as_str().map(str::to_owned);
                if let Some(text) = item["text"].as_str() {
                    if !self
                        .out
                        .settings
                        .iter()
                        .any(|s| s.file.is_none() && s.text == text)
                    {
                        self.out.settings.push(SettingInstruction {
                            text: text.to_owned(),
                            language,
                            source: source.clone(),
                            file: None,
                        });
                    }
                } else if let Some(file) = item["file"].as_str() {
                    let path = match (&scope.base, Path::new(file).is_absolute()) {
                        (Some(base), false) => base.join(file),
                        _ => PathBuf::from(file),
                    };
                    if used_files.contains(&path) {
                        continue;
                    }
                    used_files.push(path.clone());
                    match self.files.read_text(&path) {
                        Ok(text) => {
                            let text = text.trim().to_owned();
                            if !text.is_empty() {
                                self.out.settings.push(SettingInstruction {
                                    text,
                                    language,
                                    source: source.clone(),
                                    file: Some(path),
                                });
                            }
                        }
                        Err(e) => self.problem(&path, format!("named in {source}: {e}")),
                    }
                } else {
                    self.problem(
                        &scope.file,
                        format!("an entry of {SETTING_INSTRUCTIONS} has neither `text` nor `file`"),
                    );
                }
            }
        }
    }

    fn agents(&mut self, dir: &Path) {
        let mut found = Vec::new();
        self.markdown_below(dir, 0, &mut found);
        for path in found {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let direct = path.parent() == Some(dir);
            let is_agent = name.ends_with(".agent.md") || (direct && name != "README.md");
            if !is_agent || self.out.agents.iter().any(|a| a.path == path) {
                continue;
            }
            let Some(text) = self.read(&path) else {
                continue;
            };
            let Some((header, body)) = self.header(&path, &text) else {
                continue;
            };
            let stem = name
                .strip_suffix(".agent.md")
                .or_else(|| name.strip_suffix(".md"))
                .unwrap_or(&name)
                .to_owned();
            self.out.agents.push(Agent {
                name: header.name.unwrap_or(stem),
                path,
                description: header.description,
                tools: header.tools.map(|t| t.items()).unwrap_or_default(),
                model: header.model.map(|m| m.items()).unwrap_or_default(),
                infer: header.infer.unwrap_or(true),
                body,
            });
        }
    }

    /// Two agents with one name: `@name` reaches only the first.
    fn duplicate_agents(&mut self) {
        let agents = self.out.agents.clone();
        for (i, a) in agents.iter().enumerate() {
            if let Some(first) = agents[..i]
                .iter()
                .find(|b| b.name.eq_ignore_ascii_case(&a.name))
            {
                self.problem(
                    &a.path,
                    format!(
                        "another agent is also named {:?} ({}); @{} invokes that one",
                        a.name,
                        first.path.display(),
                        a.name
                    ),
                );
            }
        }
    }

    fn skills(&mut self, dir: &Path) {
        for (name, kind) in self.list(dir) {
            if kind != EntryKind::Dir {
                continue;
            }
            let path = dir.join(&name).join("SKILL.md");
            if self.out.skills.iter().any(|s| s.path == path) {
                continue;
            }
            let Some(text) = self.read(&path) else {
                continue;
            };
            let Some((header, body)) = self.header(&path, &text) else {
                continue;
            };
            self.out.skills.push(Skill {
                // The folder names the skill; a different `name` in the header is noted.
                name: name.clone(),
                description: header.description,
                body,
                path: path.clone(),
            });
            if let Some(n) = header.name
                && n != name
            {
                self.problem(
                    &path,
                    format!(
                        "its header names it {n:?} but skills are named by their folder, {name:?}"
                    ),
                );
            }
        }
    }
}

impl Customizations {
    /// The instructions that apply when these files are in context, in prompt order:
    /// `copilot-instructions.md` of every folder, `*.instructions.md` whose `applyTo` covers
    /// one of the files, the nearest `AGENTS.md` for each file (the folder's root one when no
    /// file is given) and root `CLAUDE.md` files.
    pub fn applicable(&self, files: &[PathBuf]) -> Vec<&Instruction> {
        let mut out: Vec<&Instruction> = Vec::new();
        for i in &self.instructions {
            let take = match i.kind {
                Kind::CopilotInstructions => true,
                Kind::InstructionsFile => i.matcher.as_ref().is_some_and(|m| {
                    files.iter().any(|f| {
                        relative(f, i.folder.as_deref().or_else(|| self.folder_of(f)))
                            .is_some_and(|r| m.matches(&r))
                    })
                }),
                Kind::AgentsMd => {
                    let dir = i.path.parent().unwrap_or(Path::new("/"));
                    if files.is_empty() {
                        i.folder.as_deref() == Some(dir)
                    } else {
                        files
                            .iter()
                            .any(|f| self.nearest_agents_md(f) == Some(&i.path))
                    }
                }
                Kind::ClaudeMd => i.path.parent() == i.folder.as_deref(),
            };
            if take {
                out.push(i);
            }
        }
        out
    }

    fn folder_of(&self, path: &Path) -> Option<&Path> {
        folder_of(&self.folders, path)
    }

    /// The `AGENTS.md` closest above `file` in its workspace folder.
    pub fn nearest_agents_md(&self, file: &Path) -> Option<&PathBuf> {
        self.instructions
            .iter()
            .filter(|i| i.kind == Kind::AgentsMd)
            .filter(|i| i.path.parent().is_some_and(|d| file.starts_with(d)))
            .max_by_key(|i| i.path.as_os_str().len())
            .map(|i| &i.path)
    }

    /// Instruction files that do not apply now but can be loaded on demand (they say what
    /// they are for).
    pub fn on_demand(&self, files: &[PathBuf]) -> Vec<&Instruction> {
        let applied = self.applicable(files);
        self.instructions
            .iter()
            .filter(|i| i.kind == Kind::InstructionsFile)
            .filter(|i| !applied.iter().any(|a| a.path == i.path))
            .filter(|i| i.description.is_some())
            .collect()
    }
}

/// The workspace folder holding `path`, the innermost when folders are nested.
pub fn folder_of<'a>(folders: &'a [PathBuf], path: &Path) -> Option<&'a Path> {
    folders
        .iter()
        .filter(|f| path.starts_with(f))
        .max_by_key(|f| f.as_os_str().len())
        .map(PathBuf::as_path)
}

/// `path` relative to `folder`, `/`-separated.
pub fn relative(path: &Path, folder: Option<&Path>) -> Option<String> {
    let rel = match folder {
        Some(f) => path.strip_prefix(f).ok()?,
        None => path,
    };
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}
