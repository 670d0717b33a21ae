#!/usr/bin/env bash
# Runs the tests on each Node.js LTS line, not only on the node this machine has: the node binaries come
# from npm's node-<os>-<arch> packages (each ships bin/node), unpacked once into .cache/node/<line>/.
#
#   scripts/test-node-lts.sh                        the whole suite (npm test) on Node 20, then on Node 22
#   scripts/test-node-lts.sh test/a.test.ts ...     only these test files (npx tap FILES) on each line
#   NODE_LINES="22 24" scripts/test-node-lts.sh     other lines
#
# The default lines are package.json's engines, the lines the pinned uWebSockets.js (uws-pack 20.0.8) ships a
# binary for (test/readme/node-lines.test.ts checks both). Node 24 runs only when NODE_LINES names it: that
# uWebSockets.js has no binary for its ABI (137), so it fails at once with one line saying so.
#
# A line's binary is fetched once and kept: `rm -rf .cache/node` fetches the newest of each line again.
# Every line runs even when one fails; the exit code is 1 when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=$root/.cache/node
default_lines="20 22"
lines=${NODE_LINES:-$default_lines}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "test-node-lts: no node-<os>-<arch> package for $(uname -s)" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "test-node-lts: no node-<os>-<arch> package for $(uname -m)" >&2; exit 2 ;;
esac

# Unpacks the newest node-<os>-<arch>@<line> into $cache/<line> unless it is there already.
fetch_node() {
  local line=$1 dir=$cache/$1
  [ -x "$dir/bin/node" ] && return 0
  local work
  work=$(mktemp -d)
  echo "test-node-lts: fetching node-$os-$arch@$line from npm"
  local tarball
  tarball=$(cd "$work" && npm pack --silent "node-$os-$arch@$line" | tail -n 1)
  tar -xzf "$work/$tarball" -C "$work"
  [ -x "$work/package/bin/node" ] || { echo "test-node-lts: $tarball has no bin/node" >&2; rm -rf "$work"; return 1; }
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$work/package" "$dir"
  rm -rf "$work"
}

# The native modules ship one binary per Node ABI (uWebSockets.js) or an N-API one (lmdb, msgpackr-extract):
# load them first, so that a line they do not support fails with one clear line, not with every test.
native_modules_load() {
  local line=$1 output
  if output=$(PATH="$cache/$line/bin:$PATH" node --input-type=module \
    -e "await import('uWebSockets.js'); await import('lmdb'); await import('msgpackr')" 2>&1); then
    return 0
  fi
  echo "test-node-lts: Node $line (ABI $("$cache/$line/bin/node" -p process.versions.modules)) cannot load a native module:" \
    "$(echo "$output" | grep -m 1 -E '^[A-Za-z]*Error' || echo "$output" | tail -n 1)" >&2
  return 1
}

failed=()
for line in $lines; do
  if ! fetch_node "$line"; then failed+=("$line (no binary)"); continue; fi
  echo "test-node-lts: Node $("$cache/$line/bin/node" --version)"
  if ! native_modules_load "$line"; then failed+=("$line (native module)"); continue; fi
  # npm, npx and tap start `node` from PATH (and tap its workers from process.execPath): all run on this line.
  if [ $# -eq 0 ]; then
    PATH="$cache/$line/bin:$PATH" npm test || failed+=("$line")
  else
    PATH="$cache/$line/bin:$PATH" npx tap "$@" || failed+=("$line")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "test-node-lts: failed on Node ${failed[*]}" >&2
  exit 1
fi
echo "test-node-lts: passed on Node $lines"
