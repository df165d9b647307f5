//! The document around the cursor, read once per request: its two sides, the cursor line's
//! white space that the prompt leaves out, and what post-processing needs around it.

use std::time::Instant;

use prompt::request::RequestJson;

use crate::{
    clean,
    outcome::{Ask, PipelineError},
};

/// The document around the cursor, computed once per request.
pub(crate) struct Cursor {
    pub(crate) text: String,
    pub(crate) offset: usize,
    pub(crate) language: String,
    pub(crate) path: String,
}

impl Cursor {
    /// The document of `request` with its line endings made `\n`, and the cursor in it.
    pub(crate) fn new(request: &RequestJson) -> Result<Cursor, PipelineError> {
        let text = request.document.text.replace("\r\n", "\n");
        let offset = prompt::request::byte_offset(&text, request.position)?;
        Ok(Cursor {
            language: prompt::detected_language(
                &request.document.path,
                request.document.language_id.as_deref(),
            ),
            path: request.document.path.clone(),
            text,
            offset,
        })
    }

    pub(crate) fn prefix(&self) -> &str {
        &self.text[..self.offset]
    }

    pub(crate) fn suffix(&self) -> &str {
        &self.text[self.offset..]
    }

    /// The white space of a cursor line that has nothing else before the cursor. Copilot's
    /// prompt leaves it out (the model writes the indentation itself), so model answers are
    /// relative to the prefix without it.
    pub(crate) fn trailing_ws(&self) -> &str {
        let line = self.prefix().rsplit('\n').next().unwrap_or_default();
        if line
            .trim_end_matches(languages::is_js_whitespace)
            .is_empty()
        {
            line
        } else {
            ""
        }
    }

    /// What the model continues: the prefix without [`Cursor::trailing_ws`].
    pub(crate) fn model_prefix(&self) -> &str {
        &self.prefix()[..self.prefix().len() - self.trailing_ws().len()]
    }

    pub(crate) fn surroundings<'a>(
        &'a self,
        request: &RequestJson,
        lines: &'a [&'a str],
    ) -> clean::Surroundings<'a> {
        let line_start = self.prefix().rfind('\n').map_or(0, |i| i + 1);
        let rest = self.suffix().split('\n').next().unwrap_or_default();
        clean::Surroundings {
            lines: lines.to_vec(),
            line: self.prefix().matches('\n').count(),
            language: &self.language,
            rest_of_line: rest,
            line_is_blank: self.text[line_start..self.offset + rest.len()]
                .trim()
                .is_empty(),
            tab_size: request.options.tab_size,
            insert_spaces: request.options.insert_spaces,
        }
    }
}

/// One request as its stages see it: the cursor, the document around it for cleaning the
/// answers, when the request arrived at the pipeline and what was asked.
pub(crate) struct At<'a> {
    pub(crate) cursor: &'a Cursor,
    pub(crate) around: clean::Surroundings<'a>,
    pub(crate) started: Instant,
    pub(crate) ask: Ask,
}

/// An answer to the prompt (which leaves out the cursor line's white space) as text at the
/// cursor: Copilot's `adjustLeadingWhitespace`. Returns the text and the white space before
/// the cursor it replaces.
pub(crate) fn at_cursor<'a>(answer: &'a str, ws: &str) -> (&'a str, usize) {
    if ws.is_empty() {
        return (answer, 0);
    }
    if let Some(rest) = answer.strip_prefix(ws) {
        return (rest, 0);
    }
    let body = answer.trim_start_matches(languages::is_js_whitespace);
    let leading = &answer[..answer.len() - body.len()];
    if ws.starts_with(leading) {
        (answer, ws.encode_utf16().count())
    } else {
        (answer, 0)
    }
}
