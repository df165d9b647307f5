//! Warming a model server's prompt cache before the first keystroke: when a document is opened,
//! the start of the prompt its first completion will send (the context, then the document
//! itself) is read by the server ahead, with a request that generates next to nothing. The
//! first suggestion then waits only for what the typing changed, not for the whole prompt
//! (several seconds on a laptop CPU).
//!
//! llama.cpp and vLLM are warmed. llama.cpp's slot keeps the evaluated prompt (`cache_prompt`)
//! and, with `--cache-reuse`, finds a run of the document read here even where the first
//! completion's prefix starts further down. vLLM's prefix cache keeps every full block of the
//! prompt read: it gets the read-ahead in one request that generates one token, which it stops
//! between engine steps when typing closes the connection. llama.cpp's is sent in pieces of about 300 ms of reading at
//! the server's measured speed, each read on top of the last, so that typing stops the
//! warming cleanly between pieces: dropping the future closes the connection, and what the
//! server read by then stays in its cache (and is remembered as sent, for the budget of the
//! first keystroke).
//!
//! After a completion whose prompt was lowered to the server's speed, the whole prompt at its
//! cursor is warmed the same way ([`Pipeline::warm_at_cursor`], the language server's
//! `warming.rs`), so that the next keystroke has its full budget back.

use std::{ops::ControlFlow, sync::Arc, time::Instant};

use backends::Kind;
use prompt::request::RequestJson;
use serde::Serialize;

use crate::ask::model_request;
use crate::{Pipeline, PipelineError, Trace, fit, fit::model_text};

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
    /// Whether it stopped (or never started) because the server worked on other requests.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gave_way: bool,
}

