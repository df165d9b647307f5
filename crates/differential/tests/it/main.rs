//! Differential tests: identical inputs to Copilot's completions library (run by node) and to
//! pilotfish, identical outputs required. Each module covers one area; each prints how many
//! cases it compared so that a run shows what it proved.

mod blocks;
mod copilot_text;
mod elision;
mod markers;
mod nes;
mod postprocess;
mod prompts;
mod snippets;
mod tokens;
