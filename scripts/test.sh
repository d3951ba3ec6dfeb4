#!/bin/sh
# Builds and runs every test: a normal build, the same suite under ASan + UBSan, then the Windows
# build (scripts/windows.sh) under wine: its own suite, and tests/windows against the Linux build;
# then the page (scripts/web.sh) in headless chromium against the Linux build.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
JOBS=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$JOBS"
# peer_long: a comparison with ericw-tools whose first run takes 40 minutes of their light
# (tests/tools/bsp/CMakeLists.txt); `ctest --test-dir build -L peer_long` runs it
ctest --test-dir build --output-on-failure -j"$JOBS" -LE peer_long

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_SANITIZE=ON
cmake --build build-asan -j"$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS"

# The Windows leg (docs/windows.md). wine runs in a prefix of its own outside the checkout, made
# once by windows.sh. One X server for the whole leg: wine's desktop process, started by wineboot
# and kept by the persistent wineserver, draws on the display it started with, so every test
# (the Windows build's suite, then tests/windows from the Linux build) runs inside the same
# xvfb-run. wineboot also starts wine's services before ctest, whose pipes they would hold open.
sh scripts/windows.sh --tests
WINEPREFIX=${PMFVIEW_WINEPREFIX:-${PMFVIEW_DEPS_CACHE:-$HOME/.cache/pmfview-deps}/wine-prefix}
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" JOBS
wineserver -k 2>/dev/null || true   # a server left from an earlier run keeps its own display
xvfb-run -a -s "-screen 0 1024x768x24" sh -c '
    set -eu
    wineserver -p
    trap "wineserver -k 2>/dev/null || true" EXIT
    wineboot >/dev/null 2>&1 || true
    ctest --test-dir build-win --output-on-failure -j"$JOBS"
    PMFVIEW_WINDOWS_BUILD="$(pwd)/build-win" ctest --test-dir build --output-on-failure -L windows'

# The page in the browser (docs/web.md): built with emscripten, compared with pmfview shot in
# headless chromium.
sh scripts/web_test.sh
