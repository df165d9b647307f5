//! The ACP server's reading of its input, fuzzed: whatever lines arrive (bytes that are not
//! text, JSON that is not JSON-RPC, requests with wrong parameters, answers to nothing), the
//! server answers each request with one JSON-RPC line, never panics, and stops when the input
//! ends.

use std::{
    io::Write,
    sync::{Arc, Mutex},
    time::Duration,
};

use proptest::prelude::*;
use serde_json::Value;

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn options() -> acp::Options {
    // No model is ever reached: no session is opened by these inputs.
    let backend = backends::chat::ChatBackend::new(
        backends::chat::ChatKind::OpenAi,
        "http://127.0.0.1:9",
        Duration::from_millis(200),
        Duration::from_secs(1),
    )
    .unwrap();
    acp::Options {
        backend,
        agent: host::tools::AgentConfig::default(),
        profile: agent::tools::Profile::Original,
        max_tokens: 8000,
        max_rounds: 2,
        // Nothing is saved or listed: these inputs open no session.
        store: None,
        save: false,
        next_edits: Err("no next-edit model in these tests".into()),
    }
}

/// Serves `input` and returns every line written.
fn serve(input: &[u8]) -> Vec<Value> {
    let out = Captured::default();
    acp::serve(input, Box::new(out.clone()), options()).unwrap();
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes)
        .expect("the output is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn methods() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("initialize".to_owned()),
        Just("session/prompt".to_owned()),
        Just("session/set_mode".to_owned()),
        Just("session/cancel".to_owned()),
        Just("authenticate".to_owned()),
        Just("session/load".to_owned()),
        "[a-z/_]{0,12}",
    ]
}

fn params() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just("{\"protocolVersion\": 1}".to_owned()),
        Just("{\"sessionId\": \"nope\", \"prompt\": []}".to_owned()),
        Just("{\"sessionId\": 3}".to_owned()),
        Just("{\"cwd\": \"relative\"}".to_owned()),
        "\"[a-z]{0,5}\"",
    ]
}

/// A line: JSON-RPC shaped (a request, a notification, an answer to nothing) or bytes.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (0u32..5, methods(), params()).prop_map(|(id, m, p)| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{m}\",\"params\":{p}}}")
                .into_bytes()
        }),
        (methods(), params()).prop_map(|(m, p)| {
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{m}\",\"params\":{p}}}").into_bytes()
        }),
        (0u32..5).prop_map(
            |id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}").into_bytes()
        ),
        proptest::collection::vec(any::<u8>(), 0..40),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_request_gets_one_answer_and_nothing_panics(
        lines in proptest::collection::vec(line(), 0..8)
    ) {
        let mut input = Vec::new();
        for l in &lines {
            // A newline inside random bytes makes two lines, which is fine: both are input.
            input.extend_from_slice(l);
            input.push(b'\n');
        }
        let out = serve(&input);
        for message in &out {
            prop_assert_eq!(&message["jsonrpc"], "2.0");
            prop_assert!(message.get("result").is_some() || message.get("error").is_some(),
                "only answers are written when no session is open: {}", message);
        }
        // Requests that parse are answered, each once.
        let requests = lines
            .iter()
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .filter(|v| v["method"].is_string() && v.get("id").is_some())
            .count();
        let answered = out.iter().filter(|m| m["id"].is_number()).count();
        prop_assert!(answered >= requests, "{answered} answers for {requests} requests");
    }
}

#[test]
fn the_errors_json_rpc_names() {
    let out = serve(
        b"{not json\n\xff\xfe\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x/y\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":3}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n",
    );
    // A prompt is answered from a thread of its own, so answers may come in any order.
    let mut codes: Vec<(Value, Value)> = out
        .iter()
        .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
        .collect();
    codes.sort_by_key(|(id, _)| id.as_i64().unwrap_or(-1));
    assert_eq!(
        codes,
        [
            (Value::Null, (-32700).into()),
            (Value::Null, (-32700).into()),
            (1.into(), (-32601).into()),
            (2.into(), (-32602).into()),
            (3.into(), (-32600).into()),
            (4.into(), Value::Null),
        ]
    );
    let init = out.iter().find(|m| m["id"] == 4).unwrap();
    assert_eq!(init["result"]["protocolVersion"], 1);
}
