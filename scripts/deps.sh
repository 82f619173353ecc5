#!/usr/bin/env bash
# Installs the Debian packages Hearth needs, only those that are missing. Idempotent: when
# everything is present it touches nothing and needs no network.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config git ccache python3 clang libclang-rt-14-dev
  qt6-base-dev qt6-declarative-dev qt6-tools-dev qt6-l10n-tools libqt6sql6-sqlite
  qml6-module-qtquick qml6-module-qtquick-window qml6-module-qtquick-controls
  qml6-module-qtquick-templates qml6-module-qtquick-layouts qml6-module-qtquick-dialogs
  qml6-module-qtqml-workerscript qml6-module-qt-labs-folderlistmodel qml6-module-qt-labs-platform
  qml6-module-qttest
  libvulkan-dev glslc glslang-tools spirv-tools mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  libsqlite3-dev sqlite3 libpcre2-dev libgtest-dev nlohmann-json3-dev libcpp-httplib-dev curl
  libqt6svg6 qtkeychain-qt6-dev
  xvfb xauth x11-utils imagemagick
  desktop-file-utils appstream shared-mime-info libglib2.0-bin dpkg-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi

echo "deps: missing: ${missing[*]}"
install_cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${install_cmd[@]}"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive "${install_cmd[@]}"
else
  echo "deps: not root. Run this once, then try again:" >&2
  echo "  sudo apt-get update && sudo ${install_cmd[*]}" >&2
  exit 1
fi
