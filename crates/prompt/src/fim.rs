//! Fill-in-the-middle prompt formats of the code models people run locally: where prefix,
//! suffix and context go, and the special tokens around them.
//!
//! A FIM prompt is one string, so context goes either commented into the prefix (any model) or,
//! for models trained on repository-level prompts (Qwen2.5-Coder, StarCoder2), as the files
//! they were trained to read before the current one. The template's own tokens are reserved in
//! the budget before the prompt is cut, so truncation never cuts into them.

use std::str::FromStr;

/// A fill-in-the-middle format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FimTemplate {
    /// `<fim_prefix>…<fim_suffix>…<fim_middle>` (StarCoder, StarCoder2, Granite code models).
    StarCoder,
    /// StarCoder2's repository-level form: `<repo_name>` and `<file_sep>` sections first.
    StarCoder2Repo,
    /// `<PRE> … <SUF>… <MID>` (Code Llama).
    CodeLlama,
    /// `<｜fim▁begin｜>…<｜fim▁hole｜>…<｜fim▁end｜>` (DeepSeek-Coder).
    DeepSeekCoder,
    /// `<|fim_prefix|>…<|fim_suffix|>…<|fim_middle|>` (Qwen2.5-Coder).
    QwenCoder,
    /// Qwen2.5-Coder's repository-level form: `<|repo_name|>` and `<|file_sep|>` sections first.
    QwenCoderRepo,
    /// `[SUFFIX]…[PREFIX]…` (Mistral's Codestral: the suffix comes first).
    Codestral,
    /// `<|fim_prefix|>…<|fim_suffix|>…<|fim_middle|>` (CodeGemma).
    CodeGemma,
    /// `<fim_prefix>…<fim_suffix>…<fim_middle>` (IBM Granite code models).
    Granite,
    /// A template of the user's with `{prefix}` and `{suffix}` (and optionally `{path}`).
    Custom(String),
}

/// A FIM template name that pilotfish does not know, or a custom template without its slots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FimError {
    #[error(
        "unknown FIM template `{0}`: use starcoder, starcoder2-repo, codellama, deepseek-coder, qwen2.5-coder, qwen2.5-coder-repo, codestral, codegemma, granite, or a custom template with {{prefix}} and {{suffix}}"
    )]
    Unknown(String),
    #[error("custom FIM template `{0}` needs both {{prefix}} and {{suffix}}")]
    MissingSlot(String),
}

impl FromStr for FimTemplate {
    type Err = FimError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "starcoder" | "starcoder2" => FimTemplate::StarCoder,
            "starcoder2-repo" => FimTemplate::StarCoder2Repo,
            "codellama" | "code-llama" => FimTemplate::CodeLlama,
            "deepseek-coder" | "deepseek" => FimTemplate::DeepSeekCoder,
            "qwen2.5-coder" | "qwen" => FimTemplate::QwenCoder,
            "qwen2.5-coder-repo" | "qwen-repo" => FimTemplate::QwenCoderRepo,
            "codestral" => FimTemplate::Codestral,
            "codegemma" => FimTemplate::CodeGemma,
            "granite" => FimTemplate::Granite,
            custom if custom.contains('{') => {
                if !(custom.contains("{prefix}") && custom.contains("{suffix}")) {
                    return Err(FimError::MissingSlot(custom.to_owned()));
                }
                FimTemplate::Custom(custom.to_owned())
            }
            other => return Err(FimError::Unknown(other.to_owned())),
        })
    }
}

/// The parts a FIM prompt is made of, already fitted to the budget.
#[derive(Debug, Clone, Copy)]
pub struct FimParts<'a> {
    /// The document's path as shown in prompts.
    pub path: &'a str,
    /// The repository's name, for repository-level formats.
    pub repo_name: &'a str,
    /// Context blocks (as the split rendering makes them).
    pub context: &'a [String],
    /// The prefix, with context commented in when the format has no place for it.
    pub prefix: &'a str,
    pub suffix: &'a str,
}

impl FimTemplate {
    /// Whether context goes into repository-level file sections rather than commented into
    /// the prefix.
    pub fn takes_context_sections(&self) -> bool {
        matches!(
            self,
            FimTemplate::StarCoder2Repo | FimTemplate::QwenCoderRepo
        )
    }

    /// The template's text around the prompt's parts, for reserving its tokens: rendering it
    /// with empty parts.
    pub fn overhead(&self, path: &str, repo_name: &str) -> String {
        self.render(&FimParts {
            path,
            repo_name,
            context: &[],
            prefix: "",
            suffix: "",
        })
    }

