#!/usr/bin/env bash
# Builds the VS Code extension in editors/vscode into a .vsix: installs its npm packages at the
# versions package-lock.json pins (under node 24, which @vscode/vsce needs; tools/node24.sh
# fetches it once per machine), type-checks it, bundles it with esbuild and packages it with
# vsce (the chat view's page script and style in media/ are shipped as they are). Prints the .vsix's path on its last line. Quick when nothing changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ext=$(cd "$here/../editors/vscode" && pwd)
node=$(bash "$here/node24.sh" | tail -n1)
export PATH="$node/bin:$PATH" npm_config_nodedir="$node"
cd "$ext"
exec 7>.build.lock
flock 7

bash "$here/npm-setup.sh" "$ext" ci
version=$(node -p 'require("./package.json").version')
vsix="$ext/pilotfish-$version.vsix"
# Rebuilt when any source, the manifest or the lock is newer than the package.
if [ ! -f "$vsix" ] || [ -n "$(find src media package.json package-lock.json tsconfig.json README.md \
  .vscodeignore -newer "$vsix" -print -quit)" ]; then
  echo "tools/vscode-extension.sh: type-checking, bundling and packaging $vsix" >&2
  npx --no-install tsc --noEmit -p . >&2
  npx --no-install esbuild src/extension.ts --bundle --platform=node --format=cjs \
    --target=node20 --external:vscode --outfile=out/extension.js --log-level=warning >&2
  npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository \
    --out "$vsix" >&2
fi
echo "$vsix"
