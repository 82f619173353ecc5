#!/usr/bin/env bash
# CTest entry server_openai_client: installs the pinned `openai` package (package.json +
# package-lock.json, `npm ci`) into NODE_DIR once, then runs test.mjs against hearth-cli serve.
# Exits 77 (CTest: skipped) when node or npm is not installed.
# Usage: run.sh HEARTH_CLI MODEL NODE_DIR
set -euo pipefail
cli=$1 model=$2 node_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node or npm not installed: skipping the openai client test"
  exit 77
fi
mkdir -p "$node_dir"
# Reinstall when the lock file changed.
if ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json" ||
   [ ! -d "$node_dir/node_modules/openai" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$here/test.mjs" "$node_dir/test.mjs"
exec node "$node_dir/test.mjs" "$cli" "$model"
