#!/usr/bin/env bash
# Two real processes on one data folder: the first `hearth` keeps running; a second start with
# a model path hands the model to it and exits 0; the first opens and loads that model.
# Usage: single_instance_check.sh HEARTH_EXECUTABLE WORK_DIR
set -uo pipefail
hearth=$1
work=$2
rm -rf "$work" && mkdir -p "$work/data"
model=${HEARTH_SHARED_DIR:-}/models/stories260K.gguf
if [ ! -f "$model" ]; then
  echo "SKIP: $model not found"
  exit 0
fi

"$hearth" --data-dir "$work/data" >"$work/first.log" 2>&1 &
first=$!
trap 'kill $first 2>/dev/null; wait $first 2>/dev/null' EXIT
fail() { echo "FAIL: $*"; echo "--- first:"; cat "$work/first.log"; exit 1; }

# The first start listens before it opens its database, so the database means it is ready.
for _ in $(seq 1 200); do
  [ -f "$work/data/chats.db" ] && break
  kill -0 $first 2>/dev/null || fail "the first instance exited"
  sleep 0.1
done
[ -f "$work/data/chats.db" ] || fail "the first instance did not start within 20 s"

timeout 30 "$hearth" --data-dir "$work/data" "$model" >"$work/second.log" 2>&1
rc=$?
cat "$work/second.log"
[ $rc -eq 0 ] || fail "the second start exited with $rc (expected 0 after handing over)"
grep -q "opened .*stories260K.gguf in the Hearth already running" "$work/second.log" ||
  fail "the second start did not say it handed the model over"

for _ in $(seq 1 300); do
  grep -q "model ready" "$work/first.log" && break
  kill -0 $first 2>/dev/null || fail "the first instance died"
  sleep 0.1
done
cat "$work/first.log"
grep -q "opening .*stories260K.gguf (from another start)" "$work/first.log" ||
  fail "the first instance did not receive the model"
grep -q "model ready: " "$work/first.log" || fail "the first instance did not load the model"
kill -0 $first 2>/dev/null || fail "the first instance is gone"
echo "single instance: 1 passed, 0 failed"
