#!/usr/bin/env bash
# Installs the pinned MCP servers (the reference `server-everything`, whose tools the mcp
# crate's tests list and call) at the versions in package-lock.json.
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../npm-setup.sh" "$here" ci
