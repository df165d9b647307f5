#!/usr/bin/env bash
# Gives the copilot.el tests an Emacs 30, once per machine, never at the cost of what the user
# installed. Emacs 30 ships what copilot.el's current releases need (`track-changes`, `compat`,
# `jsonrpc`, `editorconfig`); copilot.el 0.2.0 also needs `f` (with `s` and `dash`), Debian's
# `elpa-f`.
#
# - An Emacs 30 or later on PATH is used as it is.
# - An older Emacs on PATH is left alone: the script says so and how to get Emacs 30, and fails
#   (PILOTFISH_EMACS_UPGRADE=1 lets it install Debian's Emacs 30 over it).
# - What is missing is installed with apt, after simulating the install (`apt-get -s`): a plan
#   that removes or downgrades any package is refused with the packages named, except the
#   removal of a package Emacs 30 itself provides at a newer version (Debian's Emacs 30
#   `Provides: elpa-editorconfig (= 0.11.0)` and breaks the older `elpa-editorconfig`).
# - Where the machine's sources have no Emacs 30 and it is Debian 12 (bookworm), a
#   bookworm-backports source is added in a file of its own
#   (`sources.list.d/pilotfish-bookworm-backports.sources`) and `emacs-nox` taken from there.
#
# Prints the path of `emacs` on its last line; progress on standard error.
set -euo pipefail
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
mkdir -p "$cache"
exec 9>"$cache/.emacs.lock"
flock 9

say() { echo "tools/emacs.sh: $*" >&2; }

# What copilot.el 0.2.0 needs beyond Emacs 30.
extras=(elpa-f)

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

