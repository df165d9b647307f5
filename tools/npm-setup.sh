#!/usr/bin/env bash
# Installs the npm packages of one folder of this repository, once: `bash tools/npm-setup.sh
# DIR ci|install`. `ci` installs exactly what DIR/package-lock.json pins; `install` follows
# DIR/package.json without a lock (for a package whose lock leaves out other platforms'
# prebuilt binaries). Idempotent and quick when nothing changed (a stamp keyed by the file
# that pins the versions); tests run in parallel and may all call it: one installs, the
# others wait. Fails loudly rather than letting a test skip. Needs node 20 or later, which
# oracle/setup.sh installs when node is missing.
set -euo pipefail
dir=${1:?usage: tools/npm-setup.sh DIR ci|install}
mode=${2:?usage: tools/npm-setup.sh DIR ci|install}
here=$(cd "$(dirname "$0")" && pwd)
cd "$dir"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  bash "$here/../oracle/setup.sh" >/dev/null
fi

exec 9>.setup.lock
flock 9

case "$mode" in
  ci) pins=package-lock.json; command=(npm ci) ;;
  install) pins=package.json; command=(npm install --no-package-lock) ;;
  *) echo "tools/npm-setup.sh: unknown mode $mode: use ci or install" >&2; exit 2 ;;
esac
stamp=node_modules/.pilotfish-stamp
want=$(sha256sum "$pins" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "${command[@]}" --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi
