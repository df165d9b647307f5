//! What an editor chooses and is shown beside the conversation: config options (the model the
//! server lists, the mode, the tool profile) as seen in the next request to the model; slash
//! commands announced from the workspace's prompt files and custom agents and announced again
//! when the files change; the model's to-do list as the `plan`; and `$/cancel_request`
//! stopping a running prompt.

use super::*;

fn set_option(id: &str, value: &str) -> Value {
    request(
        "session/set_config_option",
        json!({"sessionId": "$last", "configId": id, "value": value}),
    )
}

/// The current value of option `id` in a list of config options.
fn current<'a>(options: &'a Value, id: &str) -> &'a Value {
    &options
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == id)
        .unwrap_or_else(|| panic!("no option {id}: {options}"))["currentValue"]
}

/// The names of the tools offered in the model's request `n` (none when no tool is offered).
fn offered_tools(model: &ScriptedChat, n: usize) -> Vec<String> {
    model.bodies.lock().unwrap()[n]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `session/new` offers the model (what the server lists at `/v1/models`, category `model`),
/// the mode and the tool profile; each `session/set_config_option` answers with all of them,
/// and the next request to the model uses the choice: the model named, Copilot's tools, no
/// tools in chat mode; `session/set_mode` still works and is reported in the options.
#[test]
fn config_options_choose_the_model_the_mode_and_the_tools() {
    let dir = workspace("choices-options");
    let (_rt, model) = scripted(vec![
        Turn::Text("a".into()),
        Turn::Text("b".into()),
        Turn::Text("c".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                set_option("model", "scripted-large"),
                set_option("tools", "copilot"),
                prompt("one"),
                set_option("mode", "chat"),
                prompt("two"),
                request(
                    "session/set_mode",
                    json!({"sessionId": "$last", "modeId": "agent"}),
                ),
                prompt("three"),
            ],
        ),
    );
    assert_clean(&t);
    let options = &result(&t, "session/new", 0)["configOptions"];
    let ids: Vec<&Value> = options
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["id"])
        .collect();
    assert_eq!(ids, ["model", "mode", "tools"], "{options}");
    let model_option = &options[0];
    assert_eq!(model_option["category"], "model");
    let values: Vec<&str> = model_option["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    for listed in test_utils::scripted_chat::SCRIPTED_MODELS {
        assert!(values.contains(&listed), "{model_option}");
    }
    assert_eq!(options[1]["category"], "mode");
    let after = &result(&t, "session/set_config_option", 1)["configOptions"];
    assert_eq!(current(after, "model"), "scripted-large");
    assert_eq!(current(after, "tools"), "copilot");
    assert_eq!(
        current(
            &result(&t, "session/set_config_option", 2)["configOptions"],
            "mode"
        ),
        "chat"
    );
    for n in 0..3 {
        assert_eq!(stop_reason(&t, n), "end_turn", "{}", why(&t));
    }
    let bodies = model.bodies.lock().unwrap().clone();
    assert_eq!(bodies[0]["model"], "scripted-large", "{}", bodies[0]);
    let first = offered_tools(&model, 0);
    assert!(
        first.contains(&"insert_edit_into_file".to_owned())
            && first.contains(&"manage_todo_list".to_owned()),
        "{first:?}"
    );
    assert!(!first.contains(&"edit_file".to_owned()));
    assert_eq!(offered_tools(&model, 1), Vec::<String>::new(), "chat mode");
    assert!(!offered_tools(&model, 2).is_empty(), "back in agent mode");
    assert_eq!(bodies[2]["model"], "scripted-large");
    let mode_updates: Vec<&Value> = updates(&t, "config_option_update");
    assert!(
        mode_updates
            .iter()
            .any(|u| current(&u["update"]["configOptions"], "mode") == "agent"),
        "set_mode is reported in the options{}",
        why(&t)
    );
}

