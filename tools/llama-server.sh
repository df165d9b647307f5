#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source that PyPI's llama-cpp-python source
# distribution carries, and a tiny random-weight GGUF code model for tests, both cached outside
# the work tree (PILOTFISH_CACHE, default ~/.cache/pilotfish) so that CI builds them once per
# machine. Prints the two paths (server, model) on its last two lines.
#
# Everything comes from registries: cmake, gguf and numpy from PyPI into a private virtualenv,
# the llama.cpp source inside the llama-cpp-python sdist, the vocabulary from a vocab-only GGUF
# file that sdist ships. Nothing is fetched at test time beyond this script.
set -euo pipefail
LLAMA_CPP_PYTHON_VERSION=0.3.36
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.llama.lock"
flock 9

venv="$cache/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c 'import gguf, numpy' 2>/dev/null || [ ! -x "$venv/bin/cmake" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check cmake gguf numpy >&2
fi

src="$cache/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
if [ ! -d "$src/vendor/llama.cpp" ]; then
  tmp=$(mktemp -d)
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$tmp" >&2
  tar -xzf "$tmp"/llama_cpp_python-*.tar.gz -C "$cache"
  mv "$cache/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION" "$src" 2>/dev/null || true
  rm -rf "$tmp"
fi

server="$cache/llama-server-$LLAMA_CPP_PYTHON_VERSION"
if [ ! -x "$server" ]; then
  echo "tools/llama-server.sh: building llama-server $LLAMA_CPP_PYTHON_VERSION into $cache, once per machine" \
    "(about 6 minutes on 2 cores); the tests that need it wait, which is not a hang" >&2
  build="$cache/build-$LLAMA_CPP_PYTHON_VERSION"
  "$venv/bin/cmake" -S "$src/vendor/llama.cpp" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF >&2
  "$venv/bin/cmake" --build "$build" --target llama-server -j "$(nproc)" >&2
  cp "$build/bin/llama-server" "$server"
  rm -rf "$build"
fi

model="$cache/tiny-deepseek-coder.gguf"
if [ ! -s "$model" ]; then
  "$venv/bin/python" "$(dirname "$0")/make-tiny-gguf.py" \
    "$src/vendor/llama.cpp/models/ggml-vocab-deepseek-coder.gguf" "$model" >&2
fi
echo "$server"
echo "$model"
