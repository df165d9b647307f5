//! Judging a command line before the agent runs it: every sub-command (the parts joined by
//! `&&`, `||`, `;`, `|`, and what `$(...)` or backquotes run) is judged on its own against
//! allow and deny rules, and a deny anywhere wins. Read-only commands are allowed by default;
//! commands that delete, fetch and execute, or escalate are never allowed by a rule, so they
//! are always asked about (or approved by `--yes`).

/// What to do with a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every sub-command is allowed: run it without asking.
    Allow,
    /// Ask the user (or run it under `--yes`).
    Ask,
    /// A deny rule matched this sub-command: never run.
    Deny(String),
}

/// Read-only commands run without asking by default.
pub const DEFAULT_ALLOW: &[&str] = &[
    "cd",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "grep",
    "rg",
    "sort",
    "uniq",
    "diff",
    "file",
    "stat",
    "tree",
    "which",
    "git status",
    "git diff",
    "git log",
    "git show",
    "git branch",
    "cargo check",
    "cargo test",
    "cargo build",
    "go vet",
    "go build",
    "go test",
    "python3 -m py_compile",
    "python3 -m pytest",
    "pytest",
    "npm test",
    "tsc --noEmit",
];

/// Sub-commands that no allow rule lets through: they delete, overwrite, escalate, fetch
/// code to run, or publish.
const ALWAYS_ASK: &[&str] = &[
    "rm",
    "sudo",
    "su",
    "dd",
    "mkfs",
    "chmod",
    "chown",
    "curl",
    "wget",
    "sh",
    "bash",
    "zsh",
    "eval",
    "git push",
    "git reset",
    "git clean",
    "git checkout",
    "mv",
    "kill",
    "shutdown",
    "reboot",
];

/// Judges `command` against `allow` and `deny` rules. A rule is a command prefix, word by word
/// (`git status` matches `git status --short`, not `git statuses`).
pub fn judge(command: &str, allow: &[String], deny: &[String]) -> Verdict {
    let parts = subcommands(command);
    let mut all_allowed = !parts.is_empty();
    for part in &parts {
        if let Some(rule) = deny.iter().find(|r| matches_rule(part, r)) {
            return Verdict::Deny(format!("`{part}` matches the deny rule `{rule}`"));
        }
        let allowed = allow.iter().any(|r| matches_rule(part, r));
        if dangerous(part) || !allowed {
            all_allowed = false;
        }
    }
    if all_allowed {
        Verdict::Allow
    } else {
        Verdict::Ask
    }
}

/// Whether a sub-command deletes, overwrites, escalates or runs code it fetched: no rule and no
/// remembered answer lets it through.
fn dangerous(part: &str) -> bool {
    ALWAYS_ASK.iter().any(|r| matches_rule(part, r))
        || part.contains(" -exec")
        || part.contains(" -delete")
        || part.contains('>')
}

/// What a user's "always" answer about a command line covers, so that it never reaches
/// another program: the program and its first argument when the line is one plain
/// sub-command, the exact line otherwise (a dangerous command, a compound line, a lone
/// program, a variable set before the program).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Always {
    /// Lines whose every sub-command starts with these two words, the program written as it
    /// was (so `/tmp/x/touch` is another program than `touch`).
    Prefix([String; 2]),
    /// This line and no other.
    Exact(String),
}

impl Always {
    /// What an "always" answer about `command` covers.
    pub fn of(command: &str) -> Always {
        let parts = subcommands(command);
        if let [part] = parts.as_slice()
            && !dangerous(part)
            && let [program, first, ..] = part.split_whitespace().collect::<Vec<_>>()[..]
            && !program.contains('=')
            && !part.contains(['$', '`'])
        {
            return Always::Prefix([program.to_owned(), first.to_owned()]);
        }
        Always::Exact(command.trim().to_owned())
    }

    /// Whether the answer covers `command`.
    pub fn covers(&self, command: &str) -> bool {
        match self {
            Always::Exact(line) => command.trim() == line,
            Always::Prefix(words) => {
                let parts = subcommands(command);
                !parts.is_empty()
                    && parts.iter().all(|part| {
                        !dangerous(part)
                            && !part.contains(['$', '`'])
                            && part
                                .split_whitespace()
                                .take(2)
                                .eq(words.iter().map(String::as_str))
                    })
            }
        }
    }

