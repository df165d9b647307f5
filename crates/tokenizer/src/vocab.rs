//! The two vocabularies, read in place from tables the build script wrote into the binary:
//! token bytes by id, and id by bytes through an open-addressing table. Nothing is parsed or
//! allocated when a vocabulary is first used, and only the pages a text touches are read.

use crate::hash::hash;

/// A vocabulary's tables, borrowed from the binary.
#[derive(Clone, Copy)]
pub(crate) struct Vocabulary {
    byte_ids: &'static [u32],
    pair_ids: &'static [u32],
    /// `count + 1` byte offsets.
    offsets: &'static [u32],
    table: &'static [u32],
    bits: u32,
    bytes: &'static [u8],
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vocabulary({} tokens)", self.len())
    }
}

/// The build script's output, aligned for reading as words.
#[repr(C, align(4))]
struct Aligned<B: ?Sized>(B);

static CL100K: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/cl100k_base.vocab"
)));
static O200K: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/o200k_base.vocab"
)));

/// The layout version build.rs writes.
const VERSION: u32 = 2;

/// Slots hold `fingerprint << ID_BITS | (id + 1)`, as build.rs writes them.
const ID_BITS: u32 = 18;
const ID_MASK: u32 = (1 << ID_BITS) - 1;

/// Reads `data` as little-endian words. The data is word-aligned by [`Aligned`], and every
/// platform Rust targets with 32-bit words read them this way on little-endian machines; a
/// big-endian machine would need the build script to write its own order.
fn words(data: &'static [u8]) -> &'static [u32] {
    const {
        assert!(
            cfg!(target_endian = "little"),
            "the vocabulary tables are little-endian"
        )
    };
    // SAFETY: any four bytes are a valid u32, and `align_to` only yields the aligned middle.
    let (head, words, _) = unsafe { data.align_to::<u32>() };
    assert!(head.is_empty(), "vocabulary tables are word-aligned");
    words
}

impl Vocabulary {
    pub(crate) fn cl100k() -> Vocabulary {
        Vocabulary::read(&CL100K.0)
    }

    pub(crate) fn o200k() -> Vocabulary {
        Vocabulary::read(&O200K.0)
    }

    /// Slices the build script's layout: version, count, table bits, byte count, byte ids,
    /// pair ids, offsets, table, bytes. A few bounds checks, no copying.
    fn read(data: &'static [u8]) -> Vocabulary {
        let w = words(data);
        assert_eq!(w[0], VERSION, "vocabulary tables from another build");
        let (count, bits, byte_len) = (w[1] as usize, w[2], w[3] as usize);
        let (byte_ids, rest) = w[4..].split_at(256);
        let (pair_ids, rest) = rest.split_at(1 << 16);
        let (offsets, rest) = rest.split_at(count + 1);
        let table = &rest[..1 << bits];
        let start = 4 * (w.len() - rest.len() + (1 << bits));
        Vocabulary {
            byte_ids,
            pair_ids,
            offsets,
            table,
            bits,
            bytes: &data[start..start + byte_len],
        }
    }

    /// The number of tokens.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The bytes of token `id`. Panics on an id past the end; callers check ids first.
    #[inline]
    pub(crate) fn token(&self, id: u32) -> &'static [u8] {
        let id = id as usize;
        &self.bytes[self.offsets[id] as usize..self.offsets[id + 1] as usize]
    }

    /// The id (which is also the merge rank) of the token spelled `bytes`, if it is one.
    #[inline]
    pub(crate) fn id(&self, bytes: &[u8]) -> Option<u32> {
        match *bytes {
            [b] => return Some(self.byte_ids[usize::from(b)]),
            [a, b] => return self.pair(a, b),
            _ => {}
        }
        let h = hash(bytes);
        let fingerprint = (h as u32) << ID_BITS;
        let mask = (1usize << self.bits) - 1;
        let mut slot = (h >> (64 - self.bits)) as usize;
        loop {
            let entry = self.table[slot];
            if entry == 0 {
                return None;
            }
            if entry & !ID_MASK == fingerprint {
                let id = (entry & ID_MASK) - 1;
                if self.token(id) == bytes {
                    return Some(id);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The id of the token of one byte.
    #[inline]
    pub(crate) fn byte(&self, b: u8) -> u32 {
        self.byte_ids[usize::from(b)]
    }

    /// The id of the token spelled by two bytes, if they are one.
    #[inline]
    pub(crate) fn pair(&self, a: u8, b: u8) -> Option<u32> {
        let id = self.pair_ids[usize::from(a) << 8 | usize::from(b)];
        (id != u32::MAX).then_some(id)
    }

    /// The bytes of `ids` one after another. Ids must be in the vocabulary.
    pub(crate) fn decode(&self, ids: &[u32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(ids.len() * 4);
        for &id in ids {
            out.extend_from_slice(self.token(id));
        }
        out
    }
}
