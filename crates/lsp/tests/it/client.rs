//! A small LSP client over an in-memory pipe, and a server configured for a model URL.

use std::{sync::Arc, time::Duration};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use lsp::transport::{Decoder, Frame, encode};

pub(crate) struct Client {
    write: DuplexStream,
    read: DuplexStream,
    decoder: Decoder,
    queue: std::collections::VecDeque<Value>,
    /// Responses that arrived while another was awaited.
    responses: Vec<Value>,
    next_id: i64,
    pub(crate) server: tokio::task::JoinHandle<bool>,
}

/// Settings for tests: no debounce (each test sends what it means).
pub(crate) fn settings() -> ghost::Settings {
    ghost::Settings {
        debounce: None,
        ..ghost::Settings::default()
    }
}

pub(crate) fn config(url: &str) -> lsp::ServerConfig {
    let url = url.to_owned();
    lsp::ServerConfig {
        configure: Arc::new(move |v: &Value| {
            let endpoint = v["backend"]["endpoint"].as_str().unwrap_or(&url).to_owned();
            if v["completion"]["multiline"] == "sometimes" {
                return Err("multiline `sometimes` is not one of copilot, never, always".into());
            }
            let backend = backends::Backend::new(
                backends::Kind::OpenAiCompletions,
                &endpoint,
                Duration::from_secs(1),
                Duration::from_secs(10),
            )
            .map_err(|e| e.to_string())?;
            let mut s = settings();
            if let Some(m) = v["completion"]["max_tokens"].as_u64() {
                s.max_tokens = m as u32;
            }
            Ok((backend, s).into())
        }),
        model_server: lsp::no_model_server(),
        excluded: Arc::new(|path: &str| path.contains("secret")),
        files: lsp::no_files(),
        version: "test".into(),
        next_edit: None,
    }
}

impl Client {
    pub(crate) fn start(config: lsp::ServerConfig) -> Client {
        let (client_write, server_read) = tokio::io::duplex(1 << 20);
        let (server_write, client_read) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(lsp::serve(server_read, server_write, config));
        Client {
            write: client_write,
            read: client_read,
            decoder: Decoder::default(),
            queue: Default::default(),
            responses: Vec::new(),
            next_id: 0,
            server,
        }
    }

    pub(crate) async fn raw(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.unwrap();
    }

    pub(crate) async fn send(&mut self, message: Value) {
        self.raw(&encode(&message)).await;
    }

    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request and returns its id.
    pub(crate) async fn request_id(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// The next message from the server (within 20 s).
    pub(crate) async fn next(&mut self) -> Value {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if let Some(m) = self.queue.pop_front() {
                return m;
            }
            let n = tokio::time::timeout(Duration::from_secs(20), self.read.read(&mut buf))
                .await
                .expect("the server answers within 20 s")
                .unwrap();
            assert!(n > 0, "the server closed its output");
            for frame in self.decoder.push(&buf[..n]) {
                match frame {
                    Frame::Message(m) => self.queue.push_back(m),
                    Frame::Malformed(e) => panic!("the server sent a malformed frame: {e}"),
                }
            }
        }
    }

    /// The response to request `id` (responses may come in any order); notifications and
    /// server requests on the way are kept in `seen`.
    pub(crate) async fn response(&mut self, id: i64, seen: &mut Vec<Value>) -> Value {
        if let Some(i) = self.responses.iter().position(|m| m["id"] == json!(id)) {
            return self.responses.remove(i);
        }
        loop {
            let m = self.next().await;
            if m.get("method").is_some() {
                seen.push(m);
            } else if m["id"] == json!(id) {
                return m;
            } else {
                self.responses.push(m);
            }
        }
    }

    pub(crate) async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request_id(method, params).await;
        self.response(id, &mut Vec::new()).await
    }

    pub(crate) async fn initialize(&mut self, params: Value) -> Value {
        let r = self.call("initialize", params).await;
        self.notify("initialized", json!({})).await;
        r
    }

    pub(crate) async fn open(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        )
        .await;
    }
}
