#!/bin/sh
# Installs every Debian package pmfview needs to build, test and benchmark.
# Idempotent; run as root (or through sudo) on Debian 12.
set -eu
PACKAGES="build-essential cmake pkg-config clang libclang-rt-14-dev
  libsdl2-dev libcglm-dev liblz4-dev python3-glad libstb-dev libcjson-dev libpng-dev libjpeg62-turbo-dev
  libegl-dev libgl-dev libgl1-mesa-dri libegl-mesa0
  xvfb xdotool xauth
  gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix mingw-w64-tools libz-mingw-w64-dev nasm dpkg-dev
  wine wine64"
# The last two lines: the Windows build (scripts/windows.sh builds the other dependencies from
# Debian's source packages through a private source list of its own) and its tests under wine.

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
