#!/usr/bin/env bash
# Installs the pinned bundlers (webpack 5 with terser, webpack 4, esbuild) and the registry
# packages the unbundler's test bundles are built from, at the versions in package-lock.json;
# then rollup 2 with its old CommonJS plugin, in rollup2/ (its own lock: that plugin's peer
# range excludes the rollup 4 above), tsup, in tsup/ (its own esbuild and rollup), and rslib on
# rspack, in rspack/ (their native binding, 121 MB with rsbuild).
set -euo pipefail
here=$(dirname "$0")
bash "$here/../npm-setup.sh" "$here" ci
bash "$here/../npm-setup.sh" "$here/rollup2" ci
bash "$here/../npm-setup.sh" "$here/tsup" ci
exec bash "$here/../npm-setup.sh" "$here/rspack" ci
