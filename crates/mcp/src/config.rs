//! The MCP servers a workspace configures in `.vscode/mcp.json`, read as VS Code reads that
//! file so that one file serves both editors.
//!
//! The file is JSON with comments: `{"servers": {NAME: {"type": "stdio", "command": ..., "args":
//! [...], "env": {...}, "envFile": ...}}, "inputs": [...]}`. VS Code's variables are resolved
//! where pilotfish can resolve them (`${workspaceFolder}`, `${userHome}`, `${env:NAME}`, ...);
//! `${input:...}` asks the user in VS Code, which pilotfish cannot do, so such a server is a
//! problem to report rather than one to start with a placeholder in its arguments.

use std::{fs, io, path::Path};

use serde_json::{Map, Value};

use crate::McpError;

/// How to start one stdio MCP server, or where to reach a streamable HTTP one (`url`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerSpec {
    /// The name the user gave it; tools are offered to models as `mcp_<name>_<tool>`.
    pub name: String,
    /// The program, found on `PATH` unless it contains a `/`.
    pub command: String,
    pub args: Vec<String>,
    /// Variables set on top of pilotfish's own environment, which the server inherits.
    pub env: Vec<(String, String)>,
    /// A streamable HTTP server's address: then nothing is started, `command` is empty.
    pub url: Option<String>,
    /// The HTTP headers sent with every message to `url` (a key, for instance).
    pub headers: Vec<(String, String)>,
}

/// The servers of a workspace's `.vscode/mcp.json` and what could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Workspace {
    /// The usable servers, by name (the JSON object is read into a sorted map).
    pub servers: Vec<ServerSpec>,
    /// One sentence for each entry that was left out, saying why and what to change.
    pub problems: Vec<String>,
}

/// Reads `<root>/.vscode/mcp.json`. No file means no servers. An entry that cannot be used
/// (an HTTP server, no `command`, a variable pilotfish cannot resolve) is left out and
/// described in `problems`; a file that is not JSON (with comments) is an error.
pub fn workspace_servers(root: &Path) -> Result<Workspace, McpError> {
    let path = root.join(".vscode").join("mcp.json");
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Workspace::default()),
        Err(source) => return Err(McpError::ReadConfig { path, source }),
    };
    let context = Context {
        root,
        env: &|name| std::env::var(name).ok(),
    };
    parse(&text, &path, &context)
}

/// What variables resolve against: the workspace folder and an environment (the process's,
/// or a fixed one in tests).
struct Context<'a> {
    root: &'a Path,
    env: &'a dyn Fn(&str) -> Option<String>,
}

fn parse(text: &str, path: &Path, context: &Context<'_>) -> Result<Workspace, McpError> {
    let shape = |detail: &str| McpError::ConfigShape {
        path: path.to_owned(),
        detail: detail.to_owned(),
    };
    let value = chat::jsonc::parse(text).map_err(|source| McpError::ConfigSyntax {
        path: path.to_owned(),
        source,
    })?;
    let Value::Object(top) = value else {
        return Err(shape(
            "the file must hold an object with a `servers` object in it",
        ));
    };
    let servers = match top.get("servers") {
        None => return Ok(Workspace::default()),
        Some(Value::Object(servers)) => servers,
        Some(_) => {
            return Err(shape(
                "`servers` must be an object from server names to their settings",
            ));
        }
    };
    let mut workspace = Workspace::default();
    for (name, entry) in servers {
        match server_spec(name, entry, context) {
            Ok(spec) => workspace.servers.push(spec),
            Err(problem) => workspace.problems.push(problem.to_string()),
        }
    }
    Ok(workspace)
}

