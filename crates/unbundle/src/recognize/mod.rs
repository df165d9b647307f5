//! The first stage: what kind of bundle a file is and where its modules are, by shape rather
//! than by names a minifier may change: webpack's module tables and chunks ([`webpack`]) and
//! esbuild's CommonJS wrappers ([`esbuild`]).

pub(crate) mod esbuild;
pub(crate) mod webpack;
