//! What servers answer when they cannot or will not do what was asked, as a new user meets
//! it: vLLM's refusal of `suffix`, and a server that describes itself and then never answers. The servers here are FAKES on loopback that
//! answer as the real ones do, so that each case can be played on demand.

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpListener,
    time::{Duration, Instant},
};

use crate::servers::{CURSOR, stderr, stdout};
use crate::{pilotfish, temp_file};

/// vLLM's answer to a `suffix` for a model without fill-in-the-middle, word for word.
const VLLM_NO_FIM: &str = r#"{"object":"error","message":"suffix is only supported for models with FIM completion rendering","type":"BadRequestError","param":null,"code":400}"#;

/// With the default `fim = auto`, vLLM's 400 about `suffix` leads to the prefix-only request
/// at once, as llama.cpp's 501 does. The model is a FAKE on loopback that answers as vLLM
/// does: 400 with vLLM's body to any request carrying `suffix`, an answer to one without.
#[test]
fn vllms_refusal_of_a_suffix_leads_to_the_prefix_only_request() {
    use test_utils::scripted::{Reply, ScriptedModel};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedModel::answering(
        |body| {
            if body.get("suffix").is_some() {
                Reply::StatusBody(400, VLLM_NO_FIM.to_owned())
            } else {
                Reply::text("order.total", 3)
            }
        },
        Duration::ZERO,
    ));
    // Code after the cursor: the first request carries it as `suffix`, and vLLM refuses.
    let file = temp_file(
        "calc.py",
        b"def add(a, b):\n    return \n\n\ndef mul(a, b):\n    return a * b\n",
    );
    let at = format!("{}:2:12", file.display());
    let complete = |at: &str| {
        pilotfish(
            &[
                "complete",
                at,
                "--backend",
                "openai-completions",
                "--endpoint",
                &model.url,
                "--max-tokens",
                "8",
            ],
            b"",
        )
    };
    let started = Instant::now();
    let out = complete(&at);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("order.total"), "{}", stdout(&out));
    let bodies = model.bodies.lock().unwrap().clone();
    assert!(
        stderr(&out).contains("refused fill-in-the-middle")
            && stderr(&out).contains("asked again prefix-only"),
        "{}\n{bodies:?}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let asked: Vec<_> = bodies
        .iter()
        .filter(|b| b.get("prompt").is_some())
        .collect();
    assert_eq!(asked.len(), 2, "{bodies:?}");
    assert!(
        asked[0]["suffix"]
            .as_str()
            .is_some_and(|s| s.contains("def mul"))
    );
    assert!(asked[1].get("suffix").is_none(), "{}", asked[1]);
    // A cursor with nothing after it: no `suffix` at all, so vLLM has nothing to refuse.
    let out = complete(CURSOR);
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = model.bodies.lock().unwrap().clone();
    let last = bodies.last().unwrap();
    assert_eq!(bodies.len(), asked.len() + 1, "{bodies:?}");
    assert!(
        last.get("prompt").is_some() && last.get("suffix").is_none(),
        "{last}"
    );
}

/// FAKE: a llama.cpp-like server that describes itself (`/props`, `/tokenize`) and answers
/// `/health` and `/slots` as given, but never answers a completion (`/infill`, `/completion`):
/// a server whose slots are all busy, one still loading, or one hung.
fn silent_describing_server(health: (u16, &str), slots: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (health, slots) = ((health.0, health.1.to_owned()), slots.to_owned());
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let (health, slots) = (health.clone(), slots.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(socket.try_clone().unwrap());
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
                let props =
                    r#"{"default_generation_settings":{"n_ctx":4096},"model_path":"/m/fake.gguf"}"#;
                let (status, body) = match path.as_str() {
                    "/props" => (200, props.to_owned()),
                    "/tokenize" => (200, r#"{"tokens":[1,2,3]}"#.to_owned()),
                    "/health" => (health.0, health.1.clone()),
                    "/slots" => (200, slots.clone()),
                    // A completion: taken, never answered, held until the client gives up.
                    _ => {
                        std::thread::sleep(Duration::from_secs(30));
                        return;
                    }
                };
                let _ = write!(
                    socket,
                    "HTTP/1.1 {status} Fake\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    url
}

/// `complete` against a server that describes itself and never answers a completion ends
/// within ten seconds, with a message that says why: every slot busy, the model still
/// loading, or the server hung.
#[test]
fn a_server_that_describes_itself_and_never_answers_ends_complete_within_ten_seconds() {
    let ok = (200, r#"{"status":"ok"}"#);
    let loading = (
        503,
        r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
    );
    let cases = [
        (
            ok,
            r#"[{"id":0,"is_processing":true}]"#,
            "The server is busy: 1 of its 1 slot(s) are processing",
        ),
        (
            loading,
            "[]",
            "The server is still loading its model (/health answered 503: Loading model)",
        ),
        (
            ok,
            r#"[{"id":0,"is_processing":false},{"id":1,"is_processing":true}]"#,
            "The server looks hung: /slots shows 1 of 2 slot(s) idle",
        ),
    ];
    let runs: Vec<_> = cases
        .into_iter()
        .map(|(health, slots, expected)| {
            let url = silent_describing_server(health, slots);
            std::thread::spawn(move || {
                let started = Instant::now();
                let out = pilotfish(&["complete", CURSOR, "--endpoint", &url], b"");
                (out, started.elapsed(), expected)
            })
        })
        .collect();
    for run in runs {
        let (out, took, expected) = run.join().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            took < Duration::from_secs(10),
            "took {took:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("(the time-to-first-token limit)")
                && stderr(&out).contains(expected),
            "{expected}: {}",
            stderr(&out)
        );
    }
}
