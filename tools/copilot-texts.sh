#!/usr/bin/env bash
# Fetches Copilot's own wording of its next-edit request, which pilotfish does not ship: installs
# @vscode/chat-lib 0.66.0 from the npm registry (oracle/setup.sh, at the version its
# package-lock.json pins), asks it for one request and keeps the request's two fixed texts in
# pilotfish's cache folder (PILOTFISH_CACHE, else $XDG_CACHE_HOME/pilotfish, else
# ~/.cache/pilotfish), where the `copilot` next-edit strategy reads them. Prints the file's path
# on its last line. Idempotent; fails loudly.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${PILOTFISH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pilotfish}"
mkdir -p "$cache"
out="$cache/copilot-texts.json"

bash "$here/../oracle/setup.sh" >/dev/null
tmp=$(mktemp "$cache/.copilot-texts.XXXXXX")
trap 'rm -f "$tmp"' EXIT
node "$here/copilot-texts.js" > "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
