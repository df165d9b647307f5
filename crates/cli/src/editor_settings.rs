//! The editor's settings for `pilotfish lsp`, taken one at a time: a setting that cannot be
//! used is refused by the name the user set it under (`pilotfish.chat.backend`, not a command
//! line flag), and the rest of the change applies.

use std::{sync::Mutex, time::Duration};

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use host::config::{BackendConfig, CompletionConfig, Loaded};

/// The tables an editor's settings may hold, with the configuration file's keys.
const TABLES: [&str; 3] = ["backend", "completion", "chat"];

/// The language server's time-to-first-token limit unless configured.
const EDITOR_FIRST_TOKEN_SECONDS: f64 = 4.0;

/// The settings an editor sends (`initializationOptions`, `workspace/didChangeConfiguration`
/// under `pilotfish`, `workspace/configuration`): `backend`, `completion` and `chat` tables
/// with the configuration file's keys, laid over the configuration the server started with.
/// `chat` names the model next edits ask (as `[chat]` does; `[next_edit]`'s own server and
/// model still win); without a chat server anywhere, next edits ask the completions' server,
/// the managed one included, so a model file is loaded once.
///
/// Each setting is checked on its own: one that cannot be used is refused, named in
/// [`lsp::Configured::refused`], and the configuration file's value (or the default) holds for
/// it; the others apply. Only a configuration the server cannot start from at all is an error.
///
/// With `gguf` in force, the managed server in `managed` is kept if it serves the same model
/// with the same context, else stopped and replaced (everything else checked first, so that
/// settings refused leave the running server alone); without, it is stopped.
pub(crate) fn configure(
    base: &Loaded,
    settings: &Value,
    managed: &Mutex<Option<crate::managed::Managed>>,
) -> Result<lsp::Configured> {
    let (accepted, refused) = sort_out(settings, |s| check(base, s).map(|_| ()));
    let mut configured = build(base, &accepted, managed)?;
    configured.refused = refused;
    Ok(configured)
}

/// One setting from the editor: its table, its key and its value.
struct Setting {
    table: String,
    key: String,
    value: Value,
}

impl Setting {
    /// The name the user knows the setting by: the VS Code setting where there is one, with
    /// the table and key every editor's settings use.
    fn name(&self) -> String {
        let plain = format!("`{}` in the editor's `{}` settings", self.key, self.table);
        match editor_name(&self.table, &self.key) {
            Some(name) => format!("{name} ({plain})"),
            None => plain,
        }
    }
}

/// The VS Code extension's name for a table's key (editors/vscode/package.json).
fn editor_name(table: &str, key: &str) -> Option<&'static str> {
    Some(match (table, key) {
        ("backend", "kind") => "pilotfish.backend",
        ("backend", "endpoint") => "pilotfish.endpoint",
        ("backend", "model") => "pilotfish.model",
        ("backend", "gguf") => "pilotfish.gguf",
        ("completion", "strategy") => "pilotfish.strategy",
        ("chat", "kind") => "pilotfish.chat.backend",
        ("chat", "endpoint") => "pilotfish.chat.endpoint",
        ("chat", "model") => "pilotfish.chat.model",
        _ => return None,
    })
}

/// The settings `check` accepts, as an object of tables, and a line for each one refused.
///
/// All of them together, when they pass; else one at a time, each laid over those accepted so
/// far, and again while another pass accepts more (a chat backend may need the chat model
/// that comes after it).
fn sort_out(settings: &Value, check: impl Fn(&Value) -> Result<()>) -> (Value, Vec<String>) {
    let (all, mut refused) = flatten(settings);
    if all.is_empty() || check(&gather(&all.iter().collect::<Vec<_>>())).is_ok() {
        return (gather(&all.iter().collect::<Vec<_>>()), refused);
    }
    let mut accepted: Vec<&Setting> = Vec::new();
    let mut pending: Vec<&Setting> = all.iter().collect();
    loop {
        let before = pending.len();
        pending.retain(|s| {
            let mut candidate = accepted.clone();
            candidate.push(*s);
            if check(&gather(&candidate)).is_ok() {
                accepted.push(*s);
                false
            } else {
                true
            }
        });
        if pending.len() == before {
            break;
        }
    }
    for s in pending {
        let mut candidate = accepted.clone();
        candidate.push(s);
        let why = check(&gather(&candidate))
            .err()
            .map(|e| in_editor_words(&format!("{e:#}"), &s.table))
            .unwrap_or_default();
        // A key's text is never shown, even one refused.
        let value = if s.key == "api_key" {
            "(hidden)".to_owned()
        } else {
            s.value.to_string()
        };
        refused.push(format!("{} = {value} was not applied: {why}", s.name()));
    }
    (gather(&accepted), refused)
}

