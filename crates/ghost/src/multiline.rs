//! Whether to ask for several lines, and when a streamed answer is finished: Copilot's block
//! modes for the languages pilotfish parses, indentation for the rest.

use engine::indentation::{ContextIndentation, context_indentation, indentation_block_finished};
use syntax::blocks;

/// Copilot does not parse documents this long for the multi-line decision.
const MAX_LINES_FOR_PARSING: usize = 8000;

/// How many lines an answer may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiline {
    /// Copilot's decision: several lines at the start of an empty block (and on an empty line
    /// in TypeScript); one line elsewhere.
    Copilot,
    /// Always one line.
    Never,
    /// Always ask for several, ended by the block rules.
    Always,
}

/// What was decided for one request, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub multiline: bool,
    pub reason: &'static str,
}

/// The decision at byte `offset` of `text`.
pub fn decide(policy: Multiline, language: &str, text: &str, offset: usize) -> Decision {
    let yes = |reason| Decision {
        multiline: true,
        reason,
    };
    let no = |reason| Decision {
        multiline: false,
        reason,
    };
    match policy {
        Multiline::Never => return no("multi-line is off"),
        Multiline::Always => return yes("multi-line is always on"),
        Multiline::Copilot => {}
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line_blank = text[line_start..line_end].trim().is_empty();
    if !blocks::parses_blocks(language) {
        // Copilot leaves these to its server's trimming, which local servers do not have; a
        // blank line with the indentation rules is the closest safe reading.
        return if line_blank {
            yes("on an empty line (block end judged by indentation)")
        } else {
            no("not on an empty line, and no parser for this language")
        };
    }
    if text.bytes().filter(|&b| b == b'\n').count() + 1 >= MAX_LINES_FOR_PARSING {
        return no("the document is too long to parse (8,000 lines)");
    }
    if matches!(language, "typescript" | "typescriptreact") && line_blank {
        return yes("on an empty line in TypeScript");
    }
    let rest_of_line = &text[offset..line_end];
    let inline = !rest_of_line.trim().is_empty();
    if blocks::is_empty_block_start(language, text, offset)
        || (inline && blocks::is_empty_block_start(language, text, line_end))
    {
        return yes("at the start of an empty block");
    }
    no("not at the start of an empty block")
}

/// Decides when a streamed answer has said enough, and where to cut it.
#[derive(Debug, Clone)]
pub enum Finisher {
    /// One line: the first line, or the line after an initial line break.
    SingleLine,
    /// The end of the block body, found by parsing the text before the cursor plus the answer.
    Parsing { language: String, prefix: String },
    /// The first line indented out of the cursor's block.
    Indentation(ContextIndentation),
}

impl Finisher {
    pub fn new(decision: &Decision, language: &str, text: &str, offset: usize) -> Finisher {
        if !decision.multiline {
            Finisher::SingleLine
        } else if blocks::parses_blocks(language) {
            Finisher::Parsing {
                language: language.to_owned(),
                prefix: text[..offset].to_owned(),
            }
        } else {
            Finisher::Indentation(context_indentation(text, offset, language))
        }
    }

    /// Where the answer so far should end, in bytes, if it is finished.
    pub fn finished(&self, answer: &str) -> Option<usize> {
        match self {
            Finisher::SingleLine => single_line_end(answer),
            Finisher::Parsing { language, prefix } => {
                blocks::block_body_finished(language, prefix, answer)
            }
            Finisher::Indentation(context) => indentation_block_finished(answer, *context),
        }
    }
}

/// The end of a one-line answer once its line is complete. A line break at the very start
/// does not count as the line (Copilot keeps it and the line after it).
fn single_line_end(answer: &str) -> Option<usize> {
    let skip = if answer.starts_with("\r\n") {
        2
    } else if answer.starts_with('\n') {
        1
    } else {
        0
    };
    answer[skip..].find('\n').map(|i| {
        let end = skip + i;
        if end > skip && answer.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        }
    })
}

/// Copilot's one-line form of a cached or finished answer.
pub fn force_single_line(answer: &str) -> &str {
    single_line_end(answer).map_or(answer, |end| &answer[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions() {
        let d = |lang, text: &str| decide(Multiline::Copilot, lang, text, text.len()).multiline;
        assert!(d("python", "def f():\n    "));
        assert!(!d("python", "x = f("));
        assert!(d("typescript", "const x = 1;\n"));
        assert!(!d("javascript", "const x = 1;\n"));
        assert!(d("ruby", "def f\n  "));
        assert!(!d("ruby", "x = "));
        assert!(!decide(Multiline::Never, "python", "def f():\n", 9).multiline);
    }

    #[test]
    fn single_lines() {
        assert_eq!(force_single_line("abc\ndef"), "abc");
        assert_eq!(force_single_line("\nabc\ndef"), "\nabc");
        assert_eq!(force_single_line("abc\r\ndef"), "abc");
        assert_eq!(force_single_line("abc"), "abc");
        assert_eq!(Finisher::SingleLine.finished("abc"), None);
    }

    #[test]
    fn parsing_finisher_cuts_at_block_end() {
        let text = "def f():\n    ";
        let decision = decide(Multiline::Copilot, "python", text, text.len());
        let f = Finisher::new(&decision, "python", text, text.len());
        assert_eq!(f.finished("return 1\n"), None);
        assert_eq!(f.finished("return 1\n\nprint(f())\n"), Some(8));
    }
}
