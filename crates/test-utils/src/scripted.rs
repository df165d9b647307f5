//! `ScriptedModel`, a fake model server: an HTTP/1.1 server on loopback that answers
//! `/v1/completions` with a server-sent-event stream of answers chosen by the test, in pieces
//! with a pause between them. It counts requests and notices when a client closes a stream
//! before its end (cancellation). Named a fake: it replays OpenAI's documented wire format,
//! it is not a model.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The answer, streamed in these pieces.
    Stream(Vec<String>),
    /// An HTTP error status with a body.
    Status(u16),
    /// An HTTP error status with this body.
    StatusBody(u16, String),
    /// No answer at all, until the client gives up.
    Hang,
    /// The head of a stream and nothing after it, until the client closes the connection,
    /// which is counted as cancelled the moment it happens (not at a later write).
    HoldUntilClosed,
}

impl Reply {
    /// An answer streamed a few characters at a time.
    pub fn text(answer: &str, piece: usize) -> Reply {
        let chars: Vec<char> = answer.chars().collect();
        Reply::Stream(
            chars
                .chunks(piece.max(1))
                .map(|c| c.iter().collect())
                .collect(),
        )
    }
}

#[derive(Debug)]
pub struct ScriptedModel {
    pub url: String,
    pub requests: Arc<AtomicUsize>,
    /// Streams the client closed before their end.
    pub cancelled: Arc<AtomicUsize>,
    /// The JSON bodies received, in order.
    pub bodies: Arc<Mutex<Vec<serde_json::Value>>>,
    /// Each request's session header (`X-Session-Id`), in order; empty where it had none.
    pub sessions: Arc<Mutex<Vec<String>>>,
}

impl ScriptedModel {
    /// Serves `replies` in order (the last one repeats), pausing `pause` between pieces.
    pub async fn start(replies: Vec<Reply>, pause: Duration) -> ScriptedModel {
        let queue = Mutex::new(VecDeque::from(replies));
        ScriptedModel::answering(
            move |_| {
                let mut q = queue.lock().unwrap();
                if q.len() > 1 {
                    q.pop_front().unwrap()
                } else {
                    q.front().cloned().unwrap()
                }
            },
            pause,
        )
        .await
    }

    /// Serves what `answer` makes of each request's JSON body.
    pub async fn answering(
        answer: impl Fn(&serde_json::Value) -> Reply + Send + Sync + 'static,
        pause: Duration,
    ) -> ScriptedModel {
        let answer = Arc::new(answer);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let cancelled = Arc::new(AtomicUsize::new(0));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let sessions = Arc::new(Mutex::new(Vec::new()));
        let (r, c, b, h) = (
            requests.clone(),
            cancelled.clone(),
            bodies.clone(),
            sessions.clone(),
        );
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (r, c, b, h) = (r.clone(), c.clone(), b.clone(), h.clone());
                let answer = answer.clone();
                tokio::spawn(async move {
                    let Some((head, Some(body))) = read_request_head(&mut socket).await else {
                        return;
                    };
                    h.lock().unwrap().push(header(&head, "x-session-id"));
                    r.fetch_add(1, Ordering::SeqCst);
                    let reply = answer(&body);
                    b.lock().unwrap().push(body);
                    match reply {
                        Reply::Hang => {
                            std::future::pending::<()>().await;
                        }
                        Reply::HoldUntilClosed => {
                            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
                            if socket.write_all(head.as_bytes()).await.is_err() {
                                return;
                            }
                            let mut rest = [0u8; 256];
                            while matches!(socket.read(&mut rest).await, Ok(n) if n > 0) {}
                            c.fetch_add(1, Ordering::SeqCst);
                        }
                        Reply::Status(_) | Reply::StatusBody(..) => {
                            let (code, body) = match reply {
                                Reply::StatusBody(code, body) => (code, body),
                                Reply::Status(code) => {
                                    (code, format!("{{\"error\":\"scripted {code}\"}}"))
                                }
                                _ => unreachable!("matched above"),
                            };
                            let head = format!(
                                "HTTP/1.1 {code} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                                body.len()
                            );
                            let _ = socket.write_all(head.as_bytes()).await;
                            let _ = socket.write_all(body.as_bytes()).await;
                        }
                        Reply::Stream(pieces) => {
                            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
                            if socket.write_all(head.as_bytes()).await.is_err() {
                                return;
                            }
                            for piece in pieces {
                                if !pause.is_zero() {
                                    tokio::time::sleep(pause).await;
                                }
                                let event = serde_json::json!({"choices": [{"text": piece, "index": 0, "finish_reason": null}]});
                                if write_chunk(&mut socket, &format!("data: {event}\n\n"))
                                    .await
                                    .is_err()
                                {
                                    c.fetch_add(1, Ordering::SeqCst);
                                    return;
                                }
                            }
                            let end = serde_json::json!({"choices": [{"text": "", "index": 0, "finish_reason": "stop"}]});
                            let _ = write_chunk(
                                &mut socket,
                                &format!("data: {end}\n\ndata: [DONE]\n\n"),
                            )
                            .await;
                            let _ = socket.write_all(b"0\r\n\r\n").await;
                        }
                    }
                });
            }
        });
        ScriptedModel {
            url,
            requests,
            cancelled,
            bodies,
            sessions,
        }
    }

    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }
}

pub(crate) async fn write_chunk(
    socket: &mut tokio::net::TcpStream,
    data: &str,
) -> std::io::Result<()> {
    socket
        .write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
        .await?;
    socket.flush().await
}

/// A request's first line (`GET /v1/models HTTP/1.1`) and its JSON body, if it has one.
pub(crate) async fn read_request_with_line(
    socket: &mut tokio::net::TcpStream,
) -> Option<(String, Option<serde_json::Value>)> {
    let (head, body) = read_request_head(socket).await?;
    Some((head.lines().next().unwrap_or_default().to_owned(), body))
}

/// The value of header `name` (lowercase) in a request's head, empty when it has none.
fn header(head: &str, name: &str) -> String {
    head.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_default()
}

/// A request's head (its first line and headers) and its JSON body, if it has one.
async fn read_request_head(
    socket: &mut tokio::net::TcpStream,
) -> Option<(String, Option<serde_json::Value>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let length: usize = head
                .to_lowercase()
                .lines()
                .find_map(|l| l.strip_prefix("content-length:").map(str::to_owned))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let n = socket.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Some((
                head,
                serde_json::from_slice(&buf[end + 4..end + 4 + length]).ok(),
            ));
        }
    }
}
