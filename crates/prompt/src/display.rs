//! The prompt for people to read: every part as it will be sent, then every element with its
//! kind, source, tokens, and whether it made it in (and why not); ranked definitions also show
//! the parts of their score.

use std::fmt::Write;

use crate::Prompt;

/// Renders `prompt` as text. Sections are fenced by `───` rules; the text between the rules of
/// a section is exactly what is sent, byte for byte, except that an empty body shows as
/// `(empty)` and a body that does not end in a newline is followed by `⏎` and one.
pub fn render_text(prompt: &Prompt) -> String {
    let mut out = String::new();
    let rule = |out: &mut String, title: &str| {
        let _ = writeln!(
            out,
            "─── {title} {}",
            "─".repeat(60usize.saturating_sub(title.chars().count()))
        );
    };
    for (i, block) in prompt.context.iter().enumerate() {
        rule(
            &mut out,
            &format!("context {} of {}", i + 1, prompt.context.len()),
        );
        push_body(&mut out, block);
    }
    rule(
        &mut out,
        &format!("prefix ({} tokens with context)", prompt.prompt_tokens),
    );
    push_body(&mut out, &prompt.prefix);
    rule(
        &mut out,
        &format!("suffix ({} tokens)", prompt.suffix_tokens),
    );
    push_body(&mut out, &prompt.suffix);
    if let Some(fim) = &prompt.fim_prompt {
        rule(
            &mut out,
            &format!(
                "FIM prompt ({} template tokens reserved)",
                prompt.fim_template_tokens.unwrap_or(0)
            ),
        );
        push_body(&mut out, fim);
    }
    rule(&mut out, "elements");
    for e in &prompt.elements {
        let status = e.status();
        let _ = write!(
            out,
            "{:<8} {:<14} {:>6} tok",
            status,
            format!("{:?}", e.kind),
            e.tokens
        );
        if let Some(path) = &e.path {
            let _ = write!(out, "  {path}");
        }
        if let Some(score) = e.score {
            let _ = write!(out, "  score {score:.4}");
        }
        if let Some(reason) = &e.reason {
            let _ = write!(out, "  ({reason})");
        }
        out.push('\n');
        if e.kind == crate::ElementKind::Definition {
            // Which definition, and the parts of its score: why it ranked where it did.
            let first = e.text.lines().next().unwrap_or_default().trim();
            let _ = writeln!(out, "         {first}");
            if !e.why.is_empty() {
                let _ = writeln!(out, "         why: {}", e.why_text());
            }
        }
    }
    if !prompt.trailing_whitespace.is_empty() {
        let _ = writeln!(
            out,
            "note: {:?} of trailing white space was cut from the prefix",
            prompt.trailing_whitespace
        );
    }
    for note in &prompt.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if let Some(reason) = &prompt.copilot_skip_reason {
        let _ = writeln!(out, "Copilot would not ask for a completion here: {reason}");
    }
    out
}

fn push_body(out: &mut String, body: &str) {
    if body.is_empty() {
        out.push_str("(empty)\n");
        return;
    }
    out.push_str(body);
    if !body.ends_with('\n') {
        out.push_str("⏎\n");
    }
}
