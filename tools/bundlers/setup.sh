#!/usr/bin/env bash
# Installs the pinned bundlers (webpack 5 with terser, webpack 4, esbuild) and the registry
# packages the unbundler's test bundles are built from, at the versions in package-lock.json. Idempotent and quick when nothing
# changed; fails loudly rather than letting a test skip. Needs node 20 or later (see
# oracle/setup.sh, which installs it).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  bash ../../oracle/setup.sh >/dev/null
fi

# Tests run in parallel and each may call this: one installs, the others wait for it.
exec 9>.setup.lock
flock 9

stamp=node_modules/.pilotfish-stamp
want=$(cat package-lock.json | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi
