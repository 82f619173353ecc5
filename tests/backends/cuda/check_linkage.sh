#!/usr/bin/env bash
# Nothing Hearth builds links the NVIDIA driver or the shared CUDA runtime: the CUDA plugin
# carries the runtime statically and opens libcuda.so.1 itself at run time. Then hearth-cli
# --version, on this machine, lists the cuda backend with the reason it is not used (no
# driver on CI) or its device.
# usage: check_linkage.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: check_linkage.sh BIN_DIR}
plugin=$bin/hearth-backend-cuda.so
[[ -f $plugin ]] || { echo "missing $plugin"; exit 1; }
status=0
for f in "$plugin" "$bin"/hearth "$bin"/hearth-cli "$bin"/hearth-server; do
    [[ -f $f ]] || continue
    needed=$(readelf -d "$f" | awk '/NEEDED/ {print $NF}' | tr -d '[]')
    if grep -Eq '^(libcuda\.so|libcudart\.so|libnvidia)' <<<"$needed"; then
        echo "FAIL: $f links the CUDA driver or shared runtime:"
        grep -E '^(libcuda|libcudart|libnvidia)' <<<"$needed"
        status=1
    else
        echo "ok: $(basename "$f") needs no libcuda/libcudart"
    fi
done
if [[ -x $bin/hearth-cli ]]; then
    out=$("$bin"/hearth-cli --version)
    echo "$out"
    line=$(grep -E '^  cuda' <<<"$out" || true)
    if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
        [[ -n $line ]] || { echo "FAIL: hearth-cli --version does not list cuda"; status=1; }
    elif ! grep -q 'no NVIDIA driver (libcuda.so.1 not found)' <<<"$line"; then
        echo "FAIL: without a driver, hearth-cli --version should say so for cuda: '$line'"
        status=1
    fi
fi
exit $status
