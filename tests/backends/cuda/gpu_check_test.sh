#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU: --dry-run prints its plan and one JSON summary as the last
# line; without an NVIDIA GPU a real run stops at once with exit status 3 and says why.
set -euo pipefail
root=${1:?usage: gpu_check_test.sh REPO_ROOT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(GPU_CHECK_BUILD=$tmp/build GPU_CHECK_MODELS=$tmp/models "$root/scripts/gpu-check.sh" all --dry-run 2>"$tmp/plan")
last=$(tail -n 1 <<<"$out")
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["dry_run"] is True and d["mode"] == "all", d' "$last"
grep -q -- '--backend cuda --gpu-layers all -p 512 -n 128' "$tmp/plan"
grep -q -- 'make-model --shape llama3-8b --type Q4_K_M' "$tmp/plan"
grep -q -- 'compute-sanitizer\|memcheck\|gtest_filter=\*/cuda\*' "$tmp/plan"
[[ ! -e $tmp/build ]] || { echo "a dry run built something"; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1; then
    set +e
    msg=$(GPU_CHECK_BUILD=$tmp/build "$root/scripts/gpu-check.sh" cuda 2>&1)
    rc=$?
    set -e
    [[ $rc == 3 ]] || { echo "expected exit 3 without a GPU, got $rc: $msg"; exit 1; }
    grep -q 'no NVIDIA GPU here' <<<"$msg" || { echo "unclear message: $msg"; exit 1; }
    [[ ! -e $tmp/build ]] || { echo "built without a GPU"; exit 1; }
fi
"$root/scripts/gpu-check.sh" bogus >/dev/null 2>&1 && { echo "bad argument accepted"; exit 1; }
echo "gpu-check.sh: dry run and no-GPU paths ok"