/// `available_commands_update` lists the workspace's prompt files and custom agents; a prompt
/// file added while the session is open is announced again; `/AGENT task` runs the custom agent
/// (its body the system prompt) on the task.
#[test]
fn commands_are_announced_and_follow_the_files() {
    let dir = workspace("choices-commands");
    let ws = root(&dir);
    std::fs::create_dir_all(ws.join(".github/prompts")).unwrap();
    std::fs::create_dir_all(ws.join(".github/agents")).unwrap();
    std::fs::write(
        ws.join(".github/prompts/explain.prompt.md"),
        "---\ndescription: Explain the code\n---\nExplain this code.\n",
    )
    .unwrap();
    std::fs::write(
        ws.join(".github/agents/reviewer.agent.md"),
        "---\ndescription: Reviews code strictly\n---\nYou are a strict reviewer named Ribbit.\n",
    )
    .unwrap();
    let (_rt, model) = scripted(vec![Turn::Text("Looks fine.".into())]);
    let added = ws.join(".github/prompts/tests.prompt.md");
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                json!({"do": "sleep", "ms": 300}),
                json!({"do": "write_file", "path": added,
                    "text": "---\ndescription: Write tests\n---\nWrite tests.\n"}),
                json!({"do": "wait_for_update", "kind": "available_commands_update",
                    "text": "Write tests"}),
                prompt("/reviewer check calc.py"),
            ],
        ),
    );
    assert_clean(&t);
    let announced = updates(&t, "available_commands_update");
    let names = |u: &Value| -> Vec<String> {
        u["update"]["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = names(announced[0]);
    assert!(
        first.contains(&"explain".to_owned()) && first.contains(&"reviewer".to_owned()),
        "{first:?}"
    );
    assert!(!first.contains(&"tests".to_owned()));
    let later: Vec<String> = announced.iter().skip(1).flat_map(|u| names(u)).collect();
    assert!(
        later.contains(&"tests".to_owned()),
        "the new prompt file was not announced: {announced:?}"
    );
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let sent = model.bodies.lock().unwrap()[0]["messages"].clone();
    let system = text_of(&sent[0]["content"]);
    assert!(system.contains("Ribbit"), "the custom agent ran: {system}");
    let user = sent
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap();
    assert!(
        text_of(&user["content"]).contains("check calc.py"),
        "{user}"
    );
    assert!(!text_of(&user["content"]).contains("/reviewer"), "{user}");
}

/// In the `copilot` profile the model is offered `manage_todo_list`; the list it writes reaches
/// the editor as a `plan` with each step's state, and the model is told the list.
#[test]
fn a_to_do_list_is_reported_as_the_plan() {
    let dir = workspace("choices-plan");
    let todo = json!({"operation": "write", "todoList": [
        {"id": 1, "title": "Read calc.py", "description": "", "status": "completed"},
        {"id": 2, "title": "Fix add", "description": "", "status": "in-progress"},
        {"id": 3, "title": "Run the tests", "description": "", "status": "not-started"},
    ]});
    let (_rt, model) = scripted(vec![
        Turn::call("manage_todo_list", todo),
        Turn::Text("Planned.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                set_option("tools", "copilot"),
                prompt("fix add, then test"),
            ],
        ),
    );
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let plans = updates(&t, "plan");
    assert_eq!(plans.len(), 1, "{}", why(&t));
    let entries: Vec<(&str, &str)> = plans[0]["update"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["content"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("Read calc.py", "completed"),
            ("Fix add", "in_progress"),
            ("Run the tests", "pending")
        ]
    );
    let told = last_tool_result(&model, 1);
    assert!(
        told.contains("Fix add") && told.contains("in-progress"),
        "{told}"
    );
}

/// `$/cancel_request` for a running `session/prompt` (the model stalled mid-answer) stops it:
/// the prompt answers `cancelled`, the model's stream is closed, and the session takes the next
/// prompt.
#[test]
fn cancel_request_stops_a_running_prompt() {
    let dir = workspace("choices-cancel");
    let (_rt, model) = scripted(vec![
        Turn::Stall("Thinking about it".into()),
        Turn::Text("Next answer.".into()),
    ]);
    let t = play(
        &dir,
        &scenario(
            &dir,
            &model.url,
            vec![
                initialize(),
                new_session(&dir),
                json!({"do": "prompt_cancel_request", "text": "think long"}),
                prompt("and now?"),
            ],
        ),
    );
    assert_clean(&t);
    assert_eq!(stop_reason(&t, 0), "cancelled", "{}", why(&t));
    assert_eq!(stop_reason(&t, 1), "end_turn", "{}", why(&t));
    assert_eq!(said(&t, 3), "Next answer.");
    // The stalled stream was walked away from (give the server a moment to notice).
    for _ in 0..100 {
        if model.abandoned() == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(model.abandoned(), 1, "the model's stream was not closed");
}
