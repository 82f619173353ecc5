#!/usr/bin/env bash
# One command to go from a fresh clone to the running desktop app:
# installs missing Debian packages, builds the release preset, starts Hearth.
# Arguments are passed to the app (e.g. --data-dir DIR, --screenshot FILE, model.gguf).
# HEARTH_PRESET=NAME builds and starts another preset's build instead (scripts/test.sh runs
# this script on the ci build it has just made, so no second build is needed there).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${HEARTH_PRESET:-release}
scripts/deps.sh

log=$(mktemp)
cmake --preset "$preset" | tee "$log"
build_dir=$(sed -n 's/^-- Build files have been written to: //p' "$log" | tail -n 1)
rm -f "$log"
cmake --build --preset "$preset"

# Configure writes where the executable is (its real location, whatever the generator and
# platform make of it), so this script never guesses a path inside the build tree.
location="$build_dir/hearth-location.txt"
if [ -z "$build_dir" ] || [ ! -f "$location" ]; then
  echo "run.sh: configure did not say where hearth is built (expected $location)" >&2
  exit 1
fi
app=$(cat "$location")
if [ ! -x "$app" ]; then
  echo "run.sh: $app was not built" >&2
  exit 1
fi
exec "$app" "$@"
