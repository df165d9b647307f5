//! The same typing in llama.vscode's request shape, the anchor the team benchmark compares
//! with: a request per keystroke with no debounce, holding the lines around the cursor
//! (llama.vscode's `n_prefix` 256 lines before, the line up to the cursor), for up to 128
//! tokens (`n_predict`), not streamed, the previous one aborted (its connection closed) when
//! the next keystroke comes. SmolLM2 has no fill-in-the-middle, so llama-server is asked on
//! `/completion` and vLLM on `/v1/completions` with the prefix as the prompt.

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use serde_json::json;

use super::{Engine, Line, Pace, Typed};

/// Types `lines` at `cursor` in `text` as llama.vscode asks `port`.
pub fn type_lines(
    engine: Engine,
    port: u16,
    model: &str,
    text: &str,
    cursor: &str,
    lines: &[String],
    pace: Pace,
) -> Typed {
    let at = text
        .find(cursor)
        .expect("the cursor marker is in the document");
    let before = &text[..at];
    let mut typed = Typed::default();
    let mut so_far = String::new();
    for (n, line) in lines.iter().enumerate() {
        let mut open: Option<TcpStream> = None;
        let mut tick = Instant::now();
        let chars: Vec<char> = line.chars().collect();
        for (k, c) in chars.iter().enumerate() {
            if n > 0 && k == 0 {
                so_far.push('\n');
            }
            so_far.push(*c);
            // The previous request is aborted: its connection closed.
            drop(open.take());
            let prompt = format!("{before}{so_far}");
            let sent = Instant::now();
            let stream = ask(engine, port, model, &prompt);
            typed.keystrokes += 1;
            if k + 1 == chars.len() {
                let answered = stream
                    .and_then(|s| answer(s, pace.answer_limit))
                    .is_some_and(|t| !t.trim().is_empty());
                typed.lines.push(Line {
                    answered,
                    after: sent.elapsed().min(pace.answer_limit),
                    why: (!answered).then(|| format!("{line:?}: no suggestion")),
                });
                break;
            }
            open = stream;
            tick += pace.every;
            if let Some(left) = tick.checked_duration_since(Instant::now()) {
                std::thread::sleep(left);
            }
        }
    }
    typed
}

/// Sends one completion request; the connection, to read or to drop.
fn ask(engine: Engine, port: u16, model: &str, prompt: &str) -> Option<TcpStream> {
    let (path, body) = match engine {
        Engine::Llama => (
            "/completion",
            json!({"prompt": prompt, "n_predict": 128, "cache_prompt": true,
                "t_max_predict_ms": 1000, "top_k": 40, "top_p": 0.99, "stream": false}),
        ),
        Engine::Vllm => (
            "/v1/completions",
            json!({"model": model, "prompt": prompt, "max_tokens": 128, "top_p": 0.99,
                "stream": false}),
        ),
    };
    let body = body.to_string();
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    Some(s)
}

/// The text of an answer read within `limit`.
fn answer(mut s: TcpStream, limit: Duration) -> Option<String> {
    s.set_read_timeout(Some(limit)).ok()?;
    let mut response = String::new();
    s.read_to_string(&mut response).ok()?;
    let body = response.split("\r\n\r\n").nth(1)?;
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    value["content"]
        .as_str()
        .or_else(|| value["choices"][0]["text"].as_str())
        .map(str::to_owned)
}
