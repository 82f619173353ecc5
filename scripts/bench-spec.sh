#!/usr/bin/env bash
# Speculative decoding on a model that copies, the case drafters are for: makes the tinyllama-1.1b
# shape with `make-model --weights copying` (F16 target, Q4_0 draft from the same seed), a
# code-editing prompt (a source file of this repository, ~1.2k tokens, "rewrite this with one
# function renamed", then the reply's opening fence) and a random-token prompt, and runs
# `hearth-cli bench --spec` on them:
#   1. the Q4_0 model, code-editing prompt: none vs prompt lookup
#   2. the F16 model, code-editing prompt: none vs prompt lookup vs the Q4_0 draft model
#   3. the Q4_0 model, random-token prompt (nothing to look up): none vs prompt lookup
#
#   scripts/bench-spec.sh [-t THREADS] [-n N] [-r N]
#
# Models and prompts go to OUT (default build/bench-spec; ~3 GB); HEARTH_CLI defaults to
# build/release/bin/hearth-cli; VOCAB to ../shared/testdata/vocab/ggml-vocab-llama-spm.gguf.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=2 n_gen=128 reps=2
while getopts "t:n:r:" opt; do
  case $opt in
    t) threads=$OPTARG ;;
    n) n_gen=$OPTARG ;;
    r) reps=$OPTARG ;;
    *) sed -n 2,14p "$0" >&2; exit 2 ;;
  esac
done
hearth=${HEARTH_CLI:-build/release/bin/hearth-cli}
vocab=${VOCAB:-../shared/testdata/vocab/ggml-vocab-llama-spm.gguf}
out=${OUT:-build/bench-spec}
if [ ! -x "$hearth" ]; then
  echo "bench-spec: $hearth not built (cmake --preset release && cmake --build build/release)" >&2
  exit 1
fi
if [ ! -f "$vocab" ]; then
  echo "bench-spec: $vocab not found (set VOCAB to a llama SPM vocabulary GGUF)" >&2
  exit 1
fi
mkdir -p "$out"
for type in F16 Q4_0; do
  f="$out/tinyllama-copying-$type.gguf"
  [ -f "$f" ] || "$hearth" make-model --shape tinyllama-1.1b --type "$type" --vocab "$vocab" \
    --weights copying --seed 1 -o "$f"
done
src=engine/runtime/drafter_lookup.cpp
{
  printf '```cpp\n'
  cat "$src"
  printf '```\n\nRewrite this file with the function make_lookup_drafter renamed to '
  printf 'make_prompt_lookup_drafter.\n\n```cpp\n'
} > "$out/code-edit.txt"
common=(-n "$n_gen" -t "$threads" -r "$reps")
echo "## 1. Q4_0, code-editing prompt"
"$hearth" bench --spec -m "$out/tinyllama-copying-Q4_0.gguf" --lookup \
  --prompt-file "$out/code-edit.txt" "${common[@]}"
echo "## 2. F16 target, code-editing prompt, Q4_0 draft"
"$hearth" bench --spec -m "$out/tinyllama-copying-F16.gguf" --lookup \
  --draft-model "$out/tinyllama-copying-Q4_0.gguf" --prompt-file "$out/code-edit.txt" "${common[@]}"
echo "## 3. Q4_0, random-token prompt"
"$hearth" bench --spec -m "$out/tinyllama-copying-Q4_0.gguf" --lookup -p 512 "${common[@]}"
