#!/usr/bin/env bash
# Installs the scripted ACP editor's one dependency, the official ACP TypeScript SDK (and the
# zod it needs beside it), at the versions in package-lock.json, for the acp tests.
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../npm-setup.sh" "$here" ci
