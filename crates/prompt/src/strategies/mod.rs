//! Context strategies: each builds the whole prompt for a request its own way. `copilot` and
//! `copilot-legacy` are faithful to Copilot's library; the others are pilotfish's own.

pub(crate) mod copilot;
pub(crate) mod copilot_legacy;
pub(crate) mod outline;

use crate::request::{ContextRendering, Options, RequestError, RequestJson};
use crate::{AssembleError, detected_language, fim, relative_path};
use tokenizer::Tokenizer;

/// What every strategy reads off the document first.
pub(crate) struct Document {
    /// The language Copilot would use (from the file name, else the editor's id).
    pub language_id: String,
    pub tokenizer: Tokenizer,
    /// Byte offset of the cursor.
    pub cursor: usize,
    /// The document's path as shown (workspace-relative, percent-encoded).
    pub relative_path: Option<String>,
}

/// The document's language, tokenizer, cursor and shown path; an empty path, an unknown
/// tokenizer or a position outside the text are refused.
pub(crate) fn document(request: &RequestJson) -> Result<Document, AssembleError> {
    let doc = &request.document;
    if doc.path.is_empty() {
        return Err(RequestError::EmptyPath.into());
    }
    let language_id = detected_language(&doc.path, doc.language_id.as_deref());
    let tokenizer = Tokenizer::by_name(&request.options.tokenizer, Some(&language_id))
        .map_err(RequestError::from)?;
    let cursor = crate::request::byte_offset(&doc.text, request.position)?;
    let relative_path = relative_path(request.workspace_root.as_deref(), &doc.path);
    Ok(Document {
        language_id,
        tokenizer,
        cursor,
        relative_path,
    })
}

/// What every strategy settles before choosing context: the FIM template and how context is
/// rendered, and the budget left once the template's own tokens are set aside.
pub(crate) struct Frame {
    pub fim: Option<fim::FimTemplate>,
    pub repo_name: String,
    pub shown_path: String,
    pub rendering: ContextRendering,
    pub fim_overhead: Option<usize>,
    pub budget: usize,
}

pub(crate) fn frame(
    options: &Options,
    root: Option<&str>,
    relative_path: Option<&str>,
    tokenizer: &Tokenizer,
) -> Result<Frame, AssembleError> {
    // A FIM template makes one string: context goes into repository-level file sections where
    // the format has them, commented into the prefix otherwise. Its own tokens are set aside.
    let fim = options
        .fim_template
        .as_deref()
        .map(str::parse::<fim::FimTemplate>)
        .transpose()
        .map_err(RequestError::from)?;
    let repo_name = options.repo_name.clone().unwrap_or_else(|| {
        root.and_then(|r| r.trim_end_matches('/').rsplit('/').next())
            .filter(|name| !name.is_empty())
            .unwrap_or("workspace")
            .to_owned()
    });
    let shown_path = relative_path.unwrap_or_default().to_owned();
    let rendering = match &fim {
        Some(t) if !t.takes_context_sections() => ContextRendering::Inline,
        Some(_) => ContextRendering::Split,
        None => options.context,
    };
    let fim_overhead = fim.as_ref().map(|t| {
        // Two one-character context blocks stand for the section headers a repository-level
        // prompt may add; the characters themselves are the only over-reservation.
        let sample = ["x".to_owned(), "x".to_owned()];
        let parts = fim::FimParts {
            path: &shown_path,
            repo_name: &repo_name,
            context: if t.takes_context_sections() {
                &sample
            } else {
                &[]
            },
            prefix: "",
            suffix: "",
        };
        tokenizer.count(&t.render(&parts))
    });
    let budget = match fim_overhead {
        Some(o) if o >= options.max_prompt_tokens => {
            return Err(RequestError::FimTooLarge(o, options.max_prompt_tokens).into());
        }
        Some(o) => options.max_prompt_tokens - o,
        None => options.max_prompt_tokens,
    };
    Ok(Frame {
        fim,
        repo_name,
        shown_path,
        rendering,
        fim_overhead,
        budget,
    })
}
