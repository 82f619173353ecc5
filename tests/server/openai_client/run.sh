#!/usr/bin/env bash
# The official `openai` npm client against hearth-cli serve (CTest: server_openai_client).
#   run.sh NODE_DIR                    install the pinned package (package.json +
#                                      package-lock.json, `npm ci`) into NODE_DIR only
#   run.sh NODE_DIR HEARTH_CLI MODEL   install if needed, then run test.mjs
# node_modules live in NODE_DIR (the build tree), never in the source tree. Exits 77 (CTest:
# skipped) when node or npm is not installed.
set -euo pipefail
node_dir=$1
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node or npm not installed: skipping the openai client test"
  exit 77
fi
mkdir -p "$node_dir"
# (Re)install when the lock file changed or nothing is installed yet.
if ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json" ||
   [ ! -d "$node_dir/node_modules/openai" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
[ $# -eq 1 ] && exit 0
cp "$here/test.mjs" "$node_dir/test.mjs"
exec node "$node_dir/test.mjs" "$2" "$3"
