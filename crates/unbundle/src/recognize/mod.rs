//! The first stage: what kind of bundle a file is and where its modules are, by shape rather
//! than by names a minifier may change: webpack's module tables and chunks ([`webpack`]) and
//! esbuild's CommonJS wrappers ([`esbuild`]), rollup's lazy CommonJS wrappers ([`rollup`]) and rollup 2's eager ones ([`eager`]), Parcel's registered modules ([`parcel`]), also inside an arrow wrapping the whole bundle
//! ([`iife`]); JSONP pushes are told from code shaped like them by [`push`].

pub(crate) mod eager;
pub(crate) mod esbuild;
pub(crate) mod iife;
pub(crate) mod parcel;
pub(crate) mod push;
pub(crate) mod rollup;
pub(crate) mod webpack;

/// What a bundle file is to the others.
pub(crate) enum Role {
    /// It runs the program, or starts to: webpack's runtime, an esbuild bundle; with the
    /// chunks a runtime that holds its entry waits for.
    Runs { waits_for: Vec<String> },
    /// A chunk for node (`exports.modules = {...}`), which its runtime `require()`s.
    NodeChunk,
    /// A JSONP chunk, with what its push says of it: a page loads it, or the runtime does.
    Jsonp(webpack::Chunk),
}
