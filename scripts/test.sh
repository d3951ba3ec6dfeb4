#!/bin/sh
# Builds and runs every test: a normal build, then the same suite under ASan + UBSan.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
JOBS=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$JOBS"
ctest --test-dir build --output-on-failure -j"$JOBS"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMFVIEW_SANITIZE=ON
cmake --build build-asan -j"$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS"

# The page in the browser (docs/web.md): built with emscripten, compared with pmfview shot in
# headless chromium.
sh scripts/web_test.sh
