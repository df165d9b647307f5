//! `FakeNextEditModel`, a fake next-edit model: an HTTP/1.1 server on loopback that answers
//! a next edit request by rewriting the lines it was asked to rewrite with a scripted
//! transformation. For Copilot's prompt (`/v1/chat/completions`) those lines are the request's
//! predicted output (`prediction.content`); for the `sweep` prompt (llama.cpp's `/completion`)
//! they are the prompt's `current/` section. It answers in the shape the request asked for
//! (server-sent events when `stream` is true, one JSON body otherwise), and can also answer
//! junk, the lines unchanged, an HTTP error, nothing at all, or a stream cut short. Named a
//! fake: it plays a model's moves on the wire, it is not one.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

use crate::scripted::write_chunk;

/// What the fake answers.
#[derive(Debug, Clone)]
pub enum Script {
    /// The lines asked for with every `from` replaced by `to`.
    Replace(String, String),
    /// The lines asked for, unchanged.
    Echo,
    /// This text, whatever was asked.
    Text(String),
    /// An HTTP error status.
    Status(u16),
    /// No answer at all until the client closes the connection (counted in `abandoned`) or a
    /// minute passes.
    Hang,
    /// The first half of what `Replace` would answer, then the end of the body without the
    /// stream's own end (no `finish_reason`, no `[DONE]`, no `stop`).
    Cut(String, String),
    /// The first half of what `Replace` would answer, ended as a server ends an answer it
    /// stopped at the token limit (`finish_reason: "length"`, `stop_type: "limit"`).
    AtLimit(String, String),
    /// The inner script, after this pause (a model that takes its time).
    Late(Duration, Box<Script>),
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub body: Value,
    /// The body's bytes as sent, for tests that compare two requests byte for byte.
    pub raw: Vec<u8>,
}

#[derive(Debug)]
pub struct FakeNextEditModel {
    pub url: String,
    /// Every request received, in order.
    pub received: Arc<Mutex<Vec<Received>>>,
    /// Hanging or late answers whose client closed the connection before they were sent.
    pub abandoned: Arc<AtomicUsize>,
    script: Arc<Mutex<Script>>,
}

/// How long `Script::Hang` stays silent when nobody closes the connection.
const HANG: Duration = Duration::from_secs(60);

impl FakeNextEditModel {
    /// Serves `script` for every request until [`FakeNextEditModel::set`] changes it. Must be
    /// called inside a Tokio runtime, which then runs the server.
    pub async fn start(script: Script) -> FakeNextEditModel {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let abandoned = Arc::new(AtomicUsize::new(0));
        let script = Arc::new(Mutex::new(script));
        let (keep, walked_away, current) = (received.clone(), abandoned.clone(), script.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                // Each connection on its own task: a request that hangs must not hold up the
                // one that supersedes it.
                let (keep, walked_away, current) =
                    (keep.clone(), walked_away.clone(), current.clone());
                tokio::spawn(async move {
                    serve(socket, &keep, &walked_away, &current).await;
                });
            }
        });
        FakeNextEditModel {
            url,
            received,
            abandoned,
            script,
        }
    }

    /// Answers the next requests with `script`.
    pub fn set(&self, script: Script) {
        *self.script.lock().unwrap() = script;
    }

    pub fn requests(&self) -> usize {
        self.received.lock().unwrap().len()
    }

    pub fn abandoned(&self) -> usize {
        self.abandoned.load(Ordering::SeqCst)
    }

    /// The body of the last request received.
    pub fn last_body(&self) -> Option<Value> {
        self.received.lock().unwrap().last().map(|r| r.body.clone())
    }
}

