//! The two fixed texts of Copilot's NES request for its default model, reproduced exactly.
//!
//! Everything else in this strategy is written from the library's behaviour; these two strings
//! are the exception, because they are part of what Copilot's model was trained on and what the
//! `copilot` strategy promises: a request byte-identical to the one Copilot's own library
//! sends. They come from `@vscode/chat-lib` 0.66.0 (MIT License, Copyright (c) Microsoft
//! Corporation), `systemMessages.js` (`xtab275SystemPrompt`) and `promptCrafting.js` (the
//! `xtab275` postscript). The differential tests (`crates/differential/tests/it/nes.rs`) check
//! them against the library on every run. Pilotfish's own strategies do not use them.

/// The system message.
pub(crate) const SYSTEM: &str = "Predict the next code edit based on user context, following Microsoft content policies and avoiding copyright violations. If a request may breach guidelines, reply: \"Sorry, I can't assist with that.\"";

/// The instructions after the prompt's sections; `{path}` is the current file's path.
pub(crate) fn postscript(path: &str) -> String {
    format!(
        "The developer was working on a section of code within the tags `code_to_edit` in the file located at `{path}`. Using the given `recently_viewed_code_snippets`, `current_file_content`, `edit_diff_history`, `area_around_code_to_edit`, and the cursor position marked as `<|cursor|>`, please continue the developer's work. Update the `code_to_edit` section by predicting and completing the changes they would have made next. Provide the revised code that was between the `<|code_to_edit|>` and `<|/code_to_edit|>` tags, but do not include the tags themselves. Avoid undoing or reverting the developer's last change unless there are obvious typos or errors. Don't include the line numbers or the form #| in your response. Do not skip any lines. Do not be lazy."
    )
}