# The major version of the Emacs at $1 ("GNU Emacs 30.1" gives 30), or nothing.
emacs_major() {
  "$1" --version 2>/dev/null | head -n1 | sed -n 's/^GNU Emacs \([0-9][0-9]*\)\..*/\1/p'
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The major version of the emacs-nox that apt would install now (epoch dropped), or 0.
candidate_major() {
  local v
  v=$(apt-cache policy emacs-nox 2>/dev/null | awk '/Candidate:/ {print $2}')
  v=${v#*:}
  v=${v%%.*}
  [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo 0
}

# The apt options that select an Emacs 30: none when the sources have one; on bookworm,
# `-t bookworm-backports`, after adding that source in a file of its own if no source names it.
emacs30_source() {
  if [ "$(candidate_major)" -ge 30 ]; then
    return
  fi
  local codename=""
  # shellcheck disable=SC1090
  codename=$(. "${PILOTFISH_OS_RELEASE:-/etc/os-release}" && echo "${VERSION_CODENAME:-}")
  if [ "$codename" != bookworm ]; then
    say "apt has no Emacs 30 here (emacs-nox $(candidate_major)); install Emacs 30 or later yourself, then run this again"
    exit 1
  fi
  local SOURCEPARTS="" SOURCELIST=""
  eval "$(apt-config shell SOURCEPARTS Dir::Etc::sourceparts/d SOURCELIST Dir::Etc::sourcelist/f)"
  if ! grep -rqs 'bookworm-backports' "$SOURCELIST" "$SOURCEPARTS"; then
    local file="${SOURCEPARTS%/}/pilotfish-bookworm-backports.sources"
    say "adding Debian's bookworm-backports source (for emacs-nox 30) in $file"
    printf '%s\n' \
      '# Added by pilotfish'"'"'s tools/emacs.sh for Emacs 30 (emacs-nox); delete this file to remove it.' \
      'Types: deb' \
      'URIs: http://deb.debian.org/debian' \
      'Suites: bookworm-backports' \
      'Components: main' \
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
      "${as_root[@]}" tee "$file" >/dev/null
  fi
  "${as_root[@]}" apt-get update -qq >&2
  echo "-t bookworm-backports"
}

# The versions of the packages the plan's emacs-common provides: "name version" lines.
provided_by_emacs() {
  local plan="$1" version
  version=$(awk '$1 == "Inst" && $2 == "emacs-common" {
      v = ($3 ~ /^\[/) ? $4 : $3; gsub(/[()]/, "", v); print v }' <<<"$plan")
  [ -n "$version" ] || return 0
  apt-cache show "emacs-common=$version" 2>/dev/null |
    sed -n 's/^Provides: //p' | head -n1 | tr ',' '\n' |
    sed -n 's/^ *\([^ ]*\) *(= *\([^)]*\)).*/\1 \2/p'
}

# Fails, naming them, when the simulated plan removes or downgrades a package, except the
# removal of one the new Emacs provides at a newer version.
check_plan() {
  local plan="$1" what="$2" refused=() action name old new given
  local provided
  provided=$(provided_by_emacs "$plan")
  while read -r action name old new _; do
    old=${old#[}
    old=${old%]}
    case "$action" in
      Remv | Purg)
        given=$(awk -v p="$name" '$1 == p {print $2}' <<<"$provided")
        if [ -n "$given" ] && dpkg --compare-versions "$given" gt "$old"; then
          say "$name $old goes: the new Emacs provides it at $given"
        else
          refused+=("remove $name $old")
        fi
        ;;
      Inst)
        # An upgrade or downgrade names the installed version in brackets.
        [ -n "$old" ] || continue
        new=${new#(}
        if [ -n "$new" ] && dpkg --compare-versions "$new" lt "$old"; then
          refused+=("downgrade $name $old to $new")
        fi
        ;;
    esac
  done < <(awk '$1 == "Remv" || $1 == "Purg" {print $1, $2, $3}
                $1 == "Inst" && $3 ~ /^\[/ {print $1, $2, $3, $4}' <<<"$plan")
  if [ ${#refused[@]} -gt 0 ]; then
    say "refused: apt would $(IFS=';'; echo "${refused[*]}" | sed 's/;/, /g') to install $what; nothing was changed. Install Emacs 30 (and elpa-f) yourself, or free the way for them, then run this again"
    exit 1
  fi
}

emacs=$(command -v emacs || true)
want_emacs=1
if [ -n "$emacs" ]; then
  major=$(emacs_major "$emacs")
  if [ "${major:-0}" -ge 30 ]; then
    want_emacs=0
  elif [ "${PILOTFISH_EMACS_UPGRADE:-}" != 1 ]; then
    say "$("$emacs" --version 2>/dev/null | head -n1) at $emacs is older than the copilot.el tests need (Emacs 30, which ships track-changes and compat); it is left alone. Install Emacs 30 yourself (on Debian 12, emacs-nox from bookworm-backports), or run PILOTFISH_EMACS_UPGRADE=1 bash tools/emacs.sh to have this script install it (it refuses any plan that removes or downgrades a package)"
    exit 1
  fi
fi

missing=()
[ "$want_emacs" = 1 ] && missing+=(emacs-nox)
for p in "${extras[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  source_opts=()
  if [ "$want_emacs" = 1 ]; then
    # Its own line: a failure there ends the script.
    opts=$(emacs30_source)
    read -r -a source_opts <<<"$opts"
  else
    "${as_root[@]}" apt-get update -qq >&2 || true
  fi
  args=(--no-install-recommends "${source_opts[@]}" "${missing[@]}")
  plan=$(apt-get -s install "${args[@]}" 2>&1) || {
    say "apt cannot install ${missing[*]}: $plan"
    exit 1
  }
  check_plan "$plan" "${missing[*]}"
  say "installing ${missing[*]} with apt-get"
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${args[@]}" >&2
  hash -r
fi
emacs=$(command -v emacs || true)
major=$([ -n "$emacs" ] && emacs_major "$emacs" || true)
if [ "${major:-0}" -lt 30 ]; then
  say "no Emacs 30 on PATH after the install (${emacs:-no emacs}); install Emacs 30 yourself"
  exit 1
fi
"$emacs" --version | head -n1 >&2
echo "$emacs"