fn server_spec(name: &str, entry: &Value, context: &Context<'_>) -> Result<ServerSpec, McpError> {
    let bad = |detail: String| McpError::BadEntry {
        server: name.to_owned(),
        detail,
    };
    let Value::Object(entry) = entry else {
        return Err(bad("its settings must be an object".into()));
    };
    if check_transport(name, entry)? {
        return http_spec(name, entry, context);
    }
    let resolve = |text: &str| resolve_variables(name, text, context);
    let command = match entry.get("command") {
        Some(Value::String(command)) if !command.trim().is_empty() => resolve(command)?,
        _ => {
            return Err(McpError::MissingCommand {
                server: name.to_owned(),
            });
        }
    };
    let args = match entry.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(args)) => args
            .iter()
            .map(|arg| match arg {
                Value::String(arg) => resolve(arg),
                _ => Err(bad(format!("`args` must hold strings, not {arg}"))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(bad("`args` must be a list of strings".into())),
    };
    let mut env = match entry.get("envFile") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(file)) => env_file(name, &context.root.join(resolve(file)?))?,
        Some(_) => return Err(bad("`envFile` must be a path".into())),
    };
    for (key, value) in env_object(name, entry.get("env"), context)? {
        // `env` wins over `envFile`, as in VS Code.
        env.retain(|(k, _)| *k != key);
        env.push((key, value));
    }
    check_cwd(name, entry, context)?;
    Ok(ServerSpec {
        name: name.to_owned(),
        command,
        args,
        env,
        ..ServerSpec::default()
    })
}

/// A streamable HTTP server: `url` and `headers` (variables resolved in both).
fn http_spec(
    name: &str,
    entry: &Map<String, Value>,
    context: &Context<'_>,
) -> Result<ServerSpec, McpError> {
    let url = match entry.get("url") {
        Some(Value::String(url)) if !url.trim().is_empty() => {
            resolve_variables(name, url, context)?
        }
        _ => {
            return Err(McpError::BadEntry {
                server: name.to_owned(),
                detail: "an http server needs its `url`".into(),
            });
        }
    };
    let headers = match entry.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(_)) => env_object(name, entry.get("headers"), context)?,
        Some(_) => {
            return Err(McpError::BadEntry {
                server: name.to_owned(),
                detail: "`headers` must be an object of names to values".into(),
            });
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        url: Some(url),
        headers,
        ..ServerSpec::default()
    })
}

/// Stdio servers (`false`) and streamable HTTP ones (`true`) can be used; `type` may be left
/// out when there is a `command` (stdio) or only a `url` (http).
fn check_transport(name: &str, entry: &Map<String, Value>) -> Result<bool, McpError> {
    let unsupported = |transport: &str| McpError::Unsupported {
        server: name.to_owned(),
        transport: transport.to_owned(),
    };
    match entry.get("type") {
        None if entry.contains_key("url") && !entry.contains_key("command") => Ok(true),
        None | Some(Value::Null) => Ok(false),
        Some(Value::String(kind)) if kind == "stdio" => Ok(false),
        Some(Value::String(kind)) if kind == "http" => Ok(true),
        Some(Value::String(kind)) if kind == "sse" => Err(unsupported(kind)),
        Some(other) => Err(McpError::BadEntry {
            server: name.to_owned(),
            detail: format!("unknown `type` {other}; use \"stdio\" or \"http\""),
        }),
    }
}

/// The `env` object: strings (with variables resolved), numbers and booleans as written.
/// `null`, which unsets a variable in VS Code, is skipped: the server then inherits
/// pilotfish's value, if any.
fn env_object(
    name: &str,
    env: Option<&Value>,
    context: &Context<'_>,
) -> Result<Vec<(String, String)>, McpError> {
    let bad = |detail: String| McpError::BadEntry {
        server: name.to_owned(),
        detail,
    };
    let env = match env {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(env)) => env,
        Some(_) => return Err(bad("`env` must be an object of names to values".into())),
    };
    let mut out = Vec::new();
    for (key, value) in env {
        let value = match value {
            Value::Null => continue,
            Value::String(text) => resolve_variables(name, text, context)?,
            Value::Number(_) | Value::Bool(_) => value.to_string(),
            _ => return Err(bad(format!("`env.{key}` must be a string"))),
        };
        out.push((key.clone(), value));
    }
    Ok(out)
}

/// pilotfish starts servers in the workspace folder; a server that asks for another one is
/// left out rather than started where it does not expect to be.
fn check_cwd(
    name: &str,
    entry: &Map<String, Value>,
    context: &Context<'_>,
) -> Result<(), McpError> {
    let Some(cwd) = entry.get("cwd") else {
        return Ok(());
    };
    let Value::String(cwd) = cwd else {
        return Err(McpError::BadEntry {
            server: name.to_owned(),
            detail: "`cwd` must be a path".into(),
        });
    };
    let cwd = context.root.join(resolve_variables(name, cwd, context)?);
    if same_folder(&cwd, context.root) {
        return Ok(());
    }
    Err(McpError::BadEntry {
        server: name.to_owned(),
        detail: format!(
            "`cwd` {} is not the workspace folder, and pilotfish starts servers in the workspace folder; remove `cwd` or wrap the command in a script that changes folder",
            cwd.display()
        ),
    })
}

