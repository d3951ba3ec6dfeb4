#!/bin/sh
# Builds the page (docs/web.md) into build-web/: index.html, pmfview.js / .wasm (no threads) and
# pmfview-mt.js / .wasm / .worker.js (worker threads, where the host isolates the page). Any
# static host serves the folder as it is. Needs emscripten (scripts/setup.sh); the libraries come
# from Debian's source packages through scripts/web_deps.sh, cached outside the checkout.
set -eu
cd "$(dirname "$0")/.."
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
JOBS=$(nproc)
PREFIX=$(sh scripts/web_deps.sh)
# two builds of the same sources: without threads, and with them (src/web/web.cmake)
for variant in st mt; do
    threads=OFF
    [ $variant = mt ] && threads=ON
    emcmake cmake -S . -B build-web-cmake/$variant -DCMAKE_BUILD_TYPE=Release -DPMFVIEW_WEB_DEPS="$PREFIX" \
        -DPMFVIEW_WEB_THREADS=$threads >/dev/null 2>&1
    log=build-web-cmake/$variant/build.log
    if ! cmake --build build-web-cmake/$variant -j"$JOBS" >"$log" 2>&1; then
        grep -E 'error|warning' "$log" >&2 || tail -20 "$log" >&2
        exit 1
    fi
    grep -E 'warning:' "$log" >&2 || true
done
mkdir -p build-web
cp src/web/index.html src/web/page.js build-web/
cp build-web-cmake/st/pmfview.js build-web-cmake/st/pmfview.wasm build-web/
cp build-web-cmake/mt/pmfview-mt.js build-web-cmake/mt/pmfview-mt.wasm build-web-cmake/mt/pmfview-mt.worker.js build-web/
echo "web: the page is in build-web/ (serve it: python3 -m http.server -d build-web)" >&2
