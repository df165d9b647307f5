#!/usr/bin/env bash
# Installs wakaru at the version pinned in package.json, for the unbundle benchmark only.
# `install` rather than `ci`: the lock file npm writes for wakaru leaves out its prebuilt
# binaries for other platforms, which `npm ci` then refuses.
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../npm-setup.sh" "$here" install