/// What a warming reads ahead.
#[derive(Debug, Clone, Copy)]
enum Ahead {
    /// From the top of a document just opened ([`Pipeline::warm`]).
    Document,
    /// The whole prompt at the cursor ([`Pipeline::warm_at_cursor`]).
    Cursor,
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
        self.warm_learning(request, files, Ahead::Document).await
    }

    /// Runs one warming and, when the server refused its fill-in-the-middle shape, runs it
    /// once more prefix-only, as a completion would.
    async fn warm_learning(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        ahead: Ahead,
    ) -> Result<Warmed, PipelineError> {
        match self.warm_once(request, files, ahead).await {
            // A model the server had not said lacks fill-in-the-middle: learned and remembered
            // as a completion would, and warmed prefix-only. Another warming (of a document
            // opened just before) may have learned it while this one's request was on its
            // way, so what decides is the refusal, not whether it is known yet.
            Err(PipelineError::Backend { error, .. })
                if self.settings.fim == crate::FimMode::Auto
                    && self.backend.kind.prefix_only().is_some()
                    && let Some(why) = crate::shape::refuses_fim(&error) =>
            {
                if self.fit.refused_fim().is_none() {
                    let why = format!("the server refused it: {why}");
                    self.fit.learn_fim(&self.backend, false, why);
                }
                self.warm_once(request, files, ahead).await
            }
            other => other,
        }
    }

    async fn warm_once(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
        ahead: Ahead,
    ) -> Result<Warmed, PipelineError> {
        match ahead {
            Ahead::Document => self.warm_as_shaped(request, files).await,
            Ahead::Cursor => self.warm_at_cursor_as_shaped(request, files).await,
        }
    }

    /// [`Self::warm`] in the shape a completion would take now.
    async fn warm_as_shaped(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
    ) -> Result<Warmed, PipelineError> {
        let started = Instant::now();
        let (backend, shape, budget) = match self.warm_backend(request, started).await? {
            Ok(ready) => ready,
            Err(skipped) => return Ok(skipped),
        };
        let path = &request.document.path;
        let prompt = self.assemble(request, files, path, budget.tokens, &shape)?;

        let ahead = read_ahead(request, &prompt, budget.tokens)?;
        let mut sent = model_request(&prompt, shape.fim);
        sent.suffix.clear();
        // llama.cpp samples one token whatever the limit; vLLM wants at least one.
        let vllm = backend.kind == Kind::OpenAiCompletions;
        sent.max_tokens = u32::from(vllm);
        let piece = if vllm {
            ahead.len()
        } else {
            self.piece_bytes()
        };
        let mut characters = 0;
        // In pieces of about [`PIECE`] of reading each, from the prompt's start: the context
        // and the document from the prefix's anchor, which the next keystrokes' prompts start
        // with. A piece stops the server for at most that long when typing starts (it reads a
        // batch whole), and what the pieces before it read stays in its cache.
        for end in pieces(&ahead, piece) {
            let piece = &ahead[..end];
            sent.prefix = piece.to_owned();
            if !shape.fim {
                sent.prompt = piece.to_owned();
            }
            let read = backend
                .stream_timed(&sent, |_| ControlFlow::Continue(()))
                .await;
            let timings = read
                .map_err(|e| PipelineError::Backend {
                    error: Arc::new(e),
                    trace: Box::new(Trace::default()),
                })?
                .1;
            let anchor = self
                .state()
                .sessions
                .get(path)
                .and_then(prompt::Session::anchor);
            let text = request_text(&sent, shape.kind);
            self.fit.sent(
                &backend,
                &text,
                budget.tokens,
                anchor.map(|a| (path.as_str(), a)),
            );
            if let Some(t) = &timings {
                self.observe_unless_contended(&backend, t).await;
            }
            characters = piece.len() + sent.extra.iter().map(|c| c.text.len()).sum::<usize>();
        }
        Ok(Warmed {
            sent: true,
            skipped: None,
            characters,
            ms: started.elapsed().as_secs_f64() * 1e3,
            gave_way: false,
        })
    }
    /// The backend a warming sends with and the shape and budget of its prompt; a warming
    /// skipped (only a llama.cpp server's cache is warmed) when not.
    async fn warm_backend(
        &self,
        request: &RequestJson,
        started: Instant,
    ) -> Result<Result<(backends::Backend, crate::Shape, fit::Budget), Warmed>, PipelineError> {
        let (info, silent) = self.fit.info(&self.backend).await;
        if let Some(error) = silent {
            return Err(PipelineError::Backend {
                error: Arc::new(error),
                trace: Box::default(),
            });
        }
        let shape = self.shape(request, info.as_ref());
        // Only a server known to be llama.cpp (its slot keeps the prompt read, and the request
        // that generates one token costs nothing else) or vLLM (its prefix cache, on by
        // default since its V1 engine, keeps the full blocks read).
        let llama_cpp = matches!(shape.kind, Kind::LlamaCppInfill | Kind::LlamaCppCompletion)
            && info.as_ref().is_some_and(|i| i.is_llama_cpp());
        let vllm = shape.kind == Kind::OpenAiCompletions
            && info.as_ref().is_some_and(|i| i.server == "vLLM");
        if !llama_cpp && !vllm {
            return Ok(Err(Warmed {
                sent: false,
                skipped: Some(
                    "only a llama.cpp or vLLM server's prompt cache is warmed ahead of typing"
                        .to_owned(),
                ),
                characters: 0,
                ms: started.elapsed().as_secs_f64() * 1e3,
                gave_way: false,
            }));
        }
        let mut backend = self.backend.clone();
        backend.kind = shape.kind;
        // Reading the whole prompt is the point, and nothing is generated until it is read: the
        // time-to-first-token limit meant for suggestions would end every warming of a prompt
        // that takes longer to read than it allows.
        backend.first_token_timeout = None;
        let context_size = fit::context_size(&self.backend, info.as_ref());
        let asked = self
            .settings
            .max_prompt_tokens
            .unwrap_or(request.options.max_prompt_tokens);
        let budget = self
            .fit
            .budget(asked, context_size, self.settings.max_tokens);
        Ok(Ok((backend, shape, budget)))
    }

    /// Sends ahead the whole prompt a completion at `request`'s cursor would send with the
    /// full budget (after a completion there was lowered to the server's speed), in pieces of
    /// about [`CURSOR_PIECE`] of reading each, sized at the speed measured so far: the
    /// prefix's start first, each piece read on top of the last, and last the prompt whole
    /// (suffix included). The next keystroke's prompt at the full budget then starts as the
    /// server holds it, and reads within the first-token target. Dropping the future stops it
    /// between pieces; what was read stays in the server's cache.
    pub async fn warm_at_cursor(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
    ) -> Result<Warmed, PipelineError> {
        self.warm_learning(request, files, Ahead::Cursor).await
    }

    /// [`Self::warm_at_cursor`] in the shape a completion would take now.
    async fn warm_at_cursor_as_shaped(
        &self,
        request: &RequestJson,
        files: Option<&(dyn syntax::WorkspaceFiles + Sync)>,
    ) -> Result<Warmed, PipelineError> {
        let started = Instant::now();
        let (backend, shape, budget) = match self.warm_backend(request, started).await? {
            Ok(ready) => ready,
            Err(skipped) => return Ok(skipped),
        };
        let path = &request.document.path;
        let prompt = self.assemble(request, files, path, budget.tokens, &shape)?;
        let mut whole = model_request(&prompt, shape.fim);
        // llama.cpp samples one token whatever the limit; vLLM wants at least one.
        whole.max_tokens = u32::from(backend.kind == Kind::OpenAiCompletions);
        // The one string a prefix-only or template prompt is; `/infill`'s prefix.
        let one_string = shape.kind.fim() == backends::Fim::Template || !shape.fim;
        let body = if one_string {
            whole.prompt.clone()
        } else {
            whole.prefix.clone()
        };
        let mut from = 0;
        loop {
            // Reading ahead for one person must not delay another's answer: on a server
            // working on any request (a shared one, or this person's own still being read),
            // the warming stops before its next piece.
            if self.backend.working_now(BUSY_PROBE).await == Some(true) {
                return Ok(Warmed {
                    sent: from > 0,
                    skipped: Some(
                        "the server is working on other requests, which reading ahead would delay"
                            .to_owned(),
                    ),
                    characters: from,
                    ms: started.elapsed().as_secs_f64() * 1e3,
                    gave_way: true,
                });
            }
            let end = next_piece(&body, from, self.piece_bytes_of(CURSOR_PIECE));
            let mut sent = whole.clone();
            if end < body.len() {
                sent.suffix.clear();
                if one_string {
                    sent.prompt.truncate(end);
                } else {
                    sent.prefix.truncate(end);
                }
            }
            let read = backend
                .stream_timed(&sent, |_| ControlFlow::Continue(()))
                .await
                .map_err(|e| PipelineError::Backend {
                    error: Arc::new(e),
                    trace: Box::new(Trace::default()),
                })?;
            // Each piece is remembered as sent when read: stopped between pieces, the next
            // keystroke's budget counts what the server holds now.
            let text = if end < body.len() {
                request_text(&sent, shape.kind)
            } else {
                model_text(&prompt, shape.kind)
            };
            let anchor = self
                .state()
                .sessions
                .get(path)
                .and_then(prompt::Session::anchor);
            self.fit.sent(
                &backend,
                &text,
                budget.tokens,
                anchor.map(|a| (path.as_str(), a)),
            );
            if let Some(t) = &read.1 {
                self.observe_unless_contended(&backend, t).await;
            }
            if end >= body.len() {
                break;
            }
            from = end;
        }
        let text = model_text(&prompt, shape.kind);
        Ok(Warmed {
            sent: true,
            skipped: None,
            characters: text.len(),
            ms: started.elapsed().as_secs_f64() * 1e3,
            gave_way: false,
        })
    }
}

