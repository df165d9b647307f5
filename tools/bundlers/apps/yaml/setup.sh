#!/usr/bin/env bash
# Installs the yaml app's package (js-yaml) at the version its lock file pins, for the
# unbundler's tests (the bundlers first: the app is built with them).
set -euo pipefail
here=$(dirname "$0")
bash "$here/../../setup.sh" >/dev/null
exec bash "$here/../../../npm-setup.sh" "$here" ci
