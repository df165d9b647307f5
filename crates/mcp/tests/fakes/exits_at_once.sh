#!/bin/sh
# A fake MCP server for the mcp crate's tests that fails before reading anything, as a server
# missing its configuration does: a message on standard error and exit status 3.
echo 'starting the fake server' >&2
echo 'error: FAKE_API_KEY is not set' >&2
exit 3