/// The prompt's prefix followed by the document after the position, as much as the prefix's
/// share of the budget holds: a first completion within it starts exactly as this prompt does
/// (the prefix's anchor stays where this request put it). More would cost reading time before
/// typing starts, and llama.cpp's `/infill` keeps only the end of a longer prefix, which would
/// leave the start of this one out of its cache.
fn read_ahead(
    request: &RequestJson,
    prompt: &prompt::Prompt,
    budget: usize,
) -> Result<String, PipelineError> {
    let text = request.document.text.replace("\r\n", "\n");
    let offset = prompt::request::byte_offset(&text, request.position)?;
    let room = budget.saturating_sub(prompt.prompt_tokens + prompt.suffix_tokens);
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
    Ok(format!(
        "{}{}{rest}",
        prompt.prefix, prompt.trailing_whitespace
    ))
}

/// Reading time of one piece of a warming: short enough that typing waits little for the piece
/// under way (llama.cpp reads a batch whole even after its connection closed), long enough that
/// each request's own cost (the connection, one sampled token) is small beside it.
const PIECE: std::time::Duration = std::time::Duration::from_millis(300);

/// Reading time of one piece of a warming at the cursor.
const CURSOR_PIECE: std::time::Duration = std::time::Duration::from_millis(300);

/// How long a warming at the cursor waits for the server to say whether it works on other
/// requests (`/slots`, vLLM's `/metrics`); no answer in time, and the warming goes on.
const BUSY_PROBE: std::time::Duration = std::time::Duration::from_millis(500);

