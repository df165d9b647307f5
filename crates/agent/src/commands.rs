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
        let dangerous = ALWAYS_ASK.iter().any(|r| matches_rule(part, r))
            || part.contains(" -exec")
            || part.contains(" -delete")
            || part.contains('>');
        let allowed = allow.iter().any(|r| matches_rule(part, r));
        if dangerous || !allowed {
            all_allowed = false;
        }
    }
    if all_allowed {
        Verdict::Allow
    } else {
        Verdict::Ask
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
}
