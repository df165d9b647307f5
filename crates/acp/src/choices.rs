//! A session's config options (`configOptions`): the model (what the configuration names and
//! the server lists), the mode (pilotfish's agent, chat, and each custom agent of the workspace
//! and the user) and the tool profile. `session/set_config_option` changes one for the next
//! prompt and answers with all of them; the choices are saved with the conversation.

use agent::tools::Profile;
use serde_json::{Value, json};

use crate::{
    rpc::{Connection, RpcError},
    session::{Handle, Mode, modes, profile_name},
};

/// The value standing for "the server's own default model" when no model is named anywhere.
const SERVER_DEFAULT: &str = "default";

/// Every option with its current value.
pub(crate) fn options(handle: &Handle) -> Value {
    let choices = handle
        .choices
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut models: Vec<Value> = handle
        .models
        .iter()
        .map(|m| json!({"value": m, "name": m}))
        .collect();
    if let Some(m) = &choices.model
        && !handle.models.contains(m)
    {
        models.insert(0, json!({"value": m, "name": m}));
    }
    if choices.model.is_none() {
        models.insert(
            0,
            json!({"value": SERVER_DEFAULT, "name": "The server's default",
                "description": "No model is named in the requests; the server answers with its own"}),
        );
    }
    let modes = modes(handle);
    let mode_options: Vec<Value> = modes["availableModes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let mut o = json!({"value": m["id"], "name": m["name"]});
            if let Some(d) = m.get("description") {
                o["description"] = d.clone();
            }
            o
        })
        .collect();
    json!([
        {"id": "model", "name": "Model", "category": "model", "type": "select",
         "currentValue": choices.model.as_deref().unwrap_or(SERVER_DEFAULT), "options": models},
        {"id": "mode", "name": "Mode", "category": "mode", "type": "select",
         "currentValue": modes["currentModeId"], "options": mode_options},
        {"id": "tools", "name": "Tools", "description": "The tool set offered to the model",
         "type": "select", "currentValue": profile_name(choices.tools), "options": [
            {"value": "original", "name": "Original",
             "description": "Copilot's agent mode as first published (edit_file, lines from 0)"},
            {"value": "copilot", "name": "Copilot",
             "description": "Copilot's current tools (insert_edit_into_file, lines from 1, a to-do list)"},
         ]},
    ])
}

/// `session/set_config_option {sessionId, configId, value}`: answers `{configOptions}`.
pub(crate) fn set(handle: &Handle, params: &Value, conn: &Connection) -> Result<Value, RpcError> {
    let id = params["configId"].as_str().unwrap_or("(none given)");
    let Some(value) = params["value"].as_str() else {
        return Err(RpcError::invalid_params(
            "session/set_config_option needs `value`, one of the option's values",
        ));
    };
    match id {
        "model" => {
            let known = value == SERVER_DEFAULT || handle.models.iter().any(|m| m == value);
            if !known {
                return Err(RpcError::invalid_params(format!(
                    "there is no model {value}; the models are {}",
                    handle.models.join(", ")
                )));
            }
            handle
                .choices
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .model = (value != SERVER_DEFAULT).then(|| value.to_owned());
        }
        "mode" => set_mode(handle, value, conn)?,
        "tools" => {
            let Some(profile) = Profile::parse(value) else {
                return Err(RpcError::invalid_params(format!(
                    "there is no tool profile {value}; use {}",
                    Profile::NAMES
                )));
            };
            handle
                .choices
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .tools = profile;
        }
        _ => {
            return Err(RpcError::invalid_params(format!(
                "there is no option {id}; the options are model, mode and tools"
            )));
        }
    }
    Ok(json!({ "configOptions": options(handle) }))
}

/// Changes the mode (`session/set_mode`, or the `mode` option) and tells the client.
pub(crate) fn set_mode(handle: &Handle, id: &str, conn: &Connection) -> Result<(), RpcError> {
    let Some(mode) = Mode::parse(id, handle) else {
        let ids: Vec<String> = modes(handle)["availableModes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["id"].as_str().map(str::to_owned))
            .collect();
        return Err(RpcError::invalid_params(format!(
            "there is no mode {id}; the modes are {}",
            ids.join(", ")
        )));
    };
    let id = mode.id();
    *handle.mode.lock().unwrap_or_else(|e| e.into_inner()) = mode;
    conn.notify(
        "session/update",
        json!({"sessionId": handle.id, "update": {"sessionUpdate": "current_mode_update",
            "currentModeId": id}}),
    );
    Ok(())
}
