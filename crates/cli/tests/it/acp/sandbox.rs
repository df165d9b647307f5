//! The hostile repository of `sandbox.rs`, over ACP: `pilotfish acp` driven by the scripted
//! editor (the official ACP SDK) runs `npm test` confined, keeps the key and the `.env` value
//! from the model, and asks before its tools read a git-ignored file ("always" remembered for
//! the workspace in the user's state folder). `--sandbox off` is the control.

use super::*;
use crate::sandbox::{ENV_VALUE, KEY_TEXT, Scene, attack_turns, everything_sent};

/// The scene's agent: `pilotfish acp` with the scene's own home, state and configuration.
fn acp_scenario(scene: &Scene, url: &str, extra: &[&str], steps: Vec<Value>) -> Value {
    let mut argv = vec![
        env!("CARGO_BIN_EXE_pilotfish").to_owned(),
        "acp".into(),
        "--endpoint".into(),
        url.to_owned(),
    ];
    argv.extend(extra.iter().map(|s| s.to_string()));
    let env: serde_json::Map<String, Value> = scene
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), json!(v)))
        .collect();
    json!({
        "agent": {"argv": argv, "env": env, "cwd": scene.repo()},
        "capabilities": offered(false),
        "steps": steps,
    })
}

fn steps(scene: &Scene, text: &str) -> Vec<Value> {
    vec![
        initialize(),
        json!({"do": "new_session", "cwd": scene.repo(), "mcpServers": []}),
        prompt(text),
    ]
}

#[test]
fn the_hostile_test_suite_is_confined_over_acp() {
    let scene = Scene::new("acp");
    let (_rt, model) = scripted(attack_turns(&scene.home()));
    let s = acp_scenario(&scene, &model.url, &[], steps(&scene, "run the tests"));
    let t = play(&scene.dir, &s);
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let sent = everything_sent(&model);
    assert!(scene.tests_ran());
    assert!(sent.contains("tests passed: 3 of 3"), "{}", why(&t));
    assert!(sent.contains("[.env: API_KEY]"));
    assert!(
        !scene.planted_home(),
        "nothing written into the home folder"
    );
    assert!(!scene.planted_hook(), "no hook planted in .git");
    assert_eq!(scene.connections(), 0, "no connection made");
    assert!(!sent.contains(KEY_TEXT), "the key reached the model");
    assert!(
        !sent.contains(ENV_VALUE),
        "the .env value reached the model"
    );

    // The control: the same session with the sandbox off.
    let (_rt2, model) = scripted(attack_turns(&scene.home()));
    let s = acp_scenario(
        &scene,
        &model.url,
        &["--sandbox", "off"],
        steps(&scene, "run the tests"),
    );
    let t = play(&scene.dir, &s);
    assert_clean(&t);
    assert!(scene.planted_home() && scene.planted_hook());
    assert!(scene.connections() > 0);
    assert!(everything_sent(&model).contains(KEY_TEXT));
}

#[test]
fn an_always_answer_for_an_ignored_file_is_remembered_for_the_workspace() {
    let scene = Scene::new("acp-ignored");
    let read = || read("notes.local");
    let (_rt, model) = scripted(vec![read(), Turn::Text("Ok.".into())]);
    let mut s = acp_scenario(&scene, &model.url, &[], steps(&scene, "read my notes"));
    s["permissions"] = json!(["reject_once"]);
    let t = play(&scene.dir, &s);
    assert_clean(&t);
    assert_eq!(t["permissions"].as_array().unwrap().len(), 1, "{}", why(&t));
    assert!(!everything_sent(&model).contains("ignored notes"));

    let (_rt2, model) = scripted(vec![read(), Turn::Text("Ok.".into())]);
    let mut s = acp_scenario(&scene, &model.url, &[], steps(&scene, "read my notes"));
    s["permissions"] = json!(["allow_always"]);
    let t = play(&scene.dir, &s);
    assert_clean(&t);
    assert!(everything_sent(&model).contains("ignored notes"));
    assert!(
        scene
            .dir
            .join("state/pilotfish/ignored-reads.json")
            .is_file()
    );

    // A new process: remembered, so no question.
    let (_rt3, model) = scripted(vec![read(), Turn::Text("Ok.".into())]);
    let s = acp_scenario(&scene, &model.url, &[], steps(&scene, "read my notes"));
    let t = play(&scene.dir, &s);
    assert_clean(&t);
    assert_eq!(t["permissions"], json!([]), "{}", why(&t));
    assert!(everything_sent(&model).contains("ignored notes"));
}