    /// The prompt string.
    pub fn render(&self, p: &FimParts<'_>) -> String {
        let (prefix, suffix) = (p.prefix, p.suffix);
        match self {
            FimTemplate::StarCoder | FimTemplate::Granite => {
                format!("<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>")
            }
            FimTemplate::StarCoder2Repo => {
                let mut out = format!("<repo_name>{}", p.repo_name);
                for (i, block) in p.context.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
                    out.push_str(&format!("<file_sep>context-{}\n{block}\n", i + 1));
                }
                out.push_str(&format!(
                    "<file_sep>{}\n<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
                    p.path
                ));
                out
            }
            FimTemplate::CodeLlama => format!("<PRE> {prefix} <SUF>{suffix} <MID>"),
            FimTemplate::DeepSeekCoder => {
                format!("<｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>")
            }
            FimTemplate::QwenCoder | FimTemplate::CodeGemma => {
                format!("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>")
            }
            FimTemplate::QwenCoderRepo => {
                let mut out = format!("<|repo_name|>{}\n", p.repo_name);
                for (i, block) in p.context.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
                    out.push_str(&format!("<|file_sep|>context-{}\n{block}\n", i + 1));
                }
                out.push_str(&format!(
                    "<|file_sep|>{}\n<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
                    p.path
                ));
                out
            }
            FimTemplate::Codestral => format!("[SUFFIX]{suffix}[PREFIX]{prefix}"),
            FimTemplate::Custom(t) => {
                // One pass over the template, so text inside the parts is never read as a slot.
                let mut out = String::with_capacity(t.len() + prefix.len() + suffix.len());
                let mut rest = t.as_str();
                while let Some(open) = rest.find('{') {
                    out.push_str(&rest[..open]);
                    let after = &rest[open..];
                    let slot = [
                        ("{prefix}", prefix),
                        ("{suffix}", suffix),
                        ("{path}", p.path),
                    ]
                    .into_iter()
                    .find(|(name, _)| after.starts_with(name));
                    match slot {
                        Some((name, value)) => {
                            out.push_str(value);
                            rest = &after[name.len()..];
                        }
                        None => {
                            out.push('{');
                            rest = &after[1..];
                        }
                    }
                }
                out.push_str(rest);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(context: &'a [String]) -> FimParts<'a> {
        FimParts {
            path: "src/a.py",
            repo_name: "shop",
            context,
            prefix: "def f():\n    ",
            suffix: "\nprint(f())",
        }
    }

    #[test]
    fn formats() {
        let none: [String; 0] = [];
        let p = parts(&none);
        let r = |name: &str| name.parse::<FimTemplate>().unwrap().render(&p);
        assert_eq!(
            r("starcoder"),
            "<fim_prefix>def f():\n    <fim_suffix>\nprint(f())<fim_middle>"
        );
        assert_eq!(
            r("codellama"),
            "<PRE> def f():\n     <SUF>\nprint(f()) <MID>"
        );
        assert_eq!(
            r("deepseek-coder"),
            "<｜fim▁begin｜>def f():\n    <｜fim▁hole｜>\nprint(f())<｜fim▁end｜>"
        );
        assert_eq!(r("codestral"), "[SUFFIX]\nprint(f())[PREFIX]def f():\n    ");
        assert_eq!(
            r("{prefix}<HOLE>{suffix} in {path} {x}"),
            "def f():\n    <HOLE>\nprint(f()) in src/a.py {x}"
        );
        let context = ["Path: src/a.py\nCompare this".to_owned(), String::new()];
        assert_eq!(
            "qwen2.5-coder-repo"
                .parse::<FimTemplate>()
                .unwrap()
                .render(&parts(&context)),
            "<|repo_name|>shop\n<|file_sep|>context-1\nPath: src/a.py\nCompare this\n<|file_sep|>src/a.py\n<|fim_prefix|>def f():\n    <|fim_suffix|>\nprint(f())<|fim_middle|>"
        );
    }

    #[test]
    fn bad_names() {
        assert!(matches!(
            "gpt".parse::<FimTemplate>(),
            Err(FimError::Unknown(_))
        ));
        assert!(matches!(
            "{prefix} only".parse::<FimTemplate>(),
            Err(FimError::MissingSlot(_))
        ));
        // A prefix holding `{suffix}` is text, not a slot.
        let t: FimTemplate = "{prefix}|{suffix}".parse().unwrap();
        let none: [String; 0] = [];
        let p = FimParts {
            prefix: "a{suffix}",
            suffix: "b",
            ..parts(&none)
        };
        assert_eq!(t.render(&p), "a{suffix}|b");
    }
}
