#!/usr/bin/env bash
# Fetches the real bundles the unbundler's tests and benchmark take apart, published on npm
# and not built by this project, into PILOTFISH_CACHE (default ~/.cache/pilotfish), once per
# machine: GitHub Copilot's language server at two versions (esbuild, minified: 1.290.0 with
# its source map, 1.539.0 at 10.7 MB, which needs node 22 or later) and pnpm (esbuild, not
# minified, `__commonJS` and `__esm` by name), Yarn 4's `bin/yarn.js` (esbuild, minified, the
# whole bundle inside an arrow called at once), the Tailwind CSS language server (esbuild,
# minified, its native modules beside it) and Yarn 1's `lib/cli.js` (webpack 4, with a webpack
# bundle inside one of its modules). Only the tarballs are fetched (`npm pack`): the
# tests run the bundle files themselves, not an installed package. Prints the folder on its
# last line; each package is in `NAME-VERSION/package` under it. Also fetches node 24
# (tools/node24.sh) for the 1.539.0 server.
#
# Then the corpus (corpus.tsv beside this script): every package of it at its pinned version,
# into `FOLDER/package` with FOLDER the package's name without `@`, `/` written `-`, then
# `-VERSION`. Each package is fetched once and marked done; a run stopped half way starts
# again at the first package not done. A lock keeps two runs (two test binaries) from
# fetching at once. Progress goes to standard error. Last, for the corpus lines whose
# `dependencies` column says `installed`, the dependencies their tarball does not hold (below).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}"
dir="$cache/real-bundles"
mkdir -p "$dir"
exec 7>"$dir/.lock"
flock 7
# What a run stopped while fetching left.
rm -rf "$dir"/.fetch.*

