//! Server-sent events, parsed incrementally from arbitrary chunks of bytes: an event may be cut
//! anywhere (even inside a UTF-8 character) between two chunks, and a stream may end in the
//! middle of one.

/// One event's `data` (its `data:` lines joined by newlines).
pub type Event = String;

/// Accumulates bytes and yields complete events.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    data: Option<String>,
}

/// A stream that is not server-sent events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("the event stream holds bytes that are not UTF-8 (at byte {0} of a line)")]
    NotUtf8(usize),
    #[error("an event line is longer than {0} bytes")]
    LineTooLong(usize),
}

/// Lines longer than this are refused rather than buffered without end.
pub const MAX_LINE_BYTES: usize = 16 << 20;

impl SseParser {
    /// Feeds bytes; returns the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, SseError> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(nl) = self.buffer[start..].iter().position(|&b| b == b'\n') {
            let end = start + nl;
            let line = &self.buffer[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = std::str::from_utf8(line).map_err(|e| SseError::NotUtf8(e.valid_up_to()))?;
            if line.is_empty() {
                if let Some(data) = self.data.take() {
                    events.push(data);
                }
            } else if let Some(value) = field(line, "data") {
                match &mut self.data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
            }
            // Comments (`:`), `event:`, `id:` and `retry:` lines carry nothing we use.
            start = end + 1;
        }
        self.buffer.drain(..start);
        if self.buffer.len() > MAX_LINE_BYTES {
            return Err(SseError::LineTooLong(MAX_LINE_BYTES));
        }
        Ok(events)
    }

    /// Whether bytes of an unfinished event are waiting: at the end of a stream, a cut.
    pub fn has_partial_event(&self) -> bool {
        !self.buffer.iter().all(u8::is_ascii_whitespace) || self.data.is_some()
    }
}

/// Newline-delimited JSON (Ollama's streams): one event per non-empty line.
#[derive(Debug, Default)]
pub struct LineParser {
    buffer: Vec<u8>,
}

impl LineParser {
    /// Feeds bytes; returns the complete lines they end.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, SseError> {
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(nl) = self.buffer[start..].iter().position(|&b| b == b'\n') {
            let line = &self.buffer[start..start + nl];
            let line = std::str::from_utf8(line).map_err(|e| SseError::NotUtf8(e.valid_up_to()))?;
            if !line.trim().is_empty() {
                out.push(line.trim().to_owned());
            }
            start += nl + 1;
        }
        self.buffer.drain(..start);
        if self.buffer.len() > MAX_LINE_BYTES {
            return Err(SseError::LineTooLong(MAX_LINE_BYTES));
        }
        Ok(out)
    }

    /// Whether an unfinished line is waiting.
    pub fn has_partial_line(&self) -> bool {
        !self.buffer.iter().all(u8::is_ascii_whitespace)
    }
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(name)?.strip_prefix(':')?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks() {
        let mut p = SseParser::default();
        assert_eq!(p.push(b"data: {\"a\"").unwrap(), Vec::<String>::new());
        assert!(p.has_partial_event());
        assert_eq!(
            p.push(b": 1}\r\n\r\ndata: x\ndata: y\n\n: comment\n")
                .unwrap(),
            vec!["{\"a\": 1}", "x\ny"]
        );
        assert!(!p.has_partial_event());
        // A character cut between chunks.
        let euro = "data: €\n\n".as_bytes();
        assert_eq!(p.push(&euro[..7]).unwrap(), Vec::<String>::new());
        assert_eq!(p.push(&euro[7..]).unwrap(), vec!["€"]);
        assert_eq!(p.push(b"data: \xff\n"), Err(SseError::NotUtf8(6)));
    }
}
