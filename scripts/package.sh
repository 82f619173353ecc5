#!/usr/bin/env bash
# Builds the installable packages of this platform from the release preset:
#   Linux: build/release/packages/hearth_<version>_<arch>.deb and hearth-<version>-linux-<arch>.tar.gz
# (Windows and macOS: run the same CMake steps there; CPack makes the NSIS installer / the DMG.)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${HEARTH_PRESET:-release}
scripts/deps.sh
# Packages carry CUDA kernels for every supported GPU generation (one architecture elsewhere).
cmake --preset "$preset" -DHEARTH_CUDA_RELEASE_ARCHS=ON
cmake --build --preset "$preset"
cpack --config "build/$preset/CPackConfig.cmake" -B "build/$preset/packages"
rm -rf "build/$preset/packages/_CPack_Packages"
ls -l "build/$preset/packages"
