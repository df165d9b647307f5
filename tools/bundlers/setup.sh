#!/usr/bin/env bash
# Installs the pinned bundlers (webpack 5 with terser, webpack 4, esbuild) and the registry
# packages the unbundler's test bundles are built from, at the versions in package-lock.json.
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../npm-setup.sh" "$here" ci
