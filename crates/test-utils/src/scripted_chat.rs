//! `ScriptedChat`, a fake chat model: an HTTP/1.1 server on loopback that answers
//! `/v1/chat/completions` with the turns a test scripts (words, or tool calls as a model would
//! make them), streamed as OpenAI's server-sent events with the tool calls' arguments split in
//! fragments. It keeps every request body. Named a fake: it plays a model's moves, it is not one.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use serde_json::{Value, json};
use tokio::{io::AsyncWriteExt, net::TcpListener};

use crate::scripted::{read_request, write_chunk};

/// One scripted turn of the model.
#[derive(Debug, Clone)]
pub enum Turn {
    /// An answer in words, with no tool call (the end of an agent run).
    Text(String),
    /// Tool calls: (name, arguments as JSON text), with some words before them.
    Calls(String, Vec<(String, String)>),
    /// An HTTP error.
    Status(u16),
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
}

impl ScriptedChat {
    /// Plays `turns` in order, one per request; after the last, answers HTTP 500.
    pub async fn start(turns: Vec<Turn>) -> ScriptedChat {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let queue = Arc::new(Mutex::new(VecDeque::from(turns)));
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let keep = bodies.clone();
        tokio::spawn(async move {
            let mut calls = 0usize;
            while let Ok((mut socket, _)) = listener.accept().await {
                let Some(body) = read_request(&mut socket).await else {
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
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    continue;
                }
                for e in events {
                    let _ = write_chunk(&mut socket, &format!("data: {e}\n\n")).await;
                }
                let _ = write_chunk(&mut socket, "data: [DONE]\n\n").await;
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
        });
        ScriptedChat { url, bodies }
    }
}
