//! Agent mode's pure parts (seed 004): the tools' typed arguments and schemas (`tools`),
//! edits placed without a second model (`edit`), tool results kept inside the budget
//! (`budget`) and the system prompt (`system_prompt`). No I/O: the command line runs the tools
//! on disk and talks to the model.

pub mod budget;
pub mod commands;
pub mod edit;
pub mod history;
pub mod system_prompt;
pub mod tools;
