//! Reading the key-value header of a GGUF model file: the few facts pilotfish wants before it
//! starts a server for the file (its architecture and trained context). The file may be cut
//! short, damaged or something else entirely, so the reader is bounded and never panics: any
//! bytes give a header or an error that says what is wrong.

use std::io::{self, Read};

/// What pilotfish reads from a GGUF file's header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) version: u32,
    pub(crate) tensors: u64,
    /// `general.architecture`, such as `llama` or `qwen2`.
    pub(crate) architecture: Option<String>,
    /// `<architecture>.context_length`: the context the model was trained with.
    pub(crate) context_length: Option<u64>,
}

/// Why a header could not be read.
#[derive(Debug)]
pub(crate) enum GgufError {
    /// The file does not start with `GGUF`; its first bytes (up to 32).
    NotGguf(Vec<u8>),
    /// The file ends inside its header.
    Truncated,
    Malformed(String),
    Io(io::Error),
}

impl std::fmt::Display for GgufError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GgufError::NotGguf(start) => {
                write!(f, "no GGUF magic (it starts with {})", show_bytes(start))
            }
            GgufError::Truncated => {
                write!(f, "the file ends inside its header (a download cut short?)")
            }
            GgufError::Malformed(why) => write!(f, "{why}"),
            GgufError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GgufError {}

/// The longest key the format allows.
const MAX_KEY: u64 = 65_535;
/// Metadata past this many bytes is not read: the keys pilotfish wants come early, and a
/// damaged file must not be read to its end.
const MAX_METADATA: u64 = 256 << 20;
/// Arrays of arrays deeper than this are taken as damage.
const MAX_DEPTH: u32 = 3;

/// Reads the header of a GGUF file: magic, version, tensor and key counts, then the key/value
/// pairs up to the ones wanted. Any bytes give a value or an error, never a panic, and nothing
/// is allocated by a length the file claims beyond a key's 64 KiB.
pub(crate) fn read_header(input: impl Read) -> Result<Header, GgufError> {
    let mut r = Reader {
        input,
        read: 0,
        v1: false,
    };
    let mut magic = Vec::with_capacity(16);
    (&mut r.input)
        .take(4)
        .read_to_end(&mut magic)
        .map_err(GgufError::Io)?;
    if magic != b"GGUF" {
        // A few more bytes make the error readable ("<!DOCTYPE html>", "version https://...").
        let _ = (&mut r.input).take(28).read_to_end(&mut magic);
        return Err(GgufError::NotGguf(magic));
    }
    let version = r.u32()?;
    let mut header = Header {
        version,
        ..Header::default()
    };
    if !(1..=3).contains(&version) {
        // A newer (or big-endian) file: llama-server may read it; pilotfish only misses the
        // trained context.
        return Ok(header);
    }
    r.v1 = version == 1;
    header.tensors = r.count()?;
    let keys = r.count()?;
    // `<arch>.context_length` may come before `general.architecture`: a few candidates are kept.
    let mut lengths: Vec<(String, u64)> = Vec::new();
    for _ in 0..keys {
        if r.read > MAX_METADATA {
            break;
        }
        let key = r.key()?;
        let ty = r.u32()?;
        if key == "general.architecture" && ty == STRING {
            header.architecture = r.short_string(256)?;
        } else if key.ends_with(".context_length") {
            if let Some(n) = r.integer(ty)?
                && lengths.len() < 16
            {
                lengths.push((key, n));
            }
        } else {
            r.skip_value(ty, 0)?;
        }
        if let Some(arch) = &header.architecture
            && let Some((_, n)) = lengths
                .iter()
                .find(|(k, _)| k.strip_suffix(".context_length") == Some(arch.as_str()))
        {
            header.context_length = Some(*n);
            break;
        }
    }
    Ok(header)
}

const STRING: u32 = 8;
const ARRAY: u32 = 9;

struct Reader<R> {
    input: R,
    /// Bytes read so far.
    read: u64,
    /// Version 1 has 32-bit counts and lengths.
    v1: bool,
}

