//! The second stage: what comes out of each bundle file, and what stays. The entry the
//! bundle holds outside its table ([`entry`]), esbuild's CommonJS modules ([`esbuild`]) and
//! wrapped ES modules ([`esm`]), all found among a body's units ([`units`]).

pub(crate) mod entry;
pub(crate) mod esbuild;
pub(crate) mod esm;
pub(crate) mod units;
