#!/usr/bin/env bash
# Installs what the VS Code browser test runs, once per machine: Debian's Chromium (and the
# libraries code-server's native modules build against) when missing, then code-server (the
# VS Code build it carries) and puppeteer-core from the npm registry under node 24, into
# PILOTFISH_CACHE (default ~/.cache/pilotfish). Prints the install folder on its last line:
# it holds node_modules/.bin/code-server and node_modules/puppeteer-core.
set -euo pipefail
CODE_SERVER_VERSION=4.139.1
PUPPETEER_VERSION=25.16.0
here=$(cd "$(dirname "$0")" && pwd)
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
dir="$cache/code-server-$CODE_SERVER_VERSION"
mkdir -p "$cache"
exec 8>"$cache/.code-server.lock"
flock 8

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
for header in /usr/include/X11/extensions/XKBfile.h /usr/include/libsecret-1/libsecret/secret.h \
  /usr/include/krb5.h; do
  [ -e "$header" ] || { missing+=(libxkbfile-dev libsecret-1-dev libkrb5-dev); break; }
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/code-server.sh: installing Debian's ${missing[*]}" >&2
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

stamp="$dir/.pilotfish-stamp"
want="code-server@$CODE_SERVER_VERSION puppeteer-core@$PUPPETEER_VERSION"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  node=$(bash "$here/node24.sh" | tail -n1)
  echo "tools/code-server.sh: installing code-server $CODE_SERVER_VERSION and puppeteer-core" \
    "$PUPPETEER_VERSION with node 24 into $dir (a few minutes: it builds native modules)" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  echo '{"name": "pilotfish-code-server", "private": true}' > "$dir/package.json"
  # Native modules build against node 24's own headers, never a download.
  PATH="$node/bin:$PATH" npm_config_nodedir="$node" \
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --no-package-lock \
    "code-server@$CODE_SERVER_VERSION" "puppeteer-core@$PUPPETEER_VERSION" >&2
  echo "$want" > "$stamp"
fi
"$dir/node_modules/.bin/code-server" --version >/dev/null 2>&1 || {
  node=$(bash "$here/node24.sh" | tail -n1)
  PATH="$node/bin:$PATH" "$dir/node_modules/.bin/code-server" --version >&2 || {
    echo "tools/code-server.sh: code-server in $dir does not start; remove $dir and run again" >&2
    exit 1
  }
}
echo "$dir"