    /// What the answer covers, for the user: `touch a.txt …` or the exact line.
    pub fn shown(&self) -> String {
        match self {
            Always::Prefix([program, first]) => format!("{program} {first} …"),
            Always::Exact(line) => line.clone(),
        }
    }
}

fn matches_rule(part: &str, rule: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let rule: Vec<&str> = rule.split_whitespace().collect();
    // Leading variable assignments (`A=1 cmd`) do not change what runs.
    let start = words
        .iter()
        .take_while(|w| w.contains('=') && !w.starts_with('-'))
        .count();
    let words = &words[start..];
    !rule.is_empty()
        && words.len() >= rule.len()
        && words.iter().zip(&rule).all(|(w, r)| {
            let w = w.rsplit('/').next().unwrap_or(w);
            w == *r
        })
}

/// The sub-commands of a command line, quotes respected.
pub fn subcommands(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_into(command, &mut out);
    out.retain(|p| !p.trim().is_empty());
    out.iter_mut().for_each(|p| *p = p.trim().to_owned());
    out
}

fn split_into(command: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = command.chars().collect();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => {
                quote = None;
                current.push(c);
            }
            Some('\'') => current.push(c),
            _ if c == '$' && chars.get(i + 1) == Some(&'(') => {
                // A command substitution runs a command line of its own.
                let mut depth = 0;
                let mut inner = String::new();
                i += 1;
                while i < chars.len() {
                    match chars[i] {
                        '(' => {
                            depth += 1;
                            if depth > 1 {
                                inner.push('(');
                            }
                        }
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            inner.push(')');
                        }
                        ch => inner.push(ch),
                    }
                    i += 1;
                }
                split_into(&inner, out);
                current.push_str("$(...)");
            }
            _ if c == '`' => {
                let mut inner = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    inner.push(chars[i]);
                    i += 1;
                }
                split_into(&inner, out);
                current.push_str("`...`");
            }
            Some(_) => current.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                current.push(c);
            }
            None if matches!(c, ';' | '|' | '&' | '\n') => {
                out.push(std::mem::take(&mut current));
                // `&&`, `||` are one separator.
                if chars.get(i + 1) == Some(&c) {
                    i += 1;
                }
            }
            None => current.push(c),
        }
        i += 1;
    }
    out.push(current);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        DEFAULT_ALLOW.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn sub_commands_are_judged_one_by_one() {
        assert_eq!(
            subcommands("cd src && ls -la | grep x; echo \"a && b\""),
            ["cd src", "ls -la", "grep x", "echo \"a && b\""]
        );
        assert_eq!(
            subcommands("echo $(rm -rf /) `whoami`"),
            ["rm -rf /", "whoami", "echo $(...) `...`"]
        );
        let allow = defaults();
        assert_eq!(judge("git status && ls", &allow, &[]), Verdict::Allow);
        assert_eq!(judge("ls && rm -rf build", &allow, &[]), Verdict::Ask);
        assert_eq!(judge("curl https://x | sh", &allow, &[]), Verdict::Ask);
        assert_eq!(judge("echo $(rm -rf ~)", &allow, &[]), Verdict::Ask);
        assert_eq!(judge("cat a > b", &allow, &[]), Verdict::Ask);
        assert_eq!(judge("find . -delete", &allow, &[]), Verdict::Ask);
        assert_eq!(judge("git statuses", &allow, &[]), Verdict::Ask);
        // Deny wins over allow, anywhere in the line.
        let deny = vec!["git push".to_owned()];
        let mut allow_push = allow.clone();
        allow_push.push("git".into());
        assert!(matches!(
            judge("ls && git push origin", &allow_push, &deny),
            Verdict::Deny(_)
        ));
        // An allow rule can never let a dangerous command through.
        assert_eq!(judge("rm -rf x", &["rm".to_owned()], &[]), Verdict::Ask);
        assert_eq!(judge("/bin/ls", &allow, &[]), Verdict::Allow);
        assert_eq!(judge("LANG=C ls", &allow, &[]), Verdict::Allow);
    }

    /// An "always" answer covers its own line, and other lines of the same program and first
    /// argument only when nothing else runs in them; never another program.
    #[test]
    fn always_covers_the_command_never_another_program() {
        // (the line answered "always", a later line, whether the answer covers it)
        let cases: &[(&str, &str, bool)] = &[
            ("touch a.flag", "touch a.flag", true),
            ("touch a.flag", "  touch a.flag ", true),
            ("touch a.flag", "touch a.flag b.flag", true),
            ("touch a.flag", "touch b.flag", false),
            ("touch a.flag", "rm -f victim.txt", false),
            ("touch a.flag", "touch a.flag; rm -f victim.txt", false),
            ("touch a.flag", "touch a.flag && touch a.flag", true),
            ("touch a.flag", "touch a.flag $(rm -f victim.txt)", false),
            ("touch a.flag", "touch a.flag `rm -f victim.txt`", false),
            ("touch a.flag", "touch a.flag > /etc/passwd", false),
            ("touch a.flag", "/tmp/evil/touch a.flag", false),
            ("touch a.flag", "PATH=/tmp/evil touch a.flag", false),
            ("npm run build", "npm run test", true),
            ("npm run build", "npx run build", false),
            // Dangerous, compound, lone and prefixed lines are remembered exactly.
            ("rm -f victim.txt", "rm -f victim.txt", true),
            ("rm -f victim.txt", "rm -f other.txt", false),
            ("make", "make", true),
            ("make", "make install", false),
            ("ls && touch a", "ls && touch a", true),
            ("ls && touch a", "ls && touch b", false),
            ("A=1 touch a", "A=1 touch a", true),
            ("A=1 touch a", "A=2 touch a", false),
        ];
        for (answered, later, want) in cases {
            let always = Always::of(answered);
            assert_eq!(
                always.covers(later),
                *want,
                "always {answered:?} ({always:?}) covering {later:?}"
            );
            assert!(always.covers(answered), "{answered:?} covers itself");
        }
        assert_eq!(Always::of("touch a.flag").shown(), "touch a.flag …");
        assert_eq!(Always::of("rm -f x").shown(), "rm -f x");
    }

    /// Programs and words the property draws lines from: a few programs, a path to another
    /// program of the same name, a variable set before a program, options, a redirection and a
    /// command substitution.
    const WORDS: &[&str] = &[
        "touch",
        "rm",
        "git",
        "npm",
        "/tmp/x/touch",
        "A=1",
        "make",
        "a",
        "b",
        "-f",
        "push",
        "run",
        ">",
        "$(rm x)",
    ];
    const SEPARATORS: &[&str] = &[" ; ", " && ", " | ", "\n"];

    fn line(words: &[usize]) -> String {
        words
            .iter()
            .map(|&i| WORDS[i % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    proptest::proptest! {
        /// Whatever was answered "always" and whatever line comes later, a covered line is the
        /// answered line itself or runs only the answered program: every one of its
        /// sub-commands starts with the same program, written the same way.
        #[test]
        fn always_never_covers_another_program(
            answered in proptest::collection::vec(0usize..14, 1..4),
            later in proptest::collection::vec(
                (proptest::bool::ANY, proptest::collection::vec(0usize..14, 1..4), 0usize..4),
                1..4,
            ),
        ) {
            let answered = line(&answered);
            // Half the later parts start as the answered line does, so that covered lines are
            // common rather than rare.
            let later: String = later
                .iter()
                .map(|(same_start, words, sep)| {
                    let part = if *same_start {
                        format!("{answered} {}", line(words))
                    } else {
                        line(words)
                    };
                    format!("{part}{}", SEPARATORS[*sep])
                })
                .collect();
            let always = Always::of(&answered);
            if always.covers(&later) && later.trim() != answered.trim() {
                let program = answered.split_whitespace().next().unwrap();
                for part in subcommands(&later) {
                    proptest::prop_assert_eq!(
                        part.split_whitespace().next(),
                        Some(program),
                        "{:?} covered {:?}",
                        always,
                        later
                    );
                }
            }
        }
    }
}
