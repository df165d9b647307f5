//! Discovery and rendering on in-memory workspaces: every discovery rule, every kind of bad
//! file, multi-root workspaces, and the budget's guarantees. (The fixture workspaces on disk
//! in `test_data/` are exercised through the command line in `crates/cli/tests`.)

use std::path::PathBuf;

use chat::{
    FsError, MemFiles, Workspace, discover,
    discover::Kind,
    render::{Attachment, ChatRequest, Turn, render},
};
use proptest::prelude::*;

fn ws(folders: &[&str]) -> Workspace {
    Workspace {
        folders: folders.iter().map(PathBuf::from).collect(),
        home: Some(PathBuf::from("/home/u")),
        workspace_file: None,
        user_settings: Some(PathBuf::from("/home/u/.config/Code/User/settings.json")),
    }
}

fn request(message: &str) -> ChatRequest {
    ChatRequest {
        message: message.to_owned(),
        agent: None,
        attachments: Vec::new(),
        history: Vec::new(),
        language: None,
        labels: Vec::new(),
        max_tokens: 100_000,
        history_tokens: 32_768,
    }
}

fn o200k() -> tokenizer::Tokenizer {
    tokenizer::Tokenizer::by_name("o200k_base", None).unwrap()
}

#[test]
fn user_level_folders_and_locations_settings() {
    let files = MemFiles::new()
        .file(
            "/home/u/.copilot/agents/mine.agent.md",
            "---\ndescription: mine\n---\nMy agent.",
        )
        .file("/home/u/.claude/agents/helper.md", "Claude-style agent.")
        .file("/home/u/.claude/rules/all.md", "Rule from home.")
        .file(
            "/home/u/.copilot/skills/deploy/SKILL.md",
            "---\ndescription: Deploy\n---\nSteps.",
        )
        .file(
            "/home/u/extra/x.instructions.md",
            "---\napplyTo: '**'\n---\nExtra.",
        )
        .file("/abs/agents/abs.agent.md", "Absolute agent.")
        .file(
            "/w/.agents/skills/lint/SKILL.md",
            "---\ndescription: Lint\n---\nRun the linter.",
        )
        .file(
            "/w/.claude/agents/claude-agent.md",
            "Workspace Claude agent.",
        )
        .file("/home/u/.agents/skills/fmt/SKILL.md", "Format.")
        .file(
            "/w/.github/instructions/a.instructions.md",
            "---\napplyTo: '**'\n---\nA.",
        )
        .file(
            "/home/u/.config/Code/User/settings.json",
            r#"{"chat.instructionsFilesLocations": {"~/extra": true, ".github/instructions": false},
                "chat.agentFilesLocations": {"/abs/agents": true}}"#,
        )
        .dir("/w");
    let found = discover(&files, &ws(&["/w"]));
    let names: Vec<&str> = found.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        ["claude-agent", "mine", "helper", "abs"],
        "{:?}",
        found.problems
    );
    let instruction_paths: Vec<String> = found
        .instructions
        .iter()
        .map(|i| i.path.display().to_string())
        .collect();
    assert_eq!(
        instruction_paths,
        [
            "/home/u/.claude/rules/all.md",
            "/home/u/extra/x.instructions.md"
        ]
    );
    let skills: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skills, ["lint", "deploy", "fmt"]);
    assert!(found.problems.is_empty(), "{:?}", found.problems);
}

#[test]
fn settings_scopes_deduplicate_and_scope_languages() {
    let files = MemFiles::new()
        .file(
            "/w/.vscode/settings.json",
            r#"{"github.copilot.chat.codeGeneration.instructions": [{"text": "A"}, {"file": "rules.md", "language": "rust"}]}"#,
        )
        .file("/w/rules.md", "  Use Result.  \n")
        .file(
            "/w/my.code-workspace",
            r#"{"folders": [], "settings": {"github.copilot.chat.codeGeneration.instructions": [{"text": "A"}, {"text": "B"}, {"file": "rules.md"}]}}"#,
        )
        .file(
            "/home/u/.config/Code/User/settings.json",
            r#"{"github.copilot.chat.codeGeneration.instructions": "not a list"}"#,
        );
    let mut w = ws(&["/w"]);
    w.workspace_file = Some(PathBuf::from("/w/my.code-workspace"));
    let found = discover(&files, &w);
    let texts: Vec<(&str, Option<&str>)> = found
        .settings
        .iter()
        .map(|s| (s.text.as_str(), s.language.as_deref()))
        .collect();
    assert_eq!(
        texts,
        [("A", None), ("Use Result.", Some("rust")), ("B", None)]
    );
    assert_eq!(found.problems.len(), 1);
    assert!(found.problems[0].message.contains("must be a list"));
    // Language-scoped lines appear only for that language.
    let mut r = request("hi");
    r.language = Some("rust".into());
    let p = render(&found, &r, &o200k()).unwrap();
    assert!(p.messages[0].content.contains("For rust code: Use Result."));
    r.language = Some("python".into());
    let p = render(&found, &r, &o200k()).unwrap();
    assert!(!p.messages[0].content.contains("Use Result."));
}

