#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source that PyPI's llama-cpp-python source
# distribution carries, and a tiny random-weight GGUF code model for tests, both cached outside
# the work tree (PILOTFISH_CACHE, default ~/.cache/pilotfish) so that CI builds them once per
# machine. Prints the two paths (server, model) on its last two lines.
#
# Everything comes from registries: cmake, gguf and numpy from PyPI into a private virtualenv,
# the llama.cpp source inside the llama-cpp-python sdist, the vocabulary from a vocab-only GGUF
# file that sdist ships. Nothing is fetched at test time beyond this script.
#
# The build is as short as it can be on two cores: only the `llama-server` target, with Ninja
# (from PyPI when the machine has none) and unity builds (several source files compiled as one
# unit; `tools/llama-server.cmake` builds the one library that refuses them file by file), at
# CMake's Release optimization (-O3) for ggml, llama and the server alike. A
# llama-server already built for this version is used whatever recipe built it. Each step
# prints its time.
set -euo pipefail
LLAMA_CPP_PYTHON_VERSION=0.3.36
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.llama.lock"
flock 9

say() { echo "tools/llama-server.sh: $*" >&2; }
# Runs a step and says how long it took.
timed() {
  local what="$1" start=$SECONDS
  shift
  "$@"
  say "$what took $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
}

venv="$cache/venv"
tools() {
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check cmake gguf numpy >&2
}
if [ ! -x "$venv/bin/python" ] || [ ! -x "$venv/bin/cmake" ] ||
  ! "$venv/bin/python" -c 'import gguf, numpy' 2>/dev/null; then
  timed "the Python tools (cmake, gguf, numpy from PyPI)" tools
fi

src="$cache/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
sources() {
  local tmp
  tmp=$(mktemp -d)
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$tmp" >&2
  tar -xzf "$tmp"/llama_cpp_python-*.tar.gz -C "$cache"
  mv "$cache/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION" "$src" 2>/dev/null || true
  rm -rf "$tmp"
}
if [ ! -d "$src/vendor/llama.cpp" ]; then
  timed "llama.cpp's source (the llama-cpp-python sdist from PyPI)" sources
fi

server="$cache/llama-server-$LLAMA_CPP_PYTHON_VERSION"
build() {
  # Ninja from PyPI when the machine has none (it starts compiling sooner than make and keeps
  # both cores busy).
  local ninja
  ninja=$(command -v ninja || true)
  if [ -z "$ninja" ]; then
    [ -x "$venv/bin/ninja" ] || "$venv/bin/pip" install --quiet --disable-pip-version-check ninja >&2
    ninja="$venv/bin/ninja"
  fi
  # A folder of its own for this recipe (a Makefile build left half-way by an older version of
  # this script is not reused by Ninja), emptied first: a build killed half-way starts again.
  local dir="$cache/build-ninja-$LLAMA_CPP_PYTHON_VERSION"
  rm -rf "$dir"
  "$venv/bin/cmake" -S "$src/vendor/llama.cpp" -B "$dir" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
    "-DCMAKE_PROJECT_llama.cpp_INCLUDE=$(cd "$(dirname "$0")" && pwd)/llama-server.cmake" \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DBUILD_SHARED_LIBS=OFF >&2
  "$venv/bin/cmake" --build "$dir" --target llama-server -j "$(nproc)" >&2
  # Copied beside its final name and renamed: a run killed half-way leaves no partial binary.
  cp "$dir/bin/llama-server" "$server.partial.$$"
  mv "$server.partial.$$" "$server"
  rm -rf "$dir"
}
if [ ! -x "$server" ]; then
  say "building llama-server $LLAMA_CPP_PYTHON_VERSION into $cache, once per machine" \
    "(only its own target, with Ninja and unity builds; several minutes on 2 cores); the tests" \
    "that need it wait, which is not a hang"
  timed "building llama-server" build
fi

model="$cache/tiny-deepseek-coder.gguf"
if [ ! -s "$model" ]; then
  timed "the tiny test model" "$venv/bin/python" "$(dirname "$0")/make-tiny-gguf.py" \
    "$src/vendor/llama.cpp/models/ggml-vocab-deepseek-coder.gguf" "$model" >&2
fi
echo "$server"
echo "$model"
