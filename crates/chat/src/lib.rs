//! Chat and agent prompts from the customization files teams keep in their repositories
//! (seed 000): `.github/copilot-instructions.md`, `*.instructions.md` with `applyTo`, agents,
//! skills, `AGENTS.md`, settings instructions. [`discover`] finds them through a [`Files`]
//! implementation (this crate reads nothing itself), [`render`] builds the messages under a
//! token budget, labelling every part with where it came from, and [`review`] gives them as
//! code-review guidelines.

pub mod apply;
pub mod discover;
pub mod files;
pub mod frontmatter;
pub mod jsonc;
pub mod labels;
pub mod render;
pub mod review;

pub use discover::{Customizations, Workspace, discover};
pub use files::{Files, FsError, MemFiles};
pub use render::{ChatPrompt, ChatRequest, Role, Turn, render};
