#!/usr/bin/env bash
# One command to run the whole test suite headless, as CI does:
# installs missing Debian packages, builds with warnings as errors, runs every test, then
# runs the engine tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Pass a CTest label to run a subset: scripts/test.sh engine   (labels: engine backends app ui)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc 2>/dev/null || echo 2)

label=${1:-}
ctest_args=(--output-on-failure -j "$jobs")
[ -n "$label" ] && ctest_args+=(-L "$label")

cmake --preset ci
cmake --build --preset ci -j "$jobs"
ctest --test-dir build/ci "${ctest_args[@]}"
# The README's first command, as a user runs it (headless, on the build just made).
if [ -z "$label" ] || [ "$label" = app ] || [ "$label" = ui ]; then
  scripts/check_run.sh ci
  scripts/check_package.sh ci
fi

if [ -z "$label" ] || [ "$label" = engine ] || [ "$label" = backends ]; then
  cmake --preset asan
  cmake --build --preset asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/asan "${ctest_args[@]}" -L 'engine|backends'
fi
