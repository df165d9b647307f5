//! What happens to one answer before it is shown: Copilot's post-processing in its document,
//! then the editor's indentation, then the measure of how much of the line it replaces.

use engine::postprocess::{
    block_close_token, check_suffix, is_repetitive, matches_next_line, maybe_snip_completion,
    normalize_indent,
};

/// The document around the cursor, as post-processing needs it.
#[derive(Debug, Clone)]
pub(crate) struct Surroundings<'a> {
    pub(crate) lines: Vec<&'a str>,
    pub(crate) line: usize,
    pub(crate) language: &'a str,
    pub(crate) rest_of_line: &'a str,
    pub(crate) line_is_blank: bool,
    pub(crate) tab_size: Option<usize>,
    pub(crate) insert_spaces: Option<bool>,
}

/// An answer ready to show, or why it was dropped.
pub(crate) enum Cleaned {
    Kept {
        text: String,
        replaces: usize,
        notes: Vec<String>,
    },
    Dropped(String),
}

/// Why an answer that loops is dropped (Copilot's repetition check).
pub(crate) const REPEATS: &str = "the answer repeats a pattern";

/// Whether `answer` ends repeating a pattern, as Copilot judges it on the model's own tokens;
/// o200k pieces stand in for them, since servers do not return their tokens.
pub(crate) fn repeats(answer: &str) -> bool {
    let pieces = tokenizer::Tokenizer::exact(tokenizer::Encoding::O200kBase)
        .token_strings(answer)
        .unwrap_or_default();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    is_repetitive(&pieces)
}

pub(crate) fn clean(answer: &str, around: &Surroundings<'_>) -> Cleaned {
    let mut notes = Vec::new();
    if repeats(answer) {
        return Cleaned::Dropped(REPEATS.to_owned());
    }
    let multiline = answer.trim_end().contains('\n');
    if matches_next_line(&around.lines, around.line, answer, !multiline) {
        return Cleaned::Dropped("the answer only repeats the next line".to_owned());
    }
    let snipped = maybe_snip_completion(
        &around.lines,
        around.line,
        answer,
        block_close_token(around.language),
    );
    if snipped != answer {
        notes.push(format!(
            "snipped {} closing line(s) the document already has",
            answer.lines().count() - snipped.lines().count()
        ));
    }
    let text = normalize_indent(
        &snipped,
        around.tab_size,
        around.insert_spaces,
        around.line_is_blank,
    );
    if text != snipped {
        notes.push("re-indented to the editor's settings".to_owned());
    }
    if text.trim().is_empty() {
        return Cleaned::Dropped("nothing but white space is left".to_owned());
    }
    let replaces = check_suffix(around.rest_of_line, &text);
    Cleaned::Kept {
        text,
        replaces,
        notes,
    }
}
