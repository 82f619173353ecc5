#!/usr/bin/env bash
# One command to go from a fresh clone to the running desktop app:
# installs missing Debian packages, builds the release preset, starts Hearth.
# Arguments are passed to the app (e.g. --data-dir DIR, --screenshot FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset release
cmake --build --preset release
exec build/release/app/hearth "$@"
