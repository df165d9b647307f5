//! MCP's streamable HTTP transport: every message a POST to the server's one URL, the answer
//! in the response as JSON or as server-sent events, the session the server names in
//! `Mcp-Session-Id` sent back with every later message. This crate stays synchronous and speaks
//! no HTTP itself: the caller hands it an [`HttpClient`] (pilotfish's comes from `backends`, the
//! one crate that speaks HTTP).

use std::{
    collections::HashSet,
    fmt,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::{Value, json};

use crate::{CallResult, McpError, PROTOCOL_VERSION, ServerSpec, Tool, content, process::lock};

/// An HTTP answer as this transport needs it.
#[derive(Debug, Clone, Default)]
pub struct HttpReply {
    pub status: u16,
    /// `Content-Type`, lowercased, without parameters.
    pub content_type: String,
    /// `Mcp-Session-Id`, if the server sent one.
    pub session: Option<String>,
    pub body: Vec<u8>,
}

/// What sends the transport's requests.
pub trait HttpClient: Send + Sync {
    /// POSTs `body` to `url` with `headers`, and reads the answer's body until it ends or
    /// `enough` says what arrived suffices (a stream of events may stay open), at most `limit`,
    /// returning early with an error when `cancel` is set. The error says what failed.
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        limit: Duration,
        cancel: &AtomicBool,
        enough: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<HttpReply, String>;
}

/// An MCP server reached over streamable HTTP, initialized, its tools listed.
pub struct HttpServer {
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    client: Arc<dyn HttpClient>,
    session: Mutex<Option<String>>,
    /// The protocol version the server chose in `initialize`, sent with every later message.
    protocol: Mutex<String>,
    next: AtomicU64,
    tools: Vec<Tool>,
    instructions: Option<String>,
}

impl fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpServer")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Connects to `spec.url` and initializes: `initialize`, `notifications/initialized`,
    /// then `tools/list` page by page, each within `limit`.
    pub fn connect(
        spec: &ServerSpec,
        client: Arc<dyn HttpClient>,
        limit: Duration,
    ) -> Result<HttpServer, McpError> {
        let Some(url) = spec.url.clone() else {
            return Err(McpError::BadEntry {
                server: spec.name.clone(),
                detail: "an HTTP server needs a `url`".into(),
            });
        };
        let mut server = HttpServer {
            name: spec.name.clone(),
            url,
            headers: spec.headers.clone(),
            client,
            session: Mutex::new(None),
            protocol: Mutex::new(PROTOCOL_VERSION.to_owned()),
            next: AtomicU64::new(1),
            tools: Vec::new(),
            instructions: None,
        };
        let never = AtomicBool::new(false);
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "pilotfish", "version": env!("CARGO_PKG_VERSION")},
        });
        let answer = server.request("initialize", params, limit, &never)?;
        let Some(version) = answer["protocolVersion"].as_str() else {
            return Err(server.malformed("initialize", "it names no `protocolVersion`".into()));
        };
        *lock(&server.protocol) = version.to_owned();
        server.instructions = answer["instructions"].as_str().map(str::to_owned);
        server.notify("notifications/initialized", None);
        let offers_tools = answer.pointer("/capabilities/tools").is_some();
        server.tools = server.list_tools(limit, offers_tools)?;
        Ok(server)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Calls `tool` as [`crate::Server::call`] does.
    pub fn call(
        &self,
        tool: &str,
        arguments: &Value,
        cancel: &AtomicBool,
        limit: Duration,
    ) -> Result<CallResult, McpError> {
        let arguments = match arguments {
            Value::Null => json!({}),
            other => other.clone(),
        };
        let params = json!({"name": tool, "arguments": arguments});
        let result = self.request("tools/call", params, limit, cancel)?;
        content::call_result(&result).map_err(|detail| self.malformed("tools/call", detail))
    }

    fn list_tools(&self, limit: Duration, offers_tools: bool) -> Result<Vec<Tool>, McpError> {
        let never = AtomicBool::new(false);
        let mut tools = Vec::new();
        let mut cursors = HashSet::new();
        let mut params = json!({});
        loop {
            let page = match self.request("tools/list", params, limit, &never) {
                Ok(page) => page,
                Err(McpError::Rpc { .. }) if !offers_tools => return Ok(Vec::new()),
                Err(e) => return Err(e),
            };
            let Some(list) = page["tools"].as_array() else {
                return Err(self.malformed("tools/list", "it has no `tools` list".into()));
            };
            tools.extend(
                list.iter()
                    .filter_map(|t| crate::server::tool_of(&self.name, t)),
            );
            match page["nextCursor"].as_str() {
                Some(cursor) if !cursor.is_empty() => {
                    if !cursors.insert(cursor.to_owned()) {
                        let detail = format!("it sent the page cursor `{cursor}` twice");
                        return Err(self.malformed("tools/list", detail));
                    }
                    params = json!({ "cursor": cursor });
                }
                _ => return Ok(tools),
            }
        }
    }

    /// The headers of every message: the user's, what the transport needs, the session.
    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = self.headers.clone();
        headers.push(("Content-Type".into(), "application/json".into()));
        headers.push((
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ));
        if let Some(session) = lock(&self.session).clone() {
            headers.push(("Mcp-Session-Id".into(), session));
            headers.push(("MCP-Protocol-Version".into(), lock(&self.protocol).clone()));
        }
        headers
    }

    fn notify(&self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            message["params"] = p;
        }
        let never = AtomicBool::new(false);
        let sent = self.client.post(
            &self.url,
            &self.headers(),
            message.to_string().as_bytes(),
            Duration::from_secs(10),
            &never,
            &mut |_| false,
        );
        if let Err(e) = sent {
            eprintln!(
                "MCP server `{}`: {method} was not delivered: {e}",
                self.name
            );
        }
    }

    fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
        cancel: &AtomicBool,
    ) -> Result<Value, McpError> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = self.client.post(
            &self.url,
            &self.headers(),
            message.to_string().as_bytes(),
            limit,
            cancel,
            &mut |body| answer_in(body, id).is_some(),
        );
        let reply = match reply {
            Ok(r) => r,
            Err(_) if cancel.load(Ordering::SeqCst) => {
                if method != "initialize" {
                    let why = json!({"requestId": id, "reason": "the user cancelled it"});
                    self.notify("notifications/cancelled", Some(why));
                }
                return Err(McpError::Cancelled {
                    server: self.name.clone(),
                    method: method.to_owned(),
                });
            }
            Err(detail) => return Err(self.http(method, detail)),
        };
        if !(200..300).contains(&reply.status) {
            let text = String::from_utf8_lossy(&reply.body);
            let text: String = text.chars().take(300).collect();
            return Err(self.http(method, format!("HTTP status {}: {text}", reply.status)));
        }
        if let Some(session) = &reply.session {
            *lock(&self.session) = Some(session.clone());
        }
        let Some(answer) = answer_in(&reply.body, id) else {
            return Err(self.malformed(method, "the response holds no answer to it".into()));
        };
        match answer.get("error") {
            Some(e) => Err(McpError::Rpc {
                server: self.name.clone(),
                method: method.to_owned(),
                code: e["code"].as_i64().unwrap_or(0),
                message: e["message"].as_str().unwrap_or_default().to_owned(),
            }),
            None => Ok(answer.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    fn http(&self, method: &str, detail: String) -> McpError {
        McpError::Http {
            server: self.name.clone(),
            url: self.url.clone(),
            method: method.to_owned(),
            detail,
        }
    }

    fn malformed(&self, method: &str, detail: String) -> McpError {
        McpError::Protocol {
            server: self.name.clone(),
            method: method.to_owned(),
            detail,
        }
    }
}

/// The answer with `id` in a response body: one JSON message, a batch of them, or server-sent
/// events whose data are messages (the server's own requests and notifications skipped).
fn answer_in(body: &[u8], id: u64) -> Option<Value> {
    let text = String::from_utf8_lossy(body);
    let is_ours = |m: &Value| m["id"].as_u64() == Some(id) && m.get("method").is_none();
    let find = |v: Value| match v {
        Value::Array(list) => list.into_iter().find(is_ours),
        one => is_ours(&one).then_some(one),
    };
    if let Ok(v) = serde_json::from_str::<Value>(text.trim()) {
        return find(v);
    }
    // Events are separated by blank lines; an event's data is its `data:` lines joined.
    let text = text.replace("\r\n", "\n");
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        if data.is_empty() {
            continue;
        }
        if let Ok(v) = serde_json::from_str::<Value>(&data.join("\n"))
            && let Some(answer) = find(v)
        {
            return Some(answer);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_found_in_json_batches_and_events() {
        let one = br#"{"jsonrpc":"2.0","id":3,"result":{"ok":true}}"#;
        assert_eq!(answer_in(one, 3).unwrap()["result"]["ok"], true);
        assert!(answer_in(one, 4).is_none());
        let batch = br#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2}]"#;
        assert_eq!(answer_in(batch, 2).unwrap()["result"], 2);
        let events = b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\ndata: \"result\":{\"x\":1}}\n\n";
        assert_eq!(answer_in(events, 7).unwrap()["result"]["x"], 1);
        // Half an event is no answer yet.
        assert!(answer_in(b"data: {\"jsonrpc\":\"2.0\",\"id\":7", 7).is_none());
        // A request of the server's with the same id is not the answer.
        let request = br#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}"#;
        assert!(answer_in(request, 7).is_none());
    }
}
