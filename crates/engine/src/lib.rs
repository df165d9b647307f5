//! The ghost-text pipeline around a model call. So far: the post-processing Copilot applies to
//! a model's answer before showing it (see [`postprocess`]).

pub mod postprocess;
