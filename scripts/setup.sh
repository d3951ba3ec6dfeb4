#!/bin/sh
# Installs every Debian package pmfview needs to build, test and benchmark.
# Idempotent; run as root (or through sudo) on Debian 12.
set -eu
PACKAGES="build-essential cmake pkg-config clang libclang-rt-14-dev
  libsdl2-dev libcglm-dev liblz4-dev python3-glad libstb-dev libcjson-dev libpng-dev libjpeg62-turbo-dev
  libegl-dev libgl-dev libgl1-mesa-dri libegl-mesa0
  xvfb xdotool xauth libx11-dev
  gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix mingw-w64-tools libz-mingw-w64-dev nasm dpkg-dev
  wine wine64
  emscripten chromium"
# The last three lines: the Windows build (scripts/windows.sh builds the other dependencies from
# Debian's source packages through a private source list of its own) and its tests under wine;
# the page (scripts/web.sh, the same way) and its tests in chromium.

# The page's test driver (docs/web.md): puppeteer-core from npm, beside the web dependency cache,
# driving Debian's chromium (it downloads no browser).
install_puppeteer() {
    dir="${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/web/node"
    [ -d "$dir/node_modules/puppeteer-core" ] && return 0
    mkdir -p "$dir"
    echo "setup: installing puppeteer-core into $dir" >&2
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error puppeteer-core@21 >/dev/null)
}

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -z "$missing" ]; then
    install_puppeteer
    exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
install_puppeteer
