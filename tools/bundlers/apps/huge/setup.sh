#!/usr/bin/env bash
# Installs the huge app's two packages (TypeScript and Babel) at the versions its lock file
# pins, for the unbundle benchmark only (the bundlers first: the app is built with them).
set -euo pipefail
here=$(dirname "$0")
bash "$here/../../setup.sh" >/dev/null
exec bash "$here/../../../npm-setup.sh" "$here" ci
