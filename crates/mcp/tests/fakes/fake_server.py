#!/usr/bin/env python3
"""A fake MCP server for the mcp crate's tests: a small stdio JSON-RPC server whose MODE makes
it misbehave the way real servers do. Usage: fake_server.py MODE

Modes:
  well-behaved     answers everything; its tools show what each misbehaviour looks like
  garbage          writes log lines and non-JSON-RPC JSON to stdout before every answer
  hang-initialize  reads `initialize` and never answers
  paged            lists its tools two per page, with `nextCursor`
  asks-client      asks the client (roots/list, ping, sampling) and notifies it before
                   answering each tools/call, and reports what the client answered
  ignores-eof      starts a grandchild `sleep` (its pid on stderr) and keeps running when its
                   input closes

Tools (every mode that gets that far): echo {message}, env {name}, cwd, hang (never
answers), slow {seconds} (answers late), fail (a JSON-RPC error), die (exits with status 5
mid-call), broken (isError), content (non-text blocks).

Its siblings `exits_at_once.sh` and `only_garbage.sh` are fakes in sh, which starts at once:
their tests measure the client's time limits, which python's start-up would blur.
"""

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "well-behaved"

TOOLS = [
    {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}
    for name, description, props in [
        ("echo", "Echoes its message", {"message": {"type": "string"}}),
        ("env", "Shows an environment variable", {"name": {"type": "string"}}),
        ("cwd", "Shows the working folder", {}),
        ("hang", "Never answers", {}),
        ("slow", "Answers after a while", {"seconds": {"type": "number"}}),
        ("fail", "Answers with a JSON-RPC error", {}),
        ("die", "Exits in the middle of the call", {}),
        ("broken", "Reports a failure of its own", {}),
        ("content", "Returns non-text content", {}),
    ]
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def result(id, value):
    send({"jsonrpc": "2.0", "id": id, "result": value})


def text(value, is_error=False):
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def garbage():
    sys.stdout.write("Server listening (a log line on the wrong stream)\n")
    sys.stdout.write("{not json\n")
    sys.stdout.write('{"hello": "json, but not JSON-RPC"}\n')
    sys.stdout.write("\n")
    sys.stdout.flush()


def read():
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def ask_client(id):
    """Sends three requests and a notification, waits for the three answers, and answers
    call `id` with what came back."""
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
    asked = {"r1": "roots/list", "p1": "ping", "s1": "sampling/createMessage"}
    for key, method in asked.items():
        send({"jsonrpc": "2.0", "id": key, "method": method, "params": {}})
    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}})
    answers = {}
    while len(answers) < len(asked):
        message = read()
        if message is None:
            return
        if message.get("id") in asked and "method" not in message:
            answer = message.get("result", message.get("error", {}).get("code"))
            answers[asked[message["id"]]] = answer
    result(id, text(json.dumps(answers, sort_keys=True)))


def call(id, params):
    name = params.get("name")
    args = params.get("arguments") or {}
    if MODE == "asks-client":
        return ask_client(id)
    if name == "echo":
        return result(id, text(str(args.get("message"))))
    if name == "env":
        return result(id, text(os.environ.get(args.get("name", ""), "(unset)")))
    if name == "cwd":
        return result(id, text(os.getcwd()))
    if name == "hang":
        return
    if name == "slow":
        time.sleep(float(args.get("seconds", 1)))
        return result(id, text("slow answer"))
    if name == "fail":
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "database is locked"}})
        return
    if name == "die":
        log("panic: lost the connection to the database")
        os._exit(5)
    if name == "broken":
        return result(id, text("the file does not exist", is_error=True))
    if name == "content":
        return result(id, {"content": [
            {"type": "text", "text": "a picture:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "text": "the notes"}},
        ]})
    send({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})


def tools_list(id, params):
    if MODE != "paged":
        return result(id, {"tools": TOOLS})
    start = int(params.get("cursor") or 0)
    page = {"tools": TOOLS[start:start + 2]}
    if start + 2 < len(TOOLS):
        page["nextCursor"] = str(start + 2)
    result(id, page)


def main():
    if MODE == "ignores-eof":
        child = subprocess.Popen(["sleep", "300"])
        log(f"grandchild {child.pid}")
    while True:
        message = read()
        if message is None:
            if MODE == "ignores-eof":
                time.sleep(300)
            return
        method, id = message.get("method"), message.get("id")
        if method == "notifications/cancelled":
            log(f"cancelled {message['params']['requestId']}: {message['params'].get('reason')}")
        if id is None or method is None:
            continue
        if MODE == "garbage":
            garbage()
        if method == "initialize":
            if MODE == "hang-initialize":
                time.sleep(300)
            result(id, {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "0"},
                "instructions": "Use the fake tools for tests only.",
            })
        elif method == "tools/list":
            tools_list(id, message.get("params") or {})
        elif method == "tools/call":
            call(id, message.get("params") or {})
        else:
            send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": f"no method {method}"}})


main()