/// Model tokens read per piece before the server's speed is measured.
const UNMEASURED_PIECE_TOKENS: f64 = 160.0;

impl Pipeline {
    /// The bytes of prompt a piece of warming holds: [`PIECE`] of reading at the server's
    /// measured speed (128 tokens at least), at the model's measured tokens per byte.
    fn piece_bytes(&self) -> usize {
        self.piece_bytes_of(PIECE)
    }

    /// The bytes of prompt `reading` of reading holds at the server's measured speed (64
    /// tokens at least, [`UNMEASURED_PIECE_TOKENS`] before it is measured).
    fn piece_bytes_of(&self, reading: std::time::Duration) -> usize {
        let tokens = self
            .fit
            .speed()
            .map_or(UNMEASURED_PIECE_TOKENS, |s| {
                s.prompt_per_second * reading.as_secs_f64()
            })
            .max(64.0);
        (tokens / self.fit.tokens_per_byte()) as usize
    }
}

/// Where the piece of `text` from `from` ends: after about `bytes`, at the end of a line, or at
/// the end of `text`.
fn next_piece(text: &str, from: usize, bytes: usize) -> usize {
    if text.len() - from <= bytes {
        return text.len();
    }
    let mut at = from + bytes;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    match text[from..at].rfind('\n') {
        Some(i) => from + i + 1,
        None => text[at..].find('\n').map_or(text.len(), |i| at + i + 1),
    }
}

/// Where each piece of `text` ends: about every `bytes`, at the end of a line, the last at the
/// end of `text`.
fn pieces(text: &str, bytes: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut from = 0;
    while text.len() - from > bytes {
        let end = next_piece(text, from, bytes);
        ends.push(end);
        from = end;
    }
    if from < text.len() || ends.is_empty() {
        ends.push(text.len());
    }
    ends
}

/// The text a warming request makes the model read, as the prompts of completions are
/// compared with it: context chunks with their names, then the prefix (or the one prompt).
fn request_text(request: &backends::Request, kind: Kind) -> String {
    if kind.fim() == backends::Fim::Template && !request.prompt.is_empty() {
        return request.prompt.clone();
    }
    let mut text = String::new();
    if kind.takes_separate_context() {
        for c in &request.extra {
            text.push_str(&format!("{}\n{}\n", c.filename, c.text));
        }
    }
    text.push_str(&request.prefix);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_line_ends_and_cover_the_text() {
        let text = "line one\n".repeat(50);
        let ends = pieces(&text, 100);
        assert_eq!(ends.last(), Some(&text.len()));
        assert!(ends.len() >= 4, "{ends:?}");
        for w in ends.windows(2) {
            assert!(w[0] < w[1] && w[1] - w[0] <= 100, "{ends:?}");
        }
        assert!(ends.iter().all(|&e| text[..e].ends_with('\n')));
        assert_eq!(pieces("short", 100), vec![5]);
        assert_eq!(pieces("", 100), vec![0]);
    }
}
