//! MCP servers over streamable HTTP: the reference server (`server-everything`, from
//! `tools/mcp-servers`) run in its `streamableHttp` mode on a free port, given to `session/new`
//! as `{"type": "http", "url": ...}` (its tools offered, called, their results given to the
//! model) or named by the workspace's `.vscode/mcp.json` (reached only after the user's yes).

use std::{
    io::Read,
    net::TcpStream,
    process::{Child, Stdio},
    time::Instant,
};

use super::*;

/// The reference MCP server over streamable HTTP, stopped when dropped. Its standard output
/// logs every POST it receives.
struct HttpMcp {
    child: Child,
    url: String,
    log: PathBuf,
}

impl HttpMcp {
    fn start(dir: &Path) -> HttpMcp {
        test_utils::run_tool(
            "mcp-servers/setup.sh",
            "the acp test reaches the reference MCP server over HTTP",
        );
        let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        );
        let port = test_utils::free_port();
        let log = dir.join("mcp-http.log");
        let child = Command::new("node")
            .arg(entry)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .env("HOME", dir.join("home"))
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts the MCP server");
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the MCP server did not listen on {port} within a minute"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        HttpMcp {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
            log,
        }
    }

    /// How many POSTs the server has received.
    fn posts(&self) -> usize {
        let mut text = String::new();
        std::fs::File::open(&self.log)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text.matches("Received MCP POST request").count()
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tool names the model was offered in its request `n`.
fn offered_tools(model: &ScriptedChat, n: usize) -> Vec<String> {
    model.bodies.lock().unwrap()[n]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `initialize` says `mcpCapabilities.http`; an HTTP server named in `session/new` is reached
/// without a question, its tools are offered as `mcp_<server>_<tool>`, a call asks permission
/// (as any MCP tool does) and its result reaches the model.
#[test]
fn an_http_servers_tool_is_offered_called_and_its_result_given_to_the_model() {
    let dir = workspace("mcp-http");
    let server = HttpMcp::start(&dir);
    let (_rt, model) = scripted(vec![
        Turn::call("mcp_remote_echo", json!({"message": "heron-77"})),
        Turn::Text("It echoed.".into()),
    ]);
    let session = json!({"do": "new_session", "cwd": root(&dir), "mcpServers": [
        {"type": "http", "name": "remote", "url": server.url, "headers": []}]});
    let mut s = scenario(
        &dir,
        &model.url,
        vec![initialize(), session, prompt("echo something")],
    );
    s["permissions"] = json!(["allow_once"]);
    let t = play(&dir, &s);
    assert_clean(&t);
    assert_eq!(
        result(&t, "initialize", 0)["agentCapabilities"]["mcpCapabilities"]["http"],
        true
    );
    assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
    let tools = offered_tools(&model, 0);
    assert!(
        tools.iter().any(|n| n == "mcp_remote_echo") && tools.iter().any(|n| n == "read_file"),
        "{tools:?}"
    );
    assert_eq!(t["permissions"].as_array().unwrap().len(), 1, "{}", why(&t));
    let told = last_tool_result(&model, 1);
    assert!(told.contains("heron-77"), "{told}");
    let calls = tool_calls(&t);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1["status"], "completed", "{:?}", calls[0]);
    // initialize, initialized, tools/list, tools/call at least.
    assert!(server.posts() >= 4, "{} posts", server.posts());
}

/// A workspace's `.vscode/mcp.json` naming an HTTP server: the first prompt asks the user
/// (titled with the server, its address shown); rejected, the server gets no request at all
/// and its tools are not offered; allowed, they are.
#[test]
fn a_workspace_http_server_needs_the_users_yes() {
    let dir = workspace("mcp-http-trust");
    let server = HttpMcp::start(&dir);
    std::fs::create_dir_all(root(&dir).join(".vscode")).unwrap();
    let file = json!({"servers": {"theirs": {"type": "http", "url": server.url}}});
    std::fs::write(root(&dir).join(".vscode/mcp.json"), file.to_string()).unwrap();
    let ask = |answer: &str| {
        let (rt, model) = scripted(vec![Turn::Text("Hello.".into())]);
        let mut s = scenario(
            &dir,
            &model.url,
            vec![initialize(), new_session(&dir), prompt("hello")],
        );
        s["permissions"] = json!([answer]);
        let t = play(&dir, &s);
        assert_clean(&t);
        assert_eq!(stop_reason(&t, 0), "end_turn", "{}", why(&t));
        (rt, model, t)
    };
    let (_rt, model, t) = ask("reject_once");
    let asked = t["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{}", why(&t));
    let title = asked[0]["toolCall"]["title"].as_str().unwrap();
    assert!(title.contains("MCP server theirs"), "{title}");
    assert_eq!(asked[0]["toolCall"]["rawInput"]["url"], json!(server.url));
    assert_eq!(server.posts(), 0, "the rejected server was contacted");
    assert!(
        !offered_tools(&model, 0)
            .iter()
            .any(|n| n.starts_with("mcp_")),
        "{:?}",
        offered_tools(&model, 0)
    );
    let (_rt, model, _) = ask("allow_once");
    assert!(server.posts() >= 3, "{} posts", server.posts());
    assert!(
        offered_tools(&model, 0)
            .iter()
            .any(|n| n == "mcp_theirs_echo"),
        "{:?}",
        offered_tools(&model, 0)
    );
}
