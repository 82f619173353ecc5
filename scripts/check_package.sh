#!/usr/bin/env bash
# Tests the Linux packages as a user gets them (no root, no network), on a build that exists:
#   - the DEB's metadata, dependencies and files; its desktop entry and AppStream file validate;
#   - the DEB unpacked into a temporary root, and the .tar.gz unpacked into a folder whose name
#     has a space, each start offscreen with a model and --screenshot while the build tree is
#     moved out of reach (nothing may load from it);
#   - the MIME rule recognises a real GGUF by name and by its magic bytes.
# Usage: scripts/check_package.sh PRESET
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/check_package.sh PRESET}
build=build/$preset
away=build/.$preset-out-of-reach
[ -d "$away" ] && [ ! -d "$build" ] && mv "$away" "$build"  # an earlier run that was killed
out=$(mktemp -d)
trap '[ -d "$away" ] && mv "$away" "$build"; rm -rf "$out"' EXIT
passed=0
fail() { echo "check_package: FAILED: $*"; exit 1; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }

cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$out/packages" >"$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log"; fail "cpack"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
deb=$out/packages/hearth_${version}_${arch}.deb
tgz=$(ls "$out"/packages/hearth-"$version"-linux-*.tar.gz)
[ -f "$deb" ] || fail "no $deb"
ok "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) and $(basename "$tgz") ($(du -k "$tgz" | cut -f1) KiB)"

info=$(dpkg-deb --info "$deb")
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
for need in libqt6quick6 libqt6gui6 libsqlite3-0 libpcre2-8-0 qml6-module-qtquick-controls \
            qml6-module-qtquick-dialogs qml6-module-qtquick-layouts libqt6svg6; do
  grep -q "\b$need\b" <<<"$depends" || fail "the DEB does not depend on $need (Depends: $depends)"
done
ok "dependencies: $depends"
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for f in ./usr/bin/hearth ./usr/bin/hearth-cli ./usr/share/applications/app.hearth.Hearth.desktop \
         ./usr/share/mime/packages/app.hearth.Hearth-gguf.xml \
         ./usr/share/metainfo/app.hearth.Hearth.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/app.hearth.Hearth.svg \
         ./usr/share/icons/hicolor/256x256/apps/app.hearth.Hearth.png; do
  grep -qx "$f" <<<"$contents" || fail "the DEB lacks $f"
done
ok "the DEB holds the programs, desktop entry, MIME type, AppStream file and icons"

root=$out/deb-root
dpkg-deb -x "$deb" "$root"
desktop-file-validate "$root/usr/share/applications/app.hearth.Hearth.desktop" ||
  fail "desktop-file-validate"
grep -qx "MimeType=application/x-gguf;" "$root/usr/share/applications/app.hearth.Hearth.desktop" ||
  fail "the desktop entry does not open .gguf files"
ok "desktop entry validates and claims application/x-gguf"
appstreamcli validate --no-net "$root/usr/share/metainfo/app.hearth.Hearth.metainfo.xml" >/dev/null ||
  fail "appstreamcli validate"
ok "AppStream metainfo validates"
for exe in "$root/usr/bin/hearth" "$root/usr/bin/hearth-cli"; do
  if readelf -d "$exe" | grep -E "RPATH|RUNPATH" | grep -q "$PWD"; then
    fail "$exe keeps a path into the source or build tree: $(readelf -d "$exe" | grep -E 'RPATH|RUNPATH')"
  fi
done
ok "no RPATH into the build tree"

# The MIME rule, as the desktop sees it: by name, and by content for a file with another name.
model=${HEARTH_SHARED_DIR:-../shared}/models/stories260K.gguf
mime=$out/xdg/mime
mkdir -p "$mime/packages"
cp "$root/usr/share/mime/packages/app.hearth.Hearth-gguf.xml" "$mime/packages/"
update-mime-database "$mime" >/dev/null 2>&1
if [ -f "$model" ]; then
  sample=$model
else
  sample=$out/tiny.gguf && printf 'GGUF\3\0\0\0' >"$sample" && head -c 64 /dev/zero >>"$sample"
fi
cp "$sample" "$out/renamed.bin"
for f in "$sample" "$out/renamed.bin"; do
  type=$(XDG_DATA_DIRS="$out/xdg:/usr/share" gio info -a standard::content-type "$f" |
         sed -n 's/^ *standard::content-type: //p')
  [ "$type" = application/x-gguf ] || fail "$f is seen as '$type', not application/x-gguf"
done
ok "a GGUF is application/x-gguf by its name and by its magic bytes"

start() {  # start DIR-WITH-bin NAME
  local exe=$1/bin/hearth shot=$out/$2.png log=$out/$2.log
  local args=(--data-dir "$out/data-$2" --screenshot "$shot")
  local expect="model: none"
  if [ -f "$model" ]; then args+=("$(realpath "$model")"); expect="model: ready"; fi
  QT_QPA_PLATFORM=offscreen timeout 120 "$exe" "${args[@]}" >"$log" 2>&1 ||
    { cat "$log"; fail "$exe did not start"; }
  grep -qx "$expect" "$log" || { cat "$log"; fail "$exe: expected '$expect'"; }
  [ "$(stat -c %s "$shot")" -gt 5000 ] || fail "$shot is blank"
  ok "$2: $exe started, $expect, screenshot $(stat -c %s "$shot") bytes"
}

mkdir -p "$out/with space"
tar -xzf "$tgz" -C "$out/with space"
tree=$(ls -d "$out/with space"/hearth-*)
mv "$build" "$away"
start "$root/usr" deb
start "$tree" tgz
mv "$away" "$build"
echo "check_package: $passed passed, 0 failed"
