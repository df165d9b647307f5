//! `ScriptedChat`, a fake chat model: an HTTP/1.1 server on loopback that answers
//! `/v1/chat/completions` with the turns a test scripts (words, or tool calls as a model would
//! make them), streamed as OpenAI's server-sent events with the tool calls' arguments split in
//! fragments. It keeps every request body. Turns can also stream their words slowly, in pieces,
//! or stall after a few words (for cancellation), and it counts the stalled streams a client
//! walked away from. `GET /v1/models` lists `SCRIPTED_MODELS` without taking a turn. Named a
//! fake: it plays a model's moves, it is not one.

use std::{
    collections::VecDeque,
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

use crate::scripted::{read_request_with_line, write_chunk};

/// The models the scripted server lists at `GET /v1/models` (answered without taking a turn).
pub const SCRIPTED_MODELS: [&str; 2] = ["scripted-small", "scripted-large"];

/// One scripted turn of the model.
#[derive(Debug, Clone)]
pub enum Turn {
    /// An answer in words, with no tool call (the end of an agent run).
    Text(String),
    /// Tool calls: (name, arguments as JSON text), with some words before them.
    Calls(String, Vec<(String, String)>),
    /// An HTTP error.
    Status(u16),
    /// Some words, then silence with the stream left open, until the client closes the
    /// connection or a minute passes (then the answer ends as if nothing had happened): a model
    /// stalled mid-answer, for cancellation.
    Stall(String),
    /// An answer in words streamed in these pieces, one event each, with this pause before each
    /// piece after the first, so that a client streaming the words shows them as several chunks.
    Pieces(Vec<String>, Duration),
}

impl Turn {
    /// One tool call with its arguments given as JSON.
    pub fn call(name: &str, arguments: Value) -> Turn {
        Turn::Calls(
            String::new(),
            vec![(name.to_owned(), arguments.to_string())],
        )
    }
}

#[derive(Debug)]
pub struct ScriptedChat {
    pub url: String,
    /// Every request body received, in order.
    pub bodies: Arc<Mutex<Vec<Value>>>,
    /// Stalled streams (`Turn::Stall`) whose client closed the connection before the stall ended.
    pub abandoned: Arc<AtomicUsize>,
}

/// How long a `Turn::Stall` stays silent when nobody closes it.
const STALL: Duration = Duration::from_secs(60);
const EVENT_STREAM_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";

impl ScriptedChat {
    /// Plays `turns` in order, one per request; after the last, answers HTTP 500.
    pub async fn start(turns: Vec<Turn>) -> ScriptedChat {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let queue = Arc::new(Mutex::new(VecDeque::from(turns)));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let abandoned = Arc::new(AtomicUsize::new(0));
        let keep = bodies.clone();
        let walked_away = abandoned.clone();
        tokio::spawn(async move {
            let mut calls = 0usize;
            while let Ok((mut socket, _)) = listener.accept().await {
                let Some((line, body)) = read_request_with_line(&mut socket).await else {
                    continue;
                };
                if line.starts_with("GET /v1/models") {
                    answer_models(&mut socket).await;
                    continue;
                }
                let Some(body) = body else {
                    continue;
                };
                keep.lock().unwrap().push(body);
                let turn = queue
                    .lock()
                    .unwrap()
                    .pop_front()
                    .unwrap_or(Turn::Status(500));
                calls += 1;
                let events = match turn {
                    Turn::Status(code) => {
                        let body = format!("{{\"error\":\"scripted {code}\"}}");
                        let head = format!(
                            "HTTP/1.1 {code} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = socket.write_all(head.as_bytes()).await;
                        let _ = socket.write_all(body.as_bytes()).await;
                        continue;
                    }
                    // The slow turns are played on their own task, so that a request that comes
                    // while one stalls (the next prompt after a cancel) is still answered.
                    Turn::Stall(text) => {
                        tokio::spawn(stall(socket, text, walked_away.clone()));
                        continue;
                    }
                    Turn::Pieces(pieces, pause) => {
                        tokio::spawn(pieces_slowly(socket, pieces, pause));
                        continue;
                    }
                    Turn::Text(text) => vec![
                        json!({"choices": [{"delta": {"role": "assistant", "content": text}}]}),
                        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}),
                    ],
                    Turn::Calls(text, list) => {
                        let mut events = Vec::new();
                        if !text.is_empty() {
                            events.push(json!({"choices": [{"delta": {"content": text}}]}));
                        }
                        for (i, (name, args)) in list.iter().enumerate() {
                            let cut = args.len() / 2;
                            let cut = (0..=cut)
                                .rev()
                                .find(|c| args.is_char_boundary(*c))
                                .unwrap_or(0);
                            events.push(json!({"choices": [{"delta": {"tool_calls": [{"index": i,
                                "id": format!("call_{calls}_{i}"), "type": "function",
                                "function": {"name": name, "arguments": &args[..cut]}}]}}]}));
                            events.push(json!({"choices": [{"delta": {"tool_calls": [{"index": i,
                                "function": {"arguments": &args[cut..]}}]}}]}));
                        }
                        events.push(
                            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
                        );
                        events
                    }
                };
                if socket
                    .write_all(EVENT_STREAM_HEAD.as_bytes())
                    .await
                    .is_err()
                {
                    continue;
                }
                for e in events {
                    let _ = write_chunk(&mut socket, &format!("data: {e}\n\n")).await;
                }
                let _ = write_chunk(&mut socket, "data: [DONE]\n\n").await;
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
        });
        ScriptedChat {
            url,
            bodies,
            abandoned,
        }
    }

    /// How many stalled streams the client has closed so far.
    pub fn abandoned(&self) -> usize {
        self.abandoned.load(Ordering::SeqCst)
    }
}

/// Answers `GET /v1/models` with `SCRIPTED_MODELS`.
async fn answer_models(socket: &mut TcpStream) {
    let data: Vec<Value> = SCRIPTED_MODELS
        .iter()
        .map(|m| json!({"id": m, "object": "model"}))
        .collect();
    let body = json!({"object": "list", "data": data}).to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(body.as_bytes()).await;
}

/// Plays `Turn::Stall`: the words, then silence until the client closes the connection (counted
/// in `abandoned`) or `STALL` passes.
async fn stall(mut socket: TcpStream, text: String, abandoned: Arc<AtomicUsize>) {
    let first = json!({"choices": [{"delta": {"role": "assistant", "content": text}}]});
    if socket
        .write_all(EVENT_STREAM_HEAD.as_bytes())
        .await
        .is_err()
        || write_chunk(&mut socket, &format!("data: {first}\n\n"))
            .await
            .is_err()
    {
        abandoned.fetch_add(1, Ordering::SeqCst);
        return;
    }
    // The client has sent its whole request, so the next read ends only when it closes the
    // connection (or fails when it resets it).
    let mut byte = [0u8; 1];
    if let Ok(read) = tokio::time::timeout(STALL, socket.read(&mut byte)).await {
        if matches!(read, Ok(0) | Err(_)) {
            abandoned.fetch_add(1, Ordering::SeqCst);
        }
        return;
    }
    let end = json!({"choices": [{"delta": {}, "finish_reason": "stop"}]});
    let _ = write_chunk(&mut socket, &format!("data: {end}\n\ndata: [DONE]\n\n")).await;
    let _ = socket.write_all(b"0\r\n\r\n").await;
}

/// Plays `Turn::Pieces`: one content event per piece, `pause` apart.
async fn pieces_slowly(mut socket: TcpStream, pieces: Vec<String>, pause: Duration) {
    if socket
        .write_all(EVENT_STREAM_HEAD.as_bytes())
        .await
        .is_err()
    {
        return;
    }
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pause).await;
        }
        let delta = if i == 0 {
            json!({"role": "assistant", "content": piece})
        } else {
            json!({"content": piece})
        };
        let event = json!({"choices": [{"delta": delta}]});
        if write_chunk(&mut socket, &format!("data: {event}\n\n"))
            .await
            .is_err()
        {
            return;
        }
    }
    let end = json!({"choices": [{"delta": {}, "finish_reason": "stop"}]});
    let _ = write_chunk(&mut socket, &format!("data: {end}\n\ndata: [DONE]\n\n")).await;
    let _ = socket.write_all(b"0\r\n\r\n").await;
}
