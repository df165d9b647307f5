#!/usr/bin/env bash
# Installs the differential-test oracle: node (from Debian when missing), Copilot's completions
# library @vscode/chat-lib from the npm registry at the version pinned in package-lock.json, and
# the binary vocabularies and tree-sitter grammars it loads from its own folder. Idempotent and
# quick when nothing changed; fails loudly rather than letting a test skip.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "oracle/setup.sh: node is missing; installing Debian's nodejs and npm" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq nodejs npm >&2
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq nodejs npm >&2
  fi
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "oracle/setup.sh: node $(node --version) is too old; @vscode/chat-lib needs node 20 or later" >&2
  exit 1
fi

# Tests run in parallel and each starts the oracle: one installs, the others wait for it.
exec 9>.setup.lock
flock 9

stamp=node_modules/.pilotfish-stamp
want=$(cat package-lock.json prepare-vocab.js prepare-grammars.js | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  node prepare-vocab.js >&2
  node prepare-grammars.js >&2
  echo "$want" > "$stamp"
fi
