#!/usr/bin/env bash
# Installs the huge app's two packages (TypeScript and Babel) at the versions its lock file
# pins, for the unbundle benchmark only. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
bash ../../setup.sh >/dev/null
exec 9>.setup.lock
flock 9
want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.pilotfish-stamp
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi
