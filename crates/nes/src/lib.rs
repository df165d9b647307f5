//! Next edit suggestions (pure): from the edits a user just made, the prompt that asks a model
//! for the edit they will make next, and the model's answer made a minimal edit. `request` is
//! the contract's JSON, `history` what each document went through.

pub mod ends;
pub mod history;
pub mod minimal;
pub mod prompt;
pub mod request;
pub mod strategies;
