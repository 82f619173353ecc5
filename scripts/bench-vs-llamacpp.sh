#!/usr/bin/env bash
# Side by side: llama.cpp's llama-bench and `hearth-cli bench` on the same GGUF files, one right
# after the other per model, so the ratios come from one run on one machine (these hosts' memory
# reads 16-43 GB/s depending on the day: figures from different runs do not compare).
#
#   scripts/bench-vs-llamacpp.sh [-t THREADS] [-p N] [-n N] [-r N] MODEL.gguf...
#
# LLAMA_BENCH is the llama-bench command (default: llama-bench on PATH); it may be a wrapper
# script, e.g. one that runs a packaged build with its own loader. HEARTH_CLI defaults to
# build/release/bin/hearth-cli. Nothing is downloaded: bring your own llama.cpp build.
# Raw outputs go to OUT (default build/bench-vs-llamacpp); the table goes to stdout:
#   | model | llama.cpp pp | Hearth pp | x | llama.cpp tg | Hearth tg | x | Hearth tg / floor |
set -euo pipefail
cd "$(dirname "$0")/.."
threads=2 n_prompt=512 n_gen=128 reps=2
while getopts "t:p:n:r:" opt; do
  case $opt in
    t) threads=$OPTARG ;;
    p) n_prompt=$OPTARG ;;
    n) n_gen=$OPTARG ;;
    r) reps=$OPTARG ;;
    *) sed -n 2,12p "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  sed -n 2,12p "$0" >&2
  exit 2
fi
llama=${LLAMA_BENCH:-llama-bench}
hearth=${HEARTH_CLI:-build/release/bin/hearth-cli}
out=${OUT:-build/bench-vs-llamacpp}
if ! command -v "$llama" >/dev/null; then
  echo "bench-vs-llamacpp: '$llama' not found (set LLAMA_BENCH to your llama-bench)" >&2
  exit 1
fi
if [ ! -x "$hearth" ]; then
  echo "bench-vs-llamacpp: $hearth not built (cmake --preset release && cmake --build build/release)" >&2
  exit 1
fi
mkdir -p "$out"

echo "| model | llama.cpp pp$n_prompt | Hearth pp$n_prompt | × | llama.cpp tg$n_gen | Hearth tg$n_gen | × | Hearth tg / floor | read GB/s | Hearth ISA |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for model in "$@"; do
  name=$(basename "$model" .gguf)
  "$llama" -m "$model" -t "$threads" -p "$n_prompt" -n "$n_gen" -r "$reps" -o json \
    >"$out/$name.llama.json" 2>"$out/$name.llama.log" || {
    echo "| $name | llama-bench failed (exit $?, see $out/$name.llama.log) |"
    continue
  }
  "$hearth" bench -m "$model" -t "$threads" -p "$n_prompt" -n "$n_gen" -r "$reps" --json \
    >"$out/$name.hearth.json" 2>"$out/$name.hearth.log" || {
    echo "| $name | hearth-cli bench failed (exit $?, see $out/$name.hearth.log) |"
    continue
  }
  python3 - "$name" "$out/$name.llama.json" "$out/$name.hearth.json" <<'EOF'
import json, sys
name, llama_path, hearth_path = sys.argv[1:]
llama = json.load(open(llama_path))
hearth = json.load(open(hearth_path))
def llama_rate(prompt):
    for row in llama:
        if (row["n_prompt"] > 0) == prompt and (row["n_gen"] > 0) != prompt:
            return row["avg_ts"]
    return 0.0
lpp, ltg = llama_rate(True), llama_rate(False)
hpp, htg = hearth["pp_tok_s"], hearth["tg_tok_s"]
ratio = lambda h, l: f"{h / l:.2f}" if l > 0 else "-"
floor = hearth["tg_fraction_of_floor"]
print(f"| {name} | {lpp:.1f} | {hpp:.1f} | **{ratio(hpp, lpp)}** | {ltg:.2f} | {htg:.2f} | "
      f"**{ratio(htg, ltg)}** | {floor * 100:.0f}% | {hearth['read_bandwidth_gb_s']:.1f} | "
      f"{hearth['isa']}, prefetch {hearth.get('weight_prefetch', '-')} |")
EOF
done