/// The lines a request asks the model to rewrite: the predicted output of a chat request, or
/// the `current/` section of a `sweep` prompt.
pub fn lines_to_rewrite(path: &str, body: &Value) -> String {
    if path.ends_with("/chat/completions") {
        return body["prediction"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    }
    let prompt = body["prompt"].as_str().unwrap_or_default();
    let Some(at) = prompt.find("<|file_sep|>current/") else {
        return String::new();
    };
    let section = &prompt[at + "<|file_sep|>".len()..];
    let body_start = section.find('\n').map_or(section.len(), |i| i + 1);
    let section = &section[body_start..];
    let end = section.find("<|file_sep|>").unwrap_or(section.len());
    section[..end].to_owned()
}

/// Answers one connection's request as the script says.
async fn serve(
    mut socket: TcpStream,
    received: &Mutex<Vec<Received>>,
    abandoned: &AtomicUsize,
    script: &Mutex<Script>,
) {
    let Some((path, body, raw)) = read_request(&mut socket).await else {
        return;
    };
    received.lock().unwrap().push(Received {
        path: path.clone(),
        body: body.clone(),
        raw,
    });
    let mut script = script.lock().unwrap().clone();
    while let Script::Late(pause, inner) = script {
        if closed_within(&mut socket, pause).await {
            abandoned.fetch_add(1, Ordering::SeqCst);
            return;
        }
        script = *inner;
    }
    let window = lines_to_rewrite(&path, &body);
    let (text, whole, at_limit) = match script {
        Script::Status(code) => return write_status(&mut socket, code).await,
        Script::Hang => {
            if closed_within(&mut socket, HANG).await {
                abandoned.fetch_add(1, Ordering::SeqCst);
            }
            return;
        }
        Script::Late(..) => unreachable!("unwrapped above"),
        Script::Replace(from, to) => (window.replace(&from, &to), true, false),
        Script::Echo => (window, true, false),
        Script::Text(text) => (text, true, false),
        Script::Cut(from, to) => (first_half(&window.replace(&from, &to)), false, false),
        Script::AtLimit(from, to) => (first_half(&window.replace(&from, &to)), true, true),
    };
    let answer = Answer {
        text,
        whole,
        at_limit,
        chat: path.ends_with("/chat/completions"),
    };
    if body["stream"].as_bool().unwrap_or(false) {
        write_stream(&mut socket, &answer).await;
    } else {
        write_body(&mut socket, &answer).await;
    }
}

/// A model's answer as the fake sends it.
struct Answer {
    text: String,
    /// Whether its body or stream is whole.
    whole: bool,
    /// Whether it ended at the token limit.
    at_limit: bool,
    /// A chat endpoint's answer, else llama.cpp's `/completion`'s.
    chat: bool,
}

impl Answer {
    /// The finish reason (chat) and stop type (`/completion`) the answer ends with.
    fn ending(&self) -> (&'static str, &'static str) {
        if self.at_limit {
            ("length", "limit")
        } else {
            ("stop", "eos")
        }
    }
}

/// An HTTP error with a JSON body.
async fn write_status(socket: &mut TcpStream, code: u16) {
    let text = format!("{{\"error\":\"fake {code}\"}}");
    let head = format!(
        "HTTP/1.1 {code} Fake\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        text.len()
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(text.as_bytes()).await;
}

/// The answer as one JSON body; a body cut short is one whose length is not what the header
/// said.
async fn write_body(socket: &mut TcpStream, answer: &Answer) {
    let (finish, stop_type) = answer.ending();
    let value = if answer.chat {
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text},
            "finish_reason": finish}]})
    } else {
        json!({"content": answer.text, "stop": true, "stop_type": stop_type})
    };
    let text = value.to_string();
    let length = if answer.whole {
        text.len()
    } else {
        text.len() * 2
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(text.as_bytes()).await;
}

/// The answer as server-sent events in three pieces, so that the client has to join them, and
/// the stream's end when the answer is whole.
async fn write_stream(socket: &mut TcpStream, answer: &Answer) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let chars: Vec<char> = answer.text.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    for (i, piece) in chars.chunks(size).enumerate() {
        let piece: String = piece.iter().collect();
        let event = if answer.chat {
            let delta = if i == 0 {
                json!({"role": "assistant", "content": piece})
            } else {
                json!({"content": piece})
            };
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
        } else {
            json!({"content": piece, "stop": false})
        };
        if write_chunk(socket, &format!("data: {event}\n\n"))
            .await
            .is_err()
        {
            return;
        }
    }
    if answer.whole {
        let (finish, stop_type) = answer.ending();
        let end = if answer.chat {
            format!(
                "data: {}\n\ndata: [DONE]\n\n",
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
            )
        } else {
            let end = json!({"content": "", "stop": true, "stop_type": stop_type});
            format!("data: {end}\n\n")
        };
        let _ = write_chunk(socket, &end).await;
    }
    let _ = socket.write_all(b"0\r\n\r\n").await;
}

/// The first half of `text`, cut on a character boundary.
fn first_half(text: &str) -> String {
    let half = (0..=text.len() / 2)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    text[..half].to_owned()
}

/// Waits `pause`; true when the client closed the connection meanwhile. The client has sent its
/// whole request, so a read ends early only when it closes (or resets) the connection.
async fn closed_within(socket: &mut TcpStream, pause: Duration) -> bool {
    let mut byte = [0u8; 1];
    match tokio::time::timeout(pause, socket.read(&mut byte)).await {
        Ok(Ok(0) | Err(_)) => true,
        Ok(Ok(_)) | Err(_) => false,
    }
}

/// Reads one request: its path and its JSON body (`null` when the body is not JSON).
async fn read_request(socket: &mut TcpStream) -> Option<(String, Value, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        let path = head
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or_default()
            .to_owned();
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        while buf.len() < end + 4 + length {
            let n = socket.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let raw = buf[end + 4..end + 4 + length].to_vec();
        let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
        return Some((path, body, raw));
    }
}
