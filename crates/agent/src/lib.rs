//! Agent mode's pure parts (seed 004): the tools' typed arguments and schemas (`tools`),
//! edits placed without a second model (`edit`), tool results kept inside the budget
//! (`budget`), the system prompt (`system_prompt`) and the loop itself (`run`, over the
//! messages of `conversation`), driven through traits for the model, the tools, the user's
//! approvals and whoever watches. No I/O: the `host` crate runs the tools and talks to the
//! model.

pub mod budget;
pub mod commands;
pub mod conversation;
pub mod edit;
pub mod history;
pub mod run;
pub mod system_prompt;
pub mod tools;