impl<R: Read> Reader<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut buf = [0; N];
        self.input.read_exact(&mut buf).map_err(eof)?;
        self.read += N as u64;
        Ok(buf)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    /// A count or a length: 64 bits, or 32 in version 1.
    fn count(&mut self) -> Result<u64, GgufError> {
        if self.v1 {
            self.u32().map(u64::from)
        } else {
            self.u64()
        }
    }

    fn skip(&mut self, n: u64) -> Result<(), GgufError> {
        let got =
            io::copy(&mut (&mut self.input).take(n), &mut io::sink()).map_err(GgufError::Io)?;
        self.read = self.read.saturating_add(got);
        if got < n {
            return Err(GgufError::Truncated);
        }
        Ok(())
    }

    fn key(&mut self) -> Result<String, GgufError> {
        let len = self.count()?;
        if len > MAX_KEY {
            return Err(GgufError::Malformed(format!(
                "a metadata key of {len} bytes, more than the format allows"
            )));
        }
        let mut buf = Vec::new();
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(GgufError::Io)?;
        self.read += got as u64;
        if (got as u64) < len {
            return Err(GgufError::Truncated);
        }
        String::from_utf8(buf)
            .map_err(|_| GgufError::Malformed("a metadata key that is not UTF-8".into()))
    }

    /// A string value: its text if at most `max` bytes of UTF-8, else skipped.
    fn short_string(&mut self, max: u64) -> Result<Option<String>, GgufError> {
        let len = self.count()?;
        if len > max {
            self.skip(len)?;
            return Ok(None);
        }
        let mut buf = Vec::new();
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(GgufError::Io)?;
        self.read += got as u64;
        if (got as u64) < len {
            return Err(GgufError::Truncated);
        }
        Ok(String::from_utf8(buf).ok())
    }

    /// An integer value of any width; `None` (the value skipped) for other types and
    /// negative numbers.
    fn integer(&mut self, ty: u32) -> Result<Option<u64>, GgufError> {
        Ok(match ty {
            0 => Some(u64::from(self.bytes::<1>()?[0])),
            1 => u64::try_from(i8::from_le_bytes(self.bytes()?)).ok(),
            2 => Some(u64::from(u16::from_le_bytes(self.bytes()?))),
            3 => u64::try_from(i16::from_le_bytes(self.bytes()?)).ok(),
            4 => Some(u64::from(self.u32()?)),
            5 => u64::try_from(i32::from_le_bytes(self.bytes()?)).ok(),
            10 => Some(self.u64()?),
            11 => u64::try_from(i64::from_le_bytes(self.bytes()?)).ok(),
            _ => {
                self.skip_value(ty, 0)?;
                None
            }
        })
    }

    fn skip_value(&mut self, ty: u32, depth: u32) -> Result<(), GgufError> {
        if let Some(size) = fixed_size(ty) {
            return self.skip(size);
        }
        match ty {
            STRING => {
                let len = self.count()?;
                self.skip(len)
            }
            ARRAY => {
                if depth >= MAX_DEPTH {
                    return Err(GgufError::Malformed("arrays nested too deep".into()));
                }
                let element = self.u32()?;
                let n = self.count()?;
                if let Some(size) = fixed_size(element) {
                    let total = n
                        .checked_mul(size)
                        .ok_or_else(|| GgufError::Malformed(format!("an array of {n} elements")))?;
                    return self.skip(total);
                }
                // Strings and arrays one by one: each takes at least 4 bytes of the file, so
                // a false count ends at the end of the file or of the metadata allowed.
                for _ in 0..n {
                    if self.read > MAX_METADATA {
                        return Err(GgufError::Malformed(format!(
                            "an array of {n} elements that does not end within {} MiB",
                            MAX_METADATA >> 20
                        )));
                    }
                    self.skip_value(element, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(GgufError::Malformed(format!("an unknown value type {ty}"))),
        }
    }
}

/// The size of a value of fixed size: integers, floats and booleans.
fn fixed_size(ty: u32) -> Option<u64> {
    match ty {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

fn eof(e: io::Error) -> GgufError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        GgufError::Truncated
    } else {
        GgufError::Io(e)
    }
}

/// The first bytes of a file as text where they are, else in hexadecimal.
pub(crate) fn show_bytes(bytes: &[u8]) -> String {
    let bytes = &bytes[..bytes.len().min(16)];
    if bytes
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        format!("{:?}", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    }
}

/// GGUF files built in memory, for the tests here and in `managed`.
#[cfg(test)]
pub(crate) mod test_files {
    use super::{ARRAY, STRING};

    /// A GGUF value, for building files in tests.
    pub(super) enum V {
        U32(u32),
        U64(u64),
        I32(i32),
        F32(f32),
        Bool(bool),
        Str(&'static str),
        Strings(Vec<String>),
        Ints(Vec<i32>),
        Nested(Vec<Vec<&'static str>>),
    }

    fn string(out: &mut Vec<u8>, s: &str, v1: bool) {
        count(out, s.len() as u64, v1);
        out.extend_from_slice(s.as_bytes());
    }

    fn count(out: &mut Vec<u8>, n: u64, v1: bool) {
        if v1 {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        } else {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    /// A GGUF file of `version` with these key/value pairs and no tensors.
    pub(super) fn gguf(version: u32, kvs: &[(&str, V)]) -> Vec<u8> {
        let v1 = version == 1;
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        count(&mut out, 0, v1);
        count(&mut out, kvs.len() as u64, v1);
        for (key, value) in kvs {
            string(&mut out, key, v1);
            let ty = |out: &mut Vec<u8>, t: u32| out.extend_from_slice(&t.to_le_bytes());
            match value {
                V::U32(n) => {
                    ty(&mut out, 4);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::U64(n) => {
                    ty(&mut out, 10);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::I32(n) => {
                    ty(&mut out, 5);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::F32(x) => {
                    ty(&mut out, 6);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                V::Bool(b) => {
                    ty(&mut out, 7);
                    out.push(u8::from(*b));
                }
                V::Str(s) => {
                    ty(&mut out, STRING);
                    string(&mut out, s, v1);
                }
                V::Strings(items) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, STRING);
                    count(&mut out, items.len() as u64, v1);
                    for s in items {
                        string(&mut out, s, v1);
                    }
                }
                V::Ints(items) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, 5);
                    count(&mut out, items.len() as u64, v1);
                    for n in items {
                        out.extend_from_slice(&n.to_le_bytes());
                    }
                }
                V::Nested(rows) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, ARRAY);
                    count(&mut out, rows.len() as u64, v1);
                    for row in rows {
                        ty(&mut out, STRING);
                        count(&mut out, row.len() as u64, v1);
                        for s in row {
                            string(&mut out, s, v1);
                        }
                    }
                }
            }
        }
        out
    }

    /// A header as a converted model has it: the vocabulary (arrays of strings) between the
    /// architecture and its context length.
    pub(crate) fn model(version: u32) -> Vec<u8> {
        let vocab: Vec<String> = (0..500).map(|i| format!("tok{i}")).collect();
        gguf(
            version,
            &[
                ("general.name", V::Str("tiny")),
                ("tokenizer.ggml.tokens", V::Strings(vocab)),
                ("tokenizer.ggml.token_type", V::Ints(vec![1; 500])),
                ("bert.context_length", V::U32(512)),
                ("general.architecture", V::Str("qwen2")),
                ("qwen2.rope.freq_base", V::F32(1e6)),
                ("tokenizer.ggml.add_bos_token", V::Bool(true)),
                ("nested", V::Nested(vec![vec!["a", "b"], vec![]])),
                ("qwen2.context_length", V::U64(32_768)),
                ("after", V::I32(-1)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{
        test_files::{V, gguf, model},
        *,
    };

    #[test]
    fn reads_the_architectures_context_length_past_arrays_of_strings() {
        for version in [1, 2, 3] {
            let h = read_header(model(version).as_slice()).unwrap();
            assert_eq!(h.version, version);
            assert_eq!(h.architecture.as_deref(), Some("qwen2"));
            assert_eq!(h.context_length, Some(32_768), "version {version}");
        }
    }

    #[test]
    fn a_context_length_before_the_architecture_counts() {
        let file = gguf(
            3,
            &[
                ("llama.context_length", V::I32(4096)),
                ("general.architecture", V::Str("llama")),
            ],
        );
        let h = read_header(file.as_slice()).unwrap();
        assert_eq!(h.context_length, Some(4096));
        // No architecture: no length, even with one of some other model's.
        let file = gguf(3, &[("llama.context_length", V::U32(4096))]);
        assert_eq!(read_header(file.as_slice()).unwrap().context_length, None);
        // A negative length is no length.
        let file = gguf(
            3,
            &[
                ("general.architecture", V::Str("llama")),
                ("llama.context_length", V::I32(-5)),
            ],
        );
        assert_eq!(read_header(file.as_slice()).unwrap().context_length, None);
    }

    #[test]
    fn other_files_are_named_by_how_they_start() {
        let e = read_header(b"<!DOCTYPE html><html>".as_slice()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no GGUF magic (it starts with \"<!DOCTYPE html><\")"
        );
        let e = read_header([0x7f, b'E', b'L', b'F', 2, 1].as_slice()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no GGUF magic (it starts with bytes 7f 45 4c 46 02 01)"
        );
        assert!(matches!(
            read_header(b"".as_slice()),
            Err(GgufError::NotGguf(s)) if s.is_empty()
        ));
        // A version pilotfish does not know: the file is a GGUF file, its length unknown.
        let mut future = b"GGUF".to_vec();
        future.extend_from_slice(&7u32.to_le_bytes());
        assert_eq!(read_header(future.as_slice()).unwrap().context_length, None);
    }

    #[test]
    fn a_header_cut_anywhere_is_an_error_not_a_panic() {
        let file = model(3);
        let whole = read_header(file.as_slice()).unwrap();
        // The reader stops at the length it wants, so cuts after it still give the header.
        let mut last_error = 0;
        for cut in 0..file.len() {
            match read_header(&file[..cut]) {
                Ok(h) => assert_eq!(h, whole, "cut at {cut}"),
                Err(_) => last_error = cut,
            }
        }
        assert!(last_error > file.len() - 30, "{last_error}");
    }

    /// Fuzzing in miniature: random bytes after the magic, and the model's header with random
    /// bytes changed, always give an answer; claimed lengths of up to 2^64 allocate nothing.
    #[test]
    fn random_and_damaged_headers_never_panic() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            // xorshift64*: deterministic, so a failure can be replayed.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let base = model(3);
        for round in 0..20_000 {
            let bytes = if round % 2 == 0 {
                let mut b = b"GGUF".to_vec();
                b.extend_from_slice(&[(round % 4) as u8, 0, 0, 0]);
                let len = (next() % 200) as usize;
                b.extend((0..len).map(|_| {
                    // Small values often, so that types and short lengths come up.
                    let r = next();
                    if r % 3 == 0 {
                        (r >> 8) as u8
                    } else {
                        (r >> 8) as u8 % 13
                    }
                }));
                b
            } else {
                let mut b = base.clone();
                for _ in 0..=next() % 4 {
                    let at = (next() as usize) % b.len();
                    b[at] = (next() >> 16) as u8;
                }
                b.truncate((next() as usize) % (b.len() + 1));
                b
            };
            let _ = read_header(bytes.as_slice());
        }
        // The largest claims, explicitly: an array of 2^64-1 strings, a string of 2^64-1 bytes.
        let mut huge = b"GGUF".to_vec();
        huge.extend_from_slice(&3u32.to_le_bytes());
        huge.extend_from_slice(&0u64.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        huge.extend_from_slice(&1u64.to_le_bytes());
        huge.push(b'k');
        huge.extend_from_slice(&ARRAY.to_le_bytes());
        huge.extend_from_slice(&STRING.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            read_header(huge.as_slice()),
            Err(GgufError::Truncated)
        ));
    }
}
