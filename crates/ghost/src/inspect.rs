//! What a person needs to see of a request: the prompt that would be sent for a cursor
//! without asking the model, and the page (`prompt::html`) that shows a request's prompt with
//! what was sent, the timings and the answer. `pilotfish complete --html` and the language
//! server's `pilotfish/inspect` both write it here, so an editor shows what the terminal shows.

use std::time::Instant;

use backends::Backend;
use prompt::request::RequestJson;

use crate::ask::sampled_request;
use crate::{Pipeline, PipelineError, Trace};

impl Pipeline {
    /// The trace of a request for the cursor in `request` as far as the model: how it would be
    /// sent (shape, budget, sampling) and the prompt, with nothing sent to the model. The
    /// server may be asked to describe itself, as for a completion, since the budget depends
    /// on its context.
    pub async fn prepare(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
    ) -> Result<Trace, PipelineError> {
        let started = Instant::now();
        let mut trace = Trace::default();
        let text = request.document.text.replace("\r\n", "\n");
        let offset = prompt::request::byte_offset(&text, request.position)?;
        let language = prompt::detected_language(
            &request.document.path,
            request.document.language_id.as_deref(),
        );
        let decision = crate::multiline::decide(self.settings.multiline, &language, &text, offset);
        trace.multiline = decision.multiline;
        trace.multiline_reason = decision.reason.to_owned();
        let (info, silent) = self.fit.info(&self.backend).await;
        if let Some(e) = silent {
            trace.notes.push(e.to_string());
        }
        let context_size = crate::fit::context_size(&self.backend, info.as_ref());
        let asked = self
            .settings
            .max_prompt_tokens
            .unwrap_or(request.options.max_prompt_tokens);
        let shape = self.shape(request, info.as_ref());
        let budget = self
            .fit
            .budget(asked, context_size, self.settings.max_tokens);
        trace.notes.extend(budget.note.clone());
        let assembly_started = Instant::now();
        let prompt = self.assemble(
            request,
            files,
            &request.document.path,
            budget.tokens,
            &shape,
        )?;
        trace.assembly_ms = Some(assembly_started.elapsed().as_secs_f64() * 1e3);
        trace.max_prompt_tokens = Some(budget.tokens);
        trace.backend_request = Some(sampled_request(
            &prompt,
            shape.fim,
            &language,
            self.settings.max_tokens,
            1,
        ));
        trace.shape = Some(shape);
        trace.prompt = Some(prompt);
        trace.total_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(trace)
    }
}

/// The page for a request's `trace` sent to `backend`: the prompt, then the request, the
/// timings and `answers` as (label, text) rows. `None` when no prompt was built (an answer
/// from the cache, a request Copilot's filter declined).
pub fn page(
    trace: &Trace,
    backend: &Backend,
    title: &str,
    answers: Vec<(String, String)>,
) -> Option<String> {
    let prompt = trace.prompt.as_ref()?;
    let kind = trace.shape.as_ref().map_or(backend.kind, |s| s.kind);
    let mut request = vec![
        (
            "endpoint".to_owned(),
            format!("{} ({})", backend.endpoint, kind.name()),
        ),
        (
            "multi-line".to_owned(),
            format!("{}: {}", trace.multiline, trace.multiline_reason),
        ),
    ];
    if let Some(shape) = &trace.shape {
        request.push(("request".to_owned(), shape.describe()));
    }
    if let Some(r) = &trace.backend_request {
        request.push((
            "sampling".to_owned(),
            format!(
                "max_tokens {}, temperature {}, stops {:?}",
                r.max_tokens, r.temperature, r.stop
            ),
        ));
    }
    for note in &trace.notes {
        request.push(("note".to_owned(), note.clone()));
    }
    let ms = |v: Option<f64>| v.map_or("none".to_owned(), |t| format!("{t:.1} ms"));
    let mut timings = vec![
        ("prompt assembly".to_owned(), ms(trace.assembly_ms)),
        ("first token".to_owned(), ms(trace.first_token_ms)),
        ("total".to_owned(), format!("{:.1} ms", trace.total_ms)),
        ("requests".to_owned(), trace.attempts.to_string()),
    ];
    // What the server read of the prompt, and what it held from before, as it said.
    if let Some(t) = &trace.timings {
        timings.push((
            "prompt read".to_owned(),
            format!(
                "the server read {} of {} prompt token(s)",
                t.prompt_n,
                t.prompt_n + t.cache_n.unwrap_or(0)
            ),
        ));
    }
    let mut sections = vec![
        ("The request".to_owned(), request),
        ("Timings".to_owned(), timings),
    ];
    if !answers.is_empty() {
        sections.push(("The answer".to_owned(), answers));
    }
    Some(prompt::html::render_html(
        prompt,
        &prompt::html::PageFacts {
            title: title.to_owned(),
            budget: trace.max_prompt_tokens,
            sections,
        },
    ))
}

/// The answer rows of a finished request: each suggestion, or why nothing was asked.
pub fn answers(outcome: &crate::Outcome) -> Vec<(String, String)> {
    outcome
        .suggestions
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("suggestion {}", i + 1), s.text.clone()))
        .chain(
            outcome
                .skipped
                .iter()
                .map(|w| ("not asked".to_owned(), w.clone())),
        )
        .collect()
}
