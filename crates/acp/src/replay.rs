//! A saved conversation told again to the editor (`session/load`): the user's prompts as
//! `user_message_chunk`, the model's words as `agent_message_chunk`, each tool call as a
//! `tool_call` with its `tool_call_update` (its result, `completed` or `failed`), and the to-do
//! list as `plan`, in the order they happened.

use std::{collections::HashMap, path::Path};

use agent::conversation::ToolCall;
use host::session_store::Saved;
use serde_json::{Value, json};

use crate::updates::{describe, plan, raw_input};

fn text(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

/// The updates that show `saved` as it happened.
pub(crate) fn updates(saved: &Saved, root: &Path) -> Vec<Value> {
    let prompts: HashMap<usize, &str> = saved
        .prompts
        .iter()
        .map(|p| (p.at, p.text.as_str()))
        .collect();
    let mut calls: HashMap<&str, &ToolCall> = HashMap::new();
    let mut out = Vec::new();
    for (i, m) in saved.messages.iter().enumerate() {
        match m.role.as_str() {
            "user" => {
                // Only what the user typed: the workspace's context around it is pilotfish's.
                if let Some(typed) = prompts.get(&i) {
                    out.push(text("user_message_chunk", typed));
                }
            }
            "assistant" => {
                if !m.content.is_empty() {
                    out.push(text("agent_message_chunk", &m.content));
                }
                for call in &m.tool_calls {
                    let (title, kind, locations) = describe(call, root);
                    out.push(json!({"sessionUpdate": "tool_call", "toolCallId": call.id,
                        "title": title, "kind": kind, "status": "pending",
                        "locations": locations, "rawInput": raw_input(&call.arguments)}));
                    calls.insert(call.id.as_str(), call);
                }
            }
            "tool" => {
                let Some(id) = m.tool_call_id.as_deref() else {
                    continue;
                };
                let failed = saved.failed_calls.iter().any(|f| f == id);
                out.push(
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                    "status": if failed { "failed" } else { "completed" },
                    "content": [{"type": "content",
                        "content": {"type": "text", "text": m.content}}]}),
                );
                if !failed && let Some(p) = calls.get(id).and_then(|c| plan(c)) {
                    out.push(p);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use agent::conversation::Message;

    use super::*;

    #[test]
    fn a_conversation_is_told_in_order_with_only_what_the_user_typed() {
        let mut saved = Saved::new("s", Path::new("/w"));
        let call = ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: r#"{"filePath": "a.py"}"#.into(),
        };
        saved.messages = vec![
            Message::new("system", "rules"),
            Message::new("user", "<context>…</context> fix it"),
            Message {
                role: "assistant".into(),
                content: String::new(),
                tool_calls: vec![call],
                tool_call_id: None,
            },
            Message {
                role: "tool".into(),
                content: "1 | x".into(),
                tool_calls: Vec::new(),
                tool_call_id: Some("c1".into()),
            },
            Message::new("assistant", "Fixed."),
        ];
        saved.prompted(1, "fix it");
        let kinds: Vec<String> = updates(&saved, Path::new("/w"))
            .iter()
            .map(|u| u["sessionUpdate"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk"
            ]
        );
        assert_eq!(
            updates(&saved, Path::new("/w"))[0]["content"]["text"],
            "fix it"
        );
    }
}
