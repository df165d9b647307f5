//! First contact with a llama.cpp server pilotfish has not met: its speed is measured on a
//! short request before the keystroke's prompt is sized, so that a fast server gets the whole
//! prompt at once rather than the cold size a slow laptop reads in a few seconds.
//!
//! The measuring request is the start of the prompt the keystroke would send with its whole
//! budget (about [`MEASURE_TOKENS`] of the model's tokens, whole lines) with nothing to
//! generate; the server's timings give its speed, and its prompt cache keeps what it read, so
//! the prompt sent next, which starts the same way, does not read it again. A measuring
//! request on `/infill` that the server refuses because the model has no fill-in-the-middle
//! is handed back, so that the keystroke is asked again prefix-only, as a refused prompt is;
//! one cut by its first-token limit ends the keystroke (a server that does not read this much
//! in time would not read the prompt either).

use std::{ops::ControlFlow, sync::Arc, time::Duration};

use backends::{Backend, BackendError, Kind, Request, Timings};

use crate::{Pipeline, PipelineError, Shape, Trace, fit::model_text, shape, speed};

/// The model's tokens a measuring request reads: enough for the server's timings to say its
/// speed (more than `backends::MIN_TOKENS_TIMED`), little enough to cost a slow server about a
/// second.
pub(crate) const MEASURE_TOKENS: f64 = 96.0;

/// The longest a measuring request waits for its one token where the backend has no
/// first-token limit of its own: the first-token limit before the server's speed is known, so
/// that a server that takes requests and never answers costs a command less than ten seconds.
const MEASURE_LIMIT: Duration = speed::UNKNOWN_SPEED_LIMIT;

impl Pipeline {
    /// Measures the server's speed before the first prompt is sized, where that helps: a
    /// llama.cpp server whose speed nothing measured yet (in this process or, remembered, an
    /// earlier one), with budgets in seconds. `prompt` is the keystroke's prompt at its whole
    /// budget. Only a refusal of fill-in-the-middle is an error (the keystroke is asked again
    /// prefix-only); any other failure leaves the speed unknown and the prompt the cold size.
    pub(crate) async fn first_contact(
        &self,
        backend: &Backend,
        llama_cpp: bool,
        shape: &Shape,
        prompt: &prompt::Prompt,
        full: usize,
        trace: &mut Trace,
    ) -> Result<(), PipelineError> {
        if self.settings.first_token_target.is_none()
            || !matches!(shape.kind, Kind::LlamaCppInfill | Kind::LlamaCppCompletion)
            || !llama_cpp
            || self.fit.speed().is_some()
            || self.fit.met()
        {
            return Ok(());
        }
        let mut backend = backend.clone();
        backend.kind = shape.kind;
        let limit = backend.first_token_timeout.unwrap_or(MEASURE_LIMIT);
        backend.first_token_timeout = Some(limit);
        let (request, text) = measuring_request(prompt, shape.kind, self.fit.tokens_per_byte());
        let read = backend
            .stream_timed(&request, |_| ControlFlow::Continue(()))
            .await;
        let timings = match read {
            Ok((_, Some(timings))) => timings,
            Ok((_, None)) => {
                self.fit.meet();
                return Ok(());
            }
            Err(e) if shape.fim && shape::refuses_fim(&e).is_some() => {
                trace.attempts += 1;
                return Err(PipelineError::Backend {
                    error: Arc::new(e),
                    trace: Box::default(),
                });
            }
            // Cut by its limit: a server that reads not even this much in time would not read
            // the prompt either, so the keystroke fails here and says why. That it reads slower
            // than the measuring text over the limit is remembered as its speed, so that the
            // next request's limit leaves the reading its time.
            Err(e @ BackendError::FirstTokenTimeout { .. }) => {
                self.fit.meet();
                let tokens = (text.len() as f64 * self.fit.tokens_per_byte()).ceil() as u64;
                let timings = Timings {
                    prompt_n: tokens,
                    prompt_ms: limit.as_secs_f64() * 1e3,
                    ..Timings::default()
                };
                self.fit.observe(&backend, &timings);
                trace.attempts += 1;
                trace.first_contact = Some(format!(
                    "first contact: the server read nothing of a {tokens}-token measuring request within {limit:?}"
                ));
                return Err(PipelineError::Backend {
                    error: Arc::new(e),
                    trace: Box::default(),
                });
            }
            Err(e) => {
                trace.notes.push(format!(
                    "the server's speed could not be measured ({e}): the prompt is held to a cold size"
                ));
                self.fit.meet();
                return Ok(());
            }
        };
        self.fit.meet();
        // Remembered as sent: the prompt that follows starts with it, and the server holds it.
        let last = self.fit.last_budget().unwrap_or(full);
        self.fit.sent(&backend, &text, last, None);
        self.fit.observe(&backend, &timings);
        trace.attempts += 1;
        trace.first_contact = Some(format!(
            "first contact: the server read {} prompt token(s) in {:.0} ms to measure its speed{}",
            timings.prompt_n,
            timings.prompt_ms,
            self.fit.speed().map_or(String::new(), |s| format!(
                " ({:.0} tokens a second)",
                s.prompt_per_second
            ))
        ));
        Ok(())
    }
}

/// The measuring request for `prompt` sent as `kind`, and the text it makes the model read as
/// the prompts that follow are compared with it: the start of the one prompt string (a
/// prefix-only prompt, a FIM template's) or of the prefix (`/infill`), about
/// [`MEASURE_TOKENS`] at `tokens_per_byte`, ending at a line's end where one is near.
fn measuring_request(
    prompt: &prompt::Prompt,
    kind: Kind,
    tokens_per_byte: f64,
) -> (Request, String) {
    let whole = if kind == Kind::LlamaCppInfill {
        prompt.prefix.clone()
    } else {
        model_text(prompt, kind)
    };
    let bytes = (MEASURE_TOKENS / tokens_per_byte.max(0.01)) as usize;
    let start = start_of(&whole, bytes).to_owned();
    let request = Request {
        prompt: start.clone(),
        prefix: start.clone(),
        // llama.cpp samples one token whatever the limit; nothing more is wanted.
        max_tokens: 0,
        fim: kind == Kind::LlamaCppInfill,
        ..Request::default()
    };
    (request, start)
}

/// The start of `text` within `bytes`, at the end of its last whole line when there is one.
fn start_of(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(i) if i > 0 => &text[..=i],
        _ => &text[..end],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measuring_text_is_the_prompts_start_in_whole_lines() {
        let text = "def a():\n    return 1\n".repeat(40);
        let start = start_of(&text, 100);
        assert!(start.len() <= 100 && start.ends_with('\n'), "{start:?}");
        assert!(text.starts_with(start));
        assert_eq!(start_of("short", 100), "short");
        let one_line = "x".repeat(300);
        assert_eq!(start_of(&one_line, 100).len(), 100);
    }
}