#[test]
fn bad_files_are_problems_and_the_rest_loads() {
    let files = MemFiles::new()
        .fault(
            "/w/.github/instructions/loop.instructions.md",
            FsError::SymlinkLoop,
        )
        .fault(
            "/w/.github/instructions/secret.instructions.md",
            FsError::Unreadable("permission denied".into()),
        )
        .fault(
            "/w/.github/agents",
            FsError::Unreadable("permission denied".into()),
        )
        .file(
            "/w/.github/instructions/ok.instructions.md",
            "---\napplyTo: '*.rs'\n---\nOK.",
        )
        .file(
            "/w/.github/instructions/bad.instructions.md",
            "---\napplyTo: [\n---\n",
        )
        .file(
            "/w/.github/instructions/nul.instructions.md",
            b"a\0b".as_slice(),
        )
        .file(
            "/w/.github/instructions/latin1.instructions.md",
            b"caf\xe9".as_slice(),
        )
        .file(
            "/w/.github/skills/s/SKILL.md",
            "---\nname: other\n---\nSkill.",
        )
        .dir("/w/AGENTS.md")
        .file("/w/.vscode/settings.json", "{ not json");
    let found = discover(&files, &ws(&["/w"]));
    let messages: Vec<String> = found
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.path.display(), p.message))
        .collect();
    let expect = [
        "loop.instructions.md: leads into a symbolic-link loop",
        "secret.instructions.md: cannot be read: permission denied",
        "/w/.github/agents: cannot be read",
        "bad.instructions.md: the header is not valid YAML",
        "nul.instructions.md: is a binary file",
        "latin1.instructions.md: is not UTF-8",
        "SKILL.md: its header names it \"other\"",
        "settings.json: the settings file is not valid JSON",
    ];
    for e in expect {
        assert!(
            messages.iter().any(|m| m.contains(e)),
            "missing {e:?} in {messages:#?}"
        );
    }
    assert_eq!(found.instructions.len(), 1, "the good file still loads");
    assert_eq!(found.skills.len(), 1);
    // AGENTS.md as a directory is not an instruction (it is walked as a folder).
    assert!(found.instructions.iter().all(|i| i.kind != Kind::AgentsMd));
}

#[test]
fn nearest_agents_md_and_multi_root_attachments() {
    let files = MemFiles::new()
        .file("/a/AGENTS.md", "Root A.")
        .file("/a/pkg/AGENTS.md", "Package.")
        .file("/a/pkg/deep/x.py", "x")
        .file("/a/other/y.py", "y")
        .file("/a/node_modules/z/AGENTS.md", "Never looked at.")
        .file("/b/.github/copilot-instructions.md", "Folder B.")
        .file(
            "/b/.github/instructions/dup.instructions.md",
            "---\napplyTo: '**'\n---\nFolder B.",
        );
    let found = discover(&files, &ws(&["/a", "/b"]));
    assert_eq!(
        found
            .nearest_agents_md(&PathBuf::from("/a/pkg/deep/x.py"))
            .unwrap(),
        &PathBuf::from("/a/pkg/AGENTS.md")
    );
    assert_eq!(
        found
            .nearest_agents_md(&PathBuf::from("/a/other/y.py"))
            .unwrap(),
        &PathBuf::from("/a/AGENTS.md")
    );
    assert!(
        found
            .instructions
            .iter()
            .all(|i| !i.path.starts_with("/a/node_modules"))
    );
    let mut r = request("hi");
    r.attachments = vec![Attachment {
        path: "/a/pkg/deep/x.py".into(),
        text: "x\n".into(),
        selection: None,
    }];
    let p = render(&found, &r, &o200k()).unwrap();
    let system = &p.messages[0].content;
    assert!(system.contains("This is a multi-root workspace."));
    assert!(system.contains(
        "<attachment filePath=\"pkg/AGENTS.md\" workspaceFolder=\"a\">\nPackage.\n</attachment>"
    ));
    assert!(!system.contains("Root A."), "only the nearest AGENTS.md");
    assert_eq!(
        system.matches("Folder B.").count(),
        1,
        "deduplicated by content"
    );
}

#[test]
fn history_is_capped_oldest_first() {
    let found = discover(&MemFiles::new().dir("/w"), &ws(&["/w"]));
    let mut r = request("now");
    r.history = (0..10)
        .map(|i| Turn {
            user: format!("question {i} {}", "word ".repeat(50)),
            tool_calls: Vec::new(),
            assistant: format!("answer {i}"),
        })
        .collect();
    r.history_tokens = 200;
    let p = render(&found, &r, &o200k()).unwrap();
    let contents: Vec<&str> = p.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(
        contents.iter().any(|c| c.starts_with("question 9")),
        "the newest turn stays"
    );
    assert!(
        !contents.iter().any(|c| c.starts_with("question 0")),
        "the oldest goes first"
    );
    let history: usize = p.messages[1..p.messages.len() - 1]
        .iter()
        .map(|m| m.tokens)
        .sum();
    assert!(history <= 200);
    assert!(p.notes.iter().any(|n| n.contains("oldest earlier turn")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the attachments, history and limit, a prompt is within the limit or refused.
    #[test]
    fn the_prompt_never_exceeds_the_limit(
        lines in prop::collection::vec("[a-z ]{0,60}", 0..80),
        turns in 0usize..6,
        max in 80usize..1500,
    ) {
        let files = MemFiles::new().file("/w/.github/copilot-instructions.md", "Be brief.");
        let found = discover(&files, &ws(&["/w"]));
        let mut r = request("explain the code");
        r.max_tokens = max;
        r.attachments = vec![Attachment { path: "/w/a.py".into(), text: lines.join("\n"), selection: None }];
        r.history = (0..turns).map(|i| Turn { user: format!("turn {i}"), tool_calls: Vec::new(), assistant: "ok".repeat(i * 10) }).collect();
        if let Ok(p) = render(&found, &r, &o200k()) {
            let counted: usize = p.messages.iter().map(|m| m.tokens).sum::<usize>() + chat::render::REPLY_PRIMING;
            prop_assert_eq!(counted, p.tokens);
            prop_assert!(p.tokens <= max, "{} > {}", p.tokens, max);
        }
    }
}
