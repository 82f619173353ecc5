#!/usr/bin/env bash
# One command to run the whole test suite headless, as CI does:
# installs missing Debian packages, builds with warnings as errors, runs every test, then
# runs the engine tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then a
# short fuzz smoke (scripts/fuzz.sh 15: every libFuzzer target for 15 s on its seed corpus).
# Pass a CTest label to run a subset: scripts/test.sh engine   (labels: engine backends vulkan server
# app ui)
# Modes that are not part of the default run:
#   scripts/test.sh fuzz         only the fuzz smoke (FUZZ_SECONDS per target, default 15)
#   scripts/test.sh sanitizers   ThreadSanitizer: the engine, storage, engine worker and chat
#                                controller tests under the tsan preset (long: its own build)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc 2>/dev/null || echo 2)

label=${1:-}

if [ "$label" = fuzz ]; then
  exec scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
fi

if [ "$label" = sanitizers ]; then
  # The tests whose code runs on more than one thread: the CPU thread pool, sessions on the
  # shared KV cache, the engine API, storage (its own thread, crash and fault children) and
  # the app's engine worker and chat controller. tests/tsan.supp explains each suppression.
  tsan_tests=(cpu_thread_pool_test kv_cache_test runtime_session_test runtime_api_test
    runtime_scheduler_test
    app_storage_chat_store_test app_storage_crash_test app_storage_fault_test
    app_chat_session_test app_chat_controller_test app_chat_models_test app_api_server_test)
  tsan_targets=("${tsan_tests[@]}" app_storage_crash_helper)
  cmake --preset tsan
  cmake --build --preset tsan -j "$jobs" --target "${tsan_targets[@]}"
  regex="^($(IFS='|'; echo "${tsan_tests[*]}"))\$"
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp" \
    ctest --test-dir build/tsan --output-on-failure -j "$jobs" --timeout 1800 -R "$regex"
  exit 0
fi

ctest_args=(--output-on-failure -j "$jobs")
[ -n "$label" ] && ctest_args+=(-L "$label")

cmake --preset ci
cmake --build --preset ci -j "$jobs"
# The official openai npm client for server_openai_client, pinned by its package-lock.json
# (node_modules in the build tree). Without node/npm that test is skipped.
if [ -z "$label" ] || [ "$label" = server ]; then
  if command -v npm >/dev/null 2>&1; then
    tests/server/openai_client/run.sh build/ci/tests/server/node
  else
    echo "test.sh: npm not installed: server_openai_client will be skipped"
  fi
fi
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

if [ -z "$label" ]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
fi
