//! The hash that places a token's bytes in the vocabulary's lookup table: the build script
//! fills the table with it and the tokenizer probes it, so both include this one file.

/// Multiplier of the hash: odd, with bits spread over the word (from FxHash's family).
const K: u64 = 0x517c_c1b7_2722_0a95;

/// A hash of `bytes` whose top bits pick the table slot. Tokens are short (a few bytes), so
/// the bytes are taken eight at a time with one multiply each.
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    // The last multiply leaves the low bits poorly mixed; fold the high half in before the
    // caller takes the top bits.
    (h ^ (h >> 32)).wrapping_mul(K)
}