fn same_folder(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    a.components().eq(b.components()) || canonical(a) == canonical(b)
}

/// Replaces VS Code's variables in `text`. Unknown ones are left as written (VS Code does the
/// same); `${input:...}` and `${command:...}` need VS Code itself and make the entry unusable.
fn resolve_variables(server: &str, text: &str, context: &Context<'_>) -> Result<String, McpError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let variable = &rest[start + 2..start + len];
        match variable_value(variable, context) {
            Some(value) => out.push_str(&value),
            None if variable.starts_with("input:") || variable.starts_with("command:") => {
                return Err(McpError::UnresolvedVariable {
                    server: server.to_owned(),
                    variable: format!("${{{variable}}}"),
                });
            }
            None => out.push_str(&rest[start..=start + len]),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn variable_value(variable: &str, context: &Context<'_>) -> Option<String> {
    let root = context.root;
    match variable {
        "workspaceFolder" | "workspaceRoot" => Some(root.display().to_string()),
        "workspaceFolderBasename" => Some(root.file_name()?.to_string_lossy().into_owned()),
        "userHome" => (context.env)("HOME"),
        "pathSeparator" | "/" => Some(std::path::MAIN_SEPARATOR.to_string()),
        // An unset variable is empty, as in VS Code.
        _ => Some((context.env)(variable.strip_prefix("env:")?).unwrap_or_default()),
    }
}

/// A dotenv file: `NAME=value` lines, `#` comments, optional `export ` and quotes.
fn env_file(server: &str, path: &Path) -> Result<Vec<(String, String)>, McpError> {
    let text = fs::read_to_string(path).map_err(|e| McpError::BadEntry {
        server: server.to_owned(),
        detail: format!("cannot read its `envFile` {}: {e}", path.display()),
    })?;
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().is_empty() {
            continue;
        }
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q))
            .unwrap_or(value);
        let key = key.trim().to_owned();
        out.retain(|(k, _)| *k != key);
        out.push((key, unquoted.to_owned()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text` as `/ws/.vscode/mcp.json` with `HOME=/home/u` and `TOKEN=t0k` set, and
    /// shows each server on one line (`name: command args [env]`, `name: http url [headers]`)
    /// and each problem after it.
    fn check(text: &str, want: &[&str]) {
        let env = |name: &str| match name {
            "HOME" => Some("/home/u".to_owned()),
            "TOKEN" => Some("t0k".to_owned()),
            _ => None,
        };
        let context = Context {
            root: Path::new("/ws"),
            env: &env,
        };
        let workspace = parse(text, Path::new("/ws/.vscode/mcp.json"), &context).unwrap();
        let mut got: Vec<String> = workspace
            .servers
            .iter()
            .map(|s| {
                if let Some(url) = &s.url {
                    let h: Vec<String> =
                        s.headers.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    return format!("{}: http {url} {h:?}", s.name);
                }
                let env: Vec<String> = s.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{}: {} {:?} {:?}", s.name, s.command, s.args, env)
            })
            .collect();
        got.extend(workspace.problems.iter().map(|p| format!("problem: {p}")));
        assert_eq!(got, want, "for {text}");
    }

    #[test]
    fn servers_and_problems() {
        let cases: &[(&str, &[&str])] = &[
            ("{}", &[]),
            (r#"{"inputs": []}"#, &[]),
            (
                r#"{
                    // The reference server, over stdio.
                    "servers": {
                        "a": {"type": "stdio", "command": "npx", "args": ["-y", "srv"],},
                        /* no type: stdio, since there is a command */
                        "b": {"command": "python3", "env": {"PORT": 8080, "DEBUG": true, "GONE": null}},
                    },
                }"#,
                &[
                    r#"a: npx ["-y", "srv"] []"#,
                    r#"b: python3 [] ["DEBUG=true", "PORT=8080"]"#,
                ],
            ),
            (
                r#"{"servers": {"v": {"command": "${userHome}/bin/srv",
                    "args": ["${workspaceFolder}/x", "${workspaceFolderBasename}", "${unknown}", "$HOME"],
                    "env": {"T": "${env:TOKEN}", "U": "${env:UNSET}"}}}}"#,
                &[r#"v: /home/u/bin/srv ["/ws/x", "ws", "${unknown}", "$HOME"] ["T=t0k", "U="]"#],
            ),
            (
                r#"{"servers": {
                    "remote": {"type": "http", "url": "https://example.com/mcp",
                        "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
                    "old": {"type": "sse", "url": "https://example.com/sse"},
                    "bare": {"url": "https://example.com/mcp"}}}"#,
                &[
                    "bare: http https://example.com/mcp []",
                    "remote: http https://example.com/mcp [\"Authorization=Bearer t0k\"]",
                    "problem: MCP server `old` is an sse server; pilotfish takes stdio and streamable HTTP (`\"type\": \"http\"`) servers",
                ],
            ),
            (
                r#"{"servers": {"gh": {"command": "gh-mcp", "env": {"TOKEN": "${input:token}"}}, "ok": {"command": "x"}}}"#,
                &[
                    "ok: x [] []",
                    "problem: MCP server `gh` uses `${input:token}`, which pilotfish cannot ask for; put the value in the server's `env` or in your environment and refer to it as `${env:NAME}`",
                ],
            ),
            (
                r#"{"servers": {"n": {"type": "stdio"}, "e": {"command": "  "}}}"#,
                &[
                    "problem: MCP server `e` has no `command`; give the program that starts it in .vscode/mcp.json",
                    "problem: MCP server `n` has no `command`; give the program that starts it in .vscode/mcp.json",
                ],
            ),
            (
                r#"{"servers": {"a": {"command": "x", "args": [1]}, "b": "x", "c": {"type": "ws", "command": "x"},
                    "d": {"command": "x", "cwd": "${workspaceFolder}"}, "e": {"command": "x", "cwd": "sub"}}}"#,
                &[
                    "d: x [] []",
                    "problem: MCP server `a`: `args` must hold strings, not 1",
                    "problem: MCP server `b`: its settings must be an object",
                    "problem: MCP server `c`: unknown `type` \"ws\"; use \"stdio\" or \"http\"",
                    "problem: MCP server `e`: `cwd` /ws/sub is not the workspace folder, and pilotfish starts servers in the workspace folder; remove `cwd` or wrap the command in a script that changes folder",
                ],
            ),
        ];
        for (text, want) in cases {
            check(text, want);
        }
    }

    #[test]
    fn broken_files_are_errors() {
        let context = Context {
            root: Path::new("/ws"),
            env: &|_| None,
        };
        let path = Path::new("/ws/.vscode/mcp.json");
        let cases = [
            ("{\"servers\": {", "/ws/.vscode/mcp.json is not valid JSON"),
            ("[]", "the file must hold an object"),
            ("{\"servers\": []}", "`servers` must be an object"),
        ];
        for (text, want) in cases {
            let error = parse(text, path, &context).unwrap_err().to_string();
            assert!(error.contains(want), "{text}: {error}");
        }
    }

    #[test]
    fn reads_the_workspace_file() {
        let root =
            std::env::temp_dir().join(format!("pilotfish-mcp-config-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        assert_eq!(workspace_servers(&root).unwrap(), Workspace::default());

        fs::create_dir_all(root.join(".vscode")).unwrap();
        fs::write(
            root.join(".vscode/mcp.json"),
            r#"{"servers": {"s": {"command": "srv", "envFile": "${workspaceFolder}/.env", "env": {"B": "from env"}}}}"#,
        )
        .unwrap();
        fs::write(
            root.join(".env"),
            "# secrets\nA=1\nexport B=\"from file\"\nC='quoted'\n\nnot a pair\n",
        )
        .unwrap();
        let workspace = workspace_servers(&root).unwrap();
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(workspace.problems, Vec::<String>::new());
        assert_eq!(
            workspace.servers[0].env,
            pairs(&[("A", "1"), ("C", "quoted"), ("B", "from env")])
        );

        fs::write(root.join(".vscode/mcp.json"), "{\"servers\": {,}").unwrap();
        let error = workspace_servers(&root).unwrap_err();
        assert!(matches!(error, McpError::ConfigSyntax { .. }), "{error}");
        fs::remove_dir_all(&root).unwrap();
    }
}
