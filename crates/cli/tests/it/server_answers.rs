//! What servers answer when they cannot or will not do what was asked, as a new user meets
//! it: vLLM's refusal of `suffix`. The servers here are FAKES on loopback that
//! answer as the real ones do, so that each case can be played on demand.

use std::time::{Duration, Instant};

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
