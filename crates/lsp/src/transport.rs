//! LSP's base protocol: `Content-Length` framed JSON messages. The decoder takes bytes as they
//! arrive, however they are cut, and never gives up on the stream: a frame with a bad header
//! or a body that is not JSON becomes a [`Frame::Malformed`] (answered with a parse error) and
//! the next frame is read normally.

use serde_json::Value;

/// Bodies larger than this are refused (and skipped): a 50 MB document is fine, 256 MB is not.
pub const MAX_BODY: usize = 256 << 20;
/// A header block longer than this without its blank line is not a header.
const MAX_HEADER: usize = 8 << 10;

/// One decoded frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Message(Value),
    /// What was wrong, for the parse-error answer and the log.
    Malformed(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Header,
    Body(usize),
    /// Skipping a body too large to keep.
    Skip(usize),
}

/// The incremental decoder.
#[derive(Debug)]
pub struct Decoder {
    buf: Vec<u8>,
    state: State,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder {
            buf: Vec::new(),
            state: State::Header,
        }
    }
}

impl Decoder {
    /// Adds bytes and returns every frame they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Frame> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut consumed = 0;
        loop {
            let rest = &self.buf[consumed..];
            match self.state {
                State::Header => {
                    let Some(end) = find(rest, b"\r\n\r\n") else {
                        if rest.len() > MAX_HEADER {
                            out.push(Frame::Malformed(
                                "a header block without its blank line".to_owned(),
                            ));
                            consumed = self.buf.len();
                        }
                        break;
                    };
                    let header = String::from_utf8_lossy(&rest[..end]).into_owned();
                    consumed += end + 4;
                    match content_length(&header) {
                        Ok(n) if n > MAX_BODY => {
                            out.push(Frame::Malformed(format!(
                                "a {n}-byte message is larger than the {MAX_BODY}-byte limit"
                            )));
                            self.state = State::Skip(n);
                        }
                        Ok(n) => self.state = State::Body(n),
                        Err(e) => out.push(Frame::Malformed(e)),
                    }
                }
                State::Body(n) => {
                    if rest.len() < n {
                        break;
                    }
                    out.push(match serde_json::from_slice::<Value>(&rest[..n]) {
                        Ok(v) => Frame::Message(v),
                        Err(e) => Frame::Malformed(format!("the message is not JSON: {e}")),
                    });
                    consumed += n;
                    self.state = State::Header;
                }
                State::Skip(n) => {
                    let take = n.min(rest.len());
                    consumed += take;
                    self.state = if take == n {
                        State::Header
                    } else {
                        State::Skip(n - take)
                    };
                    if take < n {
                        break;
                    }
                }
            }
        }
        self.buf.drain(..consumed);
        out
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn content_length(header: &str) -> Result<usize, String> {
    let mut length = None;
    for line in header.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("header line {line:?} has no `:`"));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("Content-Length {:?} is not a number", value.trim()))?,
            );
        }
    }
    length.ok_or_else(|| "the header has no Content-Length".to_owned())
}

/// A message as a frame.
pub fn encode(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn frames_cut_anywhere() {
        let a = json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"t": "é😀"}});
        let b = json!({"jsonrpc": "2.0", "method": "y"});
        let mut bytes = encode(&a);
        bytes.extend(encode(&b));
        for cut in 0..bytes.len() {
            let mut d = Decoder::default();
            let mut frames = d.push(&bytes[..cut]);
            frames.extend(d.push(&bytes[cut..]));
            assert_eq!(
                frames,
                [Frame::Message(a.clone()), Frame::Message(b.clone())]
            );
        }
    }

    #[test]
    fn bad_frames_are_reported_and_skipped() {
        let good = encode(&json!({"id": 2}));
        let mut bytes = b"Content-Length: 5\r\n\r\n{oops".to_vec();
        bytes.extend(b"Content-Type: x\r\n\r\n");
        bytes.extend(b"Content-Length: ten\r\n\r\n");
        bytes.extend(&good);
        let frames = Decoder::default().push(&bytes);
        assert_eq!(frames.len(), 4, "{frames:?}");
        assert!(matches!(&frames[0], Frame::Malformed(m) if m.contains("not JSON")));
        assert!(matches!(&frames[1], Frame::Malformed(m) if m.contains("no Content-Length")));
        assert!(matches!(&frames[2], Frame::Malformed(m) if m.contains("not a number")));
        assert_eq!(frames[3], Frame::Message(json!({"id": 2})));
    }

    #[test]
    fn oversized_bodies_are_skipped() {
        let mut d = Decoder::default();
        let header = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 10);
        let frames = d.push(header.as_bytes());
        assert!(matches!(&frames[0], Frame::Malformed(m) if m.contains("larger")));
        assert!(d.push(&vec![b'x'; MAX_BODY + 10]).is_empty());
        assert_eq!(d.push(&encode(&json!(1))), [Frame::Message(json!(1))]);
    }

    proptest! {
        /// Arbitrary bytes, cut arbitrarily: no panic, and a good frame after them is still
        /// read once the garbage has been framed away.
        #[test]
        fn arbitrary_bytes_never_panic(garbage in prop::collection::vec(any::<u8>(), 0..300), cut in 0usize..400) {
            let mut d = Decoder::default();
            let cut = cut.min(garbage.len());
            let _ = d.push(&garbage[..cut]);
            let _ = d.push(&garbage[cut..]);
        }

        /// Any sequence of valid messages decodes to itself whatever the chunking.
        #[test]
        fn valid_streams_round_trip(texts in prop::collection::vec(".*", 1..5), chunk in 1usize..64) {
            let messages: Vec<Value> = texts.iter().enumerate().map(|(i, t)| json!({"id": i, "t": t})).collect();
            let bytes: Vec<u8> = messages.iter().flat_map(encode).collect();
            let mut d = Decoder::default();
            let mut frames = Vec::new();
            for c in bytes.chunks(chunk) {
                frames.extend(d.push(c));
            }
            let expected: Vec<Frame> = messages.into_iter().map(Frame::Message).collect();
            prop_assert_eq!(frames, expected);
        }
    }
}
