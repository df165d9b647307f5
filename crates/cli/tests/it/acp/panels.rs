//! What an editor's agent panel shows: a running tool call as running, a prompt typed right after
//! a cancel answered, and only the capabilities pilotfish has.

use super::*;

/// A command that takes a while is reported `in_progress` once its permission is granted and
/// before it ends, so a panel shows it running rather than a hang: pending, then the
/// question, then in_progress, then (a second later) completed.
#[test]
fn a_running_command_is_reported_in_progress_until_it_ends() {
    let dir = workspace("in-progress");
    let (_rt, model) = scripted(vec![
        run("sleep 1 && touch slept.txt"),
        Turn::Text("Slept.".into()),
    ]);
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), new_session(&dir), prompt("sleep a second")],
    );
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    assert!(root(&dir).join("slept.txt").exists());
    let of_call: Vec<&Value> = t["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| {
            matches!(
                u["update"]["sessionUpdate"].as_str(),
                Some("tool_call" | "tool_call_update")
            )
        })
        .collect();
    let statuses: Vec<&str> = of_call
        .iter()
        .map(|u| u["update"]["status"].as_str().unwrap_or("(none)"))
        .collect();
    assert_eq!(
        statuses,
        ["pending", "in_progress", "completed"],
        "{}",
        why(&t)
    );
    let asked = t["permissions"][0]["at_ms"].as_f64().unwrap();
    let running = of_call[1]["at_ms"].as_f64().unwrap();
    let ended = of_call[2]["at_ms"].as_f64().unwrap();
    assert!(
        asked <= running,
        "in_progress came before the permission was given"
    );
    assert!(
        ended - running >= 900.0,
        "in_progress came {:.0} ms before the end of a one-second command",
        ended - running
    );
}

/// A prompt sent right after `session/cancel`, before the cancelled turn has answered, waits for
/// that turn and is then answered, instead of being refused as "already running"; a prompt sent
/// while a turn runs uncancelled is still refused with a clear error.
#[test]
fn a_prompt_right_after_a_cancel_is_answered() {
    let dir = workspace("after-cancel");
    let (_rt, model) = scripted(vec![
        Turn::Stall("Let me think".into()),
        Turn::Text("Here now.".into()),
    ]);
    let mut cancel = prompt("think hard");
    cancel["cancel_after_first_chunk"] = json!(true);
    cancel["prompt_after_cancel"] = json!("are you there?");
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), cancel],
        ),
    );
    assert_clean(&t);
    let prompts = answers(&t, "session/prompt");
    assert_eq!(prompts.len(), 2, "{}", why(&t));
    assert_eq!(stop_reason(&t, 0), "cancelled", "{}", why(&t));
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    // The second prompt really was sent before the first was answered.
    let first_answered =
        prompts[0]["sent_ms"].as_f64().unwrap() + prompts[0]["ms"].as_f64().unwrap();
    let second_sent = prompts[1]["sent_ms"].as_f64().unwrap();
    assert!(
        second_sent < first_answered,
        "the second prompt went out {second_sent} ms, after the first was answered at {first_answered} ms"
    );
    assert!(said(&t, 2).contains("Here now."), "{}", said(&t, 2));

    // A second prompt while a turn runs uncancelled gets an error naming the cause, and the
    // running turn goes on to its end.
    let dir = workspace("while-running");
    let (_rt, model) = scripted(vec![Turn::Pieces(
        vec!["Slow ".into(), "answer.".into()],
        Duration::from_millis(1500),
    )]);
    let mut busy = prompt("answer slowly");
    busy["prompt_while_running"] = json!("me too");
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), busy],
        ),
    );
    assert_clean(&t);
    let prompts = answers(&t, "session/prompt");
    assert_eq!(prompts.len(), 2, "{}", why(&t));
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let refused = &prompts[1]["error"];
    assert_eq!(refused["code"], -32602, "{}", why(&t));
    assert!(
        refused["message"]
            .as_str()
            .unwrap_or_default()
            .contains("already running"),
        "{refused}"
    );
}

/// `initialize` lists only what pilotfish supports: no capability is given as `false` (ACP
/// reads a missing one as false, and some clients read any field as true); MCP over HTTP is
/// said, next edits are not (this client does not offer `nes`).
#[test]
fn capabilities_carry_no_false_fields() {
    let dir = workspace("capabilities");
    let (_rt, model) = scripted(vec![]);
    let t = play(&dir, &scenario(&dir, &model.url, vec![initialize()]));
    assert_clean(&t);
    let result = result(&t, "initialize", 0);
    fn falses(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Bool(false) => out.push(at.to_owned()),
            Value::Object(m) => m
                .iter()
                .for_each(|(k, v)| falses(v, &format!("{at}.{k}"), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| falses(v, &format!("{at}[{i}]"), out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    falses(result, "result", &mut found);
    assert!(found.is_empty(), "false fields: {found:?} in {result}");
    let caps = &result["agentCapabilities"];
    assert_eq!(
        caps["promptCapabilities"]["embeddedContext"], true,
        "{result}"
    );
    assert_eq!(caps["loadSession"], true, "{result}");
    // Streamable HTTP MCP servers, not the older SSE ones (left out, not `false`).
    assert_eq!(caps["mcpCapabilities"], json!({"http": true}), "{result}");
    // Next edits only for a client that speaks the unstable draft.
    assert!(caps.get("nes").is_none(), "{result}");
    assert!(
        caps["promptCapabilities"].get("image").is_none(),
        "{result}"
    );
}
