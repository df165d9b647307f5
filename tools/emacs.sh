#!/usr/bin/env bash
# Installs Emacs for the copilot.el tests, once per machine: Debian's `emacs-nox` (28.2 on
# bookworm) with the Emacs packages copilot.el 0.2.0 needs that Emacs 28 does not ship
# (`editorconfig`, and `f` with its `s` and `dash`; `jsonrpc` 1.0.14 is built in). Prints the
# path of `emacs` on its last line.
set -euo pipefail
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.emacs.lock"
flock 9

packages=(emacs-nox elpa-editorconfig elpa-f)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/emacs.sh: installing ${missing[*]} with apt-get" >&2
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi
emacs=$(command -v emacs)
"$emacs" --version | head -n1 >&2
echo "$emacs"
