//! Warming a model server's prompt cache before the first keystroke: when a document is opened,
//! the start of the prompt its first completion will send (the context, then the document
//! itself) is read by the server ahead, with a request that generates next to nothing. The
//! first suggestion then waits only for what the typing changed, not for the whole prompt
//! (several seconds on a laptop CPU).
//!
//! Only llama.cpp is warmed: its slot keeps the evaluated prompt (`cache_prompt`) and, with
//! `--cache-reuse`, finds a run of the document read here even where the first completion's
//! prefix starts further down. Dropping the future stops the warming (the connection closes);
//! what the server read by then stays in its cache.

use std::{ops::ControlFlow, sync::Arc, time::Instant};

use backends::Kind;
use prompt::request::RequestJson;
use serde::Serialize;

use crate::ask::model_request;
use crate::{Pipeline, PipelineError, Trace, fit};

/// Characters of the document per prompt token assumed when sizing the warmed text; source code
/// runs 3 to 4, so this errs on the side of sending less than the prefix will hold.
const CHARS_PER_TOKEN: usize = 3;

/// What a warming did.
#[derive(Debug, Clone, Serialize)]
pub struct Warmed {
    /// Whether a request was sent (only llama.cpp's endpoints are warmed).
    pub sent: bool,
    /// Why not, when nothing was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Characters of the prompt sent ahead.
    pub characters: usize,
    pub ms: f64,
}

impl Pipeline {
    /// Sends ahead the prompt that a completion at `request`'s position would start with,
    /// followed by the rest of the document, so that the server's cache holds it. Pass the
    /// position where typing is expected (the top of a document just opened).
    pub async fn warm(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
    ) -> Result<Warmed, PipelineError> {
        let started = Instant::now();
        let skipped = |why: &str| Warmed {
            sent: false,
            skipped: Some(why.to_owned()),
            characters: 0,
            ms: started.elapsed().as_secs_f64() * 1e3,
        };
        let (info, silent) = self.fit.info(&self.backend).await;
        if let Some(error) = silent {
            return Err(PipelineError::Backend {
                error: Arc::new(error),
                trace: Box::default(),
            });
        }
        let shape = self.shape(request, info.as_ref());
        // Only a server known to be llama.cpp: its slot keeps the prompt read, and the request
        // that generates one token costs nothing else.
        if !matches!(shape.kind, Kind::LlamaCppInfill | Kind::LlamaCppCompletion)
            || !info.as_ref().is_some_and(|i| i.is_llama_cpp())
        {
            return Ok(skipped(
                "only a llama.cpp server's prompt cache is warmed ahead of typing",
            ));
        }
        let mut backend = self.backend.clone();
        backend.kind = shape.kind;
        // Reading the whole prompt is the point, and nothing is generated until it is read: the
        // time-to-first-token limit meant for suggestions would end every warming of a prompt
        // that takes longer to read than it allows.
        backend.first_token_timeout = None;
        let context_size = fit::context_size(&self.backend, info.as_ref());
        let max_tokens = self.settings.max_tokens;
        let asked = self
            .settings
            .max_prompt_tokens
            .unwrap_or(request.options.max_prompt_tokens);
        let budget = self.fit.budget(asked, context_size, max_tokens);
        let path = &request.document.path;
        let prompt = self.assemble(request, files, path, budget.tokens, &shape)?;

        // The document after the position, as much as the prefix's share of the budget
        // holds: a first completion within it starts exactly as this prompt does (the
        // prefix's anchor stays where this request put it). More would cost reading time
        // before typing starts, and llama.cpp's `/infill` keeps only the end of a longer
        // prefix, which would leave the start of this one out of its cache.
        let text = request.document.text.replace("\r\n", "\n");
        let offset = prompt::request::byte_offset(&text, request.position)?;
        let room = budget
            .tokens
            .saturating_sub(prompt.prompt_tokens + prompt.suffix_tokens);
        let mut end = (offset + room * CHARS_PER_TOKEN).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        // Whole lines only, as the prompt's own prefix will have them.
        let rest = &text[offset..end];
        let rest = if end < text.len() {
            &rest[..rest.rfind('\n').map_or(0, |i| i + 1)]
        } else {
            rest
        };
        let mut sent = model_request(&prompt, shape.fim);
        let ahead = format!("{}{}{rest}", prompt.prefix, prompt.trailing_whitespace);
        if shape.fim {
            sent.prefix = ahead;
            sent.suffix.clear();
        } else {
            sent.prompt = ahead.clone();
            sent.prefix = ahead;
        }
        // llama.cpp samples one token whatever the limit; nothing more is wanted.
        sent.max_tokens = 0;
        let characters = sent.prefix.len() + sent.extra.iter().map(|c| c.text.len()).sum::<usize>();
        match backend.stream(&sent, |_| ControlFlow::Continue(())).await {
            Ok(_) => Ok(Warmed {
                sent: true,
                skipped: None,
                characters,
                ms: started.elapsed().as_secs_f64() * 1e3,
            }),
            Err(e) => Err(PipelineError::Backend {
                error: Arc::new(e),
                trace: Box::new(Trace::default()),
            }),
        }
    }
}
