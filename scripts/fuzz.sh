#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (the engine, plus Qt Core and SQLite for chat import;
# not the app or the tests) and runs each for
# SECONDS (default 60) on its committed seed corpus. CI runs `scripts/fuzz.sh 15` from
# scripts/test.sh as a smoke; a long campaign is e.g. `nice -n 19 scripts/fuzz.sh 3600`.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#     targets: gguf tokenizer chat kv_file model_file chat_import openai_request json_mode
#     (chat_import needs Qt6 Core; openai_request reads stories260K from ../shared)
#
# Working corpora grow in build/fuzz/corpus/TARGET (kept between runs); the committed seeds in
# tests/fuzz/TARGET/seeds are read on every run, so a crashing input copied there becomes a
# regression test that CI's smoke re-runs. model_file's seeds are made here with hearth-cli from
# ../shared's stories260K tokenizer (a tiny model and its INT4 conversion), not copied into the
# repository.
# Exit status: 0 when no target found anything; 1 otherwise (the crashing inputs are listed).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] &&
  targets=(gguf tokenizer chat kv_file model_file chat_import openai_request json_mode)
jobs=$(nproc 2>/dev/null || echo 2)
build=build/fuzz
shared=${HEARTH_SHARED_DIR:-$(cd .. && pwd)/shared}

if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found (apt-get install clang)" >&2
  exit 1
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHEARTH_FUZZ=ON -DHEARTH_APP=OFF -DHEARTH_TESTS=OFF -DHEARTH_VULKAN=OFF -DHEARTH_CUDA=OFF \
    >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do
  if [ "$t" = chat_import ] && ! grep -q 'chat_import_fuzz' "$build/build.ninja"; then
    echo "fuzz: chat_import skipped (configure found no Qt6 Core or SQLite3)" >&2
    continue
  fi
  build_targets+=("${t}_fuzz")
done
targets=("${build_targets[@]%_fuzz}")
# model_file's seeds need a hearth-cli: the one CI's build made, else one built here.
cli=
if [[ " ${targets[*]} " == *" model_file "* ]] && [ -f "$shared/models/stories260K.gguf" ]; then
  for c in build/ci/bin/hearth-cli build/release/bin/hearth-cli build/dev/bin/hearth-cli; do
    [ -x "$c" ] && cli=$c && break
  done
  if [ -z "$cli" ]; then
    build_targets+=(hearth-cli)
    cli=$build/bin/hearth-cli
  fi
fi
cmake --build "$build" -j "$jobs" --target "${build_targets[@]}"

# model_file seeds: a tiny llama (64 wide, 2 layers) in Q4_0 with stories260K's tokenizer, and
# the INT4 conversion of its F16 twin (an INT4 cache file). At about 100 KB each, 1,500 mutated
# runs took 7.1 s of CPU here against 16.8 s from stories260K itself (1.2 MB).
model_seeds=$build/seeds/model_file
mkdir -p "$model_seeds"
if [ -n "$cli" ] && [ ! -f "$model_seeds/tiny-llama-int4.gguf" ]; then
  rm -f "$model_seeds"/*.gguf
  vocab=$shared/models/stories260K.gguf
  "$cli" make-model --shape tiny-llama --type Q4_0 --vocab "$vocab" \
    -o "$model_seeds/tiny-llama-q4_0.gguf" >/dev/null
  "$cli" make-model --shape tiny-llama --type F16 --vocab "$vocab" -o "$build/tiny-llama-f16.gguf" \
    >/dev/null
  "$cli" convert -m "$build/tiny-llama-f16.gguf" --int4 --rtn -t 1 \
    -o "$model_seeds/tiny-llama-int4.gguf" >/dev/null 2>&1
fi

found=0
summary=()
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/$t/${t}_fuzz
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  dirs=("$corpus")
  [ -d "tests/fuzz/$t/seeds" ] && dirs+=("tests/fuzz/$t/seeds")
  extra=()
  case $t in
    gguf) [ -d "$shared/testdata/vocab" ] && dirs+=("$shared/testdata/vocab")
          extra+=(-max_len=65536) ;;
    chat) extra+=(-dict=tests/fuzz/chat/jinja.dict) ;;
    chat_import) extra+=(-dict=tests/fuzz/chat_import/json.dict) ;;
    openai_request) extra+=(-dict=tests/fuzz/openai_request/request.dict) ;;
    json_mode) extra+=(-dict=tests/fuzz/json_mode/json.dict) ;;
    model_file) dirs+=("$model_seeds"); extra+=(-max_len=262144 -rss_limit_mb=4096) ;;
  esac
  log=$build/fuzz-$t.log
  echo "fuzz: $t for ${seconds}s"
  set +e
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 HEARTH_SHARED_DIR="$shared" \
    "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
    -artifact_prefix="$artifacts/" "${extra[@]}" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  corpus_n=$(find "$corpus" -type f | wc -l)
  if [ $rc -ne 0 ]; then
    found=1
    summary+=("$t: FOUND a problem after $execs runs (rc $rc), see $log and $artifacts/")
    tail -40 "$log" >&2
  else
    summary+=("$t: $execs runs in ${seconds}s, corpus $corpus_n files, nothing found")
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
if [ $found -ne 0 ]; then
  echo "fuzz: copy each crashing input into tests/fuzz/TARGET/seeds/ once fixed (a regression test)" >&2
fi
exit $found
