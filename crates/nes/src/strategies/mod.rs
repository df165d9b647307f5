//! The prompt strategies, one module each: `copilot` (Copilot's own NES prompt, as its library
//! sends it for its default model) and `sweep` (the format open next-edit models are trained
//! on, for a local model behind llama-server's completion endpoint). A strategy builds the
//! [`Prompt`] from the replayed request and reads the model's answer back into an edit.

pub mod copilot;
pub mod sweep;

use crate::{
    prompt::{Answer, Prompt, Skip, Suggestion},
    request::Replayed,
};

/// Builds the prompt of the request's strategy, or says why nothing should be sent. `wording`
/// is the `copilot` strategy's fixed texts (Copilot's own when the caller could read them);
/// the other strategies have their own.
pub fn build(replayed: &Replayed, wording: &copilot::Wording) -> Result<Prompt, Skip> {
    match replayed.options.strategy.as_str() {
        "sweep" => Ok(sweep::build(replayed)),
        // The request was checked: `copilot` is the rest.
        _ => copilot::build(replayed, wording),
    }
}

/// The model's answer made the smallest edit of the cursor's document as it is now, or `None`
/// when the answer proposes no change or none the strategy accepts.
pub fn suggest(replayed: &Replayed, prompt: &Prompt, answer: &str) -> Option<Suggestion> {
    let document = &replayed.documents.get(replayed.cursor_document)?.text;
    match prompt.answer {
        Answer::Window | Answer::Fenced => sweep::read_answer(prompt, answer)
            .and_then(|new| crate::minimal::minimal_edit(document, &prompt.window, &new)),
        Answer::Lines => copilot::suggest(replayed, prompt, answer),
    }
}
