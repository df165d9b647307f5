#!/usr/bin/env bash
# Installs wakaru at the version pinned in package.json, for the unbundle benchmark only.
# `npm install` rather than `npm ci`: the lock file npm writes for wakaru leaves out its
# prebuilt binaries for other platforms, which `npm ci` then refuses. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  bash ../../oracle/setup.sh >/dev/null
fi
exec 9>.setup.lock
flock 9
want=$(sha256sum package.json | cut -d' ' -f1)
stamp=node_modules/.pilotfish-stamp
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm install --no-audit --no-fund --no-package-lock --loglevel=error >&2
  echo "$want" > "$stamp"
fi
