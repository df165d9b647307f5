//! The agent's inspector: each session keeps the last request its agent sent to the model (the
//! messages, system prompt first, and the tools offered), and `_pilotfish/lastRequest` answers it
//! as a self-contained HTML page in the completion inspector's style (`prompt::html`), with the
//! mode and the workspace's customizations that shaped it.

use std::{fmt::Write, sync::Mutex};

use agent::{
    conversation::{Answer, Message, ToolSpec},
    run::{Model, ModelError},
};
use prompt::html::{STYLE, escape};
use serde_json::{Value, json};

/// What the model was last sent, and what shaped it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LastRequest {
    pub(crate) messages: Vec<Message>,
    pub(crate) tools: Vec<ToolSpec>,
    pub(crate) facts: Facts,
}

/// The turn's context: its mode, the model it asked, and the customization files found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    pub(crate) mode: String,
    pub(crate) endpoint: String,
    pub(crate) model: Option<String>,
    pub(crate) customizations: Vec<String>,
}

/// A model that keeps each request in `last` before it asks `inner`.
pub(crate) struct Recording<'a, M> {
    pub(crate) inner: &'a mut M,
    pub(crate) last: &'a Mutex<Option<LastRequest>>,
    pub(crate) facts: Facts,
}

impl<M: Model> Model for Recording<'_, M> {
    fn chat(
        &mut self,
        messages: &[Message],
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Answer, ModelError> {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(LastRequest {
            messages: messages.to_vec(),
            tools: tools.to_vec(),
            facts: self.facts.clone(),
        });
        self.inner.chat(messages, tools, on_text)
    }
}

/// The answer of `_pilotfish/lastRequest`: `{title, html}`.
pub(crate) fn answer(last: &LastRequest) -> Value {
    let title = format!(
        "{} mode, {} messages, {} tools",
        last.facts.mode,
        last.messages.len(),
        last.tools.len()
    );
    json!({"title": title, "html": page(last, &title)})
}

/// The page: the request's facts, the customizations, every message as sent, every tool.
fn page(last: &LastRequest, title: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>pilotfish agent request: {t}</title><style>{STYLE}</style></head><body>\
         <h1>pilotfish agent request: {t}</h1>",
        t = escape(title)
    );
    let f = &last.facts;
    let mut rows = vec![("mode", f.mode.clone()), ("endpoint", f.endpoint.clone())];
    rows.push((
        "model",
        f.model
            .clone()
            .unwrap_or_else(|| "(the server's own)".into()),
    ));
    table(&mut out, "The request", "request", &rows);
    out.push_str("<h2>Customizations</h2>");
    if f.customizations.is_empty() {
        out.push_str("<p data-part=customizations><em>(none found)</em></p>");
    } else {
        out.push_str("<ul data-part=customizations>");
        for c in &f.customizations {
            let _ = write!(out, "<li>{}</li>", escape(c));
        }
        out.push_str("</ul>");
    }
    for (i, m) in last.messages.iter().enumerate() {
        message(&mut out, i, m);
    }
    let tools: Vec<(&str, String)> = last
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.description.clone()))
        .collect();
    table(&mut out, "Tools offered", "tools", &tools);
    out.push_str("</body></html>");
    out
}

/// One message as sent: the system prompt, a user turn, an answer with its calls, a result.
fn message(out: &mut String, i: usize, m: &Message) {
    let part = if i == 0 && m.role == "system" {
        "system".to_owned()
    } else {
        format!("message-{i}")
    };
    let mut text = m.content.clone();
    for call in &m.tool_calls {
        let _ = write!(text, "\n→ {}({})", call.name, call.arguments);
    }
    let heading = match &m.tool_call_id {
        Some(id) => format!("{} (answers {id})", m.role),
        None => m.role.clone(),
    };
    let body = if text.trim().is_empty() {
        "<em>(empty)</em>".to_owned()
    } else {
        escape(&text)
    };
    let _ = write!(
        out,
        "<section class=part data-part=\"{part}\"><h2>{}</h2><pre>{body}</pre></section>",
        escape(&heading)
    );
}

fn table<K: AsRef<str>>(out: &mut String, title: &str, part: &str, rows: &[(K, String)]) {
    let _ = write!(
        out,
        "<h2>{}</h2><table data-part=\"{part}\">",
        escape(title)
    );
    for (k, v) in rows {
        let _ = write!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(k.as_ref()),
            escape(v)
        );
    }
    out.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_shows_each_message_escaped_under_a_policy_that_forbids_requests() {
        let last = LastRequest {
            messages: vec![
                Message::new("system", "You review."),
                Message::new("user", "<script>alert(1)</script>"),
            ],
            tools: vec![ToolSpec {
                name: "read_file".into(),
                description: "Reads".into(),
                parameters: json!({}),
            }],
            facts: Facts {
                mode: "agent".into(),
                endpoint: "http://127.0.0.1:8080".into(),
                model: None,
                customizations: vec![".github/copilot-instructions.md".into()],
            },
        };
        let answer = answer(&last);
        let html = answer["html"].as_str().unwrap();
        assert_eq!(answer["title"], "agent mode, 2 messages, 1 tools");
        assert!(html.contains("default-src 'none'"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("data-part=\"system\"><h2>system</h2><pre>You review.</pre>"));
        assert!(html.contains("<th>read_file</th>"));
        assert!(html.contains(".github/copilot-instructions.md"));
    }
}