fetch() {
  local package=$1 version=$2 folder=$3
  [ -f "$dir/$folder/.pilotfish-done" ] && return 0
  echo "tools/real-bundles/setup.sh: fetching $package@$version into $dir/$folder" >&2
  local work
  work=$(mktemp -d "$dir/.fetch.XXXXXX")
  (cd "$work" && npm pack --silent "$package@$version" >/dev/null && tar xzf ./*.tgz && rm ./*.tgz)
  rm -rf "${dir:?}/$folder"
  mv "$work" "$dir/$folder"
  touch "$dir/$folder/.pilotfish-done"
}

fetch @github/copilot-language-server 1.290.0 copilot-language-server-1.290.0
fetch @github/copilot-language-server 1.539.0 copilot-language-server-1.539.0
fetch pnpm 9.15.0 pnpm-9.15.0
fetch @yarnpkg/cli-dist 4.5.0 yarnpkg-cli-dist-4.5.0
fetch @tailwindcss/language-server 0.14.1 tailwindcss-language-server-0.14.1
fetch yarn 1.22.22 yarn-1.22.22
# The corpus: each package once, however many of its bundles the corpus lists.
corpus=$(grep -v '^#' "$here/corpus.tsv" | awk -F'\t' 'NF >= 3 { print $2 "\t" $3 }' | sort -u)
total=$(printf '%s\n' "$corpus" | grep -c .)
n=0
while IFS=$'\t' read -r package version; do
  n=$((n + 1))
  folder="$(printf '%s' "$package" | tr -d '@' | tr '/' '-')-$version"
  if [ ! -f "$dir/$folder/.pilotfish-done" ]; then
    echo "tools/real-bundles/setup.sh: corpus package $n of $total" >&2
  fi
  fetch "$package" "$version" "$folder"
done <<<"$corpus"
# The dependencies of the corpus lines marked `installed` (their tarballs do not hold them):
# the production dependencies the package's package.json declares (`installed NAME...`: only
# those, at the ranges it declares, when npm cannot install the whole set), installed once into
# FOLDER/deps/node_modules, beside the package and never in it, from a package.json of ours
# (the package's scripts, workspaces and devDependencies left out). `--before` resolves every
# range as npm did on a fixed day, so two machines install the same versions without a lockfile
# of ours to keep (npm writes one beside, for the record); `--ignore-scripts` runs no package's
# install code, so nothing is built or downloaded here: native packages work only where the
# registry package holds a prebuilt binary (sharp's, esbuild's and rollup's do);
# `--legacy-peer-deps` installs what is declared and no peers (Letta's own react conflicts with
# a peer). The done-marker holds what was asked, so a changed corpus line installs again. The
# tests link FOLDER/deps/node_modules beside each run's copy of the package, for bundle and
# output alike. `fake:NAME` among the names installs the FAKE stand-in tools/real-bundles/
# fakes/NAME under that name instead (copied, not linked): a package that imports NAME as it
# starts but cannot have it here (Copilot CLI's node-pty: no prebuilt Linux binary in the
# registry) then starts, and the stand-in throws, saying so, if it is used.
before=2026-11-01
deps() {
  local folder=$1 only=$2
  local want="before $before; only: $only"
  case " $only " in
    *" fake:"*) want="$want; fakes: $(cat "$here"/fakes/*/* | sha256sum | cut -d' ' -f1)" ;;
  esac
  [ "$(cat "$dir/$folder/deps/.pilotfish-done" 2>/dev/null)" = "$want" ] && return 0
  echo "tools/real-bundles/setup.sh: installing the dependencies of $folder (npm, before $before)" >&2
  local work
  work=$(mktemp -d "$dir/.fetch.XXXXXX")
  node -e '
    const p = require(process.argv[1]);
    const all = process.argv[3].split(" ").filter(Boolean);
    const fakes = all.filter((name) => name.startsWith("fake:")).map((name) => name.slice(5));
    // `NAME@VERSION` installs that version instead of the declared range (svelte-check 2
    // declares typescript "*", which today resolves to one it cannot run with).
    const pinned = Object.fromEntries(all.filter((name) => name.lastIndexOf("@") > 0)
      .map((name) => [name.slice(0, name.lastIndexOf("@")), name.slice(name.lastIndexOf("@") + 1)]));
    const only = all.filter((name) => !name.startsWith("fake:"))
      .map((name) => (name.lastIndexOf("@") > 0 ? name.slice(0, name.lastIndexOf("@")) : name));
    const pick = (all) => Object.fromEntries(Object.entries(all || {})
      .filter(([name]) => only.length === 0 || only.includes(name)));
    const own = { name: "pilotfish-corpus-deps", version: "0.0.0", private: true,
      dependencies: pick(p.dependencies), optionalDependencies: pick(p.optionalDependencies) };
    // A peer dependency is installed only when named (svelte-check needs its svelte).
    if (only.length) Object.assign(own.dependencies, pick(p.peerDependencies));
    for (const [name, version] of Object.entries(pinned)) if (name in own.dependencies) own.dependencies[name] = version;
    for (const name of fakes) own.dependencies[name] = "file:" + require("path").join(process.argv[4], "fakes", name);
    const missing = only.filter((name) => !(name in own.dependencies || name in own.optionalDependencies));
    if (missing.length) throw new Error(`${process.argv[1]} declares no ${missing.join(", ")}`);
    require("fs").writeFileSync(process.argv[2], JSON.stringify(own, null, 2) + "\n");
  ' "$dir/$folder/package/package.json" "$work/package.json" "$only" "$(cd "$here" && pwd)"
  (cd "$work" && npm install --silent --omit=dev --omit=peer --no-audit --no-fund \
    --ignore-scripts --legacy-peer-deps --install-links --before="$before" >&2)
  rm -rf "${dir:?}/$folder/deps"
  mv "$work" "$dir/$folder/deps"
  printf '%s' "$want" >"$dir/$folder/deps/.pilotfish-done"
}
installed=$(grep -v '^#' "$here/corpus.tsv" |
  awk -F'\t' '$9 ~ /^installed( |$)/ { sub(/^installed */, "", $9); print $2 "\t" $3 "\t" $9 }' |
  sort -u)
while IFS=$'\t' read -r package version only; do
  [ -n "$package" ] || continue
  deps "$(printf '%s' "$package" | tr -d '@' | tr '/' '-')-$version" "$only"
done <<<"$installed"
bash "$here/../node24.sh" >/dev/null
echo "$dir"
