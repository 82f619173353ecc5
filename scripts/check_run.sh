#!/usr/bin/env bash
# Runs the README's first command the way a user would, headless, on a build that already
# exists (scripts/test.sh passes its ci preset): scripts/run.sh with a model and --screenshot.
# Fails unless run.sh starts the app, the model loads, and a real PNG comes out.
# Usage: scripts/check_run.sh PRESET
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/check_run.sh PRESET}
out=build/$preset/run-check
rm -rf "$out" && mkdir -p "$out"
shot=$out/stories260K.png
model=${HEARTH_SHARED_DIR:-../shared}/models/stories260K.gguf
expect="model: ready"
if [ ! -f "$model" ]; then
  echo "check_run: $model not found; checking run.sh without a model"
  model=
  expect="model: none"
fi

log=$out/run.log
if ! QT_QPA_PLATFORM=offscreen HEARTH_PRESET=$preset \
    timeout 300 scripts/run.sh --data-dir "$out/data" --screenshot "$shot" ${model:+"$model"} \
    >"$log" 2>&1; then
  cat "$log"
  echo "check_run: FAILED: scripts/run.sh exited with an error"
  exit 1
fi
fail() { cat "$log"; echo "check_run: FAILED: $*"; exit 1; }
grep -qx "$expect" "$log" || fail "expected '$expect' in the app's output"
[ -f "$shot" ] || fail "no screenshot at $shot"
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$shot is not a PNG"
size=$(stat -c %s "$shot")
[ "$size" -gt 5000 ] || fail "$shot is only $size bytes (blank window?)"
echo "check_run: scripts/run.sh started $(tail -n 1 "$out/../hearth-location.txt" 2>/dev/null || echo hearth), $expect, $shot ($size bytes)"
echo "check_run: 1 passed, 0 failed"
