//! The ghost-text pipeline around a model call. So far: the completion cache ([`cache`]) that
//! lets typing through a suggestion reuse it, and the post-processing Copilot applies to a
//! model's answer before showing it ([`postprocess`]), and the parameters it asks with
//! ([`params`]), how long to wait before asking ([`debounce`]), and where an answer leaves its
//! block when no parser knows the language ([`indentation`]), and whether to ask at all
//! ([`contextual_filter`]).

pub mod cache;
pub mod contextual_filter;
pub mod debounce;
pub mod indentation;
pub mod params;
pub mod postprocess;
