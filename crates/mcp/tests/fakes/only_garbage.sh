#!/bin/sh
# A fake MCP server for the mcp crate's tests that answers every line it reads with lines that
# are not JSON-RPC: a log line, broken JSON, and JSON that is not a JSON-RPC message. Written in
# sh so that it starts at once even on a busy machine: the test's time limit is for the client.
while read -r _; do
  echo 'Server listening (a log line on the wrong stream)'
  echo '{not json'
  echo '{"hello": "json, but not JSON-RPC"}'
  echo
done