/// The settings one by one, and a line for each table that is not a table.
fn flatten(settings: &Value) -> (Vec<Setting>, Vec<String>) {
    let mut all = Vec::new();
    let mut refused = Vec::new();
    for table in TABLES {
        match settings.get(table) {
            None | Some(Value::Null) => {}
            Some(Value::Object(over)) => all.extend(over.iter().map(|(k, v)| Setting {
                table: table.to_owned(),
                key: k.clone(),
                value: v.clone(),
            })),
            Some(other) => refused.push(format!(
                "the editor's `{table}` settings = {other} were not applied: they must be a table of settings"
            )),
        }
    }
    (all, refused)
}

/// Settings back into an object of tables.
fn gather(settings: &[&Setting]) -> Value {
    let mut tables = Map::new();
    for s in settings {
        let table = tables
            .entry(s.table.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        table[&s.key] = s.value.clone();
    }
    Value::Object(tables)
}

/// A message written for the command line, with its flags named as the editor's settings.
fn in_editor_words(message: &str, table: &str) -> String {
    let table = if table == "chat" { "chat" } else { "backend" };
    let mut out = message.to_owned();
    for key in ["kind", "endpoint", "model", "gguf", "strategy"] {
        let flag = match key {
            "kind" => "--backend".to_owned(),
            k => format!("--{k}"),
        };
        let name = editor_name(
            if key == "strategy" {
                "completion"
            } else {
                table
            },
            key,
        );
        let Some(name) = name else { continue };
        out = replace_flag(&out, &flag, name);
    }
    out
}

/// `text` with `flag` replaced where it stands as a whole flag (not `--model-x`).
fn replace_flag(text: &str, flag: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(flag) {
        let after = &rest[at + flag.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-');
        out.push_str(&rest[..at]);
        out.push_str(if whole { by } else { flag });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// What the settings make, checked, before any model server starts.
struct Checked {
    backend: BackendConfig,
    settings: ghost::Settings,
    plan: Option<crate::managed::Plan>,
}

/// The settings laid over the configuration, and everything checked that can be without
/// starting a model server.
fn check(base: &Loaded, settings: &Value) -> Result<Checked> {
    refuse_keys(settings)?;
    let mut backend = serde_json::to_value(&base.backend)?;
    let mut completion = serde_json::to_value(&base.completion)?;
    let mut origins = base.origins.clone();
    for (key, target) in [("backend", &mut backend), ("completion", &mut completion)] {
        if let Some(over) = settings.get(key).and_then(Value::as_object) {
            for (k, v) in over {
                target[k] = v.clone();
                origins.insert(format!("{key}.{k}"), host::config::EDITOR.to_owned());
            }
        }
    }
    let mut backend: BackendConfig =
        serde_json::from_value(backend).context("the `backend` settings are not valid")?;
    // A key is never serialized (it shows as "(hidden)"): the configuration's own is kept.
    backend.api_key.clone_from(&base.backend.api_key);
    let completion: CompletionConfig =
        serde_json::from_value(completion).context("the `completion` settings are not valid")?;
    host::config::settle_server(&mut backend, &mut origins)?;
    let mut ghost_settings = completion.settings(backend.max_tokens)?;
    ghost_settings.fim = backend.fim_mode()?;
    ghost_settings.recent_edits_heading =
        host::copilot_texts::load(base.next_edit.copilot_texts.as_deref()).recent_edits_heading;
    backend.backend()?;
    // Made again in `build`, where the managed server's address is known.
    next_edit_model(base, settings.get("chat"), &backend)?;
    let plan = match &backend.gguf {
        Some(gguf) => Some(crate::managed::plan(gguf, backend.context_size)?),
        None => None,
    };
    Ok(Checked {
        backend,
        settings: ghost_settings,
        plan,
    })
}

/// The settings that give an API key, which the editor's settings may not hold.
const KEY_SETTINGS: [&str; 4] = ["api_key", "api_key_file", "api_key_env", "api_key_command"];

/// Refuses an API key setting among the editor's: a workspace's own settings
/// (`.vscode/settings.json`) reach the language server the same way, and a workspace must
/// neither hold a key nor choose what is run or read to get one.
fn refuse_keys(settings: &Value) -> Result<()> {
    for table in ["backend", "chat"] {
        for key in KEY_SETTINGS {
            if settings.get(table).and_then(|t| t.get(key)).is_some() {
                anyhow::bail!(
                    "an API key is never taken from the editor's settings, which a workspace can set: give api_key_file or api_key_env in [{table}] of your own configuration file, or set $PILOTFISH_API_KEY"
                );
            }
        }
    }
    Ok(())
}

/// The settings accepted, made into the language server's configuration: the managed model
/// server started or replaced when the model changed.
fn build(
    base: &Loaded,
    settings: &Value,
    managed: &Mutex<Option<crate::managed::Managed>>,
) -> Result<lsp::Configured> {
    let Checked {
        mut backend,
        settings: ghost_settings,
        plan,
    } = check(base, settings)?;
    // A new model loads here, holding the message loop for the seconds that takes: requests
    // wait for the server rather than fail while it loads.
    let mut running = managed.lock().unwrap_or_else(|e| e.into_inner());
    if running.as_ref().map(|m| &m.plan) != plan.as_ref() {
        // The old server goes first: two models may not fit in memory together.
        *running = None;
        if let Some(plan) = plan {
            *running = Some(plan.start()?);
        }
    }
    if let Some(m) = running.as_ref() {
        backend.endpoint = Some(m.url.clone());
    }
    let next_edit = next_edit_model(base, settings.get("chat"), &backend)?;
    let mut built = backend.backend()?;
    // A suggestion that comes later than this is no longer wanted, and a hung server must not
    // hold every keystroke for the whole time limit.
    built.first_token_timeout = Some(Duration::from_secs_f64(
        backend
            .first_token_timeout_seconds
            .unwrap_or(EDITOR_FIRST_TOKEN_SECONDS),
    ));
    // The editor's default, not the user's: a vLLM still working on the request is waited on
    // past it (a set limit always cuts).
    built.first_token_timeout_is_default = backend.first_token_timeout_seconds.is_none();
    Ok(lsp::Configured {
        backend: built,
        settings: ghost_settings,
        next_edit: Some(next_edit),
        refused: Vec::new(),
    })
}

/// Where next edits are asked for (`host::next_edits`, the configuration the ACP agent's
/// next edits share).
fn next_edit_model(
    base: &Loaded,
    editor_chat: Option<&Value>,
    completions: &BackendConfig,
) -> Result<lsp::NextEditConfig> {
    let n = host::next_edits::configure(base, editor_chat, completions)?;
    Ok(lsp::NextEditConfig {
        model: n.model,
        strategy: n.strategy,
        wording: n.wording,
        notice: n.notice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flags_are_named_as_the_editors_settings() {
        let said = in_editor_words(
            "the ollama-chat backend needs a model name: give --model (or --model-file)",
            "chat",
        );
        assert_eq!(
            said,
            "the ollama-chat backend needs a model name: give pilotfish.chat.model (or --model-file)"
        );
    }

    /// A setting that passes only once a later one is in is accepted on the second pass.
    #[test]
    fn settings_that_need_each_other_are_all_accepted() {
        let settings = json!({"chat": {"kind": "needs-model", "model": "m"}, "backend": {"x": 1}});
        let check = |s: &Value| {
            if s["chat"]["kind"] == "needs-model" && s["chat"]["model"].is_null() {
                anyhow::bail!("give --model");
            }
            if s["backend"]["x"] == 1 {
                anyhow::bail!("x is wrong");
            }
            Ok(())
        };
        let (accepted, refused) = sort_out(&settings, check);
        assert_eq!(
            accepted,
            json!({"chat": {"kind": "needs-model", "model": "m"}})
        );
        assert_eq!(
            refused,
            vec!["`x` in the editor's `backend` settings = 1 was not applied: x is wrong"]
        );
    }
}
